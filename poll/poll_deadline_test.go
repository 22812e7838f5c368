package poll_test

// Tests of Deadline (deadline.go) and the Set's heap of them (timing.go).

import (
	"errors"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/internal/testsupport/fakeclock"
	"github.com/evsync/evsync/poll"
)

// epoch is the time the fake clocks of these tests start at.
var epoch = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

// A stillClock is a fake clock whose timers never fire. So a Set on it
// does what is due only when a call reads the clock (WithClock's catch
// up), never in its timer's goroutine. It counts the timers it made.
type stillClock struct {
	*fakeclock.Clock                  // the time: Now and Step
	timers           *fakeclock.Clock // where its timers wait: never stepped
	made             atomic.Int64
}

func newStillClock(start time.Time) *stillClock {
	return &stillClock{Clock: fakeclock.New(start), timers: fakeclock.NewFiringOnStep(start)}
}

// NewTimer returns a timer that never fires.
func (c *stillClock) NewTimer(d time.Duration) *fakeclock.Timer {
	c.made.Add(1)
	return c.timers.NewTimer(d)
}

// armed returns the number of its timers neither stopped nor replaced.
func (c *stillClock) armed() int { return c.timers.Waiters() }

// A countingClock is a fake clock that counts the timers it made.
type countingClock struct {
	*fakeclock.Clock
	made atomic.Int64
}

// NewTimer returns a timer of the fake clock.
func (c *countingClock) NewTimer(d time.Duration) *fakeclock.Timer {
	c.made.Add(1)
	return c.Clock.NewTimer(d)
}

// TestDeadlineReportsInFromItsTime: a Deadline reports nothing before
// its time and In from its time on, on the Set's clock. It never reports
// Out or Hup: a registration that asks for In|Out gets In, one that asks
// for Out alone gets nothing. Its time is a wakeup with In, which the Out
// one absorbs, as a timerfd's expiry does. Time returns its time.
func TestDeadlineReportsInFromItsTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		at := time.Now().Add(time.Second)
		d := poll.NewDeadline(at)
		if !d.Time().Equal(at) {
			t.Fatalf("Time = %v, want %v", d.Time(), at)
		}
		out := poll.NewDeadline(at)
		var set poll.Set[string]
		defer set.Close()
		if err := set.Add(d, "d", poll.In|poll.Out, poll.Level); err != nil {
			t.Fatal(err)
		}
		if err := set.Add(out, "out", poll.Out, poll.Level); err != nil {
			t.Fatal(err)
		}
		if st := set.Stats(); !st.Timer || st.Armed != 2 {
			t.Fatalf("Stats before the time = %+v, want the timer armed for 2", st)
		}
		time.Sleep(time.Second - time.Nanosecond)
		synctest.Wait()
		wantEvents(t, "TryWait a nanosecond before", set.TryWait(nil, 4))
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		wantEvents(t, "TryWait at the time", set.TryWait(nil, 4), poll.Event[string]{Key: "d", Events: poll.In})
		wantEvents(t, "TryWait after it", set.TryWait(nil, 4), poll.Event[string]{Key: "d", Events: poll.In})
		if st := set.Stats(); st.Timer || st.Wakeups != 1 || st.Drops != 0 || st.Queued != 1 || st.Armed != 1 {
			t.Fatalf("Stats after the time = %+v, want no timer, 1 wakeup, the level In one queued, and the Out one absorbing its time: armed, not queued, not dropped", st)
		}
	})
}

// TestDeadlineWakesABlockedWait: a Wait blocked on a Set returns at the
// time of its Deadline, not before.
func TestDeadlineWakesABlockedWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var set poll.Set[int]
		defer set.Close()
		if err := set.Add(poll.NewDeadline(start.Add(time.Minute)), 1, poll.In, poll.OneShot); err != nil {
			t.Fatal(err)
		}
		evs, err := set.Wait(bg, nil, 4)
		if err != nil {
			t.Fatal(err)
		}
		wantEvents(t, "Wait", evs, poll.Event[int]{Key: 1, Events: poll.In})
		if took := time.Since(start); took != time.Minute {
			t.Fatalf("Wait returned after %v, want 1m", took)
		}
	})
}

