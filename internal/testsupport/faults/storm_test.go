package faults_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evsync/evsync/coalesce"
	"github.com/evsync/evsync/semaphore"
	"github.com/evsync/evsync/signal"
)

// books is one goroutine's ledger of a counter: what it put in and what
// it took out.
type books struct{ in, out u128 }

// ledger merges the books of a storm's goroutines.
type ledger struct{ in, out total }

func (l *ledger) merge(b *books) {
	l.in.merge(b.in)
	l.out.merge(b.out)
}

// TestSemaphoreCancellationStormConserves makes every semaphore call, the
// blocking ones under contexts that end before the call, while it waits or
// just as units are handed to it, from 8 goroutines at once. Every call
// returns, no waiter is left queued, and no unit is lost or made up:
// count + units taken = initial + units released.
func TestSemaphoreCancellationStormConserves(t *testing.T) {
	const initial, limit, workers, rounds = 3, 6, 8, 1500
	for seed := range uint64(3) {
		s := semaphore.New(initial, semaphore.WithLimit(limit))
		var l ledger
		var c crew
		for w := range workers {
			c.Go(func() {
				r := rand.New(rand.NewPCG(seed, uint64(w)))
				var b books
				defer l.merge(&b)
				for range rounds {
					n := uint64(r.IntN(limit + 2)) // limit+1 can never succeed
					if err := semStep(s, r, &b, limit, n); err != nil {
						t.Errorf("seed %d: %v (%v)", seed, err, s)
						return
					}
				}
			})
		}
		c.Wait(t, describe("seed %d: %v", seed, s), s.Close)
		in, out := l.in.get(), l.out.get()
		if got, want := of(s.Count()).plus(out), of(initial).plus(in); got != want {
			t.Fatalf("seed %d: count %d + taken %v = %v, initial %d + released %v = %v",
				seed, s.Count(), out, got, initial, in, want)
		}
		if st := s.Stats(); st.Waiting != 0 || st.WritersWaiting != 0 || st.Count > limit {
			t.Fatalf("seed %d: after the storm: %v", seed, st)
		}
		closeWithin(t, s)
	}
}

// semStep makes one random call for n units on s and books its effect;
// it returns a description of any outcome the contract does not allow.
func semStep(s *semaphore.Semaphore, r *rand.Rand, b *books, limit, n uint64) error {
	if n > limit {
		return semInvalid(s, n)
	}
	switch r.IntN(9) {
	case 0:
		ctx, stop := stormCtx(r)
		defer stop()
		err := s.Acquire(ctx, n)
		if err == nil {
			b.out.add(n)
		}
		return ctxErr("Acquire", ctx, err)
	case 1:
		if s.TryAcquire(n) {
			b.out.add(n)
		}
	case 2:
		switch err := s.Release(n); err {
		case nil:
			b.in.add(n)
		case semaphore.ErrWouldBlock:
		default:
			return fmt.Errorf("Release(%d) = %v", n, err)
		}
	case 3:
		ctx, stop := stormCtx(r)
		defer stop()
		err := s.ReleaseWait(ctx, n)
		if err == nil {
			b.in.add(n)
		}
		return ctxErr("ReleaseWait", ctx, err)
	case 4:
		return semReserve(s, r, n, b)
	case 5:
		return semAcquireRacingCancel(s, max(n, 1), b)
	case 6:
		return semReleaseWaitRacingCancel(s, max(n, 1), b)
	case 7:
		ctx, stop := stormCtx(r)
		defer stop()
		select {
		case <-s.Ready():
			if s.TryAcquire(1) {
				b.out.add(1)
			}
		case <-ctx.Done():
		}
	default:
		if st := s.Stats(); st.Count > limit || st.Closed {
			return fmt.Errorf("Stats() = %v", st)
		}
		_ = s.String()
	}
	return nil
}

// semInvalid checks that every call refuses n above the limit at once.
func semInvalid(s *semaphore.Semaphore, n uint64) error {
	ctx := context.Background() // must not wait: a hang is caught by the watchdog
	if err := s.Acquire(ctx, n); !errors.Is(err, semaphore.ErrInvalid) {
		return fmt.Errorf("Acquire(%d) above the limit = %v", n, err)
	}
	if err := s.ReleaseWait(ctx, n); !errors.Is(err, semaphore.ErrInvalid) {
		return fmt.Errorf("ReleaseWait(%d) above the limit = %v", n, err)
	}
	if err := s.Release(n); !errors.Is(err, semaphore.ErrInvalid) {
		return fmt.Errorf("Release(%d) above the limit = %v", n, err)
	}
	if res, err := s.Reserve(n); res != nil || !errors.Is(err, semaphore.ErrInvalid) {
		return fmt.Errorf("Reserve(%d) above the limit = %v, %v", n, res, err)
	}
	if s.TryAcquire(n) {
		return fmt.Errorf("TryAcquire(%d) above the limit succeeded", n)
	}
	return nil
}

