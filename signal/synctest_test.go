package signal_test

// The tests in this file state that the package works inside a
// testing/synctest bubble. Some of it is pinned by bubble tests elsewhere,
// which are not repeated here:
//   - parks: TestSumGoesToExactlyOneReaderInOrder (Wait), TestReady and
//     TestAddWaitBackPressure
//   - the wake delay's timers, a nanosecond early and on time:
//     TestWakeDelayAboveOneSecond, TestWakeMaxWaitWaitsForQuiet and
//     TestWakeMaxWaitServesASteadyStream (WithMaxWait), and
//     TestWakeAdaptiveJudgesWindowsByAdds (WithAdaptive, timed exactly)
//   - Close: TestCloseWakesBlockedReaders, TestCloseKeepsSumReadableThenRefuses
//     (AddWait) and TestWakeDelayClose (one reader, with a window open)

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/signal"
)

// timed is what a call parked in a bubble returned, and how long it took
// on the bubble's clock.
type timed struct {
	err  error
	took time.Duration
}

// parkTimed is testkit.Park for a call returning an error, timed from now.
func parkTimed(call func() error) <-chan timed {
	start := time.Now()
	return testkit.Park(func() timed {
		err := call()
		return timed{err, time.Since(start)}
	})
}

// wantDeadline checks a call parked with a context whose deadline is d
// away. It is still parked a nanosecond before the deadline, and it
// returns DeadlineExceeded exactly at it.
func wantDeadline(t *testing.T, res <-chan timed, d time.Duration) {
	t.Helper()
	advance(d - time.Nanosecond)
	testkit.Pending(t, res)
	time.Sleep(time.Nanosecond)
	if got := <-res; !errors.Is(got.err, context.DeadlineExceeded) || got.took != d {
		t.Fatalf("the parked call returned %v after %v, want DeadlineExceeded after %v", got.err, got.took, d)
	}
}

// TestSynctestDeadlineEndsAParkedCallOnTime: a context deadline set in the
// bubble ends each blocking call exactly when the fake clock reaches it.
// The call takes and adds nothing. A sum whose wakeup the wake delay
// holds back past the deadline stays in the count.
func TestSynctestDeadlineEndsAParkedCallOnTime(t *testing.T) {
	const d = 3 * time.Second
	for _, c := range []struct {
		name  string
		s     func() *signal.Signal // made in the bubble
		add   uint64                // added once the call is parked
		count uint64                // the count the call leaves
		call  func(ctx context.Context, s *signal.Signal) error
	}{
		{"Wait", maker(0), 0, 0, wait},
		{"AddWait", maker(signal.Max), 0, signal.Max, func(ctx context.Context, s *signal.Signal) error {
			return s.AddWait(ctx, 1)
		}},
		{"Wait under a longer wake delay", maker(0, signal.WithWakeDelay(time.Hour)), 5, 5, wait},
		{"Ready in a select", maker(0), 0, 0, func(ctx context.Context, s *signal.Signal) error {
			select {
			case <-s.Ready():
				return errors.New("Ready fired with nothing added")
			case <-ctx.Done():
				return ctx.Err()
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), d)
				defer cancel()
				s := c.s()
				defer s.Close()
				res := parkTimed(func() error { return c.call(ctx, s) })
				testkit.MustNil(t, s.Add(c.add))
				wantDeadline(t, res, d)
				testkit.WantCount(t, s, c.count)
				if st := s.Stats(); st.Waiting != 0 || st.WritersWaiting != 0 {
					t.Fatalf("after the deadline: %v, want nobody waiting", st)
				}
			})
		})
	}
}

// maker returns a constructor of a signal with these arguments.
func maker(initial uint64, opts ...signal.Option) func() *signal.Signal {
	return func() *signal.Signal { return signal.New(initial, opts...) }
}

// wait is Wait as a call that fails for a non-zero sum.
func wait(ctx context.Context, s *signal.Signal) error {
	v, err := s.Wait(ctx)
	if v != 0 {
		return fmt.Errorf("read %d, %w", v, err)
	}
	return err
}

// TestSynctestWakeDelayHoldsReadyUntilTheWindowEnds: under WithWakeDelay
// a Ready channel is closed by the window's timer, exactly a delay after
// the add, while the count is there at once.
func TestSynctestWakeDelayHoldsReadyUntilTheWindowEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const d = 5 * time.Millisecond
		s := signal.New(0, signal.WithWakeDelay(d))
		defer s.Close()
		ready := s.Ready()
		fired := testkit.Park(func() struct{} { return <-ready })
		testkit.MustNil(t, s.Add(2))
		testkit.WantCount(t, s, 2)
		advance(d - time.Nanosecond)
		testkit.Pending(t, fired)
		start := time.Now()
		<-fired
		if took := time.Since(start); took != time.Nanosecond {
			t.Fatalf("Ready fired %v after the last nanosecond began, want exactly at the delay", took)
		}
		if v := s.Take(); v != 2 {
			t.Fatalf("Take = %d, want 2", v)
		}
	})
}

// TestSynctestCloseWakesEveryParkedCaller: Close, with a window open,
// settles every caller parked on the signal. The first reader gets the
// sum, the others ErrClosed, and the Ready and Writable channels close.
// Past the delay no wakeup comes, and the bubble ends with nothing
// running, or synctest.Test would fail.
func TestSynctestCloseWakesEveryParkedCaller(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		bg := context.Background()
		s := signal.New(0, signal.WithWakeDelay(time.Second))
		first, second, third := park(bg, s), park(bg, s), park(bg, s)
		ready := testkit.Park(func() struct{} { return <-s.Ready() })
		full := signal.New(signal.Max)
		writable := testkit.Park(func() struct{} { return <-full.Writable() })
		write := testkit.Park(func() error { return full.AddWait(bg, 1) })
		testkit.MustNil(t, s.Add(3)) // the window is open: the readers wait a second
		synctest.Wait()
		testkit.Pending(t, first)

		s.Close()
		full.Close()
		if r := <-first; r.v != 3 || r.err != nil {
			t.Fatalf("the first reader at Close = %+v, want the 3 added", r)
		}
		for _, r := range []<-chan result{second, third} {
			if got := <-r; !errors.Is(got.err, signal.ErrClosed) {
				t.Fatalf("a reader behind the first at Close = %+v, want ErrClosed", got)
			}
		}
		<-ready
		<-writable
		testkit.ErrIs(t, "AddWait at Close", <-write, signal.ErrClosed)
		advance(2 * time.Second)
		if st := s.Stats(); st.Count != 0 || st.Waiting != 0 || !st.Closed {
			t.Fatalf("after the delay: %v", st)
		}
	})
}

// TestSynctestBubblesShareNothing: a Signal belongs to the bubble that
// uses it, and the signals of other bubbles share no channel or timer with
// it. Each of several bubbles in turn parks more readers than a batch of
// waiting records, under a wake delay, and a channel or timer from an
// earlier bubble would panic.
func TestSynctestBubblesShareNothing(t *testing.T) {
	for round := range 3 {
		synctest.Test(t, func(t *testing.T) {
			s := signal.New(0, signal.WithWakeDelay(time.Millisecond))
			defer s.Close()
			var parked []<-chan result
			for range 6 {
				parked = append(parked, park(context.Background(), s))
			}
			for i, p := range parked {
				testkit.MustNil(t, s.Add(uint64(i+1)))
				if got := <-p; got.v != uint64(i+1) || got.err != nil {
					t.Fatalf("round %d: reader %d = %+v, want %d", round, i, got, i+1)
				}
			}
		})
	}
}
