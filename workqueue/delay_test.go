package workqueue_test

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/workqueue"
)

// sleep advances a synctest bubble's clock by d and lets every timer due
// by then run to completion.
func sleep(d time.Duration) {
	time.Sleep(d)
	synctest.Wait()
}

func TestAddAfterQueuesTheItemExactlyAtItsTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New[int]()
		if !q.AddAfter(1, 10*time.Millisecond) {
			t.Fatal("AddAfter of a new item = false")
		}
		if st := q.Stats(); st.Delayed != 1 || st.Queued != 0 {
			t.Fatalf("Stats = %+v, want 1 delayed, 0 queued", st)
		}
		sleep(10*time.Millisecond - time.Nanosecond)
		wantItems(t, "TryTake a nanosecond early", q.TryTake(8))
		sleep(time.Nanosecond)
		wantItems(t, "TryTake on time", q.TryTake(8), 1)
		if st := q.Stats(); st.Delayed != 0 || st.InFlight != 1 {
			t.Fatalf("Stats = %+v, want 0 delayed, 1 in flight", st)
		}
	})
}

func TestAnotherItemsTimerQueuesNothingBeforeItsTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New[int]()
		q.AddAfter(1, 10*time.Millisecond)
		q.AddAfter(2, 10*time.Millisecond+time.Microsecond)
		sleep(10 * time.Millisecond)
		wantItems(t, "TryTake at the first item's time", q.TryTake(8), 1)
		sleep(time.Microsecond)
		wantItems(t, "TryTake at the second's", q.TryTake(8), 2)
	})
}

func TestAddAfterWakesABlockedWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New[int]()
		q.AddAfter(7, time.Second)
		start := time.Now()
		mustWait(t, q, 4, 7)
		if d := time.Since(start); d != time.Second {
			t.Fatalf("Wait returned after %v, want 1s", d)
		}
	})
}

func TestDelayedItemsComeInReadyTimeOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New[int]()
		q.AddAfter(1, 30*time.Millisecond)
		q.AddAfter(2, 10*time.Millisecond)
		q.AddAfter(3, 20*time.Millisecond)
		q.AddAfter(4, 10*time.Millisecond) // a tie: set after 2, so after 2
		sleep(30 * time.Millisecond)
		wantItems(t, "TryTake", q.TryTake(8), 2, 4, 3, 1)
	})
}

// TestEqualReadyTimesComeOutInTheOrderTheyWereSet delays two items to
// the same moment, one of them through a mark kept aside while it is in
// flight. That mark's time was set when the mark was made. So Done (or
// Rearm, for a one-shot item) must keep the mark's place among equal
// times. Numbering it anew put a behind b.
func TestEqualReadyTimesComeOutInTheOrderTheyWereSet(t *testing.T) {
	const a, b = 1, 2
	for _, c := range []struct {
		name  string
		mode  workqueue.Mode
		aside bool // a is marked (in flight) before b is delayed
		want  []int
	}{
		{"kept aside first", workqueue.Edge, true, []int{a, b}},
		{"kept aside second", workqueue.Edge, false, []int{b, a}},
		{"one-shot, Rearm", workqueue.OneShot, true, []int{a, b}},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := workqueue.NewWithConfig(workqueue.Config[int]{Mode: c.mode})
				q.Add(a)
				mustWait(t, q, 8, a)
				if c.aside {
					q.AddAfter(a, time.Second)
					q.AddAfter(b, time.Second)
				} else {
					q.AddAfter(b, time.Second)
					q.AddAfter(a, time.Second)
				}
				q.Done(a) // a's mark becomes a delay, or waits for Rearm
				if c.mode == workqueue.OneShot && !q.Rearm(a) {
					t.Fatal("Rearm of a disarmed item = false")
				}
				sleep(time.Second)
				wantItems(t, "TryTake at the shared ready time", q.TryTake(8), c.want...)
			})
		})
	}
}

