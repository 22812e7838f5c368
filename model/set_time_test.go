package model_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/evsync/evsync/model"
)

// addDeadline adds a Deadline at at to set with key, asking for events
// in mode m.
func addDeadline(t *testing.T, set *model.Set, at time.Duration, key int, events model.Events, m model.Mode) *model.Deadline {
	t.Helper()
	d := model.NewDeadline(at)
	if err := set.Add(d, key, events, m); err != nil {
		t.Fatal(err)
	}
	return d
}

// inAt is the event of a Deadline reported under key.
func inAt(key int) model.SetEvent { return model.SetEvent{Key: key, Events: model.In} }

// TestSetDeadlineLevelFromItsTimeOn: a Deadline reports In from its time
// on, and a level registration stays ready.
func TestSetDeadlineLevelFromItsTimeOn(t *testing.T) {
	set := model.NewSet()
	addDeadline(t, set, 10*ms, 1, model.In|model.Out, model.Level)
	wantStats(t, set, model.SetStats{Registered: 1, Armed: 1, Timer: true})
	set.Advance(10*ms - 1)
	wantEvents(t, set)
	set.Advance(1)
	wantStats(t, set, model.SetStats{Registered: 1, Queued: 1, Wakeups: 1})
	wantEvents(t, set, inAt(1))
	set.Advance(time.Hour)
	wantEvents(t, set, inAt(1))
	if set.Now() != time.Hour+10*ms {
		t.Fatalf("Now = %v", set.Now())
	}
}

// TestSetDeadlineEdgeFiresOnce: an edge Deadline is reported once, as an
// edge-triggered timerfd that is never read. A one-shot one is reported
// again after Modify, which finds its time has come.
func TestSetDeadlineEdgeFiresOnce(t *testing.T) {
	set := model.NewSet()
	addDeadline(t, set, 5*ms, 1, model.In, model.Edge)
	one := addDeadline(t, set, 6*ms, 2, model.In, model.OneShot)
	set.Advance(7 * ms)
	wantEvents(t, set, inAt(1), inAt(2))
	set.Advance(7 * ms)
	wantEvents(t, set)
	wantStats(t, set, model.SetStats{Registered: 2, Armed: 1, Wakeups: 2})
	if err := set.Modify(one, 3, model.In, model.OneShot); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, set, inAt(3))
	wantEvents(t, set)
}

// TestSetDeadlineForOutAloneAbsorbsItsTime: a Deadline's time is a
// wakeup with In. A registration that asks for Out alone absorbs it: it
// is not queued, and no wakeup is counted. Modify for In then finds the
// time has come.
func TestSetDeadlineForOutAloneAbsorbsItsTime(t *testing.T) {
	set := model.NewSet()
	d := addDeadline(t, set, 1*ms, 1, model.Out, model.Edge)
	ready := set.Ready()
	set.Advance(2 * ms)
	wantStats(t, set, model.SetStats{Registered: 1, Armed: 1})
	if set.Fired(ready) {
		t.Fatal("the Ready channel fired for a Deadline asked for Out")
	}
	if err := set.Modify(d, 1, model.In, model.Edge); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, set, inAt(1))
	wantStats(t, set, model.SetStats{Registered: 1, Armed: 1})
}

// TestSetDeadlineAddedLate: a Deadline added after its time is queued by
// Add, which counts no wakeup; the clock has no more wakeups for it.
func TestSetDeadlineAddedLate(t *testing.T) {
	set := model.NewSet()
	set.Advance(3 * ms)
	addDeadline(t, set, 3*ms, 1, model.In, model.Edge)
	wantStats(t, set, model.SetStats{Registered: 1, Queued: 1})
	wantEvents(t, set, inAt(1))
	set.Advance(time.Second)
	wantEvents(t, set)
	wantStats(t, set, model.SetStats{Registered: 1, Armed: 1})
}

// TestSetDeadlinesQueueInTimeOrder: one Advance queues the Deadlines it
// passes by their times, and those of one time in the order of their
// Add.
func TestSetDeadlinesQueueInTimeOrder(t *testing.T) {
	set := model.NewSet()
	addDeadline(t, set, 3*ms, 3, model.In, model.Edge)
	addDeadline(t, set, 1*ms, 1, model.In, model.Edge)
	addDeadline(t, set, 2*ms, 22, model.In, model.Edge)
	addDeadline(t, set, 2*ms, 21, model.In, model.Edge)
	set.Advance(3 * ms)
	wantEvents(t, set, inAt(1), inAt(22), inAt(21), inAt(3))
}

