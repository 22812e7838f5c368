package workqueue_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/workqueue"
)

// replaceAfter is AddOpts for a mark whose ready time d from now replaces
// the item's.
func replaceAfter(d time.Duration) workqueue.AddOpts {
	return workqueue.AddOpts{After: d, Replace: true}
}

// readyExactlyIn checks that item 1 is handed out d from now, not a
// nanosecond sooner, and that nothing else is. A d of 0: at once.
func readyExactlyIn(t *testing.T, q *workqueue.Queue[int], d time.Duration) {
	t.Helper()
	if d > 0 {
		sleep(d - time.Nanosecond)
		wantItems(t, fmt.Sprintf("TryTake %v after the call, a nanosecond early", d), q.TryTake(8))
		sleep(time.Nanosecond)
	}
	wantItems(t, fmt.Sprintf("TryTake %v after the call", d), q.TryTake(8), 1)
}

// TestAddWithReplaceOutcomes is AddWith's list for Replace, row by row:
// what each call returns, where the item goes, and when it is ready.
func TestAddWithReplaceOutcomes(t *testing.T) {
	take := func(q *workqueue.Queue[int]) { q.TryTake(8) }
	for _, c := range []struct {
		name   string
		mode   workqueue.Mode
		before func(q *workqueue.Queue[int]) // makes the item's place
		o      workqueue.AddOpts
		want   bool
		after  func(q *workqueue.Queue[int]) // Done, Rearm or nothing
		st     workqueue.Stats               // Stats right after the call (and after)
		in     time.Duration                 // when item 1 is ready, after the call (and after)
	}{
		{name: "unknown: delayed", o: replaceAfter(10 * ms), want: true,
			st: workqueue.Stats{Delayed: 1}, in: 10 * ms},
		{name: "delayed: later", before: func(q *workqueue.Queue[int]) { q.AddAfter(1, 10*ms) },
			o: replaceAfter(30 * ms), st: workqueue.Stats{Delayed: 1}, in: 30 * ms},
		{name: "delayed: earlier", before: func(q *workqueue.Queue[int]) { q.AddAfter(1, time.Hour) },
			o: replaceAfter(10 * ms), st: workqueue.Stats{Delayed: 1}, in: 10 * ms},
		{name: "delayed: same time, set again", before: func(q *workqueue.Queue[int]) { q.AddAfter(1, 10*ms) },
			o: replaceAfter(10 * ms), st: workqueue.Stats{Delayed: 1}, in: 10 * ms},
		{name: "delayed: d ≤ 0 queues it", before: func(q *workqueue.Queue[int]) { q.AddAfter(1, time.Hour) },
			o: replaceAfter(0), want: true, st: workqueue.Stats{Queued: 1}},
		{name: "queued: delayed", before: func(q *workqueue.Queue[int]) { q.Add(1) },
			o: replaceAfter(10 * ms), st: workqueue.Stats{Delayed: 1}, in: 10 * ms},
		{name: "queued on a lane: delayed", before: func(q *workqueue.Queue[int]) { q.AddWith(1, workqueue.AddOpts{Priority: 3}) },
			o: replaceAfter(10 * ms), st: workqueue.Stats{Delayed: 1}, in: 10 * ms},
		{name: "queued: d ≤ 0 stays", before: func(q *workqueue.Queue[int]) { q.Add(1) },
			o: replaceAfter(-1), st: workqueue.Stats{Queued: 1}},
		{name: "in flight, delayed mark: later", before: func(q *workqueue.Queue[int]) { q.Add(1); take(q); q.AddAfter(1, 10*ms) },
			o: replaceAfter(30 * ms), after: func(q *workqueue.Queue[int]) { q.Done(1) },
			st: workqueue.Stats{InFlight: 1, Aside: 1}, in: 30 * ms},
		{name: "in flight, delayed mark: earlier", before: func(q *workqueue.Queue[int]) { q.Add(1); take(q); q.AddAfter(1, time.Hour) },
			o: replaceAfter(10 * ms), after: func(q *workqueue.Queue[int]) { q.Done(1) },
			st: workqueue.Stats{InFlight: 1, Aside: 1}, in: 10 * ms},
		{name: "in flight, due mark: later", before: func(q *workqueue.Queue[int]) { q.Add(1); take(q); q.Add(1) },
			o: replaceAfter(10 * ms), after: func(q *workqueue.Queue[int]) { q.Done(1) },
			st: workqueue.Stats{InFlight: 1, Aside: 1}, in: 10 * ms},
		{name: "in flight, delayed mark: d ≤ 0 due", before: func(q *workqueue.Queue[int]) { q.Add(1); take(q); q.AddAfter(1, time.Hour) },
			o: replaceAfter(0), after: func(q *workqueue.Queue[int]) { q.Done(1) },
			st: workqueue.Stats{InFlight: 1, Aside: 1}},
		{name: "in flight, no mark: kept aside", before: func(q *workqueue.Queue[int]) { q.Add(1); take(q) },
			o: replaceAfter(10 * ms), want: true, after: func(q *workqueue.Queue[int]) { q.Done(1) },
			st: workqueue.Stats{InFlight: 1, Aside: 1}, in: 10 * ms},
		{name: "disarmed, delayed mark: later", mode: workqueue.OneShot,
			before: func(q *workqueue.Queue[int]) { q.Add(1); take(q); q.Done(1); q.AddAfter(1, 10*ms) },
			o:      replaceAfter(30 * ms), after: func(q *workqueue.Queue[int]) { q.Rearm(1) },
			st: workqueue.Stats{Disarmed: 1}, in: 30 * ms},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := workqueue.NewWithConfig(workqueue.Config[int]{Mode: c.mode})
				defer q.Close()
				if c.before != nil {
					c.before(q)
				}
				sleep(5 * ms) // so that a time replaced is not the time it had
				if got := q.AddWith(1, c.o); got != c.want {
					t.Fatalf("AddWith(1, %+v) = %v, want %v", c.o, got, c.want)
				}
				if st := q.Stats(); st != c.st {
					t.Fatalf("Stats() after AddWith = %+v, want %+v", st, c.st)
				}
				if c.after != nil {
					c.after(q)
				}
				readyExactlyIn(t, q, c.in)
			})
		})
	}
}