func TestTheEarliestReadyTimeWins(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New[int]()
		q.AddAfter(1, 50*time.Millisecond)
		if q.AddAfter(1, 80*time.Millisecond) {
			t.Fatal("AddAfter of a delayed item = true")
		}
		if q.AddAfter(1, 20*time.Millisecond) {
			t.Fatal("AddAfter of a delayed item, sooner = true")
		}
		sleep(20 * time.Millisecond)
		wantItems(t, "TryTake at the sooner time", q.TryTake(8), 1)
		q.Done(1)
		sleep(time.Second)
		wantItems(t, "TryTake later", q.TryTake(8)) // no second copy from the dropped times
	})
}

func TestAddOfADelayedItemQueuesItNowOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New[int]()
		q.AddAfter(1, time.Second)
		if !q.Add(1) {
			t.Fatal("Add of a delayed item = false")
		}
		wantItems(t, "TryTake", q.TryTake(8), 1)
		q.Done(1)
		sleep(2 * time.Second)
		wantItems(t, "TryTake after the cancelled delay", q.TryTake(8))
		if q.Stats().Delayed != 0 {
			t.Fatal("the delay was not cancelled")
		}
	})
}

func TestAddAfterOfAQueuedItemChangesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New[int]()
		q.Add(1)
		q.Add(2)
		if q.AddAfter(1, time.Second) {
			t.Fatal("AddAfter of a queued item = true")
		}
		wantItems(t, "TryTake", q.TryTake(8), 1, 2)
		q.Done(1, 2)
		sleep(2 * time.Second)
		wantItems(t, "TryTake later", q.TryTake(8))
	})
}

func TestNonPositiveDelayIsAdd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New[int]()
		q.AddAfter(1, 0)
		q.AddAfter(2, -time.Hour)
		wantItems(t, "TryTake", q.TryTake(8), 1, 2)
	})
}

func TestAddAfterOfAnItemInFlightIsKeptAsideWithItsTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New[int]()
		q.Add(1)
		wantItems(t, "TryTake", q.TryTake(1), 1)
		if !q.AddAfter(1, 100*time.Millisecond) {
			t.Fatal("first kept-aside AddAfter = false")
		}
		if q.AddAfter(1, 50*time.Millisecond) {
			t.Fatal("second kept-aside AddAfter = true")
		}
		sleep(10 * time.Millisecond)
		q.Done(1) // the mark is due at 50 ms: delayed until then
		if st := q.Stats(); st.Delayed != 1 || st.Queued != 0 {
			t.Fatalf("after Done: %+v, want 1 delayed", st)
		}
		sleep(40*time.Millisecond - time.Nanosecond)
		wantItems(t, "TryTake early", q.TryTake(1))
		sleep(time.Nanosecond)
		wantItems(t, "TryTake at 50 ms", q.TryTake(1), 1)

		q.AddAfter(1, 10*time.Millisecond)
		sleep(20 * time.Millisecond)
		q.Done(1) // the mark's time has come: queued at once
		wantItems(t, "TryTake after Done", q.TryTake(1), 1)
	})
}

func TestAddOfAnItemInFlightWithADelayedMarkMakesItDue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New[int]()
		q.Add(1)
		q.TryTake(1)
		q.AddAfter(1, time.Hour)
		if q.Add(1) {
			t.Fatal("Add with a kept-aside mark = true")
		}
		q.Done(1)
		wantItems(t, "TryTake", q.TryTake(1), 1)
	})
}

func TestRemoveCancelsADelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New[int]()
		q.AddAfter(1, time.Second)
		q.AddAfter(2, 2*time.Second)
		if !q.Remove(1) {
			t.Fatal("Remove of a delayed item = false")
		}
		sleep(3 * time.Second)
		wantItems(t, "TryTake", q.TryTake(8), 2)
		if q.Stats().Delayed != 0 {
			t.Fatal("Delayed not 0")
		}
	})
}

func TestCloseQueuesEveryDelayedItem(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New[int]()
		q.AddAfter(1, 3*time.Hour)
		q.AddAfter(2, time.Hour)
		q.Add(3)
		q.Close()
		if q.AddAfter(4, time.Second) {
			t.Fatal("AddAfter after Close = true")
		}
		mustWait(t, q, 8, 3, 2, 1)
		q.Done(3, 2, 1)
		if _, err := q.Wait(bg, 8); !errors.Is(err, workqueue.ErrClosed) {
			t.Fatalf("Wait on the closed, empty queue = %v, want ErrClosed", err)
		}
	})
}

