package poll_test

// Tests of a Set's time (timing.go, options.go): WaitTimeout and
// WithClock.

import (
	"errors"
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/internal/testsupport/fakeclock"
	"github.com/evsync/evsync/poll"
	"github.com/evsync/evsync/signal"
)

// A timedResult is what a WaitTimeout returned, and after how long.
type timedResult struct {
	evs  []poll.Event[int]
	err  error
	took time.Duration
}

// goWaitTimeout calls set.WaitTimeout in a goroutine and sends what it
// returns, with how long it took on the wall clock (a bubble's, in a
// synctest bubble).
func goWaitTimeout(set *poll.Set[int], buf []poll.Event[int], max int, d time.Duration) <-chan timedResult {
	c := make(chan timedResult, 1)
	go func() {
		start := time.Now()
		evs, err := set.WaitTimeout(buf, max, d)
		c <- timedResult{evs, err, time.Since(start)}
	}()
	return c
}

// TestWaitTimeoutOfNoTime: for a d ≤ 0, WaitTimeout is TryWait. It takes
// what is queued, or returns buf unchanged and nil at once, without
// waiting or arming the timer.
func TestWaitTimeoutOfNoTime(t *testing.T) {
	var set poll.Set[int]
	defer set.Close()
	sig := signal.New(0)
	if err := set.Add(sig, 1, poll.In, poll.Edge); err != nil {
		t.Fatal(err)
	}
	buf := []poll.Event[int]{{Key: 9}}
	for _, d := range []time.Duration{0, -1, math.MinInt64} {
		evs, err := set.WaitTimeout(buf, 4, d)
		if err != nil || len(evs) != 1 || &evs[0] != &buf[0] {
			t.Fatalf("WaitTimeout(d=%v) with nothing queued = %v, %v, want buf unchanged and nil", d, evs, err)
		}
	}
	if st := set.Stats(); st.Timer || st.Waiters != 0 {
		t.Fatalf("Stats = %+v, want no timer, no waiter", st)
	}
	sig.Add(1)
	evs, err := set.WaitTimeout(buf, 4, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantEvents(t, "WaitTimeout(d=0) with a source queued", evs, poll.Event[int]{Key: 9}, poll.Event[int]{Key: 1, Events: poll.In})
}

// TestWaitTimeoutTimesOut: with nothing to report, WaitTimeout returns
// buf unchanged and nil once d has passed, not before, and leaves no
// timer armed.
func TestWaitTimeoutTimesOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var set poll.Set[int]
		defer set.Close()
		if err := set.Add(signal.New(0), 1, poll.In, poll.Edge); err != nil {
			t.Fatal(err)
		}
		buf := []poll.Event[int]{{Key: 9}}
		r := <-goWaitTimeout(&set, buf, 4, 1500*time.Millisecond)
		if r.err != nil || len(r.evs) != 1 || &r.evs[0] != &buf[0] || r.took != 1500*time.Millisecond {
			t.Fatalf("WaitTimeout = %v, %v after %v; want buf unchanged and nil after 1.5s", r.evs, r.err, r.took)
		}
		if st := set.Stats(); st.Timer || st.Waiters != 0 {
			t.Fatalf("Stats after the timeout = %+v, want no timer, no waiter", st)
		}
	})
}

// TestWaitTimeoutGrantedBeforeItsEnd: a source ready before d has passed
// is reported at once, and the timer the call armed is stopped.
func TestWaitTimeoutGrantedBeforeItsEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var set poll.Set[int]
		defer set.Close()
		sig := signal.New(0)
		if err := set.Add(sig, 1, poll.In, poll.Edge); err != nil {
			t.Fatal(err)
		}
		c := goWaitTimeout(&set, nil, 4, time.Hour)
		time.Sleep(time.Second)
		synctest.Wait()
		if st := set.Stats(); !st.Timer || st.Waiters != 1 {
			t.Fatalf("Stats while it waits = %+v, want the timer and one waiter", st)
		}
		sig.Add(1)
		r := <-c
		if r.err != nil || r.took != time.Second {
			t.Fatalf("WaitTimeout = %v, %v after %v; want the event after 1s", r.evs, r.err, r.took)
		}
		wantEvents(t, "WaitTimeout", r.evs, poll.Event[int]{Key: 1, Events: poll.In})
		if st := set.Stats(); st.Timer || st.Waiters != 0 {
			t.Fatalf("Stats after = %+v, want no timer, no waiter", st)
		}
	})
}

