package semaphore_test

import (
	"context"
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/semaphore"
)

// upTo is what a parked AcquireUpTo returned.
type upTo struct {
	n   int
	err error
}

// parkUpTo starts AcquireUpTo(ctx, max) in a goroutine of the bubble and
// waits until it returned or is durably blocked.
func parkUpTo(ctx context.Context, l *semaphore.Limiter, max int) <-chan upTo {
	res := testkit.Park(func() upTo { n, err := l.AcquireUpTo(ctx, max); return upTo{n, err} })
	synctest.Wait()
	return res
}

// wantTook fails t unless the call took n units with a nil error.
func wantTook(t *testing.T, what string, got upTo, n int) {
	t.Helper()
	if got.n != n || got.err != nil {
		t.Fatalf("%s = %d, %v, want %d, nil", what, got.n, got.err, n)
	}
}

// TestLimiterTryAcquireUpToTakesWhatIsFreeAtMostMax: it takes min(free,
// max), 0 when nothing is free, and math.MaxInt takes every free unit.
func TestLimiterTryAcquireUpToTakesWhatIsFreeAtMostMax(t *testing.T) {
	l := newLimiter(5)
	for _, c := range []struct{ max, want int }{{2, 2}, {9, 3}, {1, 0}} {
		if n := l.TryAcquireUpTo(c.max); n != c.want {
			t.Fatalf("TryAcquireUpTo(%d) = %d, want %d", c.max, n, c.want)
		}
	}
	testkit.MustNil(t, l.Release(4))
	if n := l.TryAcquireUpTo(math.MaxInt); n != 4 {
		t.Fatalf("TryAcquireUpTo(MaxInt) of 4 free = %d", n)
	}
	wantStats(t, l, semaphore.LimiterStats{Limit: 5, InUse: 5})
}

// TestLimiterTryAcquireUpToNeverJumpsTheQueue: with an acquirer queued
// for more than is free, it takes nothing although units are free; once
// the head is served, it takes what is left.
// It is the strict mode's rule, so it runs on a strict limiter in both
// runs of the suite (fair_test.go has the eventual mode's).
func TestLimiterTryAcquireUpToNeverJumpsTheQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := semaphore.NewLimiter(4)
		ctx := context.Background()
		testkit.MustNil(t, l.Acquire(ctx, 3))
		head := testkit.Park(func() error { return l.Acquire(ctx, 3) })
		synctest.Wait()
		if n := l.TryAcquireUpTo(4); n != 0 {
			t.Fatalf("TryAcquireUpTo(4) took %d of the unit the queued head is owed", n)
		}
		if p := l.TryAcquirePermitUpTo(4); p.N() != 0 {
			t.Fatalf("TryAcquirePermitUpTo(4) took %d ahead of the head", p.N())
		}
		wantStats(t, l, semaphore.LimiterStats{Limit: 4, InUse: 3, Free: 1, Waiting: 1})
		testkit.MustNil(t, l.Release(3))
		testkit.MustNil(t, <-head)
		if n := l.TryAcquireUpTo(4); n != 1 {
			t.Fatalf("TryAcquireUpTo(4) once the head is served = %d, want 1", n)
		}
	})
}

// TestLimiterUpToTakesNothingAfterCloseWithUnitsFree: Close ends new work,
// so both calls take nothing although units are free, and AcquireUpTo
// says ErrClosed, for max 0 too.
func TestLimiterUpToTakesNothingAfterCloseWithUnitsFree(t *testing.T) {
	l := newLimiter(3)
	ctx := context.Background()
	testkit.MustNil(t, l.Acquire(ctx, 1))
	l.Close()
	if n := l.TryAcquireUpTo(3); n != 0 {
		t.Fatalf("TryAcquireUpTo(3) after Close took %d", n)
	}
	for _, max := range []int{3, 0} {
		n, err := l.AcquireUpTo(ctx, max)
		testkit.SameErr(t, "AcquireUpTo after Close", err, semaphore.ErrClosed)
		if n != 0 {
			t.Fatalf("AcquireUpTo(%d) after Close took %d", max, n)
		}
	}
	if p, err := l.AcquirePermitUpTo(ctx, 3); err != semaphore.ErrClosed || p.N() != 0 {
		t.Fatalf("AcquirePermitUpTo after Close = %d units, %v", p.N(), err)
	}
	if p := l.TryAcquirePermitUpTo(3); p.N() != 0 || p.Release() {
		t.Fatalf("TryAcquirePermitUpTo after Close holds %d", p.N())
	}
	wantStats(t, l, semaphore.LimiterStats{Limit: 3, InUse: 1, Free: 2, Closed: true})
}

