package coalesce_test

import (
	"context"
	"errors"
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/coalesce"
	"github.com/evsync/evsync/internal/testsupport/testkit"
)

// wakeups drains C without blocking and returns how many tokens and events
// it found.
func take(w *coalesce.Waker) (tokens int, events uint64) {
	for {
		select {
		case _, ok := <-w.C():
			if !ok {
				return tokens, events + w.Events()
			}
			tokens++
			events += w.Events()
		default:
			return tokens, events
		}
	}
}

func want(t *testing.T, w *coalesce.Waker, tokens int, events uint64) {
	t.Helper()
	if gt, ge := take(w); gt != tokens || ge != events {
		t.Fatalf("got %d wakeups for %d events, want %d for %d (%v)", gt, ge, tokens, events, w)
	}
}

func TestAuditOneWakeupPerWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := coalesce.New(5 * time.Millisecond)
		defer w.Close()
		w.Wake()
		time.Sleep(3 * time.Millisecond) // fake clock: moves time, not a hand-shake
		w.Wake()
		w.Wake()
		synctest.Wait()
		want(t, w, 0, 0) // later events neither wake nor extend
		time.Sleep(2 * time.Millisecond)
		synctest.Wait()
		want(t, w, 1, 3) // exactly delay after the first event
		if st := w.Stats(); st.Armed || st.Pending != 0 {
			t.Fatalf("timer left armed with nothing pending: %v", st)
		}
	})
}

func TestZeroDelayWakesAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := coalesce.New(0)
		defer w.Close()
		w.Wake()
		want(t, w, 1, 1)
		w.Wake()
		w.Wake() // the token of the second is not consumed yet: merges
		want(t, w, 1, 2)
	})
}

// TestZeroDelayIgnoresTheOptions: with a delay of 0 every event wakes at
// once whatever the options, which then change nothing (each bound is
// met).
func TestZeroDelayIgnoresTheOptions(t *testing.T) {
	for name, opt := range map[string]coalesce.Option{
		"WithMaxBatch": coalesce.WithMaxBatch(100),
		"WithMaxWait":  coalesce.WithMaxWait(time.Second),
		"WithAdaptive": coalesce.WithAdaptive(),
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := coalesce.New(0, opt)
				defer w.Close()
				for range 3 {
					w.Wake()
					want(t, w, 1, 1)
				}
			})
		})
	}
}

func TestMaxBatchWakesAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := coalesce.New(time.Second, coalesce.WithMaxBatch(3))
		defer w.Close()
		w.Wake()
		w.Wake()
		want(t, w, 0, 0)
		w.Wake()
		want(t, w, 1, 3)
		time.Sleep(time.Second)
		synctest.Wait()
		want(t, w, 0, 0) // the batch cancelled the window's timer
	})
}

// TestAdaptiveCoalescesOnlySustainedStreams: with WithAdaptive, after a
// thin first window, events wake the consumer at once, even a dense burst
// shorter than the delay;
// after a period of one delay with more than AdaptiveWakeups wakeups, an
// event that continues the stream opens a window, and coalescing lasts
// until a window expires with AdaptiveWakeups events or fewer.
func TestAdaptiveCoalescesOnlySustainedStreams(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const delay = 8 * time.Millisecond
		const step = delay / 8
		w := coalesce.New(delay, coalesce.WithAdaptive())
		defer w.Close()
		w.Wake() // it starts out coalescing
		want(t, w, 0, 0)
		time.Sleep(delay)
		synctest.Wait()
		want(t, w, 1, 1)                         // a thin window: immediate from now on
		for range 3 * coalesce.AdaptiveWakeups { // a burst: all at once
			w.Wake()
			want(t, w, 1, 1)
		}
		time.Sleep(delay + time.Nanosecond) // the burst is over: its count is forgotten
		for range 8 {                       // a stream, a wakeup per step, for one delay
			w.Wake()
			want(t, w, 1, 1)
			time.Sleep(step)
		}
		for range coalesce.AdaptiveWakeups + 1 { // the stream goes on: windows
			w.Wake()
		}
		want(t, w, 0, 0)
		time.Sleep(delay)
		synctest.Wait()
		want(t, w, 1, coalesce.AdaptiveWakeups+1)
		time.Sleep(3 * delay) // a gap (a slow consumer, say) does not end coalescing
		for range coalesce.AdaptiveWakeups {
			w.Wake()
		}
		want(t, w, 0, 0)
		time.Sleep(delay)
		synctest.Wait()
		want(t, w, 1, coalesce.AdaptiveWakeups) // a thin window: back to immediate
		w.Wake()
		want(t, w, 1, 1)
		if st := w.Stats(); st.Armed {
			t.Fatalf("after a thin window: %v, want no timer", st)
		}
	})
}

