package semaphore_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	xsem "golang.org/x/sync/semaphore"

	"github.com/evsync/evsync/internal/testsupport/anchor"
	"github.com/evsync/evsync/semaphore"
)

// Benchmarks against the anchors (internal/testsupport/anchor); compare with
//
//	go test -run='^$' -bench=. -benchmem -count=6 ./semaphore > bench.txt
//	benchstat -col /impl bench.txt

// eachImpl runs f as a sub-benchmark impl=<name> for every semaphore
// implementation, on a fresh semaphore holding limit units.
func eachImpl(b *testing.B, limit uint64, f func(b *testing.B, s anchor.Semaphore)) {
	for _, impl := range anchor.Semaphores() {
		b.Run("impl="+impl.Name, func(b *testing.B) {
			s, err := impl.New(limit)
			if errors.Is(err, errors.ErrUnsupported) {
				b.Skip(err)
			}
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			b.ReportAllocs()
			f(b, s)
		})
	}
}

// BenchmarkAcquireRelease is one goroutine taking and giving back a unit:
// the uncontended fast path.
func BenchmarkAcquireRelease(b *testing.B) {
	eachImpl(b, 1, func(b *testing.B, s anchor.Semaphore) {
		ctx := context.Background()
		for b.Loop() {
			if err := s.Acquire(ctx, 1); err != nil {
				b.Fatal(err)
			}
			s.Release(1)
		}
	})
}

// BenchmarkLimiterAcquireRelease is BenchmarkAcquireRelease on a Limiter:
// with plain calls, with a permit (AcquirePermit, then Permit.Release),
// in the eventual mode, and x/sync's Weighted, its counterpart, in the
// same run.
func BenchmarkLimiterAcquireRelease(b *testing.B) {
	ctx := context.Background()
	b.Run("impl=evsync-permit", func(b *testing.B) {
		b.ReportAllocs()
		l := semaphore.NewLimiter(1)
		for b.Loop() {
			p, err := l.AcquirePermit(ctx, 1)
			if err != nil {
				b.Fatal(err)
			}
			p.Release()
		}
	})
	b.Run("impl=evsync-limiter", func(b *testing.B) {
		b.ReportAllocs()
		l := semaphore.NewLimiter(1)
		for b.Loop() {
			if err := l.Acquire(ctx, 1); err != nil {
				b.Fatal(err)
			}
			_ = l.Release(1)
		}
	})
	b.Run("impl=evsync-eventual", func(b *testing.B) {
		b.ReportAllocs()
		l := semaphore.NewLimiter(1, semaphore.WithEventualFairness(time.Millisecond))
		for b.Loop() {
			if err := l.Acquire(ctx, 1); err != nil {
				b.Fatal(err)
			}
			_ = l.Release(1)
		}
	})
	b.Run("impl=xsync", func(b *testing.B) {
		b.ReportAllocs()
		w := xsem.NewWeighted(1)
		for b.Loop() {
			if err := w.Acquire(ctx, 1); err != nil {
				b.Fatal(err)
			}
			w.Release(1)
		}
	})
}

// BenchmarkLimiterObserved is the limit 1 / 8 goroutines hand-off on a
// Limiter while another goroutine calls String in a loop (observer=on),
// formats a constant LimiterStats instead (control: the same CPU use,
// without touching the Limiter), or does nothing (off). Callers are queued
// almost all the time here. So it is the case where an observer's reads
// meet the lock holder's writes.
func BenchmarkLimiterObserved(b *testing.B) {
	for _, mode := range anchor.ObserverModes() {
		b.Run("observer="+mode+"/impl=evsync-limiter", func(b *testing.B) {
			b.ReportAllocs()
			l := semaphore.NewLimiter(1)
			var st semaphore.LimiterStats
			stop := anchor.ObserveWith(l.String, st.String, mode)
			contend(b, context.Background(), limiterSem{l}, 8, false)
			b.StopTimer()
			stop()
		})
	}
}

// limiterSem is a Limiter as an anchor.Semaphore, so that the contended
// cases run on it too.
type limiterSem struct{ l *semaphore.Limiter }

func (s limiterSem) Acquire(ctx context.Context, n uint64) error { return s.l.Acquire(ctx, int(n)) }
func (s limiterSem) TryAcquire(n uint64) bool                    { return s.l.TryAcquire(int(n)) }
func (s limiterSem) Release(n uint64)                            { _ = s.l.Release(int(n)) }
func (s limiterSem) Close() error                                { return nil }

