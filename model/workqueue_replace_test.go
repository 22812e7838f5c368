package model_test

import (
	"math"
	"testing"
	"time"

	"github.com/evsync/evsync/model"
)

// Tests of AddWith with Replace: the mark's ready time becomes the
// item's, later or earlier.

func replace(d time.Duration) model.AddOpts { return model.AddOpts{After: d, Replace: true} }

func TestWorkQueueReplaceMovesADelayedItemEitherWay(t *testing.T) {
	q := model.NewWorkQueue(model.Edge, nil)
	q.AddAfter(1, 10*time.Millisecond)
	q.AddAfter(2, 20*time.Millisecond)
	wantAdd(t, "Replace of 1, later", q.AddWith(1, replace(30*time.Millisecond)), false)
	wantReadyAt(t, q, 1, 30*time.Millisecond)
	wantAdd(t, "Replace of 2, earlier", q.AddWith(2, replace(5*time.Millisecond)), false)
	wantReadyAt(t, q, 2, 5*time.Millisecond)
	q.AddAfter(3, 30*time.Millisecond)
	wantAdd(t, "Replace of 1, the same time", q.AddWith(1, replace(30*time.Millisecond)), false)
	if got := delayedItems(q); len(got) != 3 || got[1] != 3 || got[2] != 1 {
		t.Fatalf("Delays order %v, want [2 3 1]: a time set again goes after its ties", got)
	}
	wantAdd(t, "Replace of 1, now", q.AddWith(1, replace(0)), true)
	wantQueue(t, q, 1)
}

func TestWorkQueueReplaceDelaysAQueuedItem(t *testing.T) {
	q := model.NewWorkQueue(model.Edge, nil)
	q.Add(1)
	q.Add(2)
	wantAdd(t, "Replace of queued 1, d ≤ 0", q.AddWith(1, replace(-1)), false)
	wantQueue(t, q, 1, 2)
	wantAdd(t, "Replace of queued 1, later", q.AddWith(1, model.AddOpts{After: time.Second, Replace: true, Priority: 4}), false)
	wantQueue(t, q, 2)
	wantReadyAt(t, q, 1, time.Second)
	if p, _ := q.Priority(1); p != 4 {
		t.Fatalf("Priority(1) = %d, want 4: the highest still wins", p)
	}
}

func TestWorkQueueReplaceSetsAKeptAsideMarksTime(t *testing.T) {
	q := model.NewWorkQueue(model.Edge, nil)
	q.Add(1)
	q.TryTake(1)
	wantAdd(t, "Replace of 1 in flight, no mark", q.AddWith(1, replace(time.Hour)), true)
	wantAdd(t, "Replace of its mark, later", q.AddWith(1, replace(2*time.Hour)), false)
	q.Done(1)
	wantReadyAt(t, q, 1, 2*time.Hour)
	q.Advance(2 * time.Hour)
	q.TryTake(1)
	q.AddAfter(1, time.Hour)
	wantAdd(t, "Replace of its mark, now", q.AddWith(1, replace(0)), false)
	q.Done(1)
	wantQueue(t, q, 1)
}

func TestWorkQueueReplaceRefusedAfterClose(t *testing.T) {
	q := model.NewWorkQueue(model.Edge, nil)
	q.Add(1)
	q.Close()
	wantAdd(t, "Replace after Close", q.AddWith(1, replace(time.Hour)), false)
	wantQueue(t, q, 1)
}

// At the clock's end every ready time has come. A Replace of a queued
// item with a delay that passes the end sets its time to now: the item
// stays where it is, as for a delay ≤ 0 (workqueue.AddOpts.Replace).
func TestWorkQueueReplaceAtTheClocksEnd(t *testing.T) {
	q := model.NewWorkQueue(model.Edge, nil)
	q.Add(1)
	q.AddAfter(0, math.MaxInt64)
	q.Advance(math.MaxInt64 - 1)
	wantQueue(t, q, 1)
	q.Advance(time.Hour) // stops at the end
	wantQueue(t, q, 1, 0)
	for _, d := range []time.Duration{math.MaxInt64, time.Nanosecond} {
		wantAdd(t, "Replace of queued 1 at the end", q.AddWith(1, replace(d)), false)
		wantQueue(t, q, 1, 0)
	}
	wantAdd(t, "a new item delayed at the end", q.AddAfter(2, time.Hour), true)
	wantQueue(t, q, 1, 0, 2)
}