// TestWaitTimeoutAndClose: a blocked WaitTimeout returns ErrClosed at
// Close. On a closed Set it reports what is still queued, then returns
// ErrClosed at once, for any d.
func TestWaitTimeoutAndClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var set poll.Set[int]
		sig := signal.New(0)
		if err := set.Add(sig, 1, poll.In, poll.Level); err != nil {
			t.Fatal(err)
		}
		c := goWaitTimeout(&set, nil, 4, time.Hour)
		synctest.Wait()
		sig.Add(1) // granted to the blocked call; the level source is queued again
		if r := <-c; r.err != nil || len(r.evs) != 1 {
			t.Fatalf("WaitTimeout = %v, %v", r.evs, r.err)
		}
		c = goWaitTimeout(&set, nil, 4, time.Hour) // the source is queued: it returns at once
		if r := <-c; r.err != nil || len(r.evs) != 1 {
			t.Fatalf("WaitTimeout = %v, %v", r.evs, r.err)
		}
		sig.Take()
		c = goWaitTimeout(&set, nil, 4, time.Hour) // drops the source and blocks
		synctest.Wait()
		set.Close()
		if r := <-c; r.err != poll.ErrClosed || len(r.evs) != 0 || r.took != 0 {
			t.Fatalf("a blocked WaitTimeout at Close = %v, %v after %v; want ErrClosed at once", r.evs, r.err, r.took)
		}
		for _, d := range []time.Duration{-1, 0, time.Hour} {
			if evs, err := set.WaitTimeout(nil, 4, d); err != poll.ErrClosed || len(evs) != 0 {
				t.Fatalf("WaitTimeout(d=%v) on a closed Set = %v, %v; want ErrClosed", d, evs, err)
			}
		}
	})
	var set poll.Set[int]
	sig := signal.New(1)
	if err := set.Add(sig, 1, poll.In, poll.Level); err != nil {
		t.Fatal(err)
	}
	set.Close()
	evs, err := set.WaitTimeout(nil, 4, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	wantEvents(t, "WaitTimeout on a closed Set with a source queued", evs, poll.Event[int]{Key: 1, Events: poll.In})
	if evs, err := set.WaitTimeout(nil, 4, time.Hour); err != poll.ErrClosed || len(evs) != 0 {
		t.Fatalf("WaitTimeout after that = %v, %v; want ErrClosed", evs, err)
	}
}

// TestWaitTimeoutBadMax: a max ≤ 0 is ErrInvalid at once, with buf, for
// any d.
func TestWaitTimeoutBadMax(t *testing.T) {
	var set poll.Set[int]
	defer set.Close()
	buf := []poll.Event[int]{{Key: 9}}
	for _, max := range []int{0, -1} {
		evs, err := set.WaitTimeout(buf, max, time.Hour)
		want := "poll: wait: max " + map[int]string{0: "0", -1: "-1"}[max] + " is below 1: evsync: invalid argument"
		if !errors.Is(err, poll.ErrInvalid) || err.Error() != want || len(evs) != 1 || &evs[0] != &buf[0] {
			t.Fatalf("WaitTimeout(max %d) = %v, %v; want buf and %q", max, evs, err, want)
		}
	}
}

