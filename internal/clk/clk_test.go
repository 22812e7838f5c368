package clk_test

import (
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/clock"
	"github.com/evsync/evsync/internal/clk"
	"github.com/evsync/evsync/internal/testsupport/fakeclock"
)

const ms = time.Millisecond

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// counting returns an f that counts its calls.
func counting() (func(), *atomic.Int32) {
	var n atomic.Int32
	return func() { n.Add(1) }, &n
}

// clocks runs test on the wall clock and on a fake one, each in a
// bubble. step moves the clock on by d and lets every timer due run.
func clocks(t *testing.T, test func(t *testing.T, c clk.Clock, step func(d time.Duration))) {
	t.Run("clock=wall", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			test(t, clk.Clock{}, func(d time.Duration) {
				time.Sleep(d)
				synctest.Wait()
			})
		})
	})
	t.Run("clock=fake", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			f := fakeclock.New(epoch)
			test(t, clk.Of(f), func(d time.Duration) {
				f.Step(d)
				synctest.Wait()
			})
			if n := f.Waiters(); n != 0 {
				t.Errorf("%d timers of the fake clock are still armed", n)
			}
		})
	})
}

func TestAfterFuncFiresWhenTheClockPassesIt(t *testing.T) {
	clocks(t, func(t *testing.T, c clk.Clock, step func(time.Duration)) {
		f, n := counting()
		c.AfterFunc(10*ms, f)
		step(10*ms - 1)
		if got := n.Load(); got != 0 {
			t.Fatalf("1ns before the deadline f ran %d times", got)
		}
		step(1)
		if got := n.Load(); got != 1 {
			t.Fatalf("at the deadline f ran %d times, want 1", got)
		}
		step(time.Hour)
		if got := n.Load(); got != 1 {
			t.Fatalf("an hour later f ran %d times, want 1", got)
		}
	})
}

func TestStopKeepsTheCallFromHappening(t *testing.T) {
	clocks(t, func(t *testing.T, c clk.Clock, step func(time.Duration)) {
		f, n := counting()
		tm := c.AfterFunc(10*ms, f)
		step(5 * ms)
		if !tm.Stop() {
			t.Fatal("Stop of an armed timer reported false")
		}
		if tm.Stop() {
			t.Fatal("a second Stop reported true")
		}
		step(time.Hour)
		if got := n.Load(); got != 0 {
			t.Fatalf("f ran %d times after Stop", got)
		}
	})
}

func TestStopAfterTheCallReportsFalse(t *testing.T) {
	clocks(t, func(t *testing.T, c clk.Clock, step func(time.Duration)) {
		f, n := counting()
		tm := c.AfterFunc(ms, f)
		step(ms)
		if tm.Stop() {
			t.Fatal("Stop after the call reported true")
		}
		if got := n.Load(); got != 1 {
			t.Fatalf("f ran %d times, want 1", got)
		}
	})
}

func TestResetMovesTheDeadline(t *testing.T) {
	clocks(t, func(t *testing.T, c clk.Clock, step func(time.Duration)) {
		f, n := counting()
		tm := c.AfterFunc(10*ms, f)
		step(5 * ms)
		if !tm.Reset(20 * ms) {
			t.Fatal("Reset of an armed timer reported false")
		}
		step(20*ms - 1) // past the first deadline, 1ns before the second
		if got := n.Load(); got != 0 {
			t.Fatalf("f ran %d times before the new deadline", got)
		}
		step(1)
		if got := n.Load(); got != 1 {
			t.Fatalf("at the new deadline f ran %d times, want 1", got)
		}
		if tm.Reset(ms) {
			t.Fatal("Reset of a timer that fired reported true")
		}
		step(ms)
		if got := n.Load(); got != 2 {
			t.Fatalf("after the second arming f ran %d times, want 2", got)
		}
	})
}

func TestNowAndSinceFollowTheClock(t *testing.T) {
	f := fakeclock.New(epoch)
	c := clk.Of(f)
	if c.Wall() {
		t.Fatal("a fake clock reported as the wall clock")
	}
	f.Step(3 * ms)
	if got := c.Now(); !got.Equal(epoch.Add(3 * ms)) {
		t.Fatalf("Now = %v, want %v", got, epoch.Add(3*ms))
	}
	if got := c.Since(epoch); got != 3*ms {
		t.Fatalf("Since = %v, want 3ms", got)
	}
}

// A kTimer and a kClock have the shape of k8s.io/utils/clock's Timer and
// Clock. NewTimer returns a named interface, not a concrete type.
type kTimer interface {
	C() <-chan time.Time
	Stop() bool
	Reset(d time.Duration) bool
}

type kClock interface {
	Now() time.Time
	Since(time.Time) time.Duration
	NewTimer(d time.Duration) kTimer
	Sleep(d time.Duration)
}

type kFake struct{ f *fakeclock.Clock }

func (k kFake) Now() time.Time                  { return k.f.Now() }
func (k kFake) Since(t time.Time) time.Duration { return k.f.Now().Sub(t) }
func (k kFake) NewTimer(d time.Duration) kTimer { return kTimerOf{k.f.NewTimer(d)} }
func (k kFake) Sleep(time.Duration)             { panic("not used") }

type kTimerOf struct{ *fakeclock.Timer }

func (kTimerOf) Reset(time.Duration) bool { panic("evsync never resets a user's timer") }

func TestOfTakesAClockWhoseTimerIsAnInterface(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := fakeclock.New(epoch)
		var k kClock = kFake{f}
		c := clk.Of(k) // T inferred as kTimer
		g, n := counting()
		tm := c.AfterFunc(ms, g)
		tm.Reset(2 * ms)
		f.Step(2 * ms)
		synctest.Wait()
		if got := n.Load(); got != 1 {
			t.Fatalf("f ran %d times, want 1", got)
		}
	})
}

func TestOfNilIsTheWallClock(t *testing.T) {
	var k kClock
	if !clk.Of(k).Wall() {
		t.Fatal("Of(nil) is not the wall clock")
	}
	if !(clk.Clock{}).Wall() {
		t.Fatal("the zero Clock is not the wall clock")
	}
}

var _ clock.Clock[*fakeclock.Timer] = (*fakeclock.Clock)(nil)
