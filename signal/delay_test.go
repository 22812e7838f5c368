package signal_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/coalesce"
	"github.com/evsync/evsync/internal/testsupport/testkit"
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

func TestWakeMaxBatchWakesAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := signal.New(0, signal.WithWakeDelay(time.Second, signal.WithMaxBatch(3)))
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

// TestWakeMaxBatchCountsUnits: the threshold is on the count, so one
// large add wakes at once, and adds below it still wait for the delay.
func TestWakeMaxBatchCountsUnits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := signal.New(0, signal.WithWakeDelay(time.Second, signal.WithMaxBatch(64)))
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

// TestWakeAdaptiveJudgesWindowsByAdds: with WithAdaptive, after a thin
// first window, readers are woken at once until a delay has needed more
// than AdaptiveWakeups wakeups. Then adds are coalesced, and a window that
// catches more than that many adds keeps coalescing on.
func TestWakeAdaptiveJudgesWindowsByAdds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const delay = 8 * time.Millisecond
		s := signal.New(0, signal.WithWakeDelay(delay, signal.WithAdaptive()))
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
			addAndWait(signal.AdaptiveWakeups+1, delay)
		}
		addAndWait(1, delay) // a thin window ends coalescing
		addAndWait(1, 0)
	})
}

// TestWakeMaxWaitWaitsForQuiet: with WithMaxWait, an add in the timer's
// period makes its expiry set it again, and the reader is woken after the
// first period with no add, as coalesce.WithMaxWait's consumer is.
func TestWakeMaxWaitWaitsForQuiet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const d = 4 * time.Millisecond
		s := signal.New(0, signal.WithWakeDelay(d, signal.WithMaxWait(100*time.Millisecond)))
		defer s.Close()
		r := park(context.Background(), s)
		testkit.MustNil(t, s.Add(1))
		advance(3 * time.Millisecond)
		testkit.MustNil(t, s.Add(1))
		testkit.MustNil(t, s.Add(1))  // not noted: the period has its add
		advance(3 * time.Millisecond) // 6 ms: the timer found the adds and was set again
		testkit.Pending(t, r)
		advance(2*time.Millisecond - 1)
		testkit.Pending(t, r)
		advance(1) // 8 ms: a whole period with no add since the timer was set again
		if got := <-r; got.v != 3 || got.err != nil {
			t.Fatalf("Wait = %+v, want 3 after the quiet period", got)
		}
	})
}

// TestWakeMaxWaitServesASteadyStream: adds closer together than the delay
// never let the debounce's periods go quiet, yet each window wakes the
// reader exactly maxWait after its first add, so a steady stream is still
// served every maxWait.
func TestWakeMaxWaitServesASteadyStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const d, maxWait = 4 * time.Millisecond, 20 * time.Millisecond
		s := signal.New(0, signal.WithWakeDelay(d, signal.WithMaxWait(maxWait)))
		defer s.Close()
		for range 3 {
			r := park(context.Background(), s)
			start := time.Now()
			for i := range 20 { // an add every millisecond, from 0 to 19 ms
				if i > 0 {
					advance(time.Millisecond)
				}
				testkit.MustNil(t, s.Add(1))
			}
			advance(time.Millisecond - 1)
			testkit.Pending(t, r)
			advance(1)
			if got := <-r; got.v != 20 || time.Since(start) != maxWait {
				t.Fatalf("Wait = %+v after %v, want 20 at maxWait %v", got, time.Since(start), maxWait)
			}
		}
	})
}

// TestWakeMaxWaitKeepsMaxBatch: WithMaxBatch still wakes at once under
// the debounce.
func TestWakeMaxWaitKeepsMaxBatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := signal.New(0, signal.WithWakeDelay(time.Second,
			signal.WithMaxWait(time.Hour), signal.WithMaxBatch(8)))
		defer s.Close()
		r := park(context.Background(), s)
		start := time.Now()
		testkit.MustNil(t, s.Add(3))
		testkit.MustNil(t, s.Add(5))
		if got := <-r; got.v != 8 || time.Since(start) != 0 {
			t.Fatalf("Wait = %+v after %v, want 8 at once", got, time.Since(start))
		}
	})
}

// advance moves the bubble's fake clock by d and lets the timers due by
// then run.
func advance(d time.Duration) {
	time.Sleep(d)
	synctest.Wait()
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

// TestWakeAdaptiveWakeupsIsShared: the two packages share one
// threshold, as they share one policy.
func TestWakeAdaptiveWakeupsIsShared(t *testing.T) {
	if signal.AdaptiveWakeups != coalesce.AdaptiveWakeups {
		t.Fatalf("signal.AdaptiveWakeups = %d, coalesce's %d", signal.AdaptiveWakeups, coalesce.AdaptiveWakeups)
	}
}

// TestWakeOptionsAreNotOptions: a policy option without a delay does not
// compile (signal.New(0, signal.WithMaxBatch(2)) is a type error), since
// only WithWakeDelay takes a WakeOption. This pins the reason: no
// WakeOption is also an Option that New would take.
func TestWakeOptionsAreNotOptions(t *testing.T) {
	for name, o := range map[string]signal.WakeOption{
		"WithMaxBatch": signal.WithMaxBatch(2),
		"WithAdaptive": signal.WithAdaptive(),
		"WithMaxWait":  signal.WithMaxWait(time.Second),
	} {
		if _, ok := o.(signal.Option); ok {
			t.Errorf("%s is an Option too: New would take it without a delay", name)
		}
	}
}

// TestWakeDelayZeroWakesAtOnce: with a delay of 0 every add that finds a
// reader blocked wakes it at once, whatever the options, which then
// change nothing (each bound is met).
func TestWakeDelayZeroWakesAtOnce(t *testing.T) {
	for name, opts := range map[string][]signal.WakeOption{
		"no option":    nil,
		"WithMaxBatch": {signal.WithMaxBatch(100)},
		"WithAdaptive": {signal.WithAdaptive()},
		"WithMaxWait":  {signal.WithMaxWait(time.Second)},
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := signal.New(0, signal.WithWakeDelay(0, opts...))
				defer s.Close()
				for range 3 {
					r := park(context.Background(), s)
					testkit.MustNil(t, s.Add(1))
					if got := <-r; got.v != 1 {
						t.Fatalf("Wait = %+v, want 1", got)
					}
				}
			})
		})
	}
}

func TestWakeDelayOptionPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"negative delay":      func() { signal.WithWakeDelay(-1) },
		"batch zero":          func() { signal.WithMaxBatch(0) },
		"maxWait zero":        func() { signal.WithMaxWait(0) },
		"maxWait negative":    func() { signal.WithMaxWait(-time.Second) },
		"maxWait below delay": func() { signal.WithWakeDelay(time.Millisecond, signal.WithMaxWait(time.Microsecond)) },
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
