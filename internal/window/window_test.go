package window

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/internal/clk"
	"github.com/evsync/evsync/internal/testsupport/testkit"
)

// counting is an Owner that adds up what it is delivered and checks that
// no delivery comes with 0 events, overlaps another, or comes after a
// Close has returned (closed is set then).
type counting struct {
	events  atomic.Uint64
	running atomic.Int32
	closed  atomic.Bool
	late    atomic.Bool
	overlap atomic.Bool
	empty   atomic.Bool
}

func (c *counting) Deliver(n uint64) {
	if c.running.Add(1) != 1 {
		c.overlap.Store(true)
	}
	defer c.running.Add(-1)
	c.late.CompareAndSwap(false, c.closed.Load())
	c.empty.CompareAndSwap(false, n == 0)
	c.events.Add(n)
}

func (c *counting) check(t *testing.T, what string) {
	t.Helper()
	switch {
	case c.late.Load():
		t.Fatalf("%s: a delivery after Close returned", what)
	case c.overlap.Load():
		t.Fatalf("%s: deliveries overlapped", what)
	case c.empty.Load():
		t.Fatalf("%s: a delivery of 0 events", what)
	}
}

// TestCloseWaitsForTheLastStaleRun: a timer run that Stop came too late
// for is on its way; every Close, the first and one made meanwhile,
// returns only once it has come and gone, so that no goroutine of the
// window is left when Close returns. The run's lateness is staged: the
// timer is stopped for real and its slot marked stale, as a Stop that
// returned false leaves it, and the test makes the run itself.
func TestCloseWaitsForTheLastStaleRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var w Window
		w.Init(Policy{Delay: time.Hour}, clk.Clock{})
		var o counting
		w.Wake(&o)
		w.mu.Lock()
		sl := w.cur
		sl.t.Stop()
		sl.state, w.stale = slotStale, 1 // as if Stop had come too late
		w.setCur(nil)
		w.mu.Unlock()
		first := testkit.Park(func() bool { w.Close(); return true })
		second := testkit.Park(func() bool { w.Close(); return true })
		testkit.Pending(t, first)
		testkit.Pending(t, second)
		sl.expire() // the stale run comes: it finds nothing to do
		<-first
		<-second
		if o.events.Load() != 0 || w.Drain() != 1 {
			t.Fatalf("the stale run delivered %d events; %d left pending", o.events.Load(), w.pending.Load())
		}
	})
}

// blocking is an Owner whose Deliver tells entered and waits for release.
type blocking struct {
	entered, release chan struct{}
	events           uint64
}

func (b *blocking) Deliver(n uint64) {
	b.events += n
	close(b.entered)
	<-b.release
}

// TestCloseWaitsForADeliveryUnderWay: a Close made while a wakeup is
// being delivered returns only after the delivery, which gets the events
// it took: Close loses nothing and leaves nothing running. The pause
// before the release only gives a wrong Close the time to return early;
// nothing waits for it to pass.
func TestCloseWaitsForADeliveryUnderWay(t *testing.T) {
	var w Window // a delay of 0: Wake delivers at once, on its goroutine
	o := &blocking{entered: make(chan struct{}), release: make(chan struct{})}
	woke := make(chan struct{})
	go func() { defer close(woke); w.Wake(o) }()
	<-o.entered
	closed := make(chan struct{})
	go func() { defer close(closed); w.Close() }()
	select {
	case <-closed:
		t.Fatal("Close returned while a delivery was under way")
	case <-time.After(20 * time.Millisecond):
	}
	close(o.release)
	<-woke
	<-closed
	if o.events != 1 || w.Drain() != 0 {
		t.Fatalf("the delivery under way got %d events, want the 1 it took", o.events)
	}
}

// TestCloseRacingTheTimerStopsDeliveries races Close with the timer of a
// window about to fire and with a Wake: once Close has returned, nothing
// is delivered, and every event is delivered once or left for Drain (the
// Wake racing Close may count or not).
func TestCloseRacingTheTimerStopsDeliveries(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 300 {
		var w Window
		p := Policy{Delay: time.Duration(r.IntN(20)) * time.Microsecond}
		if i%2 == 1 {
			p.MaxWait = 20 * time.Microsecond
		}
		w.Init(p, clk.Clock{})
		o := &counting{}
		before := uint64(r.IntN(4))
		for range before {
			w.Wake(o)
		}
		together(func() { w.Close(); o.closed.Store(true) }, func() { w.Wake(o) })
		o.check(t, "race")
		if n := o.events.Load() + w.Drain(); n != before && n != before+1 {
			t.Fatalf("race %d: %d events before Close and one racing it, %d delivered or left", i, before, n)
		}
	}
}

// TestDeliveriesNeverOverlap has goroutines Wake and Flush a window of
// each policy at once: deliveries never overlap, none is empty, and after
// Close every event was delivered once or is left for Drain.
func TestDeliveriesNeverOverlap(t *testing.T) {
	for _, p := range []Policy{
		{},
		{Delay: 20 * time.Microsecond, MaxBatch: 4},
		{Delay: 10 * time.Microsecond, MaxWait: 40 * time.Microsecond},
		{Delay: 20 * time.Microsecond, Adaptive: true},
	} {
		var w Window
		w.Init(p, clk.Clock{})
		o := &counting{}
		var fs []func()
		for g := range 4 {
			fs = append(fs, func() {
				r := rand.New(rand.NewPCG(5, uint64(g)))
				for range 2000 {
					w.Wake(o)
					if r.IntN(8) == 0 {
						w.Flush(o)
					}
				}
			})
		}
		together(fs...)
		w.Close()
		o.check(t, "hammer")
		if n := o.events.Load() + w.Drain(); n != 4*2000 {
			t.Fatalf("%+v: %d events delivered or left, 8000 noted", p, n)
		}
	}
}

// together runs each f in a goroutine of its own, all released at once,
// and waits for them.
func together(fs ...func()) {
	start := make(chan struct{})
	var wg sync.WaitGroup
	for _, f := range fs {
		wg.Go(func() { <-start; f() })
	}
	close(start)
	wg.Wait()
}

// TestSeenFollowsTheDebounceTimer: under MaxWait, Seen is what Pending
// was when the timer was last set, at the arming and at each re-arm, so
// Pending differs from it exactly while an event has come in the period.
func TestSeenFollowsTheDebounceTimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const d = 4 * time.Millisecond
		var w Window
		w.Init(Policy{Delay: d, MaxWait: 10 * d}, clk.Clock{})
		defer w.Close()
		var o counting
		seen := func(pending, want uint64) {
			t.Helper()
			if p, s := w.Pending(), w.Seen(); p != pending || s != want {
				t.Fatalf("Pending, Seen = %d, %d; want %d, %d", p, s, pending, want)
			}
		}
		w.Wake(&o)
		seen(1, 1) // the arming: no event since
		w.Wake(&o)
		w.Wake(&o)
		seen(3, 1)
		time.Sleep(d)
		synctest.Wait()
		seen(3, 3) // the re-arm for the events of the first period
		w.Wake(&o)
		seen(4, 3)
		time.Sleep(2 * d) // a re-arm, then a quiet period: the wakeup
		synctest.Wait()
		if o.events.Load() != 4 || w.Pending() != 0 {
			t.Fatalf("%d events delivered, %d pending; want 4, 0", o.events.Load(), w.Pending())
		}
	})
}
