package model_test

import (
	"math"
	"testing"
	"time"

	"github.com/evsync/evsync/model"
)

// A delay too long for the clock saturates at the largest Duration: the
// item is delayed for ages, never queued at once because now+d wrapped
// round (SPEC: AddAfter makes the item ready at now+d), and it does not
// stand in front of the delays that come before it.
func TestWorkQueueHugeDelaySaturates(t *testing.T) {
	q := model.NewWorkQueue(model.Edge, nil)
	q.Advance(time.Second)
	wantAdd(t, "AddAfter(1, MaxInt64)", q.AddAfter(1, math.MaxInt64), true)
	wantAdd(t, "AddWith(2, MaxInt64 - 1ns)", q.AddWith(2, model.AddOpts{After: math.MaxInt64 - 1}), true)
	q.AddAfter(3, time.Millisecond)
	wantQueue(t, q)
	wantReadyAt(t, q, 1, math.MaxInt64)
	wantReadyAt(t, q, 2, math.MaxInt64)
	if ks := delayedItems(q); len(ks) != 3 || ks[0] != 3 {
		t.Fatalf("delayed items %v, want 3 first", ks)
	}
	q.Advance(time.Hour)
	wantQueue(t, q, 3)
	if q.Stats().Delayed != 2 {
		t.Fatalf("Delayed = %d, want the two huge delays", q.Stats().Delayed)
	}
	q.Close()
	wantQueue(t, q, 3, 1, 2) // equal ready times: in the order they were set
}

// The clock stops at the largest Duration, as the real queue's does. An
// Advance past it does not wrap the clock round into the past. An item
// delayed for ages is due once the clock gets there.
func TestWorkQueueClockSaturates(t *testing.T) {
	q := model.NewWorkQueue(model.Edge, nil)
	q.Advance(time.Hour)
	q.AddAfter(1, math.MaxInt64)
	q.Advance(math.MaxInt64)
	if now := q.Now(); now != math.MaxInt64 {
		t.Fatalf("Now() = %v after an Advance past the end, want the largest Duration", now)
	}
	wantQueue(t, q, 1)
	q.Advance(time.Hour)
	if now := q.Now(); now != math.MaxInt64 {
		t.Fatalf("Now() = %v after another Advance, want the largest Duration", now)
	}
}

// Any int is a priority, the extremes included.
func TestWorkQueuePriorityExtremes(t *testing.T) {
	q := model.NewWorkQueue(model.Edge, nil)
	add(q, 1, math.MinInt)
	add(q, 2, math.MaxInt)
	add(q, 3, 0)
	add(q, 4, math.MinInt+1)
	add(q, 5, math.MaxInt-1)
	wantQueue(t, q, 2, 5, 3, 4, 1)
	wantAdd(t, "raise MinInt to MaxInt", add(q, 1, math.MaxInt), false)
	wantQueue(t, q, 2, 1, 5, 3, 4)
	if p, ok := q.Priority(1); !ok || p != math.MaxInt {
		t.Fatalf("Priority(1) = %d, %v", p, ok)
	}
}