// TestAddWithReplaceKeepsTheHighestPriority: Replace moves the ready
// time, not the priority rule. A lower priority leaves the item's, a
// higher one raises it, and the item is handed out at its priority.
func TestAddWithReplaceKeepsTheHighestPriority(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New[int]()
		defer q.Close()
		q.AddWith(1, workqueue.AddOpts{Priority: 5, After: time.Hour})
		q.AddWith(1, workqueue.AddOpts{Priority: 1, After: 10 * ms, Replace: true})
		if p, _ := q.Priority(1); p != 5 {
			t.Fatalf("Priority(1) = %d after a lower one with Replace, want 5", p)
		}
		q.AddWith(2, workqueue.AddOpts{Priority: 0})
		q.AddWith(2, workqueue.AddOpts{Priority: 9, After: 10 * ms, Replace: true})
		if p, _ := q.Priority(2); p != 9 {
			t.Fatalf("Priority(2) = %d after a higher one with Replace, want 9", p)
		}
		q.Add(3)
		sleep(10 * ms)
		wantItems(t, "TryTake at 10 ms", q.TryTake(8), 2, 1, 3)
	})
}

// TestAddWithReplaceRateLimitedTakesTheLimitersDelay: with RateLimited
// the limiter's delay replaces the item's ready time, and the retry is
// counted.
func TestAddWithReplaceRateLimitedTakesTheLimitersDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewWithConfig(workqueue.Config[int]{
			RateLimiter: workqueue.ExponentialRateLimiter[int](10*ms, time.Second),
		})
		defer q.Close()
		q.AddAfter(1, ms)
		if q.AddWith(1, workqueue.AddOpts{RateLimited: true, Replace: true}) {
			t.Fatal("AddWith(RateLimited, Replace) of a delayed item = true, want false")
		}
		if n := q.NumRequeues(1); n != 1 {
			t.Fatalf("NumRequeues(1) = %d, want 1", n)
		}
		readyExactlyIn(t, q, 10*ms)
	})
}

// TestAddWithReplaceAfterCloseChangesNothing: a closed queue refuses the
// mark, and the item stays where Close put it.
func TestAddWithReplaceAfterCloseChangesNothing(t *testing.T) {
	q := workqueue.New[int]()
	q.Add(1)
	q.Close()
	if q.AddWith(1, replaceAfter(time.Hour)) || q.AddWith(2, replaceAfter(time.Hour)) {
		t.Fatal("AddWith with Replace after Close = true")
	}
	if st := q.Stats(); st != (workqueue.Stats{Queued: 1, Closed: true}) {
		t.Fatalf("Stats() = %+v, want 1 queued, closed", st)
	}
}

// TestAddWithReplaceReArmsTheTimer: the first ready time moves later,
// then earlier again. The queue's timer follows it each way: nothing comes
// out at the old time, and each item comes out exactly at its new one.
func TestAddWithReplaceReArmsTheTimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New[int]()
		defer q.Close()
		start := time.Now()
		q.AddAfter(1, 10*ms)
		q.AddAfter(2, 20*ms)
		q.AddWith(1, replaceAfter(30*ms)) // the earliest moves later, past 2
		waiting := parkWait(bg, q, 8)
		sleep(10 * ms)
		select {
		case r := <-waiting:
			t.Fatalf("Wait returned %v at 10 ms, the old first ready time", r.items)
		default:
		}
		r := <-waiting
		if d := time.Since(start); d != 20*ms || len(r.items) != 1 || r.items[0] != 2 {
			t.Fatalf("Wait = %v at %v, want [2] at 20ms", r.items, d)
		}
		q.AddWith(1, replaceAfter(5*ms)) // earlier again: 25 ms, not 30
		sleep(5*ms - 1)
		wantItems(t, "TryTake a nanosecond before 25 ms", q.TryTake(8))
		sleep(1)
		wantItems(t, "TryTake at 25 ms", q.TryTake(8), 1)
	})
}

