package kube_test

import (
	"slices"
	"testing"
	"time"

	"github.com/evsync/evsync/kube"
	"github.com/evsync/evsync/workqueue"
	testingclock "k8s.io/utils/clock/testing"
)

// The tests below step k8s.io/utils/clock/testing's FakeClock past two
// delays, a at 10ms and b at 20ms, then make one call. The timer for a
// fires in the Step; its goroutine may or may not have run by the call.
// The FakeClock fires a timer armed for a time already passed only at its
// next Step, which never comes here. So b is queued only if the queue
// never arms such a timer, and the call sees both due items only if it
// queues them itself. Each test repeats its round dueRounds times, as the
// timer's goroutine runs at a time of its own in each.

const dueRounds = 200

// stepped returns a kube.Queue on a FakeClock, with a and b delayed and
// the clock stepped past both.
func stepped(t *testing.T) *kube.Queue[string] {
	c := testingclock.NewFakeClock(time.Now())
	q := kube.New(nil, kube.Config[string]{Clock: c})
	t.Cleanup(q.ShutDown)
	q.AddAfter("a", 10*time.Millisecond)
	q.AddAfter("b", 20*time.Millisecond)
	c.Step(30 * time.Millisecond)
	return q
}

// getAll takes n items with Get, which must not block: they are queued.
func getAll(t *testing.T, q *kube.Queue[string], n int) []string {
	t.Helper()
	var got []string
	for range n {
		item, shutdown := q.Get()
		if shutdown {
			t.Fatalf("Get after %v: shut down", got)
		}
		got = append(got, item)
	}
	return got
}

// TestFakeClockStepThenAddQueuesEveryDueItem: client-go's Add after the
// step leaves neither item delayed. Both are queued, a first.
func TestFakeClockStepThenAddQueuesEveryDueItem(t *testing.T) {
	for range dueRounds {
		q := stepped(t)
		q.Add("a")
		if st := q.Stats(); st.Queued != 2 || st.Delayed != 0 {
			t.Fatalf("Step then Add(a): %v, want a and b queued", st)
		}
		if got := getAll(t, q, 2); !slices.Equal(got, []string{"a", "b"}) {
			t.Fatalf("Get, Get = %v, want [a b]", got)
		}
	}
}

// TestFakeClockStepThenLenCountsTheDueItems: Len and Get right after the
// step see both items queued, with no goroutine run first.
func TestFakeClockStepThenLenCountsTheDueItems(t *testing.T) {
	for range dueRounds {
		q := stepped(t)
		if n := q.Len(); n != 2 {
			t.Fatalf("Len after the step = %d, want 2", n)
		}
		if got := getAll(t, q, 2); !slices.Equal(got, []string{"a", "b"}) {
			t.Fatalf("Get, Get = %v, want [a b]", got)
		}
	}
}

// steppedReadyq is stepped for a workqueue.Queue given the FakeClock with
// WithClock, for the calls kube.Queue lacks (Remove, TryTake).
func steppedReadyq(t *testing.T) *workqueue.Queue[string] {
	c := testingclock.NewFakeClock(time.Now())
	q := workqueue.New[string](workqueue.WithClock(c))
	t.Cleanup(q.Close)
	q.AddAfter("a", 10*time.Millisecond)
	q.AddAfter("b", 20*time.Millisecond)
	c.Step(30 * time.Millisecond)
	return q
}

// TestFakeClockStepThenRemoveQueuesTheOtherDueItem: Remove of a after the
// step leaves b queued, not delayed.
func TestFakeClockStepThenRemoveQueuesTheOtherDueItem(t *testing.T) {
	for range dueRounds {
		q := steppedReadyq(t)
		if !q.Remove("a") {
			t.Fatal("Remove(a) = false")
		}
		if st := q.Stats(); st.Queued != 1 || st.Delayed != 0 {
			t.Fatalf("Step then Remove(a): %v, want b queued", st)
		}
		if got := q.TryTake(8); !slices.Equal(got, []string{"b"}) {
			t.Fatalf("TryTake = %v, want [b]", got)
		}
	}
}

// TestFakeClockStepThenTryTakeTakesTheDueItems: TryTake right after the
// step takes both items, in ready-time order.
func TestFakeClockStepThenTryTakeTakesTheDueItems(t *testing.T) {
	for range dueRounds {
		q := steppedReadyq(t)
		if got := q.TryTake(8); !slices.Equal(got, []string{"a", "b"}) {
			t.Fatalf("TryTake after the step = %v, want [a b]", got)
		}
	}
}

// TestFakeClockSetBackDelaysFromTheClocksOwnReading: on a FakeClock set
// back after the queue's first reading, AddAfter(x, 10ms) then a 10ms
// step queues x, as client-go's queue does.
func TestFakeClockSetBackDelaysFromTheClocksOwnReading(t *testing.T) {
	start := time.Now()
	c := testingclock.NewFakeClock(start)
	q := kube.New(nil, kube.Config[string]{Clock: c})
	t.Cleanup(q.ShutDown)
	q.AddAfter("first", time.Hour) // the queue's first reading: start
	c.SetTime(start.Add(-time.Minute))
	q.AddAfter("x", 10*time.Millisecond)
	c.Step(10*time.Millisecond - 1)
	if n := q.Len(); n != 0 {
		t.Fatalf("Len 1ns before x's time = %d, want 0", n)
	}
	c.Step(1)
	if n := q.Len(); n != 1 {
		t.Fatalf("Len at x's time = %d, want 1 (x)", n)
	}
	if got := getAll(t, q, 1); got[0] != "x" {
		t.Fatalf("Get = %v, want x", got)
	}
}
