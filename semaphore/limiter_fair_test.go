package semaphore_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/internal/testsupport/fakeclock"
	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/semaphore"
)

// The eventual mode's rules (WithEventualFairness), each beside the strict
// mode's answer to the same calls. These tests make their limiters
// themselves, so they run the same in both runs of the suite.

// newFair is an eventually fair limiter of n units, with the bound
// fairBound.
func newFair(n int) *semaphore.Limiter {
	return semaphore.NewLimiter(n, semaphore.WithEventualFairness(fairBound))
}

// parkLimiter calls Acquire(ctx, n) in a goroutine and waits until it
// returns or parks.
func parkLimiter(ctx context.Context, l *semaphore.Limiter, n int) <-chan error {
	res := testkit.Park(func() error { return l.Acquire(ctx, n) })
	synctest.Wait()
	return res
}

// A head within the bound: every kind of acquire takes free units ahead
// of it in the eventual mode, and none does in the strict mode.
func TestLimiterEventualTakesAheadOfAYoungHead(t *testing.T) {
	for _, eventual := range []bool{false, true} {
		name := map[bool]string{false: "strict", true: "eventual"}[eventual]
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				l := semaphore.NewLimiter(2)
				if eventual {
					l = newFair(2)
				}
				ctx := context.Background()
				testkit.MustNil(t, l.Acquire(ctx, 1))
				big := parkLimiter(ctx, l, 2) // the head, short of one unit
				testkit.Pending(t, big)

				if got := l.TryAcquire(1); got != eventual {
					t.Fatalf("TryAcquire(1) = %v", got)
				}
				if eventual {
					testkit.MustNil(t, l.Release(1))
					testkit.MustNil(t, l.Acquire(ctx, 1)) // at once: this goroutine would block otherwise
					testkit.MustNil(t, l.Release(1))
				}
				if got := l.TryAcquireUpTo(5); got != map[bool]int{false: 0, true: 1}[eventual] {
					t.Fatalf("TryAcquireUpTo(5) = %d", got)
				}
				if eventual {
					testkit.MustNil(t, l.Release(1))
					r, err := l.Reserve(1)
					testkit.MustNil(t, err)
					if !testkit.IsClosed(r.Done()) {
						t.Fatal("Reserve(1) with a unit free and a young head waits")
					}
					if !r.Cancel() {
						t.Fatal("Cancel of a granted reservation kept its units")
					}
				}
				if st := l.Stats(); st.Free != 1 || st.Waiting != 1 {
					t.Fatalf("Stats = %v, want 1 free and the head waiting", st)
				}
				testkit.Pending(t, big)
				testkit.MustNil(t, l.Release(1))
				testkit.MustNil(t, <-big)
			})
		})
	}
}

// A head older than the bound is served first. A running caller may
// take free units until the next release, which turns the limiter
// strict: from then on nobody takes units ahead of the head, and releases
// hand them over.
func TestLimiterEventualOverdueHeadIsNeverStarved(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newFair(2)
		ctx := context.Background()
		testkit.MustNil(t, l.Acquire(ctx, 1))
		big := parkLimiter(ctx, l, 2)
		time.Sleep(fairBound + time.Nanosecond)

		if !l.TryAcquire(1) {
			t.Fatal("TryAcquire(1) before any release noticed the overdue head = false")
		}
		testkit.MustNil(t, l.Release(1)) // it notices
		if l.TryAcquire(1) || l.TryAcquireUpTo(1) != 0 {
			t.Fatal("a try took a unit ahead of an overdue head after a release")
		}
		small := parkLimiter(ctx, l, 1)
		testkit.Pending(t, small)
		r, err := l.Reserve(1)
		testkit.MustNil(t, err)
		testkit.Pending(t, r.Done())

		testkit.MustNil(t, l.Release(1)) // two free: the head's
		testkit.MustNil(t, <-big)
		testkit.Pending(t, small)
		testkit.MustNil(t, l.Release(2))
		testkit.MustNil(t, <-small)
		synctest.Wait()
		if !testkit.IsClosed(r.Done()) {
			t.Fatal("the reservation waits with units free")
		}
		testkit.MustNil(t, r.Err())
		testkit.MustNil(t, l.Release(2))
		if st := l.Stats(); st.Free != 2 || st.Waiting != 0 {
			t.Fatalf("Stats = %v, want all free", st)
		}
	})
}

// A release wakes the head, whose context ends at once. Either it took the
// unit, or it took nothing and the unit is free: never lost.
func TestLimiterEventualCancelOfAWokenHeadLosesNothing(t *testing.T) {
	for range 20 {
		synctest.Test(t, func(t *testing.T) {
			l := newFair(1)
			testkit.MustNil(t, l.Acquire(context.Background(), 1))
			ctx, cancel := context.WithCancel(context.Background())
			res := parkLimiter(ctx, l, 1)
			testkit.MustNil(t, l.Release(1))
			cancel()
			err := <-res
			st := l.Stats()
			switch {
			case err == nil && st.Free == 0:
			case errors.Is(err, context.Canceled) && st.Free == 1:
			default:
				t.Fatalf("Acquire = %v with %v: a unit was lost or made up", err, st)
			}
		})
	}
}