// TestTimedWaitsShareOneTimer: WaitTimeout calls with different ends each
// return at their own end, however they were made, and share the Set's
// one timer: on a fake clock, one fake timer is armed while any of them
// waits, and none after.
func TestTimedWaitsShareOneTimer(t *testing.T) {
	ends := []time.Duration{3 * time.Second, time.Second, 2 * time.Second, 2 * time.Second}
	synctest.Test(t, func(t *testing.T) {
		var set poll.Set[int]
		defer set.Close()
		var cs []<-chan timedResult
		for _, d := range ends {
			cs = append(cs, goWaitTimeout(&set, nil, 4, d))
		}
		for i, c := range cs {
			if r := <-c; r.err != nil || len(r.evs) != 0 || r.took != ends[i] {
				t.Fatalf("WaitTimeout(%v) = %v, %v after %v", ends[i], r.evs, r.err, r.took)
			}
		}
	})
	synctest.Test(t, func(t *testing.T) {
		clk := &countingClock{Clock: fakeclock.New(epoch)}
		set := poll.New[int](poll.WithClock(clk))
		defer set.Close()
		var cs []<-chan timedResult
		for _, d := range ends {
			cs = append(cs, goWaitTimeout(set, nil, 4, d))
			synctest.Wait()
		}
		for elapsed := time.Second; elapsed <= 3*time.Second; elapsed += time.Second {
			if n := clk.Waiters(); n != 1 {
				t.Fatalf("%d fake timers armed at %v, want 1", n, elapsed-time.Second)
			}
			clk.StepWait(time.Second)
			for i, c := range cs {
				returned := len(c) == 1
				if returned != (ends[i] <= elapsed) {
					t.Fatalf("at %v, WaitTimeout(%v) returned: %v", elapsed, ends[i], returned)
				}
			}
		}
		if n := clk.Waiters(); n != 0 || set.Stats().Timer {
			t.Fatalf("%d fake timers armed after every call ended, Stats().Timer %v; want none", n, set.Stats().Timer)
		}
	})
}

// TestWaitTimeoutsAndWaitsAreServedInOrder: blocked Wait and WaitTimeout
// callers are served in FIFO order together.
func TestWaitTimeoutsAndWaitsAreServedInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var set poll.Set[int]
		defer set.Close()
		sig := signal.New(0)
		if err := set.Add(sig, 1, poll.In, poll.Edge); err != nil {
			t.Fatal(err)
		}
		timed := goWaitTimeout(&set, nil, 4, time.Hour)
		synctest.Wait()
		plain := make(chan []poll.Event[int], 1)
		go func() {
			evs, _ := set.Wait(bg, nil, 4)
			plain <- evs
		}()
		synctest.Wait()
		sig.Add(1)
		synctest.Wait()
		if len(plain) != 0 || len(timed) != 1 {
			t.Fatal("the first event did not go to the WaitTimeout, first in line")
		}
		sig.Add(1)
		wantEvents(t, "Wait", <-plain, poll.Event[int]{Key: 1, Events: poll.In})
	})
}

// TestWaitTimeoutForAges: a d so large that its end does not fit in a
// time.Time's monotonic reading still waits, and returns the event.
func TestWaitTimeoutForAges(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var set poll.Set[int]
		defer set.Close()
		sig := signal.New(0)
		if err := set.Add(sig, 1, poll.In, poll.Edge); err != nil {
			t.Fatal(err)
		}
		c := goWaitTimeout(&set, nil, 4, math.MaxInt64)
		time.Sleep(24 * time.Hour)
		synctest.Wait()
		if len(c) != 0 {
			t.Fatal("WaitTimeout(MaxInt64) returned before any event")
		}
		sig.Add(1)
		if r := <-c; r.err != nil || len(r.evs) != 1 {
			t.Fatalf("WaitTimeout(MaxInt64) = %v, %v", r.evs, r.err)
		}
	})
}