// TestDeadlineModes: once its time has come, an edge Deadline is
// reported once, a level one at every Wait, a one-shot one once until
// Modify re-arms it, which queues it at once.
func TestDeadlineModes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		at := time.Now().Add(time.Second)
		var set poll.Set[string]
		defer set.Close()
		ds := map[string]*poll.Deadline{}
		for key, m := range map[string]poll.Mode{"edge": poll.Edge, "level": poll.Level, "oneshot": poll.OneShot} {
			ds[key] = poll.NewDeadline(at)
			if err := set.Add(ds[key], key, poll.In, m); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(time.Second)
		synctest.Wait()
		in := func(key string) poll.Event[string] { return poll.Event[string]{Key: key, Events: poll.In} }
		evs := set.TryWait(nil, 8)
		if len(evs) != 3 {
			t.Fatalf("TryWait at the time = %v, want all three", evs)
		}
		for range 3 {
			time.Sleep(time.Hour)
			wantEvents(t, "TryWait later", set.TryWait(nil, 8), in("level"))
		}
		if err := set.Modify(ds["oneshot"], "again", poll.In, poll.OneShot); err != nil {
			t.Fatal(err)
		}
		wantEvents(t, "TryWait after Modify", set.TryWait(nil, 8), in("level"), in("again"))
		wantEvents(t, "TryWait after that", set.TryWait(nil, 8), in("level"))
		if st := set.Stats(); st.Timer {
			t.Fatalf("Stats = %+v, want no timer: every Deadline is due", st)
		}
	})
}

// TestDeadlineInThePast: a Deadline whose time has passed is queued by
// Add at once, and arms no timer. So is the zero Deadline, whose time is
// the zero time.
func TestDeadlineInThePast(t *testing.T) {
	var set poll.Set[int]
	defer set.Close()
	if err := set.Add(poll.NewDeadline(time.Now().Add(-time.Hour)), 1, poll.In, poll.Edge); err != nil {
		t.Fatal(err)
	}
	if err := set.Add(&poll.Deadline{}, 2, poll.In, poll.Edge); err != nil {
		t.Fatal(err)
	}
	if st := set.Stats(); st.Timer || st.Queued != 2 || st.Armed != 0 {
		t.Fatalf("Stats = %+v, want 2 queued, nothing armed, no timer", st)
	}
	wantEvents(t, "TryWait", set.TryWait(nil, 4), poll.Event[int]{Key: 1, Events: poll.In}, poll.Event[int]{Key: 2, Events: poll.In})
}

// TestDeadlineRemovedWhileArmed: Remove of an armed Deadline takes it out
// of the heap and stops the timer it needed. Its time then passes with
// nothing reported. Remove of one that is queued takes it off the ready
// list.
func TestDeadlineRemovedWhileArmed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var set poll.Set[int]
		defer set.Close()
		early, late := poll.NewDeadline(time.Now().Add(time.Second)), poll.NewDeadline(time.Now().Add(time.Minute))
		for i, d := range []*poll.Deadline{early, late} {
			if err := set.Add(d, i, poll.In, poll.Level); err != nil {
				t.Fatal(err)
			}
		}
		if err := set.Remove(early); err != nil {
			t.Fatal(err)
		}
		if st := set.Stats(); !st.Timer || st.Armed != 1 || st.Registered != 1 {
			t.Fatalf("Stats after the first Remove = %+v, want the late one armed", st)
		}
		if err := set.Remove(late); err != nil {
			t.Fatal(err)
		}
		if st := set.Stats(); st != (poll.Stats{}) {
			t.Fatalf("Stats after both Removes = %+v, want zero: no timer", st)
		}
		time.Sleep(time.Hour)
		synctest.Wait()
		wantEvents(t, "TryWait after the times", set.TryWait(nil, 4))
		queued := poll.NewDeadline(time.Now())
		if err := set.Add(queued, 3, poll.In, poll.Level); err != nil {
			t.Fatal(err)
		}
		if err := set.Remove(queued); err != nil {
			t.Fatal(err)
		}
		wantEvents(t, "TryWait after a queued one was removed", set.TryWait(nil, 4))
		if err := set.Remove(queued); !errors.Is(err, poll.ErrNotFound) {
			t.Fatalf("a second Remove = %v, want ErrNotFound", err)
		}
	})
}