// semReserve reserves n units and gives the reservation up at once, when
// its context ends, or just after it is granted, or keeps the units: a
// Cancel that reports true leaves the caller holding nothing, one that
// reports false (the count could not take the units back) leaves it
// holding them, and it gives the same answer when called again.
func semReserve(s *semaphore.Semaphore, r *rand.Rand, n uint64, b *books) error {
	res, err := s.Reserve(n)
	if err != nil {
		return fmt.Errorf("Reserve(%d) on an open semaphore = %v", n, err)
	}
	ctx, stop := stormCtx(r)
	defer stop()
	if r.IntN(4) != 0 {
		select {
		case <-res.Done():
			if err := res.Err(); err != nil {
				return fmt.Errorf("Reservation.Done closed, Err() = %v", err)
			}
			if r.IntN(2) == 0 { // keep the units
				b.out.add(n)
				return nil
			}
		case <-ctx.Done():
		}
	}
	kept := !res.Cancel()
	if again := !res.Cancel(); again != kept {
		return fmt.Errorf("Reservation.Cancel answered %v, then %v", !kept, !again)
	}
	switch err := res.Err(); {
	case kept && err != nil:
		return fmt.Errorf("Cancel kept the units, but Err() = %v", err)
	case !kept && err != context.Canceled:
		return fmt.Errorf("Cancel gave the units up, but Err() = %v", err)
	case kept:
		b.out.add(n)
	}
	return nil
}

// semAcquireRacingCancel parks an Acquire of n while another goroutine
// releases n and at once cancels the Acquire's context: the grant and the
// cancellation race, and the units must end up either with the caller
// (nil) or in the count (ctx.Err()), never nowhere.
func semAcquireRacingCancel(s *semaphore.Semaphore, n uint64, b *books) error {
	ctx, cancel := context.WithCancel(context.Background())
	released := make(chan error, 1)
	go func() {
		err := s.Release(n)
		cancel()
		released <- err
	}()
	err := s.Acquire(ctx, n)
	cancel()
	switch rerr := <-released; rerr {
	case nil:
		b.in.add(n)
	case semaphore.ErrWouldBlock:
	default:
		return fmt.Errorf("Release(%d) = %v", n, rerr)
	}
	if err == nil {
		b.out.add(n)
	}
	return ctxErr("Acquire racing its cancellation", ctx, err)
}

// semReleaseWaitRacingCancel is semAcquireRacingCancel for a ReleaseWait
// of n, which another goroutine's TryAcquire makes room for just as it
// cancels it.
func semReleaseWaitRacingCancel(s *semaphore.Semaphore, n uint64, b *books) error {
	ctx, cancel := context.WithCancel(context.Background())
	took := make(chan bool, 1)
	go func() {
		ok := s.TryAcquire(n)
		cancel()
		took <- ok
	}()
	err := s.ReleaseWait(ctx, n)
	cancel()
	if <-took {
		b.out.add(n)
	}
	if err == nil {
		b.in.add(n)
	}
	return ctxErr("ReleaseWait racing its cancellation", ctx, err)
}

// signalConfigs are the signals every signal fault test runs against: the
// plain one and each delayed-wakeup setting (built on internal/window, whose
// timer adds one more goroutine to every race).
var signalConfigs = []struct {
	name string
	opts []signal.Option
}{
	{"plain", nil},
	{"delay", []signal.Option{signal.WithWakeDelay(50 * time.Microsecond)}},
	{"delay+batch", []signal.Option{signal.WithWakeDelay(50*time.Microsecond, signal.WithMaxBatch(16))}},
	{"adaptive", []signal.Option{signal.WithWakeDelay(50*time.Microsecond, signal.WithAdaptive())}},
}

