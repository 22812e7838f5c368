package coalesce_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/clock"
	"github.com/evsync/evsync/coalesce"
	"github.com/evsync/evsync/internal/testsupport/fakeclock"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// onFake runs test in a bubble with a fake clock. At the end it closes w
// and checks that no fake timer is left armed. The bubble's own end
// checks that no goroutine is left.
func onFake(t *testing.T, test func(t *testing.T, f *fakeclock.Clock, close func(*coalesce.Waker))) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		f := fakeclock.New(epoch)
		var ws []*coalesce.Waker
		test(t, f, func(w *coalesce.Waker) { ws = append(ws, w) })
		for _, w := range ws {
			w.Close()
		}
		synctest.Wait()
		if n := f.Waiters(); n != 0 {
			t.Fatalf("%d fake timers armed after Close", n)
		}
	})
}

func TestClockAuditFiresWhenTheFakeClockReachesTheDelay(t *testing.T) {
	onFake(t, func(t *testing.T, f *fakeclock.Clock, cleanup func(*coalesce.Waker)) {
		const d = 5 * time.Millisecond
		w := coalesce.New(d, coalesce.WithClock(f))
		cleanup(w)
		w.Wake()
		f.StepWait(3 * time.Millisecond)
		w.Wake()
		w.Wake()
		f.StepWait(2*time.Millisecond - 1)
		want(t, w, 0, 0)
		f.StepWait(1)
		want(t, w, 1, 3) // one wakeup for all, exactly at the delay
		if st := w.Stats(); st.Armed || f.Waiters() != 0 {
			t.Fatalf("a timer is left armed with nothing pending: %v", st)
		}
	})
}

// TestClockNotSteppedNeverFires: the window's timer is the fake clock's.
// An hour of the bubble's time passes, and with the fake clock still,
// nothing fires.
func TestClockNotSteppedNeverFires(t *testing.T) {
	onFake(t, func(t *testing.T, f *fakeclock.Clock, cleanup func(*coalesce.Waker)) {
		w := coalesce.New(time.Millisecond, coalesce.WithClock(f))
		cleanup(w)
		w.Wake()
		time.Sleep(time.Hour)
		synctest.Wait()
		want(t, w, 0, 0)
		if n := f.Waiters(); n != 1 {
			t.Fatalf("%d fake timers armed, want the window's 1", n)
		}
	})
}

// TestClockNilIsTheWallClock: WithClock(nil) is the wall clock, here the
// bubble's.
func TestClockNilIsTheWallClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var none clock.Clock[*fakeclock.Timer]
		w := coalesce.New(time.Millisecond, coalesce.WithClock(none))
		defer w.Close()
		w.Wake()
		time.Sleep(time.Millisecond)
		synctest.Wait()
		want(t, w, 1, 1)
	})
}

func TestClockMaxBatchWakesAtOnce(t *testing.T) {
	onFake(t, func(t *testing.T, f *fakeclock.Clock, cleanup func(*coalesce.Waker)) {
		w := coalesce.New(time.Hour, coalesce.WithClock(f), coalesce.WithMaxBatch(3))
		cleanup(w)
		w.Wake()
		w.Wake()
		want(t, w, 0, 0)
		w.Wake()
		want(t, w, 1, 3) // the fake clock never moved
		if n := f.Waiters(); n != 0 {
			t.Fatalf("%d fake timers armed after the batch", n)
		}
	})
}

// TestClockDebounceFollowsTheFakeClock: the debounce re-arms at each
// fake period that saw an event. It wakes a quiet period after the last
// one, and never later than maxWait after the first.
func TestClockDebounceFollowsTheFakeClock(t *testing.T) {
	onFake(t, func(t *testing.T, f *fakeclock.Clock, cleanup func(*coalesce.Waker)) {
		const d, maxWait = 10 * time.Millisecond, 35 * time.Millisecond
		w := coalesce.New(d, coalesce.WithClock(f), coalesce.WithMaxWait(maxWait))
		cleanup(w)
		w.Wake()
		f.StepWait(d / 2)
		w.Wake()
		f.StepWait(d / 2) // the timer finds that event and re-arms
		w.Wake()          // the last event, as the new period begins
		f.StepWait(2*d - 1)
		want(t, w, 0, 0)
		f.StepWait(1)
		want(t, w, 1, 3)    // exactly two delays after the last event
		for i := range 35 { // an event every millisecond, never quiet
			if i > 0 {
				f.StepWait(time.Millisecond)
			}
			w.Wake()
		}
		f.StepWait(time.Millisecond - 1)
		want(t, w, 0, 0)
		f.StepWait(1)
		want(t, w, 1, 35) // cut at maxWait
	})
}

// TestClockAdaptiveFollowsTheFakeClock: WithAdaptive measures periods and
// gaps on the fake clock. A trickle spaced by more than a delay is served
// at once. A stream with more than AdaptiveWakeups wakeups over a delay
// flips it to coalescing.
func TestClockAdaptiveFollowsTheFakeClock(t *testing.T) {
	onFake(t, func(t *testing.T, f *fakeclock.Clock, cleanup func(*coalesce.Waker)) {
		const d = 8 * time.Millisecond
		w := coalesce.New(d, coalesce.WithClock(f), coalesce.WithAdaptive())
		cleanup(w)
		w.Wake() // it starts out coalescing
		f.StepWait(d)
		want(t, w, 1, 1)
		for range 3 { // a trickle: at once, no timer
			f.StepWait(d + 1)
			w.Wake()
			want(t, w, 1, 1)
		}
		f.StepWait(d + 1)
		for range 8 { // a stream, a wakeup every d/8 for one delay
			w.Wake()
			want(t, w, 1, 1)
			f.StepWait(d / 8)
		}
		for range coalesce.AdaptiveWakeups + 1 { // it goes on: coalescing
			w.Wake()
		}
		want(t, w, 0, 0)
		f.StepWait(d - 1)
		want(t, w, 0, 0)
		f.StepWait(1)
		want(t, w, 1, coalesce.AdaptiveWakeups+1)
	})
}

func TestClockFlushAndCloseStopTheFakeTimer(t *testing.T) {
	onFake(t, func(t *testing.T, f *fakeclock.Clock, _ func(*coalesce.Waker)) {
		w := coalesce.New(10*time.Millisecond, coalesce.WithClock(f))
		w.Wake()
		w.Flush()
		want(t, w, 1, 1)
		if n := f.Waiters(); n != 0 {
			t.Fatalf("%d fake timers armed after Flush", n)
		}
		w.Wake()
		w.Close()
		if n := f.Waiters(); n != 0 {
			t.Fatalf("%d fake timers armed after Close", n)
		}
		f.StepWait(time.Hour)
		if st := w.Stats(); st.Wakeups != 1 {
			t.Fatalf("the fake timer fired after Close: %v", st)
		}
	})
}
