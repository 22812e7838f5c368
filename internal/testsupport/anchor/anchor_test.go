package anchor_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/evsync/evsync/internal/testsupport/anchor"
	"github.com/evsync/evsync/signal"
)

// eachSemaphore runs f on a fresh semaphore of every implementation.
func eachSemaphore(t *testing.T, limit uint64, f func(t *testing.T, s anchor.Semaphore)) {
	for _, impl := range append(anchor.Semaphores(), anchor.FloorSemaphores()...) {
		t.Run(impl.Name, func(t *testing.T) {
			f(t, build(t, func() (anchor.Semaphore, error) { return impl.New(limit) }))
		})
	}
}

// eachSignal runs f on a fresh signal of every implementation.
func eachSignal(t *testing.T, f func(t *testing.T, s anchor.Signal)) {
	for _, impl := range anchor.Signals() {
		t.Run(impl.Name, func(t *testing.T) { f(t, build(t, impl.New)) })
	}
}

// build returns what newFn builds, closed when t ends. It skips t where
// the implementation is unsupported and fails it on any other error.
func build[T interface{ Close() error }](t *testing.T, newFn func() (T, error)) T {
	s, err := newFn()
	if errors.Is(err, errors.ErrUnsupported) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// TestSemaphoreStartsFull checks that a new semaphore holds its whole limit
// and that TryAcquire(0) always succeeds.
func TestSemaphoreStartsFull(t *testing.T) {
	eachSemaphore(t, 3, func(t *testing.T, s anchor.Semaphore) {
		for i := range 3 {
			if !s.TryAcquire(1) {
				t.Fatalf("TryAcquire #%d failed below the limit", i+1)
			}
		}
		if s.TryAcquire(1) {
			t.Fatal("TryAcquire succeeded at the limit")
		}
		s.Release(1)
		if err := s.Acquire(context.Background(), 1); err != nil {
			t.Fatal(err)
		}
		s.Release(3)
		if !s.TryAcquire(0) {
			t.Fatal("TryAcquire(0) failed")
		}
	})
}

// TestSemaphoreAcquireCanceled checks that an Acquire whose context ends
// returns context.Canceled and keeps no unit.
func TestSemaphoreAcquireCanceled(t *testing.T) {
	eachSemaphore(t, 1, func(t *testing.T, s anchor.Semaphore) {
		if !s.TryAcquire(1) {
			t.Fatal("TryAcquire failed on a full semaphore")
		}
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error)
		go func() { errc <- s.Acquire(ctx, 1) }()
		cancel()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Fatalf("Acquire = %v, want context.Canceled", err)
		}
		s.Release(1)
		if !s.TryAcquire(1) {
			t.Fatal("the cancelled Acquire kept a unit")
		}
		s.Release(1)
	})
}

// TestSemaphoreExclusion checks that no more than limit holders are ever
// inside at once and that every Acquire is eventually served.
func TestSemaphoreExclusion(t *testing.T) {
	const limit, workers, rounds = 2, 8, 300
	eachSemaphore(t, limit, func(t *testing.T, s anchor.Semaphore) {
		var inside, maxInside atomic.Int64
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for i := range rounds {
					acquire(t, s, i%3 == 0)
					v := inside.Add(1)
					if v > maxInside.Load() {
						maxInside.Store(v) // racy max, but never above the true max
					}
					inside.Add(-1)
					s.Release(1)
				}
			})
		}
		wg.Wait()
		if m := maxInside.Load(); m > limit {
			t.Fatalf("%d holders inside at once, limit %d", m, limit)
		}
	})
}

// acquire takes one unit, with TryAcquire first if try is set.
func acquire(t *testing.T, s anchor.Semaphore, try bool) {
	if try && s.TryAcquire(1) {
		return
	}
	if err := s.Acquire(context.Background(), 1); err != nil {
		t.Error(err)
	}
}

