//go:build evsynchooks

package workqueue_test

import (
	"slices"
	"testing"

	"github.com/evsync/evsync/workqueue"
)

// TestHookLoadedTryTakeSeesItemsQueuedBetweenItsLoads stops a TryTake
// on a user's clock between its two lock-free loads. There another call
// queues the two due items, taking them off the delayed count. The
// TryTake must still take both: a load of the delayed count from before
// that call and of the queued count from after it shows an item.
func TestHookLoadedTryTakeSeesItemsQueuedBetweenItsLoads(t *testing.T) {
	c := newStalled()
	q := workqueue.New[string](workqueue.WithClock(c))
	defer q.Close()
	q.AddAfter("a", 10*ms)
	q.AddAfter("b", 20*ms)
	c.jump(30 * ms) // both due; no timer fires

	in, out := make(chan struct{}), make(chan struct{})
	workqueue.SetHook(func(p workqueue.Point) {
		if p == workqueue.PointLoaded {
			in <- struct{}{}
			<-out
		}
	})
	defer workqueue.SetHook(nil)
	got := make(chan []string)
	go func() { got <- q.TryTake(8) }()
	<-in // TryTake has loaded one count
	workqueue.SetHook(nil)
	if n := q.Len(); n != 2 { // queues a and b under the lock
		t.Fatalf("Len in the window = %d, want 2", n)
	}
	close(out)
	if items := <-got; !slices.Equal(items, []string{"a", "b"}) {
		t.Fatalf("TryTake across the window = %v, want [a b]", items)
	}
}