// TestWithClockCallsCatchUp: on a user's clock whose timers never fire,
// each of Wait, WaitTimeout, TryWait, Ready and Stats first does what the
// clock has passed: Deadlines are queued, timed waits ended. No timer's
// goroutine needs to run.
func TestWithClockCallsCatchUp(t *testing.T) {
	setUp := func(t *testing.T) (*poll.Set[int], *stillClock) {
		clk := newStillClock(epoch)
		set := poll.New[int](poll.WithClock(clk))
		t.Cleanup(set.Close)
		if err := set.Add(poll.NewDeadline(epoch.Add(time.Second)), 1, poll.In, poll.OneShot); err != nil {
			t.Fatal(err)
		}
		if st := set.Stats(); !st.Timer || clk.armed() != 1 {
			t.Fatalf("Stats = %+v with %d fake timers, want the timer armed", st, clk.armed())
		}
		clk.Step(time.Second)
		return set, clk
	}
	due := poll.Event[int]{Key: 1, Events: poll.In}
	t.Run("TryWait", func(t *testing.T) {
		set, _ := setUp(t)
		wantEvents(t, "TryWait", set.TryWait(nil, 4), due)
	})
	t.Run("Wait", func(t *testing.T) {
		set, _ := setUp(t)
		evs, err := set.Wait(bg, nil, 4)
		if err != nil {
			t.Fatal(err)
		}
		wantEvents(t, "Wait", evs, due)
	})
	t.Run("WaitTimeout", func(t *testing.T) {
		set, _ := setUp(t)
		evs, err := set.WaitTimeout(nil, 4, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		wantEvents(t, "WaitTimeout", evs, due)
	})
	t.Run("Ready", func(t *testing.T) {
		set, _ := setUp(t)
		select {
		case <-set.Ready():
		default:
			t.Fatal("Ready is not closed after the Step")
		}
	})
	t.Run("Stats", func(t *testing.T) {
		set, clk := setUp(t)
		if st := set.Stats(); st.Queued != 1 || st.Armed != 0 || st.Timer || st.Wakeups != 1 {
			t.Fatalf("Stats = %+v, want the Deadline queued and no timer", st)
		}
		if clk.armed() != 0 {
			t.Fatalf("%d fake timers armed, want none", clk.armed())
		}
	})
	t.Run("a timed wait", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			clk := newStillClock(epoch)
			set := poll.New[int](poll.WithClock(clk))
			defer set.Close()
			c := goWaitTimeout(set, nil, 4, time.Second)
			synctest.Wait()
			clk.Step(time.Second)
			synctest.Wait()
			if len(c) != 0 {
				t.Fatal("the WaitTimeout returned before a call read the clock")
			}
			if st := set.Stats(); st.Waiters != 0 || st.Timer {
				t.Fatalf("Stats after the Step = %+v, want the timed wait ended, no timer", st)
			}
			if r := <-c; r.err != nil || len(r.evs) != 0 {
				t.Fatalf("WaitTimeout = %v, %v, want nothing and nil", r.evs, r.err)
			}
		})
	})
}

// TestWithClockSetBack: on a clock set back, a WaitTimeout ends d after
// the clock's reading at the call, and a Deadline still waits for its
// time.
func TestWithClockSetBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := newStillClock(epoch)
		set := poll.New[int](poll.WithClock(clk))
		defer set.Close()
		if err := set.Add(poll.NewDeadline(epoch.Add(time.Second)), 1, poll.In, poll.Edge); err != nil {
			t.Fatal(err)
		}
		clk.Step(-time.Hour)
		c := goWaitTimeout(set, nil, 4, time.Minute)
		synctest.Wait()
		clk.Step(time.Minute - time.Nanosecond)
		if st := set.Stats(); st.Waiters != 1 || st.Queued != 0 {
			t.Fatalf("Stats a nanosecond before the end = %+v, want the call waiting", st)
		}
		clk.Step(time.Nanosecond)
		if st := set.Stats(); st.Waiters != 0 || st.Queued != 0 {
			t.Fatalf("Stats at the end = %+v, want the call ended, the Deadline not yet due", st)
		}
		if r := <-c; r.err != nil || len(r.evs) != 0 {
			t.Fatalf("WaitTimeout = %v, %v", r.evs, r.err)
		}
		clk.Step(time.Hour - time.Minute) // back at the start: a second before the Deadline
		wantEvents(t, "TryWait a second before the Deadline's time", set.TryWait(nil, 4))
		clk.Step(time.Second)
		wantEvents(t, "TryWait at the Deadline's time", set.TryWait(nil, 4), poll.Event[int]{Key: 1, Events: poll.In})
	})
}

// TestWithClockNilIsTheWallClock: WithClock(nil) is the wall clock, and
// New ignores a nil Option. Inside a synctest bubble the wall clock is
// the bubble's: a Deadline is due after a Sleep to its time.
func TestWithClockNilIsTheWallClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		set := poll.New[int](poll.WithClock[*fakeclock.Timer](nil), nil)
		defer set.Close()
		if err := set.Add(poll.NewDeadline(time.Now().Add(time.Second)), 1, poll.In, poll.Edge); err != nil {
			t.Fatal(err)
		}
		evs, err := set.Wait(bg, nil, 4)
		if err != nil {
			t.Fatal(err)
		}
		wantEvents(t, "Wait", evs, poll.Event[int]{Key: 1, Events: poll.In})
	})
}