// TestSignalCancellationStormConserves makes every signal call, the
// blocking ones under contexts that end before, during or just as a sum
// or room is handed to them, from 8 goroutines at once, starting 64 below
// Max so that AddWait blocks too. Every call returns, and every unit is
// read exactly once: Σ reads + final count = initial + Σ adds (in 128
// bits).
func TestSignalCancellationStormConserves(t *testing.T) {
	const initial, workers, rounds = signal.Max - 64, 8, 1200
	for _, cfg := range signalConfigs {
		t.Run(cfg.name, func(t *testing.T) {
			for seed := range uint64(2) {
				s := signal.New(initial, cfg.opts...)
				var l ledger
				var c crew
				for w := range workers {
					c.Go(func() {
						r := rand.New(rand.NewPCG(seed, uint64(w)))
						var b books
						defer l.merge(&b)
						for range rounds {
							if err := signalStep(s, r, &b, uint64(r.IntN(40))); err != nil {
								t.Errorf("seed %d: %v (%v)", seed, err, s)
								return
							}
						}
					})
				}
				c.Wait(t, describe("seed %d: %v", seed, s), s.Close)
				in, out := l.in.get(), l.out.get()
				if got, want := out.plus(of(s.Count())), of(initial).plus(in); got != want {
					t.Fatalf("seed %d: read %v + count %d = %v, initial %d + added %v = %v",
						seed, out, s.Count(), got, initial, in, want)
				}
				if st := s.Stats(); st.Waiting != 0 || st.WritersWaiting != 0 {
					t.Fatalf("seed %d: waiters left after the storm: %v", seed, st)
				}
				closeWithin(t, s)
			}
		})
	}
}

// signalStep makes one random call adding or waiting for n on s and books
// its effect.
func signalStep(s *signal.Signal, r *rand.Rand, b *books, n uint64) error {
	if n > signal.Max {
		return signalInvalid(s, n)
	}
	switch r.IntN(9) {
	case 0:
		switch err := s.Add(n); err {
		case nil:
			b.in.add(n)
		case signal.ErrWouldBlock:
		default:
			return fmt.Errorf("Add(%d) = %v", n, err)
		}
	case 1:
		ctx, stop := stormCtx(r)
		defer stop()
		err := s.AddWait(ctx, n)
		if err == nil {
			b.in.add(n)
		}
		return ctxErr("AddWait", ctx, err)
	case 2:
		v := s.Take()
		b.out.add(v)
		if v > signal.Max {
			return fmt.Errorf("Take() = %d, above Max", v)
		}
	case 3:
		ctx, stop := stormCtx(r)
		defer stop()
		v, err := s.Wait(ctx)
		b.out.add(v)
		return waitResult(ctx, v, err)
	case 4:
		return signalWaitRacingCancel(s, max(n, 1), b)
	case 5:
		return signalAddWaitRacingCancel(s, max(n, 1), b)
	case 6:
		ctx, stop := stormCtx(r)
		defer stop()
		select {
		case <-s.Ready():
			b.out.add(s.Take())
		case <-ctx.Done():
		}
	case 7:
		return signalInvalid(s, 1<<64-1)
	default:
		if st := s.Stats(); st.Count > signal.Max || st.Closed {
			return fmt.Errorf("Stats() = %v", st)
		}
		_ = s.String()
	}
	return nil
}

// signalInvalid checks that Add and AddWait refuse n (1<<64-1) at once.
func signalInvalid(s *signal.Signal, n uint64) error {
	if err := s.Add(n); !errors.Is(err, signal.ErrInvalid) {
		return fmt.Errorf("Add(%d) = %v", n, err)
	}
	// Background: the call must not wait, and a hang is caught by the watchdog.
	if err := s.AddWait(context.Background(), n); !errors.Is(err, signal.ErrInvalid) {
		return fmt.Errorf("AddWait(%d) = %v", n, err)
	}
	return nil
}

// waitResult checks a Wait's result on an open signal: a non-zero sum and
// nil, or 0 and the context's error.
func waitResult(ctx context.Context, v uint64, err error) error {
	switch {
	case err == nil && v == 0:
		return fmt.Errorf("Wait returned 0 with a nil error")
	case err != nil && v != 0:
		return fmt.Errorf("Wait returned %d with error %v", v, err)
	case v > signal.Max:
		return fmt.Errorf("Wait returned %d, above Max", v)
	}
	return ctxErr("Wait", ctx, err)
}

// signalWaitRacingCancel parks a Wait while another goroutine adds n and
// at once cancels the Wait's context: the sum goes to the reader (nil) or
// stays in the count (ctx.Err()).
func signalWaitRacingCancel(s *signal.Signal, n uint64, b *books) error {
	ctx, cancel := context.WithCancel(context.Background())
	added := make(chan error, 1)
	go func() {
		err := s.Add(n)
		cancel()
		added <- err
	}()
	v, err := s.Wait(ctx)
	cancel()
	switch aerr := <-added; aerr {
	case nil:
		b.in.add(n)
	case signal.ErrWouldBlock:
	default:
		return fmt.Errorf("Add(%d) = %v", n, aerr)
	}
	b.out.add(v)
	return waitResult(ctx, v, err)
}