// TestLimiterUpToZeroAndNegativeMax: max 0 takes nothing and succeeds on
// an open limiter; a negative max takes nothing, and AcquireUpTo reports
// it as a bad argument; a done context stops AcquireUpTo even for max 0.
func TestLimiterUpToZeroAndNegativeMax(t *testing.T) {
	l := newLimiter(2)
	ctx := context.Background()
	for _, max := range []int{0, -1, math.MinInt} {
		if n := l.TryAcquireUpTo(max); n != 0 {
			t.Fatalf("TryAcquireUpTo(%d) = %d", max, n)
		}
	}
	if n, err := l.AcquireUpTo(ctx, 0); n != 0 || err != nil {
		t.Fatalf("AcquireUpTo(0) = %d, %v", n, err)
	}
	n, err := l.AcquireUpTo(ctx, -1)
	testkit.ErrIs(t, "AcquireUpTo(-1)", err, semaphore.ErrInvalid)
	if n != 0 {
		t.Fatalf("AcquireUpTo(-1) took %d", n)
	}
	for _, max := range []int{0, 1} {
		_, err := l.AcquireUpTo(testkit.Cancelled(), max)
		testkit.SameErr(t, "AcquireUpTo(done ctx)", err, context.Canceled)
	}
	wantStats(t, l, semaphore.LimiterStats{Limit: 2, Free: 2})
}

// TestLimiterAcquireUpToWaitsInFIFOOrder: an AcquireUpTo queued behind a
// larger Acquire waits while units are free, gets what the head leaves,
// and one behind it waits for the next Release.
// It is the strict mode's rule, so it runs on a strict limiter in both
// runs of the suite (fair_test.go has the eventual mode's).
func TestLimiterAcquireUpToWaitsInFIFOOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := semaphore.NewLimiter(4)
		ctx := context.Background()
		testkit.MustNil(t, l.Acquire(ctx, 3))
		head := testkit.Park(func() error { return l.Acquire(ctx, 2) })
		first := parkUpTo(ctx, l, 10)
		second := parkUpTo(ctx, l, 10)
		testkit.Pending(t, first)
		wantStats(t, l, semaphore.LimiterStats{Limit: 4, InUse: 3, Free: 1, Waiting: 3})
		testkit.MustNil(t, l.Release(3)) // 4 free: the head takes 2, the first the 2 left
		testkit.MustNil(t, <-head)
		wantTook(t, "the first AcquireUpTo", <-first, 2)
		synctest.Wait()
		testkit.Pending(t, second)
		testkit.MustNil(t, l.Release(1))
		wantTook(t, "the second AcquireUpTo", <-second, 1)
		wantStats(t, l, semaphore.LimiterStats{Limit: 4, InUse: 4})
	})
}

// TestLimiterAcquireUpToGrantRacingCancelIsNotLost: units handed over
// while the context is live are kept when it ends before the waiter
// wakes: the call reports them with a nil error.
// It is the strict mode's rule, so it runs on a strict limiter in both
// runs of the suite (fair_test.go has the eventual mode's).
func TestLimiterAcquireUpToGrantRacingCancelIsNotLost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := semaphore.NewLimiter(3)
		testkit.MustNil(t, l.Acquire(context.Background(), 3))
		ctx, cancel := context.WithCancel(context.Background())
		res := parkUpTo(ctx, l, 5)
		testkit.MustNil(t, l.Release(2))
		cancel()
		wantTook(t, "AcquireUpTo granted, then cancelled", <-res, 2)
		wantStats(t, l, semaphore.LimiterStats{Limit: 3, InUse: 3})
	})
}

// TestLimiterAcquireUpToCancelledTakesNothing: a waiter whose context
// ends takes nothing, and the units released next go to the one behind
// it.
func TestLimiterAcquireUpToCancelledTakesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newLimiter(2)
		testkit.MustNil(t, l.Acquire(context.Background(), 2))
		ctx, cancel := context.WithCancel(context.Background())
		gone := parkUpTo(ctx, l, 2)
		next := parkUpTo(context.Background(), l, 2)
		cancel()
		got := <-gone
		testkit.SameErr(t, "the cancelled AcquireUpTo", got.err, context.Canceled)
		if got.n != 0 {
			t.Fatalf("the cancelled AcquireUpTo took %d", got.n)
		}
		testkit.MustNil(t, l.Release(2))
		wantTook(t, "the AcquireUpTo behind it", <-next, 2)
	})
}

