package workqueue_test

import (
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/internal/testsupport/fakeclock"
	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/workqueue"
)

// The tests below check that a queue on a user's clock sees every item
// whose time the clock has passed as queued, whether or not the timer's
// goroutine has run, and that it never arms a timer for a time already
// passed. Their clocks fire a timer made with d ≤ 0 only at the next
// Step, as k8s.io/utils/clock/testing's FakeClock does.

// A stalled clock reads ahead of its timers. Its readings are those of
// the clock beneath plus ahead, and each reading first adds tick to ahead.
// Its timers are the clock beneath's, which the tests never step. So a
// time the readings pass fires no timer: the queue sees it only by
// reading the clock, as it does when a fake clock was stepped and the
// timer's goroutine has not run yet.
type stalled struct {
	*fakeclock.Clock
	ahead atomic.Int64
	tick  atomic.Int64
}

func newStalled() *stalled { return &stalled{Clock: fakeclock.NewFiringOnStep(t0)} }

// Now returns the clock's reading.
func (c *stalled) Now() time.Time {
	return c.Clock.Now().Add(time.Duration(c.ahead.Add(c.tick.Load())))
}

// jump moves the readings d on, and no timer.
func (c *stalled) jump(d time.Duration) { c.ahead.Add(int64(d)) }

// TestWithClockRearmQueuesAnItemAlreadyDue: when a call takes out the
// delayed item the timer is armed for, the queue re-arms the timer for
// the next one. If the clock has passed that one's time, it is queued
// then, and no timer is armed. A fake clock fires a timer armed for a time
// passed only when next stepped, so the item would stay delayed.
//
// The clock moves 10ms at each reading during the call: its first reading
// (t0+10ms) finds nothing due, and the re-arm for 2 reads t0+20ms, past
// 2's time.
func TestWithClockRearmQueuesAnItemAlreadyDue(t *testing.T) {
	for _, call := range []struct {
		name string
		take func(q *workqueue.Queue[int])
	}{
		{"Remove", func(q *workqueue.Queue[int]) {
			if !q.Remove(1) {
				t.Fatal("Remove of a delayed item reported false")
			}
		}},
		{"Add", func(q *workqueue.Queue[int]) {
			if !q.Add(1) {
				t.Fatal("Add of a delayed item reported false")
			}
		}},
	} {
		t.Run(call.name, func(t *testing.T) {
			c := newStalled()
			q := workqueue.New[int](workqueue.WithClock(c))
			q.AddAfter(1, 15*ms)
			q.AddAfter(2, 18*ms)
			c.tick.Store(int64(10 * ms))
			call.take(q)
			c.tick.Store(0)
			if n := c.Waiters(); n != 0 {
				t.Fatalf("%s left %d timers armed, with 2 due: want 2 queued and none armed", call.name, n)
			}
			if st := q.Stats(); st.Delayed != 0 || st.Queued == 0 {
				t.Fatalf("%s left 2 delayed though due: %v", call.name, st)
			}
			got := q.TryTake(8)
			if !(len(got) == 1 && got[0] == 2) && !(len(got) == 2 && got[0]+got[1] == 3) {
				t.Fatalf("TryTake after %s = %v, want 2 (and 1 after Add)", call.name, got)
			}
		})
	}
}

// TestWithClockSoonerDelayDueByTheRearmIsQueued: an AddAfter that moves
// a delayed item sooner re-arms the timer. If the clock has passed the
// new time by then, the item is queued, and the call serves the callers
// and counters as a change does, though it reports false.
//
// The clock moves 10ms at each reading during AddAfter: its first reading
// (t0+10ms) finds nothing due, the ready time is read at t0+20ms (so
// t0+25ms), and the re-arm reads t0+30ms.
func TestWithClockSoonerDelayDueByTheRearmIsQueued(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newStalled()
		q := workqueue.New[int](workqueue.WithClock(c))
		q.AddAfter(1, 40*ms)
		waiting := parkWait(bg, q, 8)
		c.tick.Store(int64(10 * ms))
		if q.AddAfter(1, 5*ms) {
			t.Fatal("AddAfter of a delayed item reported true")
		}
		c.tick.Store(0)
		synctest.Wait()
		select {
		case r := <-waiting:
			testkit.MustNil(t, r.err)
			wantItems(t, "the blocked Wait", r.items, 1)
		default:
			t.Fatalf("the blocked Wait still waits with 1 due and queued: %v", q)
		}
		if n := c.Waiters(); n != 0 {
			t.Fatalf("%d timers armed with nothing delayed", n)
		}
	})
}