// signalAddWaitRacingCancel parks an AddWait of n while another goroutine
// takes the count, making room, and at once cancels the AddWait.
func signalAddWaitRacingCancel(s *signal.Signal, n uint64, b *books) error {
	ctx, cancel := context.WithCancel(context.Background())
	took := make(chan uint64, 1)
	go func() {
		v := s.Take()
		cancel()
		took <- v
	}()
	err := s.AddWait(ctx, n)
	cancel()
	b.out.add(<-took)
	if err == nil {
		b.in.add(n)
	}
	return ctxErr("AddWait racing its cancellation", ctx, err)
}

// coalesceConfigs are the wakers every coalesce fault test runs against:
// each policy, with delays short enough for a storm in real time.
var coalesceConfigs = []struct {
	name  string
	delay time.Duration
	opts  []coalesce.Option
}{
	{"zero", 0, nil},
	{"audit", 200 * time.Microsecond, nil},
	{"batch", time.Millisecond, []coalesce.Option{coalesce.WithMaxBatch(8)}},
	{"debounce", 100 * time.Microsecond, []coalesce.Option{coalesce.WithMaxWait(400 * time.Microsecond)}},
	{"adaptive", 200 * time.Microsecond, []coalesce.Option{coalesce.WithAdaptive()}},
	{"adaptive+debounce+batch", 200 * time.Microsecond, []coalesce.Option{
		coalesce.WithAdaptive(), coalesce.WithMaxWait(time.Millisecond), coalesce.WithMaxBatch(16)}},
}

// TestCoalesceCancellationStormConserves has producers Wake (and
// sometimes Flush) while consumers Wait under contexts that end at random
// points, receive from C and call Events. Without any Close, the consumers
// are told of every event (no lost wakeup: they stop only once the events
// reported reach the Wake calls made); after Close, draining finds nothing
// more, so Σ events reported = Σ Wake calls exactly.
func TestCoalesceCancellationStormConserves(t *testing.T) {
	const producers, consumers, wakes = 4, 3, 5000
	for _, cfg := range coalesceConfigs {
		t.Run(cfg.name, func(t *testing.T) {
			w := coalesce.New(cfg.delay, cfg.opts...)
			var made, reported atomic.Uint64
			var producing atomic.Int32
			producing.Store(producers)
			var c crew
			for p := range producers {
				c.Go(func() {
					defer producing.Add(-1)
					r := rand.New(rand.NewPCG(7, uint64(p)))
					for range wakes {
						produce(w, r, &made)
					}
				})
			}
			for k := range consumers {
				c.Go(func() {
					r := rand.New(rand.NewPCG(8, uint64(k)))
					for producing.Load() != 0 || reported.Load() != made.Load() {
						if err := consume(w, r, &reported); err != nil {
							t.Error(err)
							return
						}
					}
				})
			}
			c.Wait(t, describe("%v (%d events made, %d reported)", w, made.Load, reported.Load), w.Close)
			closeWithin(t, w)
			for {
				n, err := w.Wait(context.Background())
				if err == coalesce.ErrClosed {
					break
				}
				if err != nil {
					t.Fatalf("Wait after Close = %d, %v", n, err)
				}
				reported.Add(n)
			}
			if got, want := reported.Load(), made.Load(); got != want {
				t.Fatalf("%d events reported, %d Wake calls made (%v)", got, want, w)
			}
		})
	}
}

// produce makes one producer step: mostly Wake, sometimes Flush, an
// observer call or a yield.
func produce(w *coalesce.Waker, r *rand.Rand, made *atomic.Uint64) {
	switch r.IntN(16) {
	case 0:
		w.Flush()
	case 1:
		_ = w.Stats()
		_ = w.Pending()
	case 2:
		runtime.Gosched() // let the consumers and the timer in between events
	default:
		w.Wake()
		made.Add(1)
	}
}

// consume makes one consumer step: a Wait under a storm context, a
// non-blocking receive from C followed by Events, or Events alone.
func consume(w *coalesce.Waker, r *rand.Rand, reported *atomic.Uint64) error {
	switch r.IntN(4) {
	case 0:
		select {
		case _, ok := <-w.C():
			if !ok {
				return fmt.Errorf("C closed without Close")
			}
			reported.Add(w.Events())
		default:
		}
	case 1:
		reported.Add(w.Events())
	default:
		ctx, stop := stormCtx(r)
		defer stop()
		n, err := w.Wait(ctx)
		reported.Add(n)
		if err != nil && n != 0 {
			return fmt.Errorf("Wait returned %d events with error %v", n, err)
		}
		return ctxErr("Wait", ctx, err)
	}
	return nil
}
