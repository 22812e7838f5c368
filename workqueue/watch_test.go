package workqueue_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/internal/testsupport/fakeclock"
	"github.com/evsync/evsync/poll"
	"github.com/evsync/evsync/readyq"
	"github.com/evsync/evsync/workqueue"
)

// watched returns a Set that watches q with key "q", asking for In in
// mode m. The Set is closed at the test's end.
func watched(t *testing.T, q *workqueue.Queue[int], m poll.Mode) *poll.Set[string] {
	t.Helper()
	set := poll.New[string]()
	t.Cleanup(set.Close)
	if err := set.Add(q, "q", poll.In, m); err != nil {
		t.Fatalf("Set.Add(queue) = %v", err)
	}
	return set
}

// reports fails t unless a TryWait on set reports "q" with events ev, or
// nothing if ev is 0.
func reports(t *testing.T, set *poll.Set[string], ev poll.Events) {
	t.Helper()
	var want []poll.Event[string]
	if ev != 0 {
		want = []poll.Event[string]{{Key: "q", Events: ev}}
	}
	if got := set.TryWait(nil, 4); !slices.Equal(got, want) {
		t.Fatalf("TryWait = %v, want %v", got, want)
	}
}

// setWait starts a Wait on set that gives up after an hour of the
// bubble's time, and returns what it reports.
func setWait(set *poll.Set[string]) <-chan []poll.Event[string] {
	got := make(chan []poll.Event[string], 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
		defer cancel()
		evs, _ := set.Wait(ctx, nil, 4)
		got <- evs
	}()
	return got
}

// TestPollAddWakesASetWaitingOnTheQueue: a Set blocked in Wait on an
// empty queue is woken by an Add, with In. Had the queue not told its
// Sets, the Wait would give up after its hour with nothing.
func TestPollAddWakesASetWaitingOnTheQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New[int]()
		set := watched(t, q, poll.Edge)
		got := setWait(set)
		synctest.Wait() // the Wait is blocked, its registration armed
		q.Add(1)
		want := []poll.Event[string]{{Key: "q", Events: poll.In}}
		if evs := <-got; !slices.Equal(evs, want) {
			t.Fatalf("Wait woken by Add = %v, want %v", evs, want)
		}
	})
}

// TestPollADelayedItemWakesTheSetWhenDue: an AddAfter wakes nothing
// before the item's time. Then the queue's timer queues it and wakes the
// blocked Wait.
func TestPollADelayedItemWakesTheSetWhenDue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New[int]()
		defer q.Close()
		set := watched(t, q, poll.Edge)
		q.AddAfter(1, 10*time.Second)
		got := setWait(set)
		time.Sleep(10*time.Second - time.Nanosecond)
		synctest.Wait()
		select {
		case evs := <-got:
			t.Fatalf("1ns before the item's time the Wait returned %v", evs)
		default:
		}
		time.Sleep(time.Nanosecond) // in the bubble: the clock reaches the item's time
		synctest.Wait()             // the timer has run, and the Wait with it
		want := []poll.Event[string]{{Key: "q", Events: poll.In}}
		select {
		case evs := <-got:
			if !slices.Equal(evs, want) {
				t.Fatalf("Wait at the item's time = %v, want %v", evs, want)
			}
		default:
			t.Fatal("the item is due, and the Wait still waits")
		}
	})
}

// TestPollCloseGivesHup: Close wakes a blocked Wait with Hup, and In
// since a Wait on the queue would no longer block.
func TestPollCloseGivesHup(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New[int]()
		set := watched(t, q, poll.Edge)
		got := setWait(set)
		synctest.Wait()
		q.Close()
		want := []poll.Event[string]{{Key: "q", Events: poll.In | poll.Hup}}
		if evs := <-got; !slices.Equal(evs, want) {
			t.Fatalf("Wait woken by Close = %v, want %v", evs, want)
		}
	})
}

// TestPollCloseDiscardingDelaysGivesHup: so does CloseDiscardingDelays,
// whose dropped delays leave nothing to hand out.
func TestPollCloseDiscardingDelaysGivesHup(t *testing.T) {
	q := workqueue.New[int]()
	set := watched(t, q, poll.Edge)
	q.AddAfter(1, time.Hour)
	reports(t, set, 0)
	if n := q.CloseDiscardingDelays(); n != 1 {
		t.Fatalf("CloseDiscardingDelays = %d, want 1", n)
	}
	reports(t, set, poll.In|poll.Hup)
}

// TestPollClosedQueueIsReadableOnceNothingIsLeft: a closed queue whose
// item in flight has a mark kept aside reports Hup alone, since a Wait
// would block until the Done. Then it reports In with it.
func TestPollClosedQueueIsReadableOnceNothingIsLeft(t *testing.T) {
	q := workqueue.New[int]()
	q.Add(1)
	held := q.TryTake(1)
	q.Add(1) // kept aside for the Done
	q.Close()
	set := watched(t, q, poll.Level)
	reports(t, set, poll.Hup)
	q.Done(held...) // queues the mark
	reports(t, set, poll.In|poll.Hup)
	q.Done(q.TryTake(1)...) // nothing left
	reports(t, set, poll.In|poll.Hup)
	if _, err := q.Wait(context.Background(), 1); !errors.Is(err, workqueue.ErrClosed) {
		t.Fatalf("Wait = %v, want ErrClosed", err)
	}
}