// TestWithClockAddWithReplaceReArmsTheTimer: on a user's clock, which
// fires a timer only when it is stepped, the one timer follows the first
// ready time later and earlier, and none is left armed.
func TestWithClockAddWithReplaceReArmsTheTimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fq := onFakeClock(t, workqueue.Config[int]{})
		fq.q.AddAfter(1, 10*ms)
		fq.q.AddAfter(2, 20*ms)
		fq.q.AddWith(1, replaceAfter(30*ms))
		if n := fq.f.Waiters(); n != 1 {
			t.Fatalf("%d fake timers armed, want 1", n)
		}
		fq.step(10 * ms)
		fq.ready(t, "at the old first time")
		fq.step(10 * ms)
		fq.ready(t, "at 20 ms", 2)
		fq.q.AddWith(1, replaceAfter(ms)) // 21 ms
		fq.step(ms - 1)
		fq.ready(t, "1ns before 21 ms")
		fq.step(1)
		fq.ready(t, "at 21 ms", 1)
		if n := fq.f.Waiters(); n != 0 {
			t.Fatalf("with nothing delayed, %d fake timers are armed", n)
		}
	})
}

// TestAddWithReplaceMovesANearWaitPastTheBound: a wait due soon, in the
// near heap, moved past the bound goes to the far heap
// (delay_split.go). Left in near it would come out first, and the far
// wait due before it would be late.
func TestAddWithReplaceMovesANearWaitPastTheBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New[int]()
		defer q.Close()
		q.AddAfter(0, ms)
		sleep(ms) // the timer runs: the bound is now a second ahead
		wantItems(t, "TryTake at 1 ms", q.TryTake(8), 0)
		q.AddAfter(1, 500*ms)        // near
		q.AddAfter(2, 2*time.Second) // far
		q.AddWith(1, replaceAfter(3*time.Second))
		sleep(2 * time.Second)
		wantItems(t, "TryTake at 2 s", q.TryTake(8), 2)
		sleep(time.Second)
		wantItems(t, "TryTake at 3 s", q.TryTake(8), 1)
	})
}

// TestManyReplacedItemsComeOutInReadyTimeOrder is
// TestManyDelayedItemsComeOutInReadyTimeOrder with Replace: the items
// made to wait again move later as often as earlier, through both heaps
// and across the bound.
func TestManyReplacedItemsComeOutInReadyTimeOrder(t *testing.T) {
	for _, c := range []struct {
		unit time.Duration
		n    int
	}{{time.Millisecond, 5000}, {50 * time.Millisecond, 20000}} {
		t.Run(fmt.Sprintf("delays=%v-%v", c.unit, 100*c.unit), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { manyDelayedWith(t, c.unit, c.n, true) })
		})
	}
}

// TestAddWithReplaceRacesWorkers has producers postpone, advance and
// queue a few keys with Replace while workers take and finish them, under
// -race. No key is ever held by two workers, and every key's last mark is
// handed out after it was made.
func TestAddWithReplaceRacesWorkers(t *testing.T) {
	const keys, producers, workers, marks = 16, 4, 4, 2000
	q := workqueue.New[int]()
	var holders [keys]atomic.Int32
	var clock atomic.Int64                     // orders marks and hand-outs
	var lastMark, lastTaken [keys]atomic.Int64 // by clock
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				items, err := q.Wait(ctx, 2)
				if err != nil {
					return
				}
				for _, k := range items {
					if holders[k].Add(1) != 1 {
						t.Errorf("item %d held by two workers", k)
					}
					lastTaken[k].Store(clock.Add(1))
					holders[k].Add(-1)
				}
				q.Done(items...)
			}
		})
	}
	delays := []time.Duration{-1, 0, time.Microsecond, 50 * time.Microsecond, 200 * time.Microsecond, time.Hour}
	var pw sync.WaitGroup
	for p := range producers {
		pw.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(p), 1))
			for range marks {
				q.AddWith(rng.IntN(keys), replaceAfter(delays[rng.IntN(len(delays))]))
			}
		})
	}
	pw.Wait()
	for k := range keys {
		lastMark[k].Store(clock.Add(1))
		q.AddWith(k, replaceAfter(0)) // queues it now, or at its Done
	}
	if err := q.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	cancel()
	wg.Wait()
	for k := range keys {
		if lastTaken[k].Load() < lastMark[k].Load() {
			t.Errorf("item %d last handed out at %d, before its last mark at %d", k, lastTaken[k].Load(), lastMark[k].Load())
		}
	}
	if st := q.Stats(); st != (workqueue.Stats{}) {
		t.Fatalf("Stats() after Drain = %+v, want zero", st)
	}
}