// TestDeadlineCloseStopsTheTimer: Close with Deadlines armed and
// WaitTimeout calls blocked ends those calls with ErrClosed and stops the
// timer: Stats().Timer is false, and no goroutine is left (goleak, on a
// fake clock whose timer has a goroutine of its own).
func TestDeadlineCloseStopsTheTimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) { // which fails if a goroutine is left
		clk := &countingClock{Clock: fakeclock.New(epoch)}
		set := poll.New[int](poll.WithClock(clk))
		for i := range 10 {
			if err := set.Add(poll.NewDeadline(epoch.Add(time.Duration(i+1)*time.Second)), i, poll.In, poll.Edge); err != nil {
				t.Fatal(err)
			}
		}
		errs := make(chan error, 3)
		for i := range 3 {
			go func() {
				evs, err := set.WaitTimeout(nil, 4, time.Duration(i+1)*time.Hour)
				if len(evs) != 0 {
					t.Errorf("WaitTimeout = %v", evs)
				}
				errs <- err
			}()
		}
		synctest.Wait()
		if st := set.Stats(); st.Waiters != 3 || !st.Timer || st.Armed != 10 {
			t.Fatalf("Stats before Close = %+v, want 3 waiters, 10 armed, the timer", st)
		}
		if n := clk.Waiters(); n != 1 {
			t.Fatalf("%d fake timers armed, want the one of the Set", n)
		}
		set.Close()
		for range 3 {
			if err := <-errs; err != poll.ErrClosed {
				t.Fatalf("WaitTimeout after Close = %v, want ErrClosed", err)
			}
		}
		if st := set.Stats(); st.Timer || st.Armed != 0 || st.Waiters != 0 || st.Registered != 10 {
			t.Fatalf("Stats after Close = %+v, want no timer, nothing armed, no waiters, 10 registered", st)
		}
		if n := clk.Waiters(); n != 0 {
			t.Fatalf("%d fake timers armed after Close, want 0", n)
		}
		clk.Step(10 * time.Hour)
		if evs, err := set.Wait(bg, nil, 16); err != poll.ErrClosed || len(evs) != 0 {
			t.Fatalf("Wait after Close and the times = %v, %v, want ErrClosed", evs, err)
		}
	})
}

// TestManyDeadlinesShareOneTimer: 100,000 Deadlines, added in random
// order, wait in one Set with one armed timer. They expire together at
// one Step of a fake clock, in one run of the timer: a Wait blocked for
// them takes them all in one batch, in time order, and the timer is
// stopped after.
func TestManyDeadlinesShareOneTimer(t *testing.T) {
	synctest.Test(t, manyDeadlinesShareOneTimer)
}

func manyDeadlinesShareOneTimer(t *testing.T) {
	const n = 100_000
	clk := &countingClock{Clock: fakeclock.New(epoch)}
	set := poll.New[int](poll.WithClock(clk))
	defer set.Close()
	for _, i := range rand.Perm(n) {
		if err := set.Add(poll.NewDeadline(epoch.Add(time.Duration(i+1)*time.Microsecond)), i, poll.In, poll.OneShot); err != nil {
			t.Fatal(err)
		}
		if i%1000 == 0 && clk.Waiters() != 1 {
			t.Fatalf("%d fake timers armed, want 1", clk.Waiters())
		}
	}
	if st := set.Stats(); !st.Timer || st.Armed != n || st.Queued != 0 {
		t.Fatalf("Stats = %+v, want %d armed, the timer armed", st, n)
	}
	made := clk.made.Load()
	waited := make(chan []poll.Event[int])
	go func() {
		evs, err := set.Wait(bg, make([]poll.Event[int], 0, n), n)
		if err != nil {
			t.Error(err)
		}
		waited <- evs
	}()
	synctest.Wait()
	clk.Step(time.Second) // past them all: one timer fires, in its own goroutine
	evs := <-waited
	if len(evs) != n {
		t.Fatalf("the blocked Wait took %d events, want all %d in one batch", len(evs), n)
	}
	for i, e := range evs {
		if e.Key != i || e.Events != poll.In {
			t.Fatalf("event %d = %v, want {%d in}: Deadlines are queued in time order", i, e, i)
		}
	}
	if st := set.Stats(); st.Timer || st.Armed != 0 || st.Queued != 0 || st.Wakeups != n {
		t.Fatalf("Stats after = %+v, want no timer, nothing armed or queued, %d wakeups", st, n)
	}
	if got := clk.made.Load(); got != made || clk.Waiters() != 0 {
		t.Fatalf("%d more fake timers made, %d armed, after the expiry; want none", got-made, clk.Waiters())
	}
}

