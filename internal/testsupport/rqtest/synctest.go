package rqtest

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
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/internal/testsupport/testkit"
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

// testSynctestNextAndReadyParkUntilAnAdd: a Next on an empty queue does
// its Done, then parks durably, and an Add wakes it with the item. A
// goroutine blocked on Ready parks durably too, until an Add.
func testSynctestNextAndReadyParkUntilAnAdd(t *testing.T, x Impl) {
	synctest.Test(t, func(t *testing.T) {
		q := x.New()
		q.Add(1)
		held := q.TryTake(1)
		next := testkit.Park(func() result {
			items, err := q.Next(bg, held, 4)
			return result{items, err}
		})
		testkit.Pending(t, next)
		if st := q.Stats(); st.InFlight != 0 || st.Waiting != 1 {
			t.Fatalf("with Next parked: %v, want its Done done and one waiter", st)
		}
		q.Add(2)
		r := <-next
		testkit.MustNil(t, r.err)
		wantItems(t, "Next", r.items, 2)

		other := x.New()
		ready := testkit.Park(func() struct{} { return <-other.Ready() })
		testkit.Pending(t, ready)
		other.Add(3)
		<-ready
		wantItems(t, "TryTake after Ready", other.TryTake(4), 3)
	})
}

// testSynctestDeadlineEndsAParkedCallOnTime: a context deadline set in the
// bubble ends each blocking call exactly when the fake clock reaches it,
// and not a nanosecond before. The call takes nothing. Next's Done has
// taken effect, and an item delayed past the deadline stays delayed.
// none is the error of a call that must hand out nothing.
func none(items []int, err error) error {
	if len(items) != 0 {
		return fmt.Errorf("handed out %v, %w", items, err)
	}
	return err
}

// testSynctestDefaultRateLimiterRunsOnTheFakeClock: AddRateLimited with
// the default limiter waits as client-go's does, on the bubble's clock.
// An item's retries come 5, 10 and 20 ms after their failures, exactly.
// The 101st first failure in one instant waits for the token bucket's
// 100 ms, since a burst of 100 empties it.
// wantRetryAt checks that item becomes ready exactly d from now, and not a
// nanosecond before, and takes it.
func wantRetryAt(t *testing.T, q Queue[int], d time.Duration, item int) {
	t.Helper()
	sleep(d - time.Nanosecond)
	wantItems(t, fmt.Sprintf("TryTake a nanosecond before %v", d), q.TryTake(4))
	sleep(time.Nanosecond)
	wantItems(t, fmt.Sprintf("TryTake at %v", d), q.TryTake(4), item)
}

// testSynctestBubblesShareNothing: a Queue belongs to the bubble that
// uses it, and the queues of other bubbles share no channel with it. Each
// of several bubbles in turn parks more Waits than a batch of waiting
// records, and a channel from an earlier bubble would panic. (workqueue's
// own test of the same name runs its timer too.)
func testSynctestBubblesShareNothing(t *testing.T, x Impl) {
	for round := range 3 {
		synctest.Test(t, func(t *testing.T) {
			q := x.New()
			defer q.Close()
			var parked []<-chan result
			for range 6 {
				parked = append(parked, parkWait(bg, q, 1))
			}
			for i, r := range parked {
				q.Add(i)
				got := <-r
				if got.err != nil || len(got.items) != 1 || got.items[0] != i {
					t.Fatalf("round %d: Wait %d = %v, %v; want [%d]", round, i, got.items, got.err, i)
				}
				q.Done(got.items...)
			}
		})
	}
}

// sleep advances a synctest bubble's clock by d and lets every timer due
// by then run to completion.
func sleep(d time.Duration) {
	time.Sleep(d)
	synctest.Wait()
}
