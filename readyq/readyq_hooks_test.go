//go:build evsynchooks

package readyq_test

import (
	"runtime"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/evsync/evsync/readyq"
)

// TestHookWatchTryTakeSeesWhatTheFirstObserverPublishes stops the first
// observer call (a Len) in watch, between the publishing of the counters
// and the setting of watched, with the lock held. An item was queued
// before, when no unlock published. A TryTake started there must not
// trust a count nobody has published: it waits for the lock and takes the
// item. Had watch set watched first, the TryTake would read a queued
// count of 0 and return nothing.
func TestHookWatchTryTakeSeesWhatTheFirstObserverPublishes(t *testing.T) {
	q := readyq.New[int]()
	q.Add(1) // nobody observes yet: nothing is published

	in, out := make(chan struct{}), make(chan struct{})
	var stopped atomic.Bool
	var locks atomic.Int64
	readyq.SetHook(func(p readyq.Point) {
		switch {
		case p == readyq.PointLock:
			locks.Add(1)
		case p == readyq.PointWatch && stopped.CompareAndSwap(false, true):
			in <- struct{}{}
			<-out
		}
	})
	defer readyq.SetHook(nil)

	n := make(chan int, 1)
	go func() { n <- q.Len() }()
	<-in // Len holds the lock in watch's window
	before := locks.Load()
	got := make(chan []int, 1)
	go func() { got <- q.TryTake(4) }()
	var items []int
	early := false
	for i := 0; !early && locks.Load() == before; i++ { // a hand-shake: the TryTake ends or reaches the lock
		select {
		case items = <-got:
			early = true
		default:
			if i == 1_000_000 {
				t.Fatal("the TryTake neither ended nor reached the lock")
			}
			runtime.Gosched()
		}
	}
	close(out)
	if !early {
		items = <-got
	}
	if l := <-n; l != 1 {
		t.Errorf("the first Len = %d, want 1", l)
	}
	if !slices.Equal(items, []int{1}) {
		t.Fatalf("TryTake during the first observer call = %v (ended in the window: %v), want [1]", items, early)
	}
}