// TestDeadlineOnTheSetsClock: a Deadline's time is read on the clock of
// each Set that holds it. One whose time has passed on the wall clock
// waits in a Set on a fake clock that has not reached it, and is due in
// a Set on the wall clock at once.
func TestDeadlineOnTheSetsClock(t *testing.T) {
	past := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := newStillClock(past)
	fake := poll.New[string](poll.WithClock(clk))
	defer fake.Close()
	var wall poll.Set[string]
	defer wall.Close()
	d := poll.NewDeadline(past.Add(time.Second))
	if err := fake.Add(d, "fake", poll.In, poll.Level); err != nil {
		t.Fatal(err)
	}
	if err := wall.Add(d, "wall", poll.In, poll.Level); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, "wall.TryWait", wall.TryWait(nil, 4), poll.Event[string]{Key: "wall", Events: poll.In})
	wantEvents(t, "fake.TryWait", fake.TryWait(nil, 4))
	clk.Step(time.Second)
	wantEvents(t, "fake.TryWait after the Step", fake.TryWait(nil, 4), poll.Event[string]{Key: "fake", Events: poll.In})
}

// A deadlineOwner is a user's type that embeds a Deadline by value. It is
// not a source.
type deadlineOwner struct {
	poll.Deadline
	name string
}

// TestDeadlineBadArguments: a nil *Deadline, a Deadline by value and a
// type that embeds one are refused by Add, Modify and Remove with
// ErrInvalid and a message that says why; none panics.
func TestDeadlineBadArguments(t *testing.T) {
	var set poll.Set[int]
	defer set.Close()
	for _, c := range []struct {
		name string
		src  any
		want string
	}{
		{"a nil *Deadline", (*poll.Deadline)(nil), "nil *poll.Deadline"},
		{"a Deadline by value", poll.Deadline{}, "poll.Deadline is not a source, *poll.Deadline is: pass a pointer"},
		{"a type embedding a Deadline", &deadlineOwner{name: "x"}, "*poll_test.deadlineOwner is not a source, though it embeds *poll.Deadline: pass that instead"},
	} {
		for op, err := range map[string]error{
			"add":    set.Add(c.src, 1, poll.In, poll.Level),
			"modify": set.Modify(c.src, 1, poll.In, poll.Level),
			"remove": set.Remove(c.src),
		} {
			want := "poll: " + op + ": " + c.want
			if !errors.Is(err, poll.ErrInvalid) || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("%s of %s = %v, want ErrInvalid saying %q", op, c.name, err, want)
			}
		}
	}
	if st := set.Stats(); st != (poll.Stats{}) {
		t.Fatalf("Stats after calls that failed = %+v, want zero", st)
	}
}

// TestDeadlineAtTheEndOfAWaitTimeout: a Deadline whose time is the end of
// a blocked WaitTimeout is reported to it: the call does not end empty
// with the Deadline queued.
func TestDeadlineAtTheEndOfAWaitTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var set poll.Set[int]
		defer set.Close()
		if err := set.Add(poll.NewDeadline(time.Now().Add(time.Second)), 1, poll.In, poll.Edge); err != nil {
			t.Fatal(err)
		}
		evs, err := set.WaitTimeout(nil, 4, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		wantEvents(t, "WaitTimeout", evs, poll.Event[int]{Key: 1, Events: poll.In})
	})
}
