package window

import (
	"math/rand/v2"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/internal/clk"
	"github.com/evsync/evsync/internal/testsupport/fakeclock"
)

const ms = time.Millisecond

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// onFake runs test in a bubble with a Window on a fake clock, and checks
// at the end that Close left no fake timer armed. The bubble's own end
// checks that no goroutine is left.
func onFake(t *testing.T, p Policy, test func(t *testing.T, w *Window, o *counting, f *fakeclock.Clock)) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		f := fakeclock.New(epoch)
		var w Window
		w.Init(p, clk.Of(f))
		o := &counting{}
		test(t, &w, o, f)
		w.Close()
		synctest.Wait()
		o.check(t, "fake clock")
		if n := f.Waiters(); n != 0 {
			t.Fatalf("%d fake timers armed after Close", n)
		}
	})
}

// step moves f on by d, one timer deadline at a time, and lets each run
// before the next. So a timer a run sets is due within the same step, as
// on the wall clock, where time passes through each deadline.
func step(f *fakeclock.Clock, d time.Duration) {
	for {
		next, ok := f.Next()
		if !ok || next > d {
			f.Step(d)
			synctest.Wait()
			return
		}
		f.Step(next)
		synctest.Wait()
		d -= next
	}
}

// delivered checks what o has been delivered so far, and the wakeups.
func delivered(t *testing.T, w *Window, o *counting, events, wakeups uint64) {
	t.Helper()
	if e, n := o.events.Load(), w.wakeups.Load(); e != events || n != wakeups {
		t.Fatalf("%d events in %d wakeups, want %d in %d (%+v)", e, n, events, wakeups, w.Stats())
	}
}

// TestFakeClockAuditFiresAtTheDelay: the audit window's timer is the fake
// clock's. It fires when that clock reaches the delay, not a nanosecond
// before. An hour of the bubble's time, with the fake clock still, fires
// nothing.
func TestFakeClockAuditFiresAtTheDelay(t *testing.T) {
	onFake(t, Policy{Delay: 10 * ms}, func(t *testing.T, w *Window, o *counting, f *fakeclock.Clock) {
		w.Wake(o)
		time.Sleep(time.Hour) // the bubble's clock moves, the fake one does not
		synctest.Wait()
		w.Wake(o)
		step(f, 10*ms-1)
		delivered(t, w, o, 0, 0)
		step(f, 1)
		delivered(t, w, o, 2, 1)
		if f.Waiters() != 0 || w.armed.Load() {
			t.Fatal("a timer is left armed with nothing pending")
		}
	})
}

// TestFakeClockDebounceReadsTheFakeTime: the debounce's re-arms and its
// MaxWait bound both follow the fake clock. Events every half delay keep
// the window open until exactly MaxWait after its first.
func TestFakeClockDebounceReadsTheFakeTime(t *testing.T) {
	const d, maxWait = 10 * ms, 35 * ms
	onFake(t, Policy{Delay: d, MaxWait: maxWait}, func(t *testing.T, w *Window, o *counting, f *fakeclock.Clock) {
		var at time.Duration
		for ; at < maxWait; at += d / 2 {
			w.Wake(o)
			step(f, d/2)
			if at+d/2 < maxWait {
				delivered(t, w, o, 0, 0)
			}
		}
		delivered(t, w, o, 7, 1) // at 35 ms, cut at maxWait
		w.Wake(o)
		step(f, d-1)
		delivered(t, w, o, 7, 1)
		step(f, 1)
		delivered(t, w, o, 8, 2) // a lone event waits one delay
	})
}

