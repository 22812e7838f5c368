package workqueue_test

// The tests in this file state that the package works inside a
// testing/synctest bubble. Some of it is pinned by bubble tests elsewhere,
// which are not repeated here:
//   - parks: TestWaitBlocksUntilAdd, TestWaitersServedInFIFOOrder and
//     TestDrainReturnsWhenNothingQueuedOrInFlight
//   - the queue's timer, a nanosecond early and on time:
//     TestAddAfterQueuesTheItemExactlyAtItsTime, and TestAddAfterWakesABlockedWait
//     for a parked Wait. TestAddRateLimitedBacksOffByTheLimitersDelay times
//     AddRateLimited exactly with a limiter of the test's own.
//   - Close: TestCloseWakesEveryWaiter, TestCloseQueuesEveryDelayedItem and
//     TestDrainWorksOnClosedQueueAndCancels

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/workqueue"
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

// TestSynctestNextAndReadyParkUntilAnAdd: a Next on an empty queue does
// its Done, then parks durably, and an Add wakes it with the item. A
// goroutine blocked on Ready parks durably too, until an Add.
// TestSynctestDeadlineEndsAParkedCallOnTime: a context deadline set in the
// bubble ends each blocking call exactly when the fake clock reaches it,
// and not a nanosecond before. The call takes nothing. Next's Done has
// taken effect, and an item delayed past the deadline stays delayed.
func TestSynctestDeadlineEndsAParkedCallOnTime(t *testing.T) {
	const d = 3 * time.Second
	for _, c := range []struct {
		name string
		// park makes a queue on which call must wait, and returns the call
		// and the state it must leave.
		park func(ctx context.Context) (call func() error, q *workqueue.Queue[int], want string)
	}{
		{"Wait", func(ctx context.Context) (func() error, *workqueue.Queue[int], string) {
			q := workqueue.New[int]()
			q.AddAfter(1, time.Hour)
			return func() error { return none(q.Wait(ctx, 4)) }, q,
				"workqueue{queued=0 delayed=1 inflight=0 aside=0 disarmed=0 waiting=0 draining=0}"
		}},
		{"Next", func(ctx context.Context) (func() error, *workqueue.Queue[int], string) {
			q := workqueue.New[int]()
			q.Add(1)
			held := q.TryTake(1)
			return func() error { return none(q.Next(ctx, held, 4)) }, q,
				"workqueue{queued=0 inflight=0 aside=0 disarmed=0 waiting=0 draining=0}"
		}},
		{"Drain", func(ctx context.Context) (func() error, *workqueue.Queue[int], string) {
			q := workqueue.New[int]()
			q.Add(1)
			q.TryTake(1)
			return func() error { return q.Drain(ctx) }, q,
				"workqueue{queued=0 inflight=1 aside=0 disarmed=0 waiting=0 draining=0}"
		}},
		{"Ready in a select", func(ctx context.Context) (func() error, *workqueue.Queue[int], string) {
			q := workqueue.New[int]()
			return func() error {
				select {
				case <-q.Ready():
					return errors.New("Ready fired on an empty queue")
				case <-ctx.Done():
					return ctx.Err()
				}
			}, q, "workqueue{queued=0 inflight=0 aside=0 disarmed=0 waiting=0 draining=0}"
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(bg, d)
				defer cancel()
				call, q, want := c.park(ctx)
				defer q.Close()
				res := parkTimed(call)
				sleep(d - time.Nanosecond)
				testkit.Pending(t, res)
				time.Sleep(time.Nanosecond)
				if got := <-res; !errors.Is(got.err, context.DeadlineExceeded) || got.took != d {
					t.Fatalf("the parked call returned %v after %v, want DeadlineExceeded after %v", got.err, got.took, d)
				}
				testkit.WantString(t, q, want)
			})
		})
	}
}

// none is the error of a call that must hand out nothing.
func none(items []int, err error) error {
	if len(items) != 0 {
		return fmt.Errorf("handed out %v, %w", items, err)
	}
	return err
}

