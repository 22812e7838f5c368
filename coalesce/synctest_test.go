package coalesce_test

// The tests in this file state that the package works inside a
// testing/synctest bubble. Some of it is pinned by bubble tests elsewhere,
// which are not repeated here:
//   - parks: TestNoEmptyWakeup (a Wait woken by Wake with no delay)
//   - WithMaxWait's timers, a nanosecond early and on time:
//     TestDebounceWakesOneToTwoDelaysAfterTheLastEvent and
//     TestDebounceWakesAtMaxWaitAfterTheFirstEvent
//   - Close: TestCloseStopsTheTimerAndKeepsEvents and
//     TestCloseRacingTheTimerLeavesNothingRunning

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/coalesce"
	"github.com/evsync/evsync/internal/testsupport/testkit"
)

// TestSynctestWaitParksUntilTheWindowEnds: a Wait parks durably while a
// window is open. The window's timer wakes it exactly when the fake clock
// reaches the end of the window, and not a nanosecond before. Under
// WithMaxWait that is a delay after a lone event. A second event in the
// timer's first period makes it two delays, the debounce's upper bound.
func TestSynctestWaitParksUntilTheWindowEnds(t *testing.T) {
	const d = 10 * time.Millisecond
	maxWait := []coalesce.Option{coalesce.WithMaxWait(time.Second)}
	adaptive := []coalesce.Option{coalesce.WithAdaptive()}
	for _, c := range []struct {
		name  string
		opts  []coalesce.Option
		prime func(t *testing.T, w *coalesce.Waker) // run before the Wait parks
		wakes uint64                                // events noted at once, after the Wait parks
		at    time.Duration                         // when the Wait is woken
	}{
		{"audit", nil, nil, 3, d},
		{"WithMaxBatch below the batch", []coalesce.Option{coalesce.WithMaxBatch(4)}, nil, 3, d},
		{"WithMaxWait, one event", maxWait, nil, 1, d},
		{"WithMaxWait, a burst", maxWait, nil, 3, 2 * d},
		{"WithAdaptive, the first window", adaptive, nil, 3, d},
		{"WithAdaptive, a busy stream", adaptive, func(t *testing.T, w *coalesce.Waker) {
			w.Wake() // a thin first window ends coalescing
			advance(d)
			want(t, w, 1, 1)
			for range coalesce.AdaptiveWakeups + 1 { // a wakeup at once each
				w.Wake()
				want(t, w, 1, 1)
			}
			time.Sleep(d) // the next event continues the stream: a window
		}, 3, d},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := coalesce.New(d, c.opts...)
				defer w.Close()
				if c.prime != nil {
					c.prime(t, w)
				}
				start := time.Now()
				r := testkit.Park(waitFor(w))
				for range c.wakes {
					w.Wake()
				}
				advance(c.at - time.Nanosecond)
				testkit.Pending(t, r)
				if got := <-r; got != (res{c.wakes, nil}) || time.Since(start) != c.at {
					t.Fatalf("Wait = %+v after %v, want %d events after %v", got, time.Since(start), c.wakes, c.at)
				}
			})
		})
	}
}

// TestSynctestFlushWakesAParkedWait: Flush ends a parked Wait at once, with
// the window's timer cancelled, so the delay brings no second wakeup.
func TestSynctestFlushWakesAParkedWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := coalesce.New(time.Second)
		defer w.Close()
		start := time.Now()
		r := testkit.Park(waitFor(w))
		w.Wake()
		w.Wake()
		synctest.Wait()
		testkit.Pending(t, r)
		w.Flush()
		if got := <-r; got != (res{2, nil}) || time.Since(start) != 0 {
			t.Fatalf("Wait = %+v after %v, want 2 events at once", got, time.Since(start))
		}
		advance(2 * time.Second)
		if st := w.Stats(); st.Wakeups != 1 || st.Armed {
			t.Fatalf("after the delay: %v, want the one wakeup of Flush", st)
		}
	})
}

// TestSynctestDeadlineEndsAParkedWaitOnTime: a context deadline set in the
// bubble ends a Wait exactly when the fake clock reaches it, inside a
// longer window. The Wait takes nothing, and the window's events stay.
func TestSynctestDeadlineEndsAParkedWaitOnTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const d = 3 * time.Second
		w := coalesce.New(time.Hour)
		defer w.Close()
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		start := time.Now()
		r := testkit.Park(func() res {
			n, err := w.Wait(ctx)
			return res{n, err}
		})
		w.Wake()
		w.Wake()
		advance(d - time.Nanosecond)
		testkit.Pending(t, r)
		if got := <-r; got != (res{0, context.DeadlineExceeded}) || time.Since(start) != d {
			t.Fatalf("Wait = %+v after %v, want DeadlineExceeded after %v", got, time.Since(start), d)
		}
		if st := w.Stats(); st.Pending != 2 || !st.Armed {
			t.Fatalf("after the deadline: %v, want the 2 events in the open window", st)
		}
		w.Flush()
		if got := <-testkit.Park(waitFor(w)); got != (res{2, nil}) {
			t.Fatalf("the next Wait = %+v, want the 2 events", got)
		}
	})
}

// TestSynctestCloseWakesEveryParkedWait: Close, with a window open, wakes
// every consumer parked on the Waker. One Wait reports the events noted
// before Close, the other Waits get ErrClosed, and a receive from C finds
// C closed. Past the delay no wakeup comes, and the bubble ends with
// nothing running, or synctest.Test would fail.
func TestSynctestCloseWakesEveryParkedWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := coalesce.New(time.Second)
		var waits []<-chan res
		for range 3 {
			waits = append(waits, testkit.Park(waitFor(w)))
		}
		received := testkit.Park(func() bool { _, open := <-w.C(); return open })
		w.Wake()
		w.Wake()
		synctest.Wait()
		for _, r := range waits {
			testkit.Pending(t, r)
		}

		w.Close()
		var events uint64
		closed := 0
		for _, r := range waits {
			switch got := <-r; {
			case got.err == nil:
				events += got.n
			case errors.Is(got.err, coalesce.ErrClosed):
				closed++
			default:
				t.Fatalf("a Wait at Close = %+v", got)
			}
		}
		if events != 2 || closed != 2 {
			t.Fatalf("at Close the Waits got %d events and %d ErrClosed, want 2 events in one and 2 ErrClosed", events, closed)
		}
		if <-received {
			t.Fatal("a receive from C at Close got a token, want C closed")
		}
		advance(2 * time.Second)
		if st := w.Stats(); st.Wakeups != 0 || st.Armed || st.Pending != 0 {
			t.Fatalf("after the delay: %v, want no wakeup and no timer", st)
		}
	})
}

// TestSynctestBubblesShareNothing: a Waker belongs to the bubble that uses
// it, and the Wakers of other bubbles share no channel or timer with it.
// Each of several bubbles in turn runs windows on its own Waker, and a
// channel or timer from an earlier bubble would panic.
func TestSynctestBubblesShareNothing(t *testing.T) {
	for round := range 3 {
		synctest.Test(t, func(t *testing.T) {
			w := coalesce.New(time.Millisecond, coalesce.WithAdaptive())
			defer w.Close()
			for i := range 4 {
				r := testkit.Park(waitFor(w))
				w.Wake()
				if got := <-r; got != (res{1, nil}) {
					t.Fatalf("round %d: Wait %d = %+v, want 1 event", round, i, got)
				}
			}
		})
	}
}
