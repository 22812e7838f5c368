//go:build evsynchooks

package poll_test

// The windows of a Set (points.go): each test stops a goroutine at one
// point, makes the other side's call exactly then, lets it go on, and
// checks the outcome. Run with
//
//	go test -race -tags evsynchooks ./poll/

import (
	"sync/atomic"
	"testing"

	"github.com/evsync/evsync/coalesce"
	"github.com/evsync/evsync/poll"
	"github.com/evsync/evsync/readyq"
	"github.com/evsync/evsync/signal"
)

// stopAt registers a hook that stops the first goroutine to reach p until
// the test closes the returned release channel, and reports on hits each
// time any goroutine reaches the point given as watch. The hook goes at
// the test's end.
func stopAt(t *testing.T, p, watch poll.Point) (stopped <-chan struct{}, release chan<- struct{}, hits <-chan struct{}) {
	in, out, hit := make(chan struct{}), make(chan struct{}), make(chan struct{}, 16)
	var stopping atomic.Bool
	poll.SetHook(func(q poll.Point) {
		if q == watch {
			select {
			case hit <- struct{}{}:
			default:
			}
		}
		if q == p && stopping.CompareAndSwap(false, true) {
			in <- struct{}{}
			<-out
		}
	})
	t.Cleanup(func() { poll.SetHook(nil) })
	return in, out, hit
}

// TestHookWakeAfterRemoveIsIgnored stops a source's wakeup in wake, after
// the source read its list of watchers and before the Set's lock. Remove
// runs to the end meanwhile. The wakeup must then find the registration
// off: nothing is reported after Remove returned. Had Remove left it
// armed, the late wakeup would queue a source the Set no longer holds.
func TestHookWakeAfterRemoveIsIgnored(t *testing.T) {
	var set poll.Set[int]
	defer set.Close()
	sig := signal.New(0)
	if err := set.Add(sig, 1, poll.In, poll.Edge); err != nil {
		t.Fatal(err)
	}
	stopped, release, _ := stopAt(t, poll.PointWake, poll.PointWake)
	added := make(chan error)
	go func() { added <- sig.Add(1) }()
	<-stopped // the writer's wakeup is in the window
	if err := set.Remove(sig); err != nil {
		t.Fatal(err)
	}
	close(release)
	if err := <-added; err != nil {
		t.Fatal(err)
	}
	if evs := set.TryWait(nil, 4); len(evs) != 0 {
		t.Fatalf("TryWait after Remove returned = %v, want nothing", evs)
	}
}

// A hookSource is a source for the window tests: write makes it ready
// (a wakeup), drain makes it not ready.
type hookSource struct {
	name         string
	src          any
	write, drain func()
}

// hookSources are one source of each kind, each with an edge-triggered
// registration's view of a write.
func hookSources() []hookSource {
	sig := signal.New(0)
	w := coalesce.New(0)
	q := readyq.New[int]()
	item := 0
	inner, innerSig := poll.New[int](), signal.New(0)
	if err := inner.Add(innerSig, 0, poll.In, poll.Edge); err != nil {
		panic(err)
	}
	return []hookSource{
		{"signal", sig, func() { sig.Add(1) }, func() { sig.Take() }},
		{"waker", w, w.Wake, func() { w.Events() }},
		{"readyq", q, func() { item++; q.Add(item) }, func() { q.Done(q.TryTake(8)...) }},
		{"set", inner, func() { innerSig.Add(1) }, func() { inner.TryWait(nil, 8); innerSig.Take() }},
	}
}

// TestHookWriteWhileHarvestArms stops a TryWait in harvest, with an edge
// registration armed and its source, not ready, not yet polled. A write
// is made in the window. The harvest's poll must see it, since the write
// came after the Arm: the source is reported, now or at the next wait.
// Had harvest polled before arming, the write would find the
// registration not yet armed, tell nobody, and its edge would be lost.
// It runs for a source of each kind.
func TestHookWriteWhileHarvestArms(t *testing.T) {
	for _, hs := range hookSources() {
		t.Run(hs.name, func(t *testing.T) {
			var set poll.Set[int]
			defer set.Close()
			if err := set.Add(hs.src, 1, poll.In, poll.Edge); err != nil {
				t.Fatal(err)
			}
			hs.write() // queued
			hs.drain() // not ready, still queued
			stopped, release, woke := stopAt(t, poll.PointHarvest, poll.PointWake)
			reported := make(chan []poll.Event[int])
			go func() { reported <- set.TryWait(nil, 4) }()
			<-stopped // the harvest holds the lock, the registration armed
			written := make(chan struct{})
			go func() {
				hs.write()
				close(written)
			}()
			select { // the write is made: it reached its wakeup, or returned without one
			case <-woke:
			case <-written:
			}
			close(release)
			evs := <-reported
			<-written
			evs = set.TryWait(evs, 4)
			if len(evs) == 0 {
				t.Fatal("a write made while the harvest armed the source was never reported")
			}
		})
	}
}

// TestHookReadyqPublishesBeforeItLoadsArmed stops a readyq Add in its
// unlock, after it published the queued count and before it loads how
// many poll registrations are armed. A harvest arms the queue's edge
// registration and polls it meanwhile. One of the two must see the other:
// the harvest sees the item, or the Add sees the registration armed and
// wakes it. Had the Add loaded the armed count first, it would find 0,
// the harvest would find nothing published, and the item's edge would be
// lost.
func TestHookReadyqPublishesBeforeItLoadsArmed(t *testing.T) {
	q := readyq.New[int]()
	var set poll.Set[int]
	defer set.Close()
	if err := set.Add(q, 1, poll.In, poll.Edge); err != nil {
		t.Fatal(err)
	}
	q.Add(1)                // queued on the set
	q.Done(q.TryTake(8)...) // the queue empty, the registration still queued
	in, out := make(chan struct{}), make(chan struct{})
	var stopping atomic.Bool
	readyq.SetHook(func(p readyq.Point) {
		if p == readyq.PointArmed && stopping.CompareAndSwap(false, true) {
			in <- struct{}{}
			<-out
		}
	})
	defer readyq.SetHook(nil)
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

// TestHookWakerStoresBeforeItLoadsArmed stops a Waker's Deliver after it
// stored the wakeup and before it loads how many poll registrations are
// armed. A harvest arms the Waker's edge registration and polls it
// meanwhile: it sees the wakeup. Had Deliver loaded the armed count
// first, it would find 0, the harvest would find nothing delivered, and
// the wakeup's edge would be lost.
func TestHookWakerStoresBeforeItLoadsArmed(t *testing.T) {
	w := coalesce.New(0)
	var set poll.Set[int]
	defer set.Close()
	if err := set.Add(w, 1, poll.In, poll.Edge); err != nil {
		t.Fatal(err)
	}
	w.Wake()   // queued on the set
	w.Events() // no wakeup pending, the registration still queued
	in, out := make(chan struct{}), make(chan struct{})
	var stopping atomic.Bool
	coalesce.SetHook(func(p coalesce.Point) {
		if p == coalesce.PointDelivered && stopping.CompareAndSwap(false, true) {
			in <- struct{}{}
			<-out
		}
	})
	defer coalesce.SetHook(nil)
	woken := make(chan struct{})
	go func() {
		w.Wake()
		close(woken)
	}()
	<-in                       // Deliver is in the window, with the window's lock held
	evs := set.TryWait(nil, 4) // arms, then polls: needs no lock of the Waker's
	close(out)
	<-woken
	evs = set.TryWait(evs, 4)
	if len(evs) == 0 {
		t.Fatal("a wakeup racing the harvest's arm was never reported")
	}
}