// TestSynctestDefaultRateLimiterRunsOnTheFakeClock: AddRateLimited with
// the default limiter waits as client-go's does, on the bubble's clock.
// An item's retries come 5, 10 and 20 ms after their failures, exactly.
// The 101st first failure in one instant waits for the token bucket's
// 100 ms, since a burst of 100 empties it.
func TestSynctestDefaultRateLimiterRunsOnTheFakeClock(t *testing.T) {
	t.Run("backoff", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := workqueue.New[int]()
			defer q.Close()
			q.Add(1)
			q.TryTake(1)
			for try, d := range []time.Duration{5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond} {
				q.AddRateLimited(1) // a failure while in flight: kept aside
				q.Done(1)           // and delayed from the failure on
				wantRetryAt(t, q, d, 1)
				if n := q.NumRequeues(1); n != try+1 {
					t.Fatalf("NumRequeues = %d, want %d", n, try+1)
				}
			}
			q.Done(1)
		})
	})
	t.Run("bucket", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := workqueue.New[int]()
			defer q.Close()
			for k := range 101 {
				q.AddRateLimited(k)
			}
			sleep(5 * time.Millisecond)
			if n := len(q.TryTake(200)); n != 100 {
				t.Fatalf("%d items after 5 ms, want the 100 of the burst", n)
			}
			wantRetryAt(t, q, 95*time.Millisecond, 100)
		})
	})
}

// wantRetryAt checks that item becomes ready exactly d from now, and not a
// nanosecond before, and takes it.
func wantRetryAt(t *testing.T, q *workqueue.Queue[int], d time.Duration, item int) {
	t.Helper()
	sleep(d - time.Nanosecond)
	wantItems(t, fmt.Sprintf("TryTake a nanosecond before %v", d), q.TryTake(4))
	sleep(time.Nanosecond)
	wantItems(t, fmt.Sprintf("TryTake at %v", d), q.TryTake(4), item)
}

// TestSynctestCloseWakesEveryParkedCaller: Close, with items delayed and
// in flight, settles every caller parked on the queue as documented. The
// delayed items are queued at once and go to the first Waits, in
// ready-time order. The last Wait gets ErrClosed, since nothing is left to
// hand out, and a Ready channel closes. Drain waits on until the items in
// flight are done. CloseDiscardingDelays drops the delayed items instead,
// so every Wait gets ErrClosed. Past the delays nothing comes, and the
// bubble ends with nothing running, or synctest.Test would fail.
func TestSynctestCloseWakesEveryParkedCaller(t *testing.T) {
	for _, c := range []struct {
		name  string
		close func(q *workqueue.Queue[int])
		got   [][]int // what the three Waits get in turn, nil for ErrClosed
	}{
		{"Close", (*workqueue.Queue[int]).Close, [][]int{{1}, {2}, nil}},
		{"CloseDiscardingDelays", func(q *workqueue.Queue[int]) { q.CloseDiscardingDelays() }, [][]int{nil, nil, nil}},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := workqueue.New[int]()
				q.Add(9)
				held := q.TryTake(1)
				q.AddAfter(2, 2*time.Hour)
				q.AddAfter(1, time.Hour)
				var waits []<-chan result
				for range c.got {
					waits = append(waits, parkWait(bg, q, 1))
				}
				drain := testkit.Park(func() error { return q.Drain(bg) })
				ready := testkit.Park(func() struct{} { return <-q.Ready() })

				start := time.Now()
				c.close(q)
				for i, r := range waits {
					got := <-r
					if c.got[i] == nil {
						testkit.ErrIs(t, fmt.Sprintf("Wait %d", i), got.err, workqueue.ErrClosed)
						continue
					}
					testkit.MustNil(t, got.err)
					wantItems(t, fmt.Sprintf("Wait %d", i), got.items, c.got[i]...)
					held = append(held, got.items...)
				}
				<-ready
				if took := time.Since(start); took != 0 {
					t.Fatalf("the parked callers were settled %v after Close, want at once", took)
				}
				synctest.Wait()
				testkit.Pending(t, drain)
				q.Done(held...)
				testkit.MustNil(t, <-drain)
				sleep(3 * time.Hour)
				if st := q.Stats(); st.Queued+st.Delayed+st.InFlight != 0 || !st.Closed {
					t.Fatalf("after the delays: %v, want an empty, closed queue", st)
				}
			})
		})
	}
}

// TestSynctestBubblesShareNothing: a Queue belongs to the bubble that uses
// it, and the queues of other bubbles share no channel or timer with it.
// Each of several bubbles in turn parks more Waits than a batch of waiting
// records and runs its queue's timer, and a channel or timer from an
// earlier bubble would panic.