// TestPollRemovedQueueReportsNothing: once Remove took the queue out of
// the Set, an Add reports nothing, whether the registration was armed or
// queued.
func TestPollRemovedQueueReportsNothing(t *testing.T) {
	for _, queued := range []bool{false, true} {
		q := workqueue.New[int]()
		set := watched(t, q, poll.Edge)
		if queued {
			q.Add(0) // the registration is on the ready list
		}
		if err := set.Remove(q); err != nil {
			t.Fatal(err)
		}
		q.Add(1)
		if evs := set.TryWait(nil, 4); len(evs) != 0 {
			t.Fatalf("queued %v: TryWait after Remove and Add = %v, want nothing", queued, evs)
		}
		if err := set.Add(q, "q", poll.In, poll.Edge); err != nil {
			t.Fatalf("queued %v: Add again after Remove = %v", queued, err)
		}
		reports(t, set, poll.In) // queued at Add: items are there
	}
}

// embedded has the methods of the queue it embeds, pollSource included.
type embedded struct{ *workqueue.Queue[int] }

// TestPollAStructEmbeddingAQueueIsNotASource: a Set takes a queue by its
// own type only. A value that embeds one is refused, by value or by
// pointer, and the queue itself is then still free to add.
func TestPollAStructEmbeddingAQueueIsNotASource(t *testing.T) {
	q := workqueue.New[int]()
	set := poll.New[string]()
	defer set.Close()
	for _, v := range []any{embedded{q}, &embedded{q}, (*embedded)(nil)} { // the nil one: a promoted call would panic
		if err := set.Add(v, "e", poll.In, poll.Edge); !errors.Is(err, poll.ErrInvalid) {
			t.Fatalf("Set.Add(%T) = %v, want an error matching ErrInvalid", v, err)
		}
	}
	var nilQueue *workqueue.Queue[int]
	if err := set.Add(nilQueue, "nil", poll.In, poll.Edge); !errors.Is(err, poll.ErrInvalid) {
		t.Fatalf("Set.Add(nil *Queue) = %v, want an error matching ErrInvalid", err)
	}
	if err := set.Add(q, "q", poll.In, poll.Edge); err != nil {
		t.Fatalf("Set.Add(queue) after the refusals = %v", err)
	}
	if n := set.Len(); n != 1 {
		t.Fatalf("Set.Len = %d, want 1", n)
	}
}

// TestPollLevelRoundRobinWithAReadyq: in level mode a readyq and a
// workqueue that both keep items queued are reported in turn under
// max 1, and each item taken ends the turns of its queue.
func TestPollLevelRoundRobinWithAReadyq(t *testing.T) {
	rq := readyq.New[int]()
	wq := workqueue.New[int]()
	rq.Add(1)
	wq.Add(1)
	wq.Add(2)
	set := poll.New[string]()
	defer set.Close()
	for _, s := range []struct {
		src any
		key string
	}{{rq, "readyq"}, {wq, "workqueue"}} {
		if err := set.Add(s.src, s.key, poll.In, poll.Level); err != nil {
			t.Fatalf("Set.Add(%s) = %v", s.key, err)
		}
	}
	var order []string
	for range 4 {
		for _, ev := range set.TryWait(nil, 1) {
			order = append(order, ev.Key)
		}
	}
	if want := []string{"readyq", "workqueue", "readyq", "workqueue"}; !slices.Equal(order, want) {
		t.Fatalf("level reports under max 1 = %v, want %v", order, want)
	}
	rq.Done(rq.TryTake(1)...) // the readyq is empty now
	order = order[:0]
	for range 3 {
		for _, ev := range set.TryWait(nil, 1) {
			order = append(order, ev.Key)
		}
	}
	if want := []string{"workqueue", "workqueue", "workqueue"}; !slices.Equal(order, want) {
		t.Fatalf("level reports with the readyq empty = %v, want %v", order, want)
	}
}

// TestPollOnAUserClockTheSetSeesDueItemsOnceMoved: on a user's clock a
// Set reads no clock. An item whose time the clock has passed, with no
// timer fired, is not reported. The queue's next call (Len here) queues
// it and wakes the Set. A clock that fires the queue's timer at its
// Step wakes a blocked Wait by itself.
func TestPollOnAUserClockTheSetSeesDueItemsOnceMoved(t *testing.T) {
	t.Run("next call", func(t *testing.T) {
		c := newStalled()
		q := workqueue.New[int](workqueue.WithClock(c))
		defer q.Close()
		set := watched(t, q, poll.Edge)
		q.AddAfter(1, 10*ms)
		c.jump(10 * ms) // due, and no timer fires
		reports(t, set, 0)
		if n := q.Len(); n != 1 {
			t.Fatalf("Len = %d, want the due item", n)
		}
		reports(t, set, poll.In)
	})
	t.Run("timer", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c := fakeclock.New(t0)
			q := workqueue.New[int](workqueue.WithClock(c))
			defer q.Close()
			set := watched(t, q, poll.Edge)
			q.AddAfter(1, 10*ms)
			got := setWait(set)
			c.StepWait(10 * ms) // the queue's timer runs
			want := []poll.Event[string]{{Key: "q", Events: poll.In}}
			select {
			case evs := <-got:
				if !slices.Equal(evs, want) {
					t.Fatalf("Wait after the Step = %v, want %v", evs, want)
				}
			default:
				t.Fatal("the clock fired the queue's timer, and the Wait still waits")
			}
		})
	})
}