// TestSetDeadlineOnEachSetsClock: a Deadline in two Sets is read on the
// clock of each.
func TestSetDeadlineOnEachSetsClock(t *testing.T) {
	a, b, d := model.NewSet(), model.NewSet(), model.NewDeadline(4*ms)
	for _, s := range []*model.Set{a, b} {
		if err := s.Add(d, 1, model.In, model.Level); err != nil {
			t.Fatal(err)
		}
	}
	a.Advance(4 * ms)
	wantEvents(t, a, inAt(1))
	wantEvents(t, b)
	if err := b.Remove(d); err != nil {
		t.Fatal(err)
	}
	b.Advance(4 * ms)
	wantStats(t, b, model.SetStats{})
}

// TestSetClosedIgnoresItsClock: after Close the clock queues nothing,
// and Advance past the largest Duration stays there.
func TestSetClosedIgnoresItsClock(t *testing.T) {
	set := model.NewSet()
	addDeadline(t, set, ms, 1, model.In, model.Level)
	set.Close()
	wantStats(t, set, model.SetStats{Registered: 1})
	set.Advance(math.MaxInt64)
	set.Advance(time.Hour)
	if set.Now() != math.MaxInt64 {
		t.Fatalf("Now = %v, want the largest Duration", set.Now())
	}
	if _, err := set.Wait(model.Live, 1); !errors.Is(err, model.ErrClosed) {
		t.Fatalf("Wait = %v, want ErrClosed", err)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("Advance(-1) did not panic")
		}
	}()
	set.Advance(-1)
}

// TestSetWaitTimeout: the outcomes of WaitTimeout, and how far each moves
// the clock.
func TestSetWaitTimeout(t *testing.T) {
	set := model.NewSet()
	call := func(max int, d time.Duration, want []model.SetEvent, wantErr error, moved time.Duration) {
		t.Helper()
		before := set.Now()
		got, err := set.WaitTimeout(max, d)
		if !errors.Is(err, wantErr) || len(got) != len(want) || set.Now()-before != moved {
			t.Fatalf("WaitTimeout(%d, %v) = %v, %v, clock +%v; want %v, %v, +%v", max, d, got, err, set.Now()-before, want, wantErr, moved)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("WaitTimeout(%d, %v) = %v, want %v", max, d, got, want)
			}
		}
	}
	call(0, ms, nil, model.ErrInvalid, 0)
	call(1, 0, nil, nil, 0)
	call(1, -ms, nil, nil, 0)
	call(1, 2*ms, nil, nil, 2*ms) // a timeout: the clock ran d
	addDeadline(t, set, 5*ms, 1, model.Out, model.Edge)
	addDeadline(t, set, 7*ms, 2, model.In, model.Edge)
	addDeadline(t, set, 9*ms, 3, model.In, model.Level)
	call(1, 4*ms, nil, nil, 4*ms)                     // 6 ms: a Deadline asked for Out wakes no waiter
	call(1, 3*ms, []model.SetEvent{inAt(2)}, nil, ms) // 7 ms: the first to come ends the wait
	ready := set.Ready()
	call(1, 2*ms, []model.SetEvent{inAt(3)}, nil, 2*ms) // 9 ms, the end of the wait: reported
	if !set.Fired(ready) {
		t.Fatal("a level Deadline left queued by the wait fired no Ready channel")
	}
	call(4, time.Hour, []model.SetEvent{inAt(3)}, nil, 0) // ready at once
	if err := set.Remove(model.NewDeadline(0)); !errors.Is(err, model.ErrNotFound) {
		t.Fatal(err)
	}
	set.Close()
	call(4, time.Hour, []model.SetEvent{inAt(3)}, nil, 0)
	call(4, time.Hour, nil, model.ErrClosed, 0)
	call(4, 0, nil, model.ErrClosed, 0)
}

// TestSetWaitTimeoutTakesWithoutReady: a Deadline that comes due while
// WaitTimeout waits goes to it, and fires no Ready channel when nothing
// is left queued.
func TestSetWaitTimeoutTakesWithoutReady(t *testing.T) {
	set := model.NewSet()
	addDeadline(t, set, ms, 1, model.In, model.Edge)
	ready := set.Ready()
	if evs, err := set.WaitTimeout(1, time.Second); err != nil || len(evs) != 1 {
		t.Fatalf("WaitTimeout = %v, %v", evs, err)
	}
	if set.Fired(ready) {
		t.Fatal("the Ready channel fired for what the waiter took")
	}
	wantStats(t, set, model.SetStats{Registered: 1, Armed: 1, Wakeups: 1})
}