// TestFakeClockAdaptiveJudgesByTheFakeTime: WithAdaptive's periods and
// gaps are measured on the fake clock. A trickle spaced by more than a
// delay is served at once. A stream of more than AdaptiveWakeups wakeups
// over a delay turns coalescing on.
func TestFakeClockAdaptiveJudgesByTheFakeTime(t *testing.T) {
	const d = 8 * ms
	onFake(t, Policy{Delay: d, Adaptive: true}, func(t *testing.T, w *Window, o *counting, f *fakeclock.Clock) {
		w.Wake(o) // it starts out coalescing
		step(f, d)
		delivered(t, w, o, 1, 1) // a thin window: immediate from now on
		for i := range uint64(3) {
			step(f, d+1)
			w.Wake(o)
			delivered(t, w, o, 2+i, 2+i)
		}
		step(f, d+1)
		for i := range uint64(8) { // one delay of a wakeup every d/8
			w.Wake(o)
			delivered(t, w, o, 5+i, 5+i)
			step(f, d/8)
		}
		w.Wake(o) // the period ended busy and the stream goes on
		delivered(t, w, o, 12, 12)
		if !w.armed.Load() {
			t.Fatal("a busy stream did not turn coalescing on")
		}
		step(f, d)
		delivered(t, w, o, 13, 13)
	})
}

// TestFakeClockFlushAndCloseStopTheTimer: Flush and Close stop the fake
// timer, so no fake timer stays armed and the run's goroutine ends.
func TestFakeClockFlushAndCloseStopTheTimer(t *testing.T) {
	onFake(t, Policy{Delay: 10 * ms, MaxWait: 30 * ms}, func(t *testing.T, w *Window, o *counting, f *fakeclock.Clock) {
		w.Wake(o)
		step(f, 5*ms)
		w.Flush(o)
		delivered(t, w, o, 1, 1)
		if n := f.Waiters(); n != 0 {
			t.Fatalf("%d fake timers armed after Flush", n)
		}
		w.Wake(o)
		if n := f.Waiters(); n != 1 {
			t.Fatalf("%d fake timers armed by a new window, want 1", n)
		}
		w.Close() // onFake checks the fake timers and goroutines
		step(f, time.Hour)
		delivered(t, w, o, 1, 1)
	})
}

// TestCloseWaitsForTheLastStaleRunOnAFakeClock is
// TestCloseWaitsForTheLastStaleRun with the slot's timer on a fake clock.
func TestCloseWaitsForTheLastStaleRunOnAFakeClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := fakeclock.New(epoch)
		var w Window
		w.Init(Policy{Delay: time.Hour}, clk.Of(f))
		var o counting
		w.Wake(&o)
		w.mu.Lock()
		sl := w.cur
		sl.t.Stop()
		sl.state, w.stale = slotStale, 1 // as if Stop had come too late
		w.setCur(nil)
		w.mu.Unlock()
		closed := make(chan struct{})
		go func() { defer close(closed); w.Close() }()
		synctest.Wait()
		select {
		case <-closed:
			t.Fatal("Close returned with a stale run on its way")
		default:
		}
		sl.expire()
		<-closed
		if o.events.Load() != 0 || w.Drain() != 1 || f.Waiters() != 0 {
			t.Fatalf("stale run: %d events delivered, %d fake timers left", o.events.Load(), f.Waiters())
		}
	})
}

// TestFakeTimerRacingFlushAndClose steps a fake clock while Wake, Flush
// and Close race its timers' runs. Stop comes too late for some, so
// stale slots are made and reused. Once Close has returned, nothing is
// delivered, no fake timer is armed, and every event was delivered once
// or is left for Drain.
func TestFakeTimerRacingFlushAndClose(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for i := range 200 {
		f := fakeclock.New(epoch)
		var w Window
		p := Policy{Delay: ms}
		if i%2 == 1 {
			p.MaxWait = 3 * ms
		}
		w.Init(p, clk.Of(f))
		o := &counting{}
		var wakes int
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
					f.Step(ms)
				}
			}
		})
		for range 50 + r.IntN(50) {
			w.Wake(o)
			wakes++
			if r.IntN(4) == 0 {
				w.Flush(o)
			}
		}
		w.Close()
		o.closed.Store(true)
		close(stop)
		wg.Wait()
		f.Step(time.Hour)
		o.check(t, "fake race")
		if n := o.events.Load() + w.Drain(); n != uint64(wakes) || f.Waiters() != 0 {
			t.Fatalf("race %d: %d of %d events delivered or left, %d fake timers armed", i, n, wakes, f.Waiters())
		}
	}
}