func TestDoneAfterCloseQueuesADelayedMarkAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New[int]()
		q.Add(1)
		q.TryTake(1)
		q.AddAfter(1, time.Hour)
		q.Close()
		done := parkWait(bg, q, 1) // waits: Done will queue 1
		q.Done(1)
		r := <-done
		if r.err != nil {
			t.Fatalf("Wait = %v", r.err)
		}
		wantItems(t, "Wait", r.items, 1)
	})
}

// TestCloseDiscardingDelaysDropsWhatIsDelayed: client-go's shutdown. The
// delayed items are forgotten (their retry state too), and so is a
// kept-aside mark still to come at Done. What is queued is still handed
// out, and a kept-aside mark due at once is still queued at Done.
func TestCloseDiscardingDelaysDropsWhatIsDelayed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New[int]()
		q.AddAfter(1, time.Hour)
		q.AddRateLimited(2)
		q.Add(3)
		q.Add(4)
		q.Add(5)
		wantItems(t, "TryTake", q.TryTake(2), 3, 4)
		q.AddAfter(3, time.Hour) // 3 in flight, marked for later
		q.Add(4)                 // 4 in flight, marked for now
		if n := q.CloseDiscardingDelays(); n != 2 {
			t.Fatalf("CloseDiscardingDelays = %d, want 2 (items 1 and 2)", n)
		}
		if st := q.Stats(); st.Delayed != 0 || !st.Closed || q.NumRequeues(2) != 0 {
			t.Fatalf("Stats = %+v, NumRequeues(2) = %d", st, q.NumRequeues(2))
		}
		if q.AddAfter(6, time.Second) || q.CloseDiscardingDelays() != 0 {
			t.Fatal("the queue took a mark after it was closed")
		}
		q.Done(3, 4)
		mustWait(t, q, 8, 5, 4)
		q.Done(5, 4)
		sleep(2 * time.Hour)
		if _, err := q.Wait(bg, 8); !errors.Is(err, workqueue.ErrClosed) {
			t.Fatalf("Wait on the closed, empty queue = %v, want ErrClosed", err)
		}
		if st := q.Stats(); st.Queued+st.Delayed+st.InFlight != 0 {
			t.Fatalf("Stats = %+v: the queue still holds an item", st)
		}
	})
}

func TestDrainWaitsForDelayedItems(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New[int]()
		q.AddAfter(1, time.Second)
		drained := make(chan error, 1)
		go func() { drained <- q.Drain(bg) }()
		synctest.Wait()
		select {
		case err := <-drained:
			t.Fatalf("Drain returned %v with an item delayed", err)
		default:
		}
		sleep(time.Second)
		mustWait(t, q, 1, 1)
		q.Done(1)
		if err := <-drained; err != nil {
			t.Fatalf("Drain = %v", err)
		}
	})
}

func TestAZeroValueQueueDelays(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var q workqueue.Queue[string]
		q.AddAfter("a", time.Minute)
		sleep(time.Minute)
		if got := q.TryTake(1); len(got) != 1 || got[0] != "a" {
			t.Fatalf("TryTake = %v", got)
		}
	})
}

func TestDelayedItemsKeepTheirMode(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewWithConfig(workqueue.Config[int]{Mode: workqueue.Level})
		q.AddAfter(1, time.Second)
		sleep(time.Second)
		wantItems(t, "TryTake", q.TryTake(1), 1)
		q.Done(1) // level: queued again at once
		wantItems(t, "TryTake after Done", q.TryTake(1), 1)
	})
}

func TestOneShotRearmOfADelayedMark(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewWithConfig(workqueue.Config[int]{Mode: workqueue.OneShot})
		q.Add(1)
		q.TryTake(1)
		q.Done(1) // disarmed
		q.AddAfter(1, time.Second)
		q.Rearm(1) // the mark is not due yet: delayed
		wantItems(t, "TryTake", q.TryTake(1))
		sleep(time.Second)
		wantItems(t, "TryTake on time", q.TryTake(1), 1)
	})
}