// TestWithClockEveryCallSeesTheDueItemsQueued: once a user's clock has
// passed a delayed item's time, each call of the queue sees it queued,
// though the timer has not fired. No goroutine needs to run first.
func TestWithClockEveryCallSeesTheDueItemsQueued(t *testing.T) {
	for _, call := range []struct {
		name  string
		check func(t *testing.T, q *workqueue.Queue[int])
	}{
		{"TryTake", func(t *testing.T, q *workqueue.Queue[int]) {
			wantItems(t, "TryTake", q.TryTake(8), 1)
		}},
		{"Len", func(t *testing.T, q *workqueue.Queue[int]) {
			if n := q.Len(); n != 1 {
				t.Fatalf("Len = %d, want 1", n)
			}
		}},
		{"Stats", func(t *testing.T, q *workqueue.Queue[int]) {
			if st := q.Stats(); st.Queued != 1 || st.Delayed != 0 {
				t.Fatalf("Stats = %v, want 1 queued, none delayed", st)
			}
		}},
		{"Ready", func(t *testing.T, q *workqueue.Queue[int]) {
			select {
			case <-q.Ready():
			default:
				t.Fatal("Ready's channel is open with an item due")
			}
		}},
		{"Wait", func(t *testing.T, q *workqueue.Queue[int]) {
			synctest.Test(t, func(t *testing.T) {
				wantServedAtOnce(t, "Wait", parkWait(bg, q, 8))
			})
		}},
		{"Next", func(t *testing.T, q *workqueue.Queue[int]) {
			synctest.Test(t, func(t *testing.T) {
				wantServedAtOnce(t, "Next", testkit.Park(func() result {
					items, err := q.Next(bg, nil, 8)
					return result{items, err}
				}))
			})
		}},
		{"Add", func(t *testing.T, q *workqueue.Queue[int]) {
			q.Add(2) // 1 is queued first, as its time came first
			wantItems(t, "TryTake after Add(2)", q.TryTake(8), 1, 2)
		}},
		{"Done", func(t *testing.T, q *workqueue.Queue[int]) {
			q.Done(3) // not in flight: changes nothing but what is due
			q.Add(2)
			wantItems(t, "TryTake after Done, Add(2)", q.TryTake(8), 1, 2)
		}},
	} {
		t.Run(call.name, func(t *testing.T) {
			c := newStalled()
			q := workqueue.New[int](workqueue.WithClock(c))
			q.AddAfter(1, 10*ms)
			c.jump(10 * ms)
			call.check(t, q)
			q.Close()
		})
	}
}

// stepRounds is how many times the tests below repeat their steps. The
// timer's goroutine runs at a time of its own in each round.
const stepRounds = 200

// stepRound gives each round a queue on a clock like k8s's FakeClock,
// with 1 and 2 delayed 10ms and 20ms, then steps the clock 30ms on. The
// timer for 1 fires; its goroutine may or may not have run when it
// returns.
func stepRound(t *testing.T, round func(q *workqueue.Queue[int])) {
	for range stepRounds {
		c := fakeclock.NewFiringOnStep(t0)
		q := workqueue.New[int](workqueue.WithClock(c))
		q.AddAfter(1, 10*ms)
		q.AddAfter(2, 20*ms)
		c.Step(30 * ms)
		round(q)
		q.Close()
		if t.Failed() {
			return
		}
	}
}

// TestWithClockStepThenAddQueuesEveryDueItem: after a step past two
// delays, an Add of the first leaves neither delayed.
func TestWithClockStepThenAddQueuesEveryDueItem(t *testing.T) {
	stepRound(t, func(q *workqueue.Queue[int]) {
		q.Add(1)
		if st := q.Stats(); st.Queued != 2 || st.Delayed != 0 {
			t.Errorf("Step then Add(1): %v, want 1 and 2 queued", st)
		}
		wantItems(t, "TryTake", q.TryTake(8), 1, 2)
	})
}

// TestWithClockStepThenRemoveQueuesTheOtherDueItem: after a step past two
// delays, a Remove of the first leaves the second queued.
func TestWithClockStepThenRemoveQueuesTheOtherDueItem(t *testing.T) {
	stepRound(t, func(q *workqueue.Queue[int]) {
		if !q.Remove(1) {
			t.Error("Remove(1) = false")
		}
		if st := q.Stats(); st.Queued != 1 || st.Delayed != 0 {
			t.Errorf("Step then Remove(1): %v, want 2 queued", st)
		}
		wantItems(t, "TryTake", q.TryTake(8), 2)
	})
}

// TestWithClockStepThenTryTakeTakesTheDueItems: after a step past two
// delays, TryTake takes both at once, in ready-time order.
func TestWithClockStepThenTryTakeTakesTheDueItems(t *testing.T) {
	stepRound(t, func(q *workqueue.Queue[int]) {
		wantItems(t, "TryTake", q.TryTake(8), 1, 2)
	})
}

// wantServedAtOnce checks that a parked call (see testkit.Park) returned
// item 1 without blocking: in a bubble, it has already run to its end.
func wantServedAtOnce(t *testing.T, call string, r <-chan result) {
	t.Helper()
	select {
	case r := <-r:
		testkit.MustNil(t, r.err)
		wantItems(t, call, r.items, 1)
	default:
		t.Fatal(call + " blocked with an item due")
	}
}
