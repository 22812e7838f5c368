//go:build evsynchooks

package workqueue_test

import (
	"sync/atomic"
	"testing"

	"github.com/evsync/evsync/poll"
	"github.com/evsync/evsync/workqueue"
)

// TestHookArmedPublishesBeforeItLoadsArmed stops an Add in its publish,
// after it stored the queued count and before it loads how many poll
// registrations are armed. A harvest arms the queue's edge registration
// and polls it meanwhile. One of the two must see the other: the harvest
// sees the item, or the Add sees the registration armed and wakes it.
// Had the Add loaded the armed count first, it would find 0, the harvest
// would find nothing published, and the item's edge would be lost.
func TestHookArmedPublishesBeforeItLoadsArmed(t *testing.T) {
	q := workqueue.New[int]()
	set := watched(t, q, poll.Edge)
	q.Add(1)                // queued on the set
	q.Done(q.TryTake(8)...) // the queue empty, the registration still queued
	in, out := make(chan struct{}), make(chan struct{})
	var stopping atomic.Bool
	workqueue.SetHook(func(p workqueue.Point) {
		if p == workqueue.PointArmed && stopping.CompareAndSwap(false, true) {
			in <- struct{}{}
			<-out
		}
	})
	defer workqueue.SetHook(nil)
	added := make(chan struct{})
	go func() {
		q.Add(2)
		close(added)
	}()
	<-in                       // the Add is in the window, with the queue's lock held
	evs := set.TryWait(nil, 4) // arms, then polls: needs neither the queue's lock
	close(out)
	<-added
	evs = set.TryWait(evs, 4)
	if len(evs) == 0 {
		t.Fatal("an Add racing the harvest's arm was never reported")
	}
}