// Callers that release and acquire again at once, holding for hold each
// time: in the eventual mode none waits much longer than the bound. With
// no bound the one running would keep the unit. In the strict mode each
// waits for those ahead of it.
func TestLimiterEventualLongestWaitIsBounded(t *testing.T) {
	const (
		g     = 4
		hold  = 50 * time.Microsecond
		loops = 200
	)
	for _, eventual := range []bool{false, true} {
		name := map[bool]string{false: "strict", true: "eventual"}[eventual]
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				l := semaphore.NewLimiter(1)
				if eventual {
					l = newFair(1)
				}
				var mu sync.Mutex
				longest := time.Duration(0)
				var wg sync.WaitGroup
				for range g {
					wg.Go(func() {
						for range loops {
							start := time.Now()
							if err := l.Acquire(context.Background(), 1); err != nil {
								t.Error(err)
								return
							}
							wait := time.Since(start)
							time.Sleep(hold)
							_ = l.Release(1)
							mu.Lock()
							longest = max(longest, wait)
							mu.Unlock()
						}
					})
				}
				wg.Wait()
				limit := g * hold // the others' holds, ahead of it in the queue
				if eventual {
					limit += fairBound
				}
				if longest > limit {
					t.Fatalf("longest wait %v, want at most %v", longest, limit)
				}
				t.Logf("longest wait %v (limit %v)", longest, limit)
			})
		})
	}
}

// The ages are read on the clock given with WithClock: the wall clock
// moving on makes no head overdue, and the given clock moving on does.
func TestLimiterEventualReadsAgesOnTheGivenClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fc := fakeclock.New(time.Unix(1, 0))
		l := semaphore.NewLimiter(2, semaphore.WithEventualFairness(fairBound), semaphore.WithClock(fc))
		ctx := context.Background()
		testkit.MustNil(t, l.Acquire(ctx, 1))
		big := parkLimiter(ctx, l, 2)

		time.Sleep(time.Hour) // the wall clock, in the bubble
		testkit.MustNil(t, l.Acquire(ctx, 1))
		testkit.MustNil(t, l.Release(1)) // a release looks at the head's age
		if !l.TryAcquire(1) {
			t.Fatal("the wall clock made the head overdue, though the limiter reads the given clock")
		}
		testkit.MustNil(t, l.Release(1))

		fc.Step(fairBound)
		if !l.TryAcquire(1) {
			t.Fatal("a head aged exactly the bound is overdue")
		}
		testkit.MustNil(t, l.Release(1))

		fc.Step(time.Nanosecond)
		if !l.TryAcquire(1) {
			t.Fatal("TryAcquire before any release noticed the overdue head = false")
		}
		testkit.MustNil(t, l.Release(1)) // it notices
		if l.TryAcquire(1) {
			t.Fatal("TryAcquire took a unit ahead of a head older than the bound")
		}
		testkit.MustNil(t, l.Release(1))
		testkit.MustNil(t, <-big)
	})
}

// WithLimit is an option of New only, and the bound must be positive.
func TestEventualOptionsRefuseWhatMakesNoSense(t *testing.T) {
	for name, f := range map[string]func(){
		"NewLimiter(WithLimit)": func() { semaphore.NewLimiter(2, semaphore.WithLimit(4)) },
		"NewGroup(WithLimit)":   func() { semaphore.NewGroup(2, semaphore.WithLimit(4)) },
		"bound 0":               func() { semaphore.WithEventualFairness(0) },
		"bound -1ns":            func() { semaphore.WithEventualFairness(-time.Nanosecond) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			f()
		})
	}
}

// A release that wakes a parked waiter yields the processor to it, so the
// units do not sit idle while the releaser goes on working. With one
// processor, the waiter has run by the time Release returns: one waiter
// alone (the lone slot's hand-off) and the head of a queue (a locked
// section's, the lean one and, with Drain waiting, the full one). The
// eventual mode's release wakes the waiter to retry, and yields to it
// too, so that it looks at the count before a running caller can.
//
// Without the yield the waiter never runs first: the releaser keeps the
// one processor. With it, the scheduler still runs the releaser first once
// in 61 rounds (its global queue's turn), so each case is tried trials
// times and must see the waiter run first in most of them.
func TestLimiterReleaseRunsTheWaiterItHandsUnitsTo(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	const trials = 20
	for _, s := range []struct {
		name    string
		new     func() *semaphore.Limiter
		waiters int
		drain   bool
	}{
		{"strict, one waiter", func() *semaphore.Limiter { return semaphore.NewLimiter(1) }, 1, false},
		{"strict, two waiters", func() *semaphore.Limiter { return semaphore.NewLimiter(1) }, 2, false},
		{"strict, two waiters, Drain waiting", func() *semaphore.Limiter { return semaphore.NewLimiter(1) }, 2, true},
		{"eventual, not starving", func() *semaphore.Limiter { return newFair(1) }, 2, false},
	} {
		t.Run(s.name, func(t *testing.T) {
			first := 0
			for range trials {
				if waiterRanFirst(t, s.new(), s.waiters, s.drain) {
					first++
				}
			}
			if first < trials/2 {
				t.Errorf("a waiter had run when Release returned in %d of %d trials, want most", first, trials)
			}
		})
	}
}

// waiterRanFirst parks waiters on l, whose one unit the caller holds, and
// Drain too if drain is set. It reports whether one of them had taken the
// unit by the time the caller's Release returned.
func waiterRanFirst(t *testing.T, l *semaphore.Limiter, waiters int, drain bool) bool {
	testkit.MustNil(t, l.Acquire(context.Background(), 1))
	var ran atomic.Int32
	var wg sync.WaitGroup
	if drain {
		wg.Go(func() {
			if err := l.Drain(context.Background()); err != nil {
				t.Error(err)
			}
		})
	}
	for i := range waiters {
		wg.Go(func() {
			if err := l.Acquire(context.Background(), 1); err != nil {
				t.Error(err)
				return
			}
			ran.Add(1)
			_ = l.Release(1)
		})
		for l.Stats().Waiting <= i {
			runtime.Gosched() // until it has queued
		}
	}
	testkit.MustNil(t, l.Release(1))
	first := ran.Load() != 0
	wg.Wait()
	return first
}