// BenchmarkLimiterContended is BenchmarkContended's cases at limits 1
// and 4 with 8 and 64 goroutines, and the standing queue, on a Limiter,
// the type that users of x/sync's Weighted move to. It runs the Limiter in
// both modes, and the buffered channel, Weighted and the mutex-and-list
// floor (fifo) in the same run, so that the ratios come from one run
// (limiterImpls). One Acquire in sampled is timed: max-wait-ns and
// p99-wait-ns say how long the unluckiest acquirers waited
// (contendTimed).
//
// limit=4/g=64 is bistable with GOMAXPROCS=2. A run either finds free
// units nearly always (waited-% near 0) or falls into a convoy, where
// every acquirer queues behind parked waiters (waited-% 50 to 99) and
// ns/op is several times larger. A FIFO convoy keeps itself up: each
// releaser acquires again at once and queues. GOMAXPROCS=1 never queued
// there, and GOMAXPROCS=4 nearly always did.
func BenchmarkLimiterContended(b *testing.B) {
	cases := []struct {
		name  string
		limit uint64
		g     int
		yield bool
	}{
		{"limit=1/g=8", 1, 8, false}, {"limit=1/g=64", 1, 64, false},
		{"limit=4/g=8", 4, 8, false}, {"limit=4/g=64", 4, 64, false},
		{"limit=4/g=64/hold=yield", 4, 64, true},
	}
	for _, c := range cases {
		var hold func()
		if c.yield {
			hold = runtime.Gosched
		}
		for _, cancellable := range []bool{false, true} {
			name := c.name
			if cancellable {
				name += "/ctx=cancel"
			}
			b.Run(name, func(b *testing.B) {
				eachLimiterImpl(b, c.limit, func(b *testing.B, s anchor.Semaphore) {
					ctx := context.Background()
					if cancellable {
						var cancel context.CancelFunc
						ctx, cancel = anchor.Cancellable()
						defer cancel()
					}
					contendTimed(b, ctx, s, c.g, sampled, hold, nil)
				})
			})
		}
	}
}

// BenchmarkTryAcquireRelease is BenchmarkAcquireRelease with TryAcquire.
func BenchmarkTryAcquireRelease(b *testing.B) {
	eachImpl(b, 1, func(b *testing.B, s anchor.Semaphore) {
		for b.Loop() {
			if !s.TryAcquire(1) {
				b.Fatal("TryAcquire failed on an idle semaphore")
			}
			s.Release(1)
		}
	})
}

// BenchmarkContended has g goroutines share b.N Acquire/Release pairs on a
// semaphore of limit units: with g > limit most acquirers have to wait.
//
// Every case runs twice: with context.Background (the names without a ctx
// key) and with ctx=cancel, a context that can end (context.WithCancel) but
// never does during the run, as real callers pass; a blocking call then has
// to select on ctx.Done() as well.
//
// The plain limit 4 / 64 goroutines case flips between almost all fast
// paths and a convoy from run to run, so hold=yield makes the standing
// queue on purpose: each holder yields (runtime.Gosched) while it holds its
// unit, so that the other goroutines find no unit and park, and every
// Release hands its unit to a parked waiter.
func BenchmarkContended(b *testing.B) {
	for _, limit := range []uint64{1, 4} {
		for _, g := range []int{2, 8, 64} {
			contendedCase(b, fmt.Sprintf("limit=%d/g=%d", limit, g), limit, g, false)
		}
	}
	contendedCase(b, "limit=4/g=64/hold=yield", 4, 64, true)
}

// contendedCase runs name with context.Background and name/ctx=cancel with
// a cancellable context, each for every implementation, so that the two
// sort together in benchstat's rows.
func contendedCase(b *testing.B, name string, limit uint64, g int, yield bool) {
	b.Run(name, func(b *testing.B) {
		eachImpl(b, limit, func(b *testing.B, s anchor.Semaphore) {
			contend(b, context.Background(), s, g, yield)
		})
	})
	b.Run(name+"/ctx=cancel", func(b *testing.B) {
		eachImpl(b, limit, func(b *testing.B, s anchor.Semaphore) {
			ctx, cancel := anchor.Cancellable()
			defer cancel()
			contend(b, ctx, s, g, yield)
		})
	})
}

// contend splits b.N Acquire/Release pairs among g goroutines, started
// together once the timer is reset, and waits for all of them.
func contend(b *testing.B, ctx context.Context, s anchor.Semaphore, g int, yield bool) {
	start, wait := anchor.Split(g, b.N, func(n int) { loopAcquire(b, ctx, s, n, yield) })
	b.ResetTimer()
	start()
	wait()
}

// loopAcquire takes and gives back a unit n times, yielding the processor
// while it holds the unit if yield is set.
func loopAcquire(b *testing.B, ctx context.Context, s anchor.Semaphore, n int, yield bool) {
	for range n {
		if err := s.Acquire(ctx, 1); err != nil {
			b.Error(err)
			return
		}
		if yield {
			runtime.Gosched()
		}
		s.Release(1)
	}
}