// thin takes a new adaptive Waker out of coalescing with a window that
// catches one event.
func thin(t *testing.T, w *coalesce.Waker, delay time.Duration) {
	t.Helper()
	w.Wake()
	time.Sleep(delay)
	synctest.Wait()
	want(t, w, 1, 1)
}

// TestAdaptiveThresholds pins WithAdaptive's two boundaries: exactly
// AdaptiveWakeups wakeups per delay never start coalescing, and a busy
// period followed exactly a delay after its last wakeup does.
func TestAdaptiveThresholds(t *testing.T) {
	const delay = 8 * time.Millisecond
	t.Run("at the threshold", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			w := coalesce.New(delay, coalesce.WithAdaptive())
			defer w.Close()
			thin(t, w, delay)
			for range 5 * coalesce.AdaptiveWakeups {
				w.Wake()
				want(t, w, 1, 1)
				time.Sleep(delay / coalesce.AdaptiveWakeups)
			}
		})
	})
	t.Run("just past it", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			w := coalesce.New(delay, coalesce.WithAdaptive())
			defer w.Close()
			thin(t, w, delay)
			for range coalesce.AdaptiveWakeups + 1 {
				w.Wake()
				want(t, w, 1, 1)
			}
			time.Sleep(delay)
			w.Wake() // a delay after the last wakeup: the stream goes on
			want(t, w, 0, 0)
			time.Sleep(delay)
			synctest.Wait()
			want(t, w, 1, 1)
		})
	})
}

func TestDebounceWaitsForQuiet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := coalesce.New(4*time.Millisecond, coalesce.WithMaxWait(100*time.Millisecond))
		defer w.Close()
		w.Wake()
		time.Sleep(3 * time.Millisecond)
		w.Wake()
		time.Sleep(3 * time.Millisecond) // 6 ms: the first timer found a new event and re-armed
		synctest.Wait()
		want(t, w, 0, 0)
		time.Sleep(2 * time.Millisecond) // 8 ms: a full quiet delay since the re-arm
		synctest.Wait()
		want(t, w, 1, 2)
	})
}

// TestDebounceWakesOneToTwoDelaysAfterTheLastEvent pins the trailing
// debounce's real bound, at both ends: the quiet is measured in timer
// periods, so an event just before a period ends is followed by a wakeup
// a nanosecond more than a delay later, and one that comes as a period
// begins by a wakeup exactly two delays later, not sooner.
func TestDebounceWakesOneToTwoDelaysAfterTheLastEvent(t *testing.T) {
	const d = 10 * time.Millisecond
	t.Run("last event just before a period ends", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			w := coalesce.New(d, coalesce.WithMaxWait(time.Second))
			defer w.Close()
			w.Wake()
			advance(d - 1)
			w.Wake() // the last event
			advance(d)
			want(t, w, 0, 0) // quiet for a whole delay, but not for a whole period
			advance(1)
			want(t, w, 1, 2) // a delay and a nanosecond after the last event
		})
	})
	t.Run("last event as a period begins", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			w := coalesce.New(d, coalesce.WithMaxWait(time.Second))
			defer w.Close()
			w.Wake()
			advance(d / 2)
			w.Wake()
			advance(d / 2) // the timer finds that event and re-arms
			w.Wake()       // the last event, at the start of the new period
			advance(2*d - 1)
			want(t, w, 0, 0)
			advance(1)
			want(t, w, 1, 3) // exactly two delays after the last event
		})
	})
}

// TestDebounceWakesAtMaxWaitAfterTheFirstEvent: a stream that is never
// quiet for a delay is woken exactly maxWait after the window's first
// event, however recent its last event is.
func TestDebounceWakesAtMaxWaitAfterTheFirstEvent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const d, maxWait = 10 * time.Millisecond, 25 * time.Millisecond
		w := coalesce.New(d, coalesce.WithMaxWait(maxWait))
		defer w.Close()
		for i := range 25 { // an event every millisecond, from 0 to 24 ms
			if i > 0 {
				advance(time.Millisecond)
			}
			w.Wake()
		}
		advance(time.Millisecond - 1)
		want(t, w, 0, 0)
		advance(1)
		want(t, w, 1, 25) // at maxWait, a millisecond after the last event
	})
}

// advance moves the bubble's fake clock by d and lets the timers due by
// then run.
func advance(d time.Duration) {
	time.Sleep(d)
	synctest.Wait()
}

func TestDebounceMaxWaitServesASteadyStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const delay, maxWait = 4 * time.Millisecond, 20 * time.Millisecond
		w := coalesce.New(delay, coalesce.WithMaxWait(maxWait))
		defer w.Close()
		start := time.Now()
		var first time.Duration
		for time.Since(start) < 3*maxWait {
			w.Wake()
			time.Sleep(time.Millisecond) // never quiet for the delay
			synctest.Wait()
			if n, _ := take(w); n > 0 && first == 0 {
				first = time.Since(start)
			}
		}
		if first == 0 || first > maxWait+time.Millisecond {
			t.Fatalf("first wakeup of a steady stream after %v, want within maxWait %v", first, maxWait)
		}
	})
}

func TestFlushNeverCausesASecondWakeup(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := coalesce.New(5 * time.Millisecond)
		defer w.Close()
		w.Wake()
		w.Wake()
		w.Flush()
		want(t, w, 1, 2)
		time.Sleep(10 * time.Millisecond)
		synctest.Wait()
		want(t, w, 0, 0)
		w.Flush() // nothing pending: no wakeup
		want(t, w, 0, 0)
	})
}

func TestCloseStopsTheTimerAndKeepsEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := coalesce.New(5 * time.Millisecond)
		w.Wake()
		w.Wake()
		w.Close()
		w.Wake() // no-op
		time.Sleep(10 * time.Millisecond)
		synctest.Wait()
		n, err := w.Wait(context.Background())
		if n != 2 || err != nil {
			t.Fatalf("Wait after Close = %d, %v; want the 2 events noted before", n, err)
		}
		if _, err := w.Wait(context.Background()); !errors.Is(err, coalesce.ErrClosed) {
			t.Fatalf("second Wait after Close = %v", err)
		}
		if w.Stats().Wakeups != 0 {
			t.Fatal("the timer fired after Close")
		}
		w.Close()
	})
}

func TestWaitReportsEventsAndCancels(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := coalesce.New(time.Millisecond)
		defer w.Close()
		got := make(chan uint64, 1)
		go func() {
			n, _ := w.Wait(context.Background())
			got <- n
		}()
		w.Wake()
		w.Wake()
		if n := <-got; n != 2 {
			t.Fatalf("Wait = %d, want 2", n)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := w.Wait(ctx); !errors.Is(err, context.Canceled) {
			t.Fatalf("Wait(cancelled) = %v", err)
		}
		// A done context stops Wait even with a wakeup there; the events
		// stay for the next Wait.
		w.Wake()
		w.Flush()
		if n, err := w.Wait(ctx); !errors.Is(err, context.Canceled) || n != 0 {
			t.Fatalf("Wait(cancelled) with a wakeup there = %d, %v", n, err)
		}
		if n, err := w.Wait(context.Background()); err != nil || n != 1 {
			t.Fatalf("Wait after the stopped one = %d, %v, want 1", n, err)
		}
		if _, err := w.Wait(nilCtx); !errors.Is(err, coalesce.ErrInvalid) {
			t.Fatalf("Wait(nil) = %v", err)
		}
	})
}

// nilCtx is a nil context, for the ErrInvalid case.
var nilCtx context.Context

// TestNoEmptyWakeup: a wakeup that fires between a Wait's receive and
// its Events merges into that Wait's report, and leaves no token behind
// for a next Wait to return (0, nil) with. The woken Wait may also run
// before the second Wake, on a loaded machine. Then the second event is
// still pending, and the next Wait gets it at once.
func TestNoEmptyWakeup(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := coalesce.New(0)
		defer w.Close()
		type res struct {
			n   uint64
			err error
		}
		r := testkit.Park(func() res {
			n, err := w.Wait(context.Background())
			return res{n, err}
		})
		w.Wake() // hands the token straight to the parked Wait
		w.Wake() // fires again, most often before that Wait has run
		got := <-r
		if got.err != nil || got.n != 1 && got.n != 2 {
			t.Fatalf("Wait = %+v, want both events, or the first alone", got)
		}
		if got.n == 1 {
			if n, err := w.Wait(context.Background()); err != nil || n != 1 {
				t.Fatalf("Wait after a Wait that ran between the wakes = %d, %v, want the second event", n, err)
			}
		}
		select {
		case <-w.C():
			t.Fatalf("a token is left on C with no events (%v)", w)
		default:
		}
	})
}

func TestFlushRacingTheTimer(t *testing.T) {
	// Flush at the very moment the timer fires: exactly one wakeup, and a
	// later window still gets its own full delay.
	synctest.Test(t, func(t *testing.T) {
		w := coalesce.New(5 * time.Millisecond)
		defer w.Close()
		for range 20 {
			w.Wake()
			time.Sleep(5 * time.Millisecond)
			w.Flush()
			synctest.Wait()
			want(t, w, 1, 1)
		}
	})
}

