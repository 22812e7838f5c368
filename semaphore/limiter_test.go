package semaphore_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/semaphore"
)

// noCtx is a nil context, for the calls that must refuse one.
var noCtx context.Context

// wantStats fails t unless l's stats are want.
func wantStats(t *testing.T, l *semaphore.Limiter, want semaphore.LimiterStats) {
	t.Helper()
	if got := l.Stats(); got != want {
		t.Fatalf("Stats() = %v, want %v", got, want)
	}
}

// TestLimiterCloseRefusesNewWorkWithUnitsFree: after Close every acquire
// fails with ErrClosed although units are free, while the holder still
// gives its unit back and Drain waits for it.
func TestLimiterCloseRefusesNewWorkWithUnitsFree(t *testing.T) {
	l := newLimiter(4)
	held, ok := l.TryAcquirePermit(1)
	if !ok {
		t.Fatal("TryAcquirePermit(1) failed")
	}
	l.Close()
	ctx := context.Background()
	testkit.SameErr(t, "Acquire(1) after Close", l.Acquire(ctx, 1), semaphore.ErrClosed)
	testkit.SameErr(t, "Acquire(0) after Close", l.Acquire(ctx, 0), semaphore.ErrClosed)
	if l.TryAcquire(1) || l.TryAcquire(0) {
		t.Fatal("TryAcquire succeeded after Close")
	}
	if p, err := l.AcquirePermit(ctx, 1); err != semaphore.ErrClosed || p.N() != 0 {
		t.Fatalf("AcquirePermit after Close = %d units, %v", p.N(), err)
	}
	if p, ok := l.TryAcquirePermit(1); ok || p.N() != 0 {
		t.Fatal("TryAcquirePermit succeeded after Close")
	}
	testkit.SameErr(t, "SetLimit after Close", l.SetLimit(8), semaphore.ErrClosed)
	wantStats(t, l, semaphore.LimiterStats{Limit: 4, InUse: 1, Free: 3, Closed: true})
	if !held.Release() {
		t.Fatal("the holder's Release after Close = false")
	}
	testkit.MustNil(t, l.Drain(ctx))
	wantStats(t, l, semaphore.LimiterStats{Limit: 4, Free: 4, Closed: true})
	l.Close() // idempotent
}

// TestLimiterClosedPoolRefusesJobEleven is the pool of the issue that
// found the old Close: ten jobs run, the pool closes, the eleventh is
// refused, and Drain returns once the last of the ten is done.
func TestLimiterClosedPoolRefusesJobEleven(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newLimiter(3)
		ctx := context.Background()
		var ran atomic.Int32
		finish := make(chan struct{})
		for i := range 10 {
			p, err := l.AcquirePermit(ctx, 1)
			if err != nil {
				t.Fatalf("job %d: %v", i+1, err)
			}
			go func() {
				defer p.Release()
				ran.Add(1)
				<-finish
			}()
			if i == 2 {
				close(finish) // the pool is full: let the rest run through
			}
			synctest.Wait()
		}
		l.Close()
		testkit.SameErr(t, "job 11", l.Acquire(ctx, 1), semaphore.ErrClosed)
		testkit.MustNil(t, l.Drain(ctx))
		if n := ran.Load(); n != 10 {
			t.Fatalf("%d jobs ran, want 10", n)
		}
	})
}

// TestLimiterCloseRefusesWaiters: acquirers waiting at Close get
// ErrClosed, and a unit given back afterwards goes to nobody.
func TestLimiterCloseRefusesWaiters(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newLimiter(1)
		ctx := context.Background()
		testkit.MustNil(t, l.Acquire(ctx, 1))
		first := testkit.Park(func() error { return l.Acquire(ctx, 1) })
		second := testkit.Park(func() error { _, err := l.AcquirePermit(ctx, 1); return err })
		wantStats(t, l, semaphore.LimiterStats{Limit: 1, InUse: 1, Waiting: 2})
		l.Close()
		testkit.SameErr(t, "the first waiter", <-first, semaphore.ErrClosed)
		testkit.SameErr(t, "the second waiter", <-second, semaphore.ErrClosed)
		testkit.MustNil(t, l.Release(1))
		wantStats(t, l, semaphore.LimiterStats{Limit: 1, Free: 1, Closed: true})
	})
}