// TestLimiterAcquireUpToRefusedByClose: a waiter queued at Close gets
// ErrClosed, although the Release that follows frees units.
func TestLimiterAcquireUpToRefusedByClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newLimiter(1)
		testkit.MustNil(t, l.Acquire(context.Background(), 1))
		res := parkUpTo(context.Background(), l, 1)
		l.Close()
		got := <-res
		testkit.SameErr(t, "AcquireUpTo waiting at Close", got.err, semaphore.ErrClosed)
		testkit.MustNil(t, l.Release(1))
		testkit.MustNil(t, l.Drain(context.Background()))
		wantStats(t, l, semaphore.LimiterStats{Limit: 1, Free: 1, Closed: true})
	})
}

// TestLimiterUpToInDebtTakesNothing: after a cut below what is held,
// releases pay the debt before they free units, so neither call takes
// anything until one does; a waiting AcquireUpTo is served then, and a
// queued one never holds up a cut (it asks for no fixed number).
func TestLimiterUpToInDebtTakesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newLimiter(4)
		ctx := context.Background()
		testkit.MustNil(t, l.Acquire(ctx, 4))
		res := parkUpTo(ctx, l, 4)
		testkit.MustNil(t, l.SetLimit(2)) // 4 held, limit 2: a debt of 2
		testkit.MustNil(t, l.Release(2))  // pays it
		if n := l.TryAcquireUpTo(4); n != 0 {
			t.Fatalf("TryAcquireUpTo in debt took %d", n)
		}
		testkit.Pending(t, res)
		testkit.MustNil(t, l.SetLimit(1)) // below nothing queued: a debt of 1
		testkit.MustNil(t, l.Release(2))  // pays 1, frees 1
		wantTook(t, "AcquireUpTo after the debt", <-res, 1)
		wantStats(t, l, semaphore.LimiterStats{Limit: 1, InUse: 1})
	})
}

// TestLimiterPermitUpToHoldsWhatItTook: the permit forms hold what the
// call took, Split hands them on one by one, and each Release gives its
// unit back once.
func TestLimiterPermitUpToHoldsWhatItTook(t *testing.T) {
	l := newLimiter(4)
	ctx := context.Background()
	p, err := l.AcquirePermitUpTo(ctx, 3)
	if err != nil || p.N() != 3 {
		t.Fatalf("AcquirePermitUpTo(3) of 4 = %d units, %v", p.N(), err)
	}
	q := l.TryAcquirePermitUpTo(3)
	if q.N() != 1 {
		t.Fatalf("TryAcquirePermitUpTo(3) of 1 free = %d units", q.N())
	}
	if e := l.TryAcquirePermitUpTo(1); e.N() != 0 || e.Release() {
		t.Fatalf("TryAcquirePermitUpTo(1) of none free holds %d", e.N())
	}
	for p.N() > 0 {
		job, err := p.Split(1)
		testkit.MustNil(t, err)
		if !job.Release() || job.Release() {
			t.Fatal("a split unit was not given back exactly once")
		}
	}
	if !q.Release() {
		t.Fatal("the permit of TryAcquirePermitUpTo was not given back")
	}
	wantStats(t, l, semaphore.LimiterStats{Limit: 4, Free: 4})
}

// TestLimiterAcquireUpToWaitsDurablyInSynctest: a waiting AcquireUpTo is
// durably blocked, and a deadline on the bubble's clock ends it on time.
func TestLimiterAcquireUpToWaitsDurablyInSynctest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newLimiter(1)
		testkit.MustNil(t, l.Acquire(context.Background(), 1))
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		start := time.Now()
		n, err := l.AcquireUpTo(ctx, 1)
		testkit.SameErr(t, "AcquireUpTo past its deadline", err, context.DeadlineExceeded)
		if n != 0 || time.Since(start) != time.Minute {
			t.Fatalf("AcquireUpTo took %d and returned after %v, want 0 after 1m", n, time.Since(start))
		}
	})
}
