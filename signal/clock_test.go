package signal_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/internal/testsupport/fakeclock"
	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/signal"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// onFake runs test in a bubble with a fake clock. At the end it checks
// that no fake timer is left armed. The bubble's own end checks that no
// goroutine is left.
func onFake(t *testing.T, test func(t *testing.T, f *fakeclock.Clock)) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		f := fakeclock.New(epoch)
		test(t, f)
		synctest.Wait()
		if n := f.Waiters(); n != 0 {
			t.Fatalf("%d fake timers armed at the end", n)
		}
	})
}

func TestWakeDelayWakesWhenTheFakeClockPassesIt(t *testing.T) {
	onFake(t, func(t *testing.T, f *fakeclock.Clock) {
		const d = 5 * time.Millisecond
		s := signal.New(0, signal.WithClock(f), signal.WithWakeDelay(d))
		defer s.Close()
		r := park(context.Background(), s)
		for range 3 {
			testkit.MustNil(t, s.Add(1))
			f.StepWait(time.Millisecond)
		}
		f.StepWait(2*time.Millisecond - 1)
		testkit.Pending(t, r)
		f.StepWait(1)
		if got := <-r; got.v != 3 || got.err != nil {
			t.Fatalf("Wait = %+v, want the burst of 3 at the delay", got)
		}
	})
}

// TestStatsCountsDelayedReaders: a reader a wake delay holds back waits
// with the count's notify flag, not its slow one. Stats counts it all the
// same, before and after an Add it has not yet been woken for.
func TestStatsCountsDelayedReaders(t *testing.T) {
	onFake(t, func(t *testing.T, f *fakeclock.Clock) {
		s := signal.New(0, signal.WithClock(f), signal.WithWakeDelay(time.Millisecond))
		defer s.Close()
		r := park(context.Background(), s)
		if st := s.Stats(); st.Waiting != 1 {
			t.Fatalf("Stats = %+v with one reader parked, want Waiting 1", st)
		}
		testkit.MustNil(t, s.Add(2))
		if st := s.Stats(); st.Waiting != 1 || st.Count != 2 {
			t.Fatalf("Stats = %+v before the delay, want Waiting 1 and Count 2", st)
		}
		f.StepWait(time.Millisecond)
		if got := <-r; got.v != 2 || got.err != nil {
			t.Fatalf("Wait = %+v, want 2 at the delay", got)
		}
		if st := s.Stats(); st.Waiting != 0 {
			t.Fatalf("Stats = %+v once served, want Waiting 0", st)
		}
	})
}

// TestWakeDelayFakeClockNotSteppedNeverWakes: the delay's timer is the
// fake clock's. An hour of the bubble's time passes, and with the fake
// clock still, the reader is not woken. The count is visible at once.
// Close then serves the reader and stops the fake timer.
func TestWakeDelayFakeClockNotSteppedNeverWakes(t *testing.T) {
	onFake(t, func(t *testing.T, f *fakeclock.Clock) {
		s := signal.New(0, signal.WithWakeDelay(time.Millisecond), signal.WithClock(f))
		r := park(context.Background(), s)
		testkit.MustNil(t, s.Add(7))
		time.Sleep(time.Hour)
		synctest.Wait()
		testkit.Pending(t, r)
		testkit.WantCount(t, s, 7)
		s.Close()
		if got := <-r; got.v != 7 || got.err != nil {
			t.Fatalf("Wait = %+v, want the 7 added before Close", got)
		}
		if _, err := s.Wait(context.Background()); !errors.Is(err, signal.ErrClosed) {
			t.Fatalf("Wait after Close = %v", err)
		}
	})
}

// TestWakeMaxWaitOnAFakeClock: the debounce's periods and its maxWait
// are measured on the fake clock.
func TestWakeMaxWaitOnAFakeClock(t *testing.T) {
	onFake(t, func(t *testing.T, f *fakeclock.Clock) {
		const d, maxWait = 4 * time.Millisecond, 20 * time.Millisecond
		s := signal.New(0, signal.WithClock(f), signal.WithWakeDelay(d, signal.WithMaxWait(maxWait)))
		defer s.Close()
		r := park(context.Background(), s)
		testkit.MustNil(t, s.Add(1))
		f.StepWait(3 * time.Millisecond)
		testkit.MustNil(t, s.Add(1))
		f.StepWait(5*time.Millisecond - 1) // 8 ms - 1: the timer was set again at 4 ms
		testkit.Pending(t, r)
		f.StepWait(1)
		if got := <-r; got.v != 2 || got.err != nil {
			t.Fatalf("Wait = %+v, want 2 after the quiet period", got)
		}
		r = park(context.Background(), s)
		for i := range 20 { // an add every millisecond: never quiet
			if i > 0 {
				f.StepWait(time.Millisecond)
			}
			testkit.MustNil(t, s.Add(1))
		}
		f.StepWait(time.Millisecond - 1)
		testkit.Pending(t, r)
		f.StepWait(1)
		if got := <-r; got.v != 20 || got.err != nil {
			t.Fatalf("Wait = %+v, want 20 at maxWait", got)
		}
	})
}

// TestClockWithoutWakeDelayChangesNothing: without WithWakeDelay a clock
// has nothing to time. An Add wakes the reader at once, with no timer.
func TestClockWithoutWakeDelayChangesNothing(t *testing.T) {
	onFake(t, func(t *testing.T, f *fakeclock.Clock) {
		s := signal.New(0, signal.WithClock(f))
		defer s.Close()
		r := park(context.Background(), s)
		testkit.MustNil(t, s.Add(2))
		if got := <-r; got.v != 2 || got.err != nil {
			t.Fatalf("Wait = %+v, want 2 at once", got)
		}
		if n := f.Waiters(); n != 0 {
			t.Fatalf("%d fake timers armed without a wake delay", n)
		}
	})
}