// TestLimiterOverReleaseIsReportedByName: a Release of more than is held
// is ErrOverRelease and changes nothing, also while a cut leaves more in
// use than the new limit.
func TestLimiterOverReleaseIsReportedByName(t *testing.T) {
	l := newLimiter(4)
	testkit.ErrIs(t, "Release(1) with nothing held", l.Release(1), semaphore.ErrOverRelease)
	testkit.MustNil(t, l.Acquire(context.Background(), 3))
	testkit.ErrIs(t, "Release(4) with 3 held", l.Release(4), semaphore.ErrOverRelease)
	testkit.ErrIs(t, "Release of more than the limit", l.Release(5), semaphore.ErrOverRelease)
	wantStats(t, l, semaphore.LimiterStats{Limit: 4, InUse: 3, Free: 1})
	testkit.MustNil(t, l.SetLimit(2)) // 3 in use, limit 2
	wantStats(t, l, semaphore.LimiterStats{Limit: 2, InUse: 3})
	testkit.ErrIs(t, "Release(4) with 3 held after the cut", l.Release(4), semaphore.ErrOverRelease)
	testkit.MustNil(t, l.Release(3))
	wantStats(t, l, semaphore.LimiterStats{Limit: 2, Free: 2})
	testkit.ErrIs(t, "Release(1) once all are back", l.Release(1), semaphore.ErrOverRelease)
	testkit.MustNil(t, l.Release(0))
}

// TestLimiterBadArguments: negative counts, a nil context and requests
// above the limit are ErrInvalid (or false) and change nothing; a limit
// below 1 panics in NewLimiter and is ErrInvalid in SetLimit.
func TestLimiterBadArguments(t *testing.T) {
	testkit.WantPanic(t, "semaphore: limit below 1", func() { newLimiter(0) })
	testkit.WantPanic(t, "semaphore: limit below 1", func() { newLimiter(-1) })
	l := newLimiter(2)
	ctx := context.Background()
	testkit.SameErr(t, "Acquire(-1)", l.Acquire(ctx, -1), semaphore.ErrInvalid)
	testkit.SameErr(t, "Acquire(3) above the limit", l.Acquire(ctx, 3), semaphore.ErrInvalid)
	testkit.SameErr(t, "Acquire(nil ctx)", l.Acquire(noCtx, 1), semaphore.ErrInvalid)
	testkit.SameErr(t, "Release(-1)", l.Release(-1), semaphore.ErrInvalid)
	testkit.SameErr(t, "SetLimit(0)", l.SetLimit(0), semaphore.ErrInvalid)
	testkit.SameErr(t, "Drain(nil ctx)", l.Drain(noCtx), semaphore.ErrInvalid)
	if l.TryAcquire(-1) || l.TryAcquire(3) {
		t.Fatal("TryAcquire of a bad count succeeded")
	}
	if p, err := l.AcquirePermit(ctx, -1); !errors.Is(err, semaphore.ErrInvalid) || p.N() != 0 {
		t.Fatalf("AcquirePermit(-1) = %d units, %v", p.N(), err)
	}
	wantStats(t, l, semaphore.LimiterStats{Limit: 2, Free: 2})
}

// TestLimiterAcquireWithADoneContextTakesNothing: a done context is a
// request to stop, even with the units free.
func TestLimiterAcquireWithADoneContextTakesNothing(t *testing.T) {
	l := newLimiter(2)
	testkit.SameErr(t, "Acquire(done, 1)", l.Acquire(testkit.Cancelled(), 1), context.Canceled)
	testkit.SameErr(t, "Acquire(done, 3) above the limit", l.Acquire(testkit.Cancelled(), 3), semaphore.ErrInvalid)
	wantStats(t, l, semaphore.LimiterStats{Limit: 2, Free: 2})
}

