//go:build evsynchooks

package poll_test

// More windows of a Set: Add's and Modify's arming, a wakeup whose source
// is drained before the Set collects it, the published flags a nested
// Set reads, and two Sets added to each other at once. Run with
//
//	go test -race -tags evsynchooks ./poll/

import (
	"context"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/evsync/evsync/poll"
	"github.com/evsync/evsync/signal"
)

// A gate stops the first goroutine to reach its point once it is armed,
// until release is closed. Each arming stops one goroutine.
type gate struct {
	armed   atomic.Bool
	stopped chan struct{}
	release chan struct{}
}

// arm makes the next goroutine to reach g's point stop there.
func (g *gate) arm() { g.armed.Store(true) }

// gates registers a hook with a gate for each point, none of them armed.
// The hook goes at the test's end.
func gates(t *testing.T, ps ...poll.Point) map[poll.Point]*gate {
	gs := map[poll.Point]*gate{}
	for _, p := range ps {
		gs[p] = &gate{stopped: make(chan struct{}), release: make(chan struct{})}
	}
	poll.SetHook(func(p poll.Point) {
		if g := gs[p]; g != nil && g.armed.CompareAndSwap(true, false) {
			g.stopped <- struct{}{}
			<-g.release
		}
	})
	t.Cleanup(func() { poll.SetHook(nil) })
	return gs
}

// TestHookWriteWhileAddArms stops an Add after it armed the new
// registration and before it polled the source, which is not ready. A
// write is made in the window. Add's poll must see it, or the write must
// wake the registration: the source is reported. Had Add polled before
// arming, the write would find the registration not yet armed, tell
// nobody, and its edge would be lost. It runs for a source of each kind.
func TestHookWriteWhileAddArms(t *testing.T) {
	for _, hs := range hookSources() {
		t.Run(hs.name, func(t *testing.T) {
			var set poll.Set[int]
			defer set.Close()
			stopped, release, woke := stopAt(t, poll.PointAdd, poll.PointWake)
			added := make(chan error)
			go func() { added <- set.Add(hs.src, 1, poll.In, poll.Edge) }()
			<-stopped // the registration armed, the source not yet polled
			written := make(chan struct{})
			go func() {
				hs.write()
				close(written)
			}()
			select { // the write reached its wakeup, or returned without one
			case <-woke:
			case <-written:
			}
			close(release)
			if err := <-added; err != nil {
				t.Fatal(err)
			}
			<-written
			if evs := set.TryWait(nil, 4); len(evs) != 1 {
				t.Fatalf("TryWait = %v: a write made while Add armed the source was not reported once", evs)
			}
		})
	}
}

// TestHookWriteWhileModifyRearms stops a Modify after it armed a one-shot
// registration again and before it polled the source, which is not
// ready. A write is made in the window, and must be reported. Had Modify
// polled before arming, the write would tell nobody and be lost.
func TestHookWriteWhileModifyRearms(t *testing.T) {
	var set poll.Set[int]
	defer set.Close()
	sig := signal.New(1)
	if err := set.Add(sig, 1, poll.In, poll.OneShot); err != nil {
		t.Fatal(err)
	}
	if evs := set.TryWait(nil, 4); len(evs) != 1 {
		t.Fatalf("TryWait = %v, want the one shot", evs)
	}
	sig.Take() // not ready, and the registration deaf
	stopped, release, woke := stopAt(t, poll.PointModify, poll.PointWake)
	modified := make(chan error)
	go func() { modified <- set.Modify(sig, 1, poll.In, poll.OneShot) }()
	<-stopped
	written := make(chan error, 1)
	go func() { written <- sig.Add(1) }()
	select { // armed, the write wakes the registration and waits for the lock
	case <-woke:
	case <-written: // not armed: the write told nobody
	}
	close(release)
	if err := <-modified; err != nil {
		t.Fatal(err)
	}
	if evs := set.TryWait(nil, 4); len(evs) != 1 {
		t.Fatalf("TryWait = %v: a write made while Modify re-armed the source was not reported once", evs)
	}
}

// TestHookBlockedWaitSkipsASourceDrainedBeforeItIsCollected: a Wait is
// blocked. A write wakes the source's registration, and is stopped on its
// way to the Set. The source is drained meanwhile. The wakeup then queues
// a source that has nothing: the harvest for the blocked Wait drops it,
// and the Wait goes on waiting. It returns the next write's event, not an
// empty batch. An edge registration goes straight to the Wait (the
// hand-off), a level one through the ready list (settle): both are run.
func TestHookBlockedWaitSkipsASourceDrainedBeforeItIsCollected(t *testing.T) {
	for _, m := range []poll.Mode{poll.Edge, poll.Level} {
		t.Run(m.String(), func(t *testing.T) { blockedWaitSkipsADrainedSource(t, m) })
	}
}

