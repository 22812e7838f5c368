package signal_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/coalesce"
	"github.com/evsync/evsync/internal/testkit"
	"github.com/evsync/evsync/signal"
)

func TestWakeDelayCoalescesABurst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := signal.New(0, signal.WithWakeDelay(5*time.Millisecond))
		defer s.Close()
		r := park(context.Background(), s)
		for range 3 {
			testkit.MustNil(t, s.Add(1))
			time.Sleep(time.Millisecond) // fake clock
		}
		synctest.Wait()
		testkit.Pending(t, r) // 3 ms in: the window is still open
		time.Sleep(2 * time.Millisecond)
		if got := <-r; got.v != 3 || got.err != nil {
			t.Fatalf("Wait = %+v, want the burst of 3 in one wakeup", got)
		}
	})
}

// TestWakeDelayAboveOneSecond: WithWakeDelay takes any non-negative delay,
// as coalesce.New does: a blocked reader is woken exactly 2 s after the add.
func TestWakeDelayAboveOneSecond(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := signal.New(0, signal.WithWakeDelay(2*time.Second))
		defer s.Close()
		r := park(context.Background(), s)
		testkit.MustNil(t, s.Add(1))
		time.Sleep(2*time.Second - 1)
		synctest.Wait()
		testkit.Pending(t, r)
		time.Sleep(time.Nanosecond) // the last nanosecond of the delay, on the fake clock
		if got := <-r; got.v != 1 || got.err != nil {
			t.Fatalf("Wait = %+v, want 1", got)
		}
	})
}

func TestWakeDelayCountIsVisibleAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := signal.New(0, signal.WithWakeDelay(5*time.Millisecond))
		defer s.Close()
		testkit.MustNil(t, s.Add(2))
		if v, err := s.Wait(context.Background()); v != 2 || err != nil {
			t.Fatalf("a Wait that finds the count = %d, %v; want 2 at once", v, err)
		}
		r := park(context.Background(), s)
		testkit.MustNil(t, s.Add(1))
		if s.Count() != 1 {
			t.Fatalf("Count = %d, want 1 at once", s.Count())
		}
		if v := s.Take(); v != 1 {
			t.Fatalf("Take = %d, want 1 at once", v)
		}
		time.Sleep(10 * time.Millisecond)
		synctest.Wait()
		testkit.Pending(t, r) // the delayed wakeup found nothing left: still waiting
		testkit.MustNil(t, s.Add(4))
		time.Sleep(5 * time.Millisecond)
		if got := <-r; got.v != 4 {
			t.Fatalf("Wait = %+v, want 4", got)
		}
	})
}

func TestWakeBatchWakesAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := signal.New(0, signal.WithWakeDelay(time.Second), signal.WithWakeBatch(3))
		defer s.Close()
		r := park(context.Background(), s)
		start := time.Now()
		for range 3 {
			testkit.MustNil(t, s.Add(1))
		}
		if got := <-r; got.v != 3 || time.Since(start) != 0 {
			t.Fatalf("Wait = %+v after %v, want 3 at once at the threshold", got, time.Since(start))
		}
	})
}

// TestWakeBatchCountsUnits: the threshold is on the count, so one large
// add wakes at once, and adds below it still wait for the delay.
func TestWakeBatchCountsUnits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := signal.New(0, signal.WithWakeDelay(time.Second), signal.WithWakeBatch(64))
		defer s.Close()
		r := park(context.Background(), s)
		testkit.MustNil(t, s.Add(63))
		synctest.Wait()
		testkit.Pending(t, r) // 63 < 64: the delay applies
		testkit.MustNil(t, s.Add(100))
		if got := <-r; got.v != 163 {
			t.Fatalf("Wait = %+v, want 163 at once", got)
		}
		r = park(context.Background(), s)
		start := time.Now()
		testkit.MustNil(t, s.Add(1))
		if got := <-r; got.v != 1 || time.Since(start) != time.Second {
			t.Fatalf("Wait = %+v after %v, want 1 after the 1s delay", got, time.Since(start))
		}
	})
}

// TestAdaptiveWakeJudgesWindowsByAdds: with WithAdaptiveWake, after a
// thin first window, readers are woken at once until a delay has needed more than
// coalesce.AdaptiveWakeups wakeups; then adds are coalesced, and a window
// that catches more than that many adds keeps coalescing on.
func TestAdaptiveWakeJudgesWindowsByAdds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const delay = 8 * time.Millisecond
		s := signal.New(0, signal.WithWakeDelay(delay), signal.WithAdaptiveWake())
		defer s.Close()
		addAndWait := func(adds int, wait time.Duration) {
			t.Helper()
			r := park(context.Background(), s)
			start := time.Now()
			for range adds {
				testkit.MustNil(t, s.Add(1))
			}
			if got := <-r; got.v != uint64(adds) || time.Since(start) != wait {
				t.Fatalf("Wait = %+v after %v, want %d after %v", got, time.Since(start), adds, wait)
			}
		}
		addAndWait(1, delay) // it starts out coalescing; a thin window ends that
		for range 8 {        // a wakeup per delay/8 for a whole delay: at once
			addAndWait(1, 0)
			time.Sleep(delay / 8)
		}
		for range 3 { // busy and going on: windows, each catching enough adds
			addAndWait(coalesce.AdaptiveWakeups+1, delay)
		}
		addAndWait(1, delay) // a thin window ends coalescing
		addAndWait(1, 0)
	})
}

func TestWakeDelayClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := signal.New(0, signal.WithWakeDelay(5*time.Millisecond))
		r := park(context.Background(), s)
		testkit.MustNil(t, s.Add(7))
		s.Close() // the delayed wakeup is cancelled; Close serves the reader itself
		if got := <-r; got.v != 7 || got.err != nil {
			t.Fatalf("Wait = %+v, want the 7 added before Close", got)
		}
		if _, err := s.Wait(context.Background()); !errors.Is(err, signal.ErrClosed) {
			t.Fatalf("Wait after = %v", err)
		}
		time.Sleep(10 * time.Millisecond)
		synctest.Wait() // nothing left running in the bubble
	})
}

func TestWakeDelayOptionPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"negative delay":         func() { signal.WithWakeDelay(-1) },
		"batch zero":             func() { signal.WithWakeBatch(0) },
		"batch without delay":    func() { signal.New(0, signal.WithWakeBatch(2)) },
		"adaptive without delay": func() { signal.New(0, signal.WithAdaptiveWake()) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				r, _ := recover().(string)
				if len(r) < 8 || r[:8] != "signal: " {
					t.Fatalf("panic = %q, want a \"signal: ...\" message", r)
				}
			}()
			f()
		})
	}
}