// TestSemaphoreMultiUnit checks multi-unit Acquire and TryAcquire where
// supported (the eventfd semaphore refuses them).
func TestSemaphoreMultiUnit(t *testing.T) {
	eachSemaphore(t, 4, func(t *testing.T, s anchor.Semaphore) {
		if !s.TryAcquire(1) {
			t.Fatal("TryAcquire(1) failed")
		}
		err := s.Acquire(context.Background(), 3)
		if errors.Is(err, errors.ErrUnsupported) {
			s.Release(1)
			return // eventfd: one unit at a time
		}
		if err != nil {
			t.Fatal(err)
		}
		if s.TryAcquire(1) {
			t.Fatal("TryAcquire succeeded with all units held")
		}
		s.Release(4)
		if !s.TryAcquire(4) {
			t.Fatal("TryAcquire(4) failed on a full semaphore")
		}
		s.Release(4)
	})
}

// TestSemaphoreOverRelease checks that releasing a unit not held panics
// where the implementation checks its limit.
func TestSemaphoreOverRelease(t *testing.T) {
	eachSemaphore(t, 1, func(t *testing.T, s anchor.Semaphore) {
		defer func() {
			if recover() == nil {
				t.Skip("this implementation does not check its limit")
			}
		}()
		s.Release(1)
	})
}

// TestSignalAddTake checks that Take and Wait return the sum of the Adds
// and reset the count.
func TestSignalAddTake(t *testing.T) {
	eachSignal(t, func(t *testing.T, s anchor.Signal) {
		if v := s.Take(); v != 0 {
			t.Fatalf("Take on a new signal = %d", v)
		}
		s.Add(3)
		s.Add(0)
		s.Add(4)
		if v := s.Take(); v != 7 {
			t.Fatalf("Take = %d, want 7", v)
		}
		if v := s.Take(); v != 0 {
			t.Fatalf("second Take = %d, want 0", v)
		}
		s.Add(5)
		if v, err := s.Wait(context.Background()); v != 5 || err != nil {
			t.Fatalf("Wait = %d, %v, want 5, nil", v, err)
		}
	})
}

// TestSignalWaitCanceled checks that a Wait whose context ends returns 0
// and context.Canceled and takes nothing.
func TestSignalWaitCanceled(t *testing.T) {
	eachSignal(t, func(t *testing.T, s anchor.Signal) {
		ctx, cancel := context.WithCancel(context.Background())
		type result struct {
			v   uint64
			err error
		}
		res := make(chan result)
		go func() {
			v, err := s.Wait(ctx)
			res <- result{v, err}
		}()
		cancel()
		if r := <-res; r.v != 0 || !errors.Is(r.err, context.Canceled) {
			t.Fatalf("Wait = %d, %v, want 0, context.Canceled", r.v, r.err)
		}
		s.Add(2) // nothing was lost or consumed by the cancelled Wait
		ctx, cancel = context.WithCancel(context.Background())
		defer cancel()
		if v, err := s.Wait(ctx); v != 2 || err != nil {
			t.Fatalf("Wait = %d, %v, want 2, nil", v, err)
		}
	})
}