func TestStringShowsDelayedItems(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New[int]()
		q.AddAfter(1, time.Second)
		want := "workqueue{queued=0 delayed=1 inflight=0 aside=0 disarmed=0 waiting=0 draining=0}"
		if got := q.String(); got != want {
			t.Fatalf("String() = %q, want %q", got, want)
		}
		q.Remove(1)
	})
}

// A mark refused because of Close must not find the delayed items Close
// queued still uncounted: Close publishes them before it refuses marks.
func TestCloseCountsDelayedItemsBeforeRefusingMarks(t *testing.T) {
	for range 3000 {
		q := workqueue.New[int]()
		q.AddAfter(1, time.Hour)
		done := make(chan struct{})
		go func() { q.Close(); close(done) }()
		for q.Add(0) {
			q.Remove(0)
		}
		if q.Len() == 0 && len(q.TryTake(8)) == 0 {
			t.Fatal("Add was refused, but the delayed item Close queues is not there")
		}
		<-done
	}
}

// TestManyDelayedItemsComeOutInReadyTimeOrder delays thousands of items,
// more than the slab's and the heaps' first pages hold, and while the
// clock runs makes some sooner, removes some and delays new ones into the
// slots freed; it checks that they come out in ready-time order, ties in
// the order their times were set. With delays up to 5 s, items go through
// both heaps (delay_split.go) and cross the bound as it follows the clock, more
// of them at a time than a locked section moves.
func TestManyDelayedItemsComeOutInReadyTimeOrder(t *testing.T) {
	for _, c := range []struct {
		unit time.Duration
		n    int
	}{{time.Millisecond, 5000}, {50 * time.Millisecond, 20000}} {
		t.Run(fmt.Sprintf("delays=%v-%v", c.unit, 100*c.unit), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { manyDelayedWith(t, c.unit, c.n, false) })
		})
	}
}

// manyDelayedWith runs the test above. With replace, every delay is an
// AddWith with Replace, and the item's time is the last one set, later or
// earlier.
func manyDelayedWith(t *testing.T, unit time.Duration, n int, replace bool) {
	type delay struct {
		at        time.Duration // since start
		set, item int
	}
	const rounds = 100
	rng := rand.New(rand.NewPCG(1, 2))
	q := workqueue.New[int]()
	start := time.Now()
	ready := make(map[int]delay)
	var live []int // the items delayed, and some no longer
	set, next := 0, 0
	delayed := func(item int) {
		d := time.Duration(1+rng.IntN(100)) * unit
		if replace {
			q.AddWith(item, workqueue.AddOpts{After: d, Replace: true})
		} else {
			q.AddAfter(item, d)
		}
		at := time.Since(start) + d
		if old, ok := ready[item]; !ok || at < old.at || replace {
			set++
			ready[item] = delay{at, set, item}
		}
	}
	pick := func() (int, bool) { // an item still delayed
		item := live[rng.IntN(len(live))]
		d, ok := ready[item]
		return item, ok && d.at > time.Since(start)
	}
	var got []int
	for range n {
		delayed(next)
		live = append(live, next)
		next++
	}
	for range rounds {
		sleep(unit)
		got = append(got, q.TryTake(2*n)...)
		for range 50 {
			if item, ok := pick(); ok {
				delayed(item) // the earlier time wins, or the last with replace
			}
		}
		for range 20 {
			if item, ok := pick(); ok {
				q.Remove(item)
				delete(ready, item)
			}
		}
		for range 50 {
			delayed(next)
			live = append(live, next)
			next++
		}
	}
	sleep(101 * unit)
	got = append(got, q.TryTake(4*n)...)
	if st := q.Stats(); st.Delayed != 0 {
		t.Fatalf("Stats().Delayed = %d at the end, want 0", st.Delayed)
	}
	want := make([]delay, 0, len(ready))
	for _, d := range ready {
		want = append(want, d)
	}
	slices.SortFunc(want, func(a, b delay) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.set, b.set))
	})
	items := make([]int, len(want))
	for i, d := range want {
		items[i] = d.item
	}
	wantItems(t, "the items handed out", got, items...)
}