// blockedWaitSkipsADrainedSource is the test above in mode m.
func blockedWaitSkipsADrainedSource(t *testing.T, m poll.Mode) {
	synctest.Test(t, func(t *testing.T) {
		var set poll.Set[int]
		defer set.Close()
		sig := signal.New(0)
		if err := set.Add(sig, 1, poll.In, m); err != nil {
			t.Fatal(err)
		}
		type result struct {
			evs []poll.Event[int]
			err error
		}
		waited := make(chan result, 1)
		go func() {
			evs, err := set.Wait(context.Background(), nil, 4)
			waited <- result{evs, err}
		}()
		synctest.Wait() // the Wait is blocked
		g := gates(t, poll.PointWake)[poll.PointWake]
		g.arm()
		written := make(chan error)
		go func() { written <- sig.Add(1) }()
		<-g.stopped // the wakeup is on its way to the Set
		if n := sig.Take(); n != 1 {
			t.Fatalf("Take = %d, want 1", n)
		}
		close(g.release)
		if err := <-written; err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		select {
		case r := <-waited:
			t.Fatalf("the Wait returned %v, %v for a source drained before it was collected", r.evs, r.err)
		default:
		}
		if err := sig.Add(2); err != nil {
			t.Fatal(err)
		}
		r := <-waited
		if r.err != nil || len(r.evs) != 1 || r.evs[0] != (poll.Event[int]{Key: 1, Events: poll.In}) {
			t.Fatalf("Wait = %v, %v, want [{1 in}]", r.evs, r.err)
		}
		if n := sig.Take(); n != 2 {
			t.Fatalf("Take = %d, want the 2 of the second write", n)
		}
	})
}

// TestHookNestedSetReadsFlagsPublishedBeforeTheUnlock: an outer Set holds
// an inner one. The inner Set's section A empties it and is stopped after
// its unlock. A write queues a source on the inner Set meanwhile (section
// B), and the outer Set's harvest arms the inner Set and is stopped before
// it polls it. Then A goes on, and then the harvest. The harvest must see
// B's flags: the inner Set has a source queued, so it is reported. Had A
// published its flags after its unlock, it would overwrite B's with its
// stale "nothing queued", and the harvest would drop the inner Set for
// good: nothing is left to wake it.
func TestHookNestedSetReadsFlagsPublishedBeforeTheUnlock(t *testing.T) {
	var outer poll.Set[string]
	defer outer.Close()
	inner := poll.New[int]()
	defer inner.Close()
	sig := signal.New(0)
	if err := inner.Add(sig, 1, poll.In, poll.Edge); err != nil {
		t.Fatal(err)
	}
	if err := outer.Add(inner, "inner", poll.In, poll.Edge); err != nil {
		t.Fatal(err)
	}
	sig.Add(1) // queued on inner, and inner queued on outer
	gs := gates(t, poll.PointUnlocked, poll.PointHarvest)
	a, h := gs[poll.PointUnlocked], gs[poll.PointHarvest]
	a.arm()
	emptied := make(chan []poll.Event[int])
	go func() { emptied <- inner.TryWait(nil, 4) }() // A
	<-a.stopped
	sig.Add(1) // B: the source was armed by A's harvest, so it is queued again
	h.arm()
	harvested := make(chan []poll.Event[string])
	go func() { harvested <- outer.TryWait(nil, 4) }()
	<-h.stopped // the outer harvest armed the inner Set, and has not polled it
	close(a.release)
	if evs := <-emptied; len(evs) != 1 {
		t.Fatalf("inner TryWait = %v, want the first write", evs)
	}
	close(h.release)
	evs := <-harvested
	evs = outer.TryWait(evs, 4)
	if len(evs) != 1 || evs[0].Key != "inner" {
		t.Fatalf("outer TryWait = %v, want the inner Set, which has a source queued", evs)
	}
	if got := inner.TryWait(nil, 4); len(got) != 1 {
		t.Fatalf("inner TryWait = %v, want the second write", got)
	}
}

// TestHookTwoSetsAddedToEachOtherAtOnce stops a.Add(b) after its loop
// check passed and before it made the registration. b.Add(a) runs
// meanwhile: it must wait for the first Add to finish (the package lock)
// and then find the loop. Had it not waited, its own check would pass too,
// since a does not hold b yet, and the two Adds would make a loop.
func TestHookTwoSetsAddedToEachOtherAtOnce(t *testing.T) {
	var a, b poll.Set[int]
	defer a.Close()
	defer b.Close()
	nest := gates(t, poll.PointNest)[poll.PointNest]
	nest.arm()
	first := make(chan error, 1)
	go func() { first <- a.Add(&b, 1, poll.In, poll.Level) }()
	<-nest.stopped
	nest.arm() // stops b.Add too, if it passes its check
	second := make(chan error, 1)
	go func() { second <- b.Add(&a, 2, poll.In, poll.Level) }()
	passed := false
	for !passed && !blockedOnAMutex("poll.(*Set[...]).Add") {
		select {
		case <-nest.stopped:
			passed = true // b.Add passed its check while a.Add was in the window
		default:
			runtime.Gosched()
		}
	}
	close(nest.release)
	errA, errB := <-first, <-second
	if passed || (errA == nil) == (errB == nil) {
		t.Fatalf("a.Add(b) = %v, b.Add(a) = %v (b's check passed in the window: %v); want one of them refused", errA, errB, passed)
	}
}

// blockedOnAMutex reports whether a goroutine is blocked on a sync.Mutex
// with fn among its frames.
func blockedOnAMutex(fn string) bool {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for g := range strings.SplitSeq(string(buf), "\n\n") {
		header, _, _ := strings.Cut(g, "\n")
		if strings.Contains(header, "[sync.Mutex.Lock") && strings.Contains(g, fn) {
			return true
		}
	}
	return false
}