func TestBadArguments(t *testing.T) {
	for name, f := range map[string]func(){
		"negative delay":      func() { coalesce.New(-1) },
		"batch zero":          func() { coalesce.WithMaxBatch(0) },
		"maxWait zero":        func() { coalesce.WithMaxWait(0) },
		"maxWait below delay": func() { coalesce.New(time.Millisecond, coalesce.WithMaxWait(time.Microsecond)) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				r, _ := recover().(string)
				if len(r) < 10 || r[:10] != "coalesce: " {
					t.Fatalf("panic = %q, want a \"coalesce: ...\" message", r)
				}
			}()
			f()
		})
	}
}

// TestNewAcceptsDelaysAboveOneSecond: any non-negative delay works (a 2 s
// debounce is common for file watchers), with its wakeup exactly when
// due, and so does maxWait; a delay too long to ever expire arms a timer
// that Close stops.
func TestNewAcceptsDelaysAboveOneSecond(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := coalesce.New(2 * time.Second)
		defer w.Close()
		w.Wake()
		advance(2*time.Second - 1)
		want(t, w, 0, 0)
		advance(1)
		want(t, w, 1, 1) // exactly 2 s after the first Wake
	})
	synctest.Test(t, func(t *testing.T) {
		w := coalesce.New(2*time.Second, coalesce.WithMaxWait(5*time.Second))
		defer w.Close()
		for i := range 4 { // at 0, 1.5, 3 and 4.5 s: never quiet for a period
			if i > 0 {
				advance(1500 * time.Millisecond)
			}
			w.Wake()
		}
		advance(500*time.Millisecond - 1)
		want(t, w, 0, 0)
		advance(1)
		want(t, w, 1, 4) // at maxWait, 5 s after the first Wake
	})
	synctest.Test(t, func(t *testing.T) {
		w := coalesce.New(time.Duration(math.MaxInt64))
		w.Wake()
		if st := w.Stats(); !st.Armed || st.Pending != 1 {
			t.Fatalf("after Wake: %v, want a timer armed", st)
		}
		w.Close()
		if n, err := w.Wait(context.Background()); n != 1 || err != nil {
			t.Fatalf("Wait after Close = %d, %v, want the pending event", n, err)
		}
	})
}

// TestStatsDoesNotTakeTheLock: Stats (and String) return while another
// goroutine holds the Waker's lock, so an observer never waits for, or
// delays, a writer. If Stats took the lock it would block until the
// watchdog, a failure detector only: the passing run waits for no clock.
func TestStatsDoesNotTakeTheLock(t *testing.T) {
	w := coalesce.New(time.Hour)
	defer w.Close()
	w.Wake()
	coalesce.Lock(w)
	got := make(chan coalesce.Stats, 1)
	go func() {
		_ = w.String()
		got <- w.Stats()
	}()
	select {
	case st := <-got:
		coalesce.Unlock(w)
		if want := (coalesce.Stats{Pending: 1, Armed: true}); st != want {
			t.Fatalf("Stats() = %+v, want %+v", st, want)
		}
	case <-time.After(watchdog):
		coalesce.Unlock(w)
		<-got
		t.Fatalf("Stats did not return in %v while the lock was held", watchdog)
	}
}

// watchdog bounds how long a test waits for a call that should return
// at once before it decides that the call is stuck. It detects failures;
// it never orders anything.
const watchdog = 10 * time.Second

func TestWakeDoesNotAllocate(t *testing.T) {
	w := coalesce.New(time.Hour / 3600)
	defer w.Close()
	w.Wake() // arms the timer once
	if a := testing.AllocsPerRun(1000, w.Wake); a != 0 {
		t.Fatalf("Wake allocates %v times", a)
	}
}

func TestCloseRacingTheTimerLeavesNothingRunning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for range 20 {
			w := coalesce.New(5 * time.Millisecond)
			w.Wake()
			time.Sleep(5 * time.Millisecond) // the timer is due now
			w.Close()
			// The bubble's goroutines must all be gone or durably blocked:
			// synctest.Test fails if a callback were left running.
			synctest.Wait()
			if st := w.Stats(); st.Armed || !st.Closed {
				t.Fatalf("after Close: %v", st)
			}
		}
	})
}

func TestRealClockNoLostWakeup(t *testing.T) {
	// On the real clock, the window's wakeup must come (a timer run taken
	// for stale would lose it). The wait is bounded by the test timeout.
	w := coalesce.New(time.Millisecond)
	defer w.Close()
	for range 200 {
		w.Wake()
		if n, err := w.Wait(context.Background()); n == 0 || err != nil {
			t.Fatalf("Wait = %d, %v", n, err)
		}
	}
}