// TestLimiterWaitersAreServedInOrder: a large request at the head holds
// back a small one behind it, TryAcquire does not jump the queue, and a
// raise serves the queue in order.
// It is the strict mode's rule, so it runs on a strict limiter in both
// runs of the suite (fair_test.go has the eventual mode's).
func TestLimiterWaitersAreServedInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := semaphore.NewLimiter(3)
		ctx := context.Background()
		testkit.MustNil(t, l.Acquire(ctx, 2))
		big := testkit.Park(func() error { return l.Acquire(ctx, 3) })
		small := testkit.Park(func() error { return l.Acquire(ctx, 1) })
		if l.TryAcquire(1) {
			t.Fatal("TryAcquire jumped the queue")
		}
		testkit.Pending(t, small)
		testkit.MustNil(t, l.Release(2))
		testkit.MustNil(t, <-big)
		synctest.Wait()
		testkit.Pending(t, small)
		testkit.MustNil(t, l.SetLimit(4)) // one more unit: the small request
		testkit.MustNil(t, <-small)
		wantStats(t, l, semaphore.LimiterStats{Limit: 4, InUse: 4})
	})
}

// TestLimiterCancelledWaiterTakesNothing: a waiter whose context ends
// takes nothing and does not hold up the one behind it.
func TestLimiterCancelledWaiterTakesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newLimiter(2)
		ctx, cancel := context.WithCancel(context.Background())
		testkit.MustNil(t, l.Acquire(context.Background(), 2))
		head := testkit.Park(func() error { return l.Acquire(ctx, 2) })
		next := testkit.Park(func() error { return l.Acquire(context.Background(), 1) })
		cancel()
		testkit.SameErr(t, "the cancelled head", <-head, context.Canceled)
		testkit.MustNil(t, l.Release(1))
		testkit.MustNil(t, <-next)
		wantStats(t, l, semaphore.LimiterStats{Limit: 2, InUse: 2})
	})
}

func TestLimiterString(t *testing.T) {
	l := newLimiter(3)
	_ = l.Acquire(context.Background(), 1)
	l.Close()
	testkit.WantString(t, l, "limiter{limit=3 in-use=1 free=2 waiting=0 closed}")
}

// TestLimiterAllocatesNothing: the uncontended calls, permits included.
func TestLimiterAllocatesNothing(t *testing.T) {
	l := newLimiter(1)
	ctx := context.Background()
	testkit.NoAllocs(t, "Acquire and Release", func() {
		if l.Acquire(ctx, 1) != nil || l.Release(1) != nil {
			panic("the calls failed")
		}
	})
	testkit.NoAllocs(t, "AcquirePermit and its Release", func() {
		p, err := l.AcquirePermit(ctx, 1)
		if err != nil || !p.Release() {
			panic("the calls failed")
		}
	})
}

// TestLimiterReserveIsSelectable: a reservation keeps its place in line,
// its Done channel is closed once the units are held, and Close refuses
// a pending one and every later one (of 0 units too).
func TestLimiterReserveIsSelectable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newLimiter(2)
		testkit.MustNil(t, l.Acquire(context.Background(), 2))
		r, err := l.Reserve(1)
		testkit.MustNil(t, err)
		pending, _ := l.Reserve(2)
		if l.TryAcquire(1) {
			t.Fatal("TryAcquire jumped the reservations")
		}
		testkit.MustNil(t, l.Release(1))
		select {
		case <-r.Done():
		case <-time.After(time.Hour):
			t.Fatal("the reservation was not granted")
		}
		testkit.MustNil(t, r.Err())
		l.Close()
		<-pending.Done()
		testkit.SameErr(t, "the pending reservation at Close", pending.Err(), semaphore.ErrClosed)
		for _, n := range []int{0, 1} {
			if _, err := l.Reserve(n); err != semaphore.ErrClosed {
				t.Fatalf("Reserve(%d) after Close = %v", n, err)
			}
		}
		if _, err := l.Reserve(-1); !errors.Is(err, semaphore.ErrInvalid) {
			t.Fatalf("Reserve(-1) = %v", err)
		}
		testkit.MustNil(t, l.Release(2))
		wantStats(t, l, semaphore.LimiterStats{Limit: 2, Free: 2, Closed: true})
	})
}
