package semaphore_test

// The tests in this file state that the package works inside a
// testing/synctest bubble. Some of it is pinned by bubble tests elsewhere,
// which are not repeated here:
//   - parks: TestFIFOOrder and TestLargeAcquireDoesNotStarve (Acquire),
//     TestAcquireUpToTakesWhatIsThereInFIFOOrder, TestReleaseWaitBackPressure,
//     TestDrainWaitsUntilEveryUnitIsBack, TestCancelWakesAGoroutineBlockedOnDone
//     (a Reservation's Done), TestReady, TestLimiterWaitersAreServedInOrder
//     and TestGroupRunsAtMostLimitAtOnce (Group.Go and Group.Wait)
//   - Close of a Limiter: TestLimiterCloseRefusesWaiters, and
//     TestLimiterClosedPoolRefusesJobEleven for its Drain
//
// The package has no timers of its own. Only context deadlines run on the
// bubble's clock.

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/semaphore"
)

// timed is what a call parked in a bubble returned, and how long it took
// on the bubble's clock.
type timed struct {
	err  error
	took time.Duration
}

// parkTimed is testkit.Park for a call returning an error, timed from now.
func parkTimed(call func() error) <-chan timed {
	start := time.Now()
	return testkit.Park(func() timed {
		err := call()
		return timed{err, time.Since(start)}
	})
}

// wantDeadline checks a call parked with a context whose deadline is d
// away. It is still parked a nanosecond before the deadline, and it
// returns DeadlineExceeded exactly at it.
func wantDeadline(t *testing.T, res <-chan timed, d time.Duration) {
	t.Helper()
	time.Sleep(d - time.Nanosecond)
	synctest.Wait()
	testkit.Pending(t, res)
	time.Sleep(time.Nanosecond)
	if got := <-res; !errors.Is(got.err, context.DeadlineExceeded) || got.took != d {
		t.Fatalf("the parked call returned %v after %v, want DeadlineExceeded after %v", got.err, got.took, d)
	}
}

// stringFunc is a fmt.Stringer that calls itself.
type stringFunc func() string

func (f stringFunc) String() string { return f() }

// TestSynctestDeadlineEndsAParkedCallOnTime: a context deadline set in the
// bubble ends each blocking call exactly when the fake clock reaches it.
// The call changes nothing, so the state it leaves reads as before.
func TestSynctestDeadlineEndsAParkedCallOnTime(t *testing.T) {
	const d = 3 * time.Second
	bg := context.Background()
	for _, c := range []struct {
		name string
		// park makes a primitive on which call must wait, and returns the
		// call and the state it must leave unchanged.
		park func(t *testing.T, ctx context.Context) (call func() error, state fmt.Stringer)
	}{
		{"Semaphore.Acquire", func(t *testing.T, ctx context.Context) (func() error, fmt.Stringer) {
			s := newSemaphore(1)
			return func() error { return s.Acquire(ctx, 2) }, s
		}},
		{"Semaphore.AcquireUpTo", func(t *testing.T, ctx context.Context) (func() error, fmt.Stringer) {
			s := newSemaphore(0)
			return func() error {
				n, err := s.AcquireUpTo(ctx, 4)
				if n != 0 {
					return fmt.Errorf("took %d units, %w", n, err)
				}
				return err
			}, s
		}},
		{"Semaphore.ReleaseWait", func(t *testing.T, ctx context.Context) (func() error, fmt.Stringer) {
			s := newSemaphore(2, semaphore.WithLimit(2))
			return func() error { return s.ReleaseWait(ctx, 1) }, s
		}},
		{"Semaphore.Drain", func(t *testing.T, ctx context.Context) (func() error, fmt.Stringer) {
			s := newSemaphore(1, semaphore.WithLimit(2))
			return func() error { return s.Drain(ctx) }, s
		}},
		{"Reservation in a select", func(t *testing.T, ctx context.Context) (func() error, fmt.Stringer) {
			s := newSemaphore(0)
			return func() error {
				r, err := s.Reserve(1)
				if err != nil {
					return err
				}
				select {
				case <-r.Done():
					return errors.New("granted with no unit released")
				case <-ctx.Done():
					r.Cancel()
					return ctx.Err()
				}
			}, s
		}},
		{"Limiter.Acquire", func(t *testing.T, ctx context.Context) (func() error, fmt.Stringer) {
			l := newLimiter(2)
			testkit.MustNil(t, l.Acquire(bg, 1))
			return func() error { return l.Acquire(ctx, 2) }, l
		}},
		{"Limiter.AcquirePermit", func(t *testing.T, ctx context.Context) (func() error, fmt.Stringer) {
			l := newLimiter(1)
			testkit.MustNil(t, l.Acquire(bg, 1))
			return func() error {
				p, err := l.AcquirePermit(ctx, 1)
				if p.N() != 0 {
					return fmt.Errorf("a permit of %d units, %w", p.N(), err)
				}
				return err
			}, l
		}},
		{"Limiter.Drain", func(t *testing.T, ctx context.Context) (func() error, fmt.Stringer) {
			l := newLimiter(2)
			testkit.MustNil(t, l.Acquire(bg, 1))
			return func() error { return l.Drain(ctx) }, l
		}},
		{"Group.Go", func(t *testing.T, ctx context.Context) (func() error, fmt.Stringer) {
			g := newGroup(1)
			release := make(chan struct{})
			testkit.MustNil(t, g.Go(bg, func() error { <-release; return nil }))
			t.Cleanup(func() {
				close(release)
				testkit.MustNil(t, g.Wait())
			})
			var ran atomic.Bool
			return func() error {
				err := g.Go(ctx, func() error { ran.Store(true); return nil })
				if ran.Load() {
					return fmt.Errorf("the function ran, %w", err)
				}
				return err
			}, stringFunc(func() string { return g.Stats().String() })
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(bg, d)
				defer cancel()
				call, state := c.park(t, ctx)
				before := state.String()
				wantDeadline(t, parkTimed(call), d)
				if after := state.String(); after != before {
					t.Fatalf("after the deadline: %s, want %s as before", after, before)
				}
			})
		})
	}
}