// TestSignalConservation checks that every added unit is read exactly
// once with concurrent writers, a blocking reader and a Take loop.
func TestSignalConservation(t *testing.T) {
	const writers, adds = 4, 500
	const total = writers * adds
	eachSignal(t, func(t *testing.T, s anchor.Signal) {
		var taken atomic.Uint64
		var finished atomic.Bool
		go func() {
			hammer(s, writers, adds, &taken)
			finished.Store(true)
			s.Add(1) // the last unit: it wakes the reader once all is settled
		}()
		var waited uint64
		for !finished.Load() || waited+taken.Load() != total+1 {
			v, err := s.Wait(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			waited += v
		}
		if rest := s.Take(); rest != 0 || waited+taken.Load() != total+1 {
			t.Fatalf("read %d+%d units and %d left, added %d",
				waited, taken.Load(), rest, total+1)
		}
	})
}

// hammer runs writers goroutines that each Add(1) adds times, and a
// goroutine that Takes until they are done, adding what it got to taken.
func hammer(s anchor.Signal, writers, adds int, taken *atomic.Uint64) {
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range writers {
		wg.Go(func() {
			for range adds {
				s.Add(1)
			}
		})
	}
	taker := make(chan struct{})
	go func() {
		defer close(taker)
		for {
			select {
			case <-stop:
				return
			default:
				taken.Add(s.Take())
			}
		}
	}()
	wg.Wait()
	close(stop)
	<-taker
}

// TestSignalPingPong passes one unit back and forth through two signals.
func TestSignalPingPong(t *testing.T) {
	eachSignal(t, func(t *testing.T, ping anchor.Signal) {
		pong, err := anchor.NewTokenSignal()
		if err != nil {
			t.Fatal(err)
		}
		const rounds = 200
		done := make(chan struct{})
		go func() {
			defer close(done)
			for range rounds {
				if v, err := ping.Wait(context.Background()); v != 1 || err != nil {
					t.Errorf("ping Wait = %d, %v", v, err)
				}
				pong.Add(1)
			}
		}()
		for range rounds {
			ping.Add(1)
			if v, err := pong.Wait(context.Background()); v != 1 || err != nil {
				t.Fatalf("pong Wait = %d, %v", v, err)
			}
		}
		<-done
	})
}

// TestEventfdSemaphoreOneUnit checks that the eventfd semaphore refuses
// more than one unit at a time.
func TestEventfdSemaphoreOneUnit(t *testing.T) {
	s, err := anchor.NewEventfdSemaphore(4)
	if errors.Is(err, errors.ErrUnsupported) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Acquire(context.Background(), 2); !errors.Is(err, errors.ErrUnsupported) {
		t.Fatalf("Acquire(2) = %v, want errors.ErrUnsupported", err)
	}
	if s.TryAcquire(2) {
		t.Fatal("TryAcquire(2) succeeded")
	}
}

// TestLimits checks that every implementation refuses a limit of 0.
func TestLimits(t *testing.T) {
	for _, impl := range append(anchor.Semaphores(), anchor.FloorSemaphores()...) {
		if _, err := impl.New(0); err == nil {
			t.Errorf("%s: New(0) succeeded", impl.Name)
		}
	}
}

// TestObserveStops checks that every observer mode ends when stopped and
// that mode "off" formats nothing; goleak (TestMain) checks that no
// goroutine is left behind.
func TestObserveStops(t *testing.T) {
	s := signal.New(0)
	defer s.Close()
	for _, mode := range anchor.ObserverModes() {
		if n := anchor.Observe(s, mode)(); mode == "off" && n != 0 {
			t.Errorf("observer=off formatted %d bytes", n)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("Observe with an unknown mode did not panic")
		}
	}()
	anchor.Observe(s, "sometimes")
}

// TestSplitSharesEvenly checks that Split runs g goroutines whose shares
// sum to the total and differ by at most one.
func TestSplitSharesEvenly(t *testing.T) {
	for _, c := range []struct{ g, total int }{{1, 0}, {3, 10}, {4, 2}, {8, 64}} {
		var mu sync.Mutex
		var shares []int
		start, wait := anchor.Split(c.g, c.total, func(n int) {
			mu.Lock()
			shares = append(shares, n)
			mu.Unlock()
		})
		start()
		wait()
		sum, lo, hi := 0, c.total, 0
		for _, n := range shares {
			sum, lo, hi = sum+n, min(lo, n), max(hi, n)
		}
		if len(shares) != c.g || sum != c.total || hi-lo > 1 {
			t.Errorf("Split(%d, %d) gave shares %v", c.g, c.total, shares)
		}
	}
}

// TestCancellable checks that Cancellable's context can end, has not, and
// hands out its Done channel without allocating, as the benchmarks expect.
func TestCancellable(t *testing.T) {
	ctx, cancel := anchor.Cancellable()
	done := ctx.Done()
	if done == nil || ctx.Err() != nil {
		t.Fatalf("Done = %v, Err = %v: want a channel of a live context", done, ctx.Err())
	}
	if n := testing.AllocsPerRun(10, func() { _ = ctx.Done() }); n != 0 {
		t.Errorf("Done allocates %v times", n)
	}
	cancel()
	<-done
}
