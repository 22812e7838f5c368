package rqtest

// The tests in this file state that a ready list works inside a
// testing/synctest bubble. Parks are pinned by the suite's other tests
// (testWaitBlocksUntilAdd, testWaitersServedInFIFOOrder,
// testDrainReturnsWhenNothingQueuedOrInFlight), which run in bubbles too.
// The timers of workqueue's delays are its own tests' subject.

import (
	"testing"
	"testing/synctest"

	"github.com/evsync/evsync/internal/testsupport/testkit"
)

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