// TestSynctestCloseWakesEveryParkedCaller: Close settles every caller
// parked on a Semaphore as documented. What is left serves the queue in
// order while it fits, and the rest get ErrClosed. Drain alone waits on,
// until the units held are back. The bubble ends with nothing left
// running, or synctest.Test would fail.
// It is the strict mode's rule, so it runs on a strict limiter in both
// runs of the suite (fair_test.go has the eventual mode's).
func TestSynctestCloseWakesEveryParkedCaller(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := semaphore.New(1, semaphore.WithLimit(2)) // one unit held outside
		acquire := park(ctx, s, 2)                    // the head: more than the 1 left
		upTo := testkit.Park(func() timed {
			n, err := s.AcquireUpTo(ctx, 2)
			return timed{err, time.Duration(n)}
		})
		r, err := s.Reserve(2)
		testkit.MustNil(t, err)
		reserved := testkit.Park(func() error { <-r.Done(); return r.Err() })
		write := testkit.Park(func() error { return s.ReleaseWait(ctx, 2) }) // 1+2 is past the limit
		drain := testkit.Park(func() error { return s.Drain(ctx) })
		empty := semaphore.New(0)
		ready := testkit.Park(func() struct{} { return <-empty.Ready() })
		if st := s.Stats(); st.Waiting != 3 || st.WritersWaiting != 1 {
			t.Fatalf("before Close: %v, want 3 acquirers and a writer waiting", st)
		}

		s.Close()
		empty.Close()
		testkit.ErrIs(t, "the head Acquire(2)", <-acquire, semaphore.ErrClosed)
		if got := <-upTo; got.err != nil || got.took != 1 {
			t.Fatalf("AcquireUpTo(2) at Close = %d, %v; want the 1 unit left", got.took, got.err)
		}
		testkit.ErrIs(t, "the Reservation of 2", <-reserved, semaphore.ErrClosed)
		testkit.ErrIs(t, "ReleaseWait(2)", <-write, semaphore.ErrClosed)
		<-ready
		synctest.Wait()
		testkit.Pending(t, drain) // both units are still out
		testkit.MustNil(t, s.Release(1))
		synctest.Wait()
		testkit.Pending(t, drain)
		testkit.MustNil(t, s.Release(1))
		testkit.MustNil(t, <-drain)
		if st := s.Stats(); st.Waiting != 0 || st.WritersWaiting != 0 || st.Count != 2 {
			t.Fatalf("after Close and Drain: %v", st)
		}
	})
}

// TestSynctestBubblesShareNothing: a Semaphore, Limiter or Group belongs
// to the bubble that uses it, and those of other bubbles share no channel
// with it. Each of several bubbles in turn parks more callers than a batch
// of waiting records, and a channel from an earlier bubble would panic.
func TestSynctestBubblesShareNothing(t *testing.T) {
	for round := range 3 {
		synctest.Test(t, func(t *testing.T) {
			ctx := context.Background()
			s := newSemaphore(0)
			l := newLimiter(1)
			g := newGroup(1)
			testkit.MustNil(t, l.Acquire(ctx, 1))
			hold := make(chan struct{})
			testkit.MustNil(t, g.Go(ctx, func() error { <-hold; return nil }))
			var acquires, limited, goes []<-chan error
			for range 6 {
				acquires = append(acquires, park(ctx, s, 1))
				limited = append(limited, testkit.Park(func() error { return l.Acquire(ctx, 1) }))
				goes = append(goes, testkit.Park(func() error { return g.Go(ctx, func() error { return nil }) }))
			}
			short, cancel := context.WithTimeout(ctx, time.Second)
			defer cancel()
			wantDeadline(t, parkTimed(func() error { return s.Acquire(short, 1) }), time.Second)
			testkit.MustNil(t, s.Release(6))
			close(hold)
			for i := range 6 {
				testkit.MustNil(t, l.Release(1)) // the unit held last goes to the next in line
				for what, res := range map[string]<-chan error{"Acquire": acquires[i], "Limiter.Acquire": limited[i], "Group.Go": goes[i]} {
					if err := <-res; err != nil {
						t.Fatalf("round %d: parked %s #%d = %v", round, what, i, err)
					}
				}
			}
			testkit.MustNil(t, l.Release(1))
			testkit.MustNil(t, g.Wait())
			testkit.MustNil(t, l.Drain(ctx))
		})
	}
}
