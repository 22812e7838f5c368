package rqtest

import (
	"context"
	"errors"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/readyq"
)

var bg = context.Background()

// result is what a Wait returned.
type result struct {
	items []int
	err   error
}

// parkWait calls Wait in a goroutine and, inside a synctest bubble,
// returns once the call is blocked (or done).
func parkWait(ctx context.Context, q Queue[int], max int) <-chan result {
	return testkit.Park(func() result {
		items, err := q.Wait(ctx, max)
		return result{items, err}
	})
}

func wantItems(t *testing.T, what string, got []int, want ...int) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
}

func mustWait(t *testing.T, q Queue[int], max int, want ...int) {
	t.Helper()
	got, err := q.Wait(bg, max)
	testkit.MustNil(t, err)
	wantItems(t, "Wait", got, want...)
}

func add(q Queue[int], items ...int) {
	for _, k := range items {
		q.Add(k)
	}
}

func testAddQueuesAtMostOnce(t *testing.T, x Impl) {
	q := x.New()
	if !q.Add(1) || q.Add(1) || !q.Add(2) || q.Add(1) {
		t.Fatal("Add: want true, false, true, false")
	}
	if q.Len() != 2 {
		t.Fatalf("Len = %d, want 2", q.Len())
	}
	wantItems(t, "TryTake", q.TryTake(10), 1, 2)
}

func testFIFOByFirstMark(t *testing.T, x Impl) {
	q := x.New()
	add(q, 3, 1, 2, 1, 3, 4)
	wantItems(t, "TryTake", q.TryTake(2), 3, 1)
	add(q, 5, 2)
	wantItems(t, "TryTake", q.TryTake(10), 2, 4, 5)
}

func testZeroValueIsUsable(t *testing.T, x Impl) {
	q := x.ZeroString()
	if !q.Add("a") {
		t.Fatal("Add on the zero value failed")
	}
	got, err := q.Wait(bg, 1)
	if err != nil || !slices.Equal(got, []string{"a"}) {
		t.Fatalf("Wait = %v, %v", got, err)
	}
	if q.Done("a") != 1 || !q.Add("a") {
		t.Fatal("Done or Add after Done failed: the zero value is edge-triggered")
	}
}

func testMarkWhileInFlightIsKeptAsideAndQueuedAtDone(t *testing.T, x Impl) {
	q := x.New()
	add(q, 1)
	wantItems(t, "TryTake", q.TryTake(1), 1)
	if !q.Add(1) || q.Add(1) {
		t.Fatal("Add of an item in flight: want true (kept aside), then false (absorbed)")
	}
	if st := q.Stats(); st.Queued != 0 || st.Aside != 1 || st.InFlight != 1 {
		t.Fatalf("Stats = %v: the mark must be kept aside, not queued", st)
	}
	wantItems(t, "TryTake while in flight", q.TryTake(1))
	if n := q.Done(1); n != 1 {
		t.Fatalf("Done = %d, want 1", n)
	}
	wantItems(t, "TryTake after Done", q.TryTake(1), 1)
}

func testKeptAsideMarksReturnInArrivalOrder(t *testing.T, x Impl) {
	q := x.New()
	add(q, 1, 2, 3, 4)
	wantItems(t, "TryTake", q.TryTake(4), 1, 2, 3, 4)
	add(q, 3, 1, 4) // arrivals during the "scan", in this order
	q.Done(1, 2, 3, 4)
	wantItems(t, "TryTake", q.TryTake(4), 3, 1, 4)
}

// testLevelRoundRobin is the kernel fact: with maxevents 2 over five ready
// level-triggered items, successive epoll_waits report them round-robin.
func testLevelRoundRobin(t *testing.T, x Impl) {
	q := x.NewStringWith(readyq.Config[string]{Mode: readyq.Level})
	for _, s := range []string{"a", "b", "c", "d", "e"} {
		q.Add(s)
	}
	var got [][]string
	for range 5 {
		items := q.TryTake(2)
		got = append(got, items)
		q.Done(items...)
	}
	want := [][]string{{"a", "b"}, {"c", "d"}, {"e", "a"}, {"b", "c"}, {"d", "e"}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("takes = %v, want %v", got, want)
	}
}

func testLevelRecheckForgetsItemsNoLongerReady(t *testing.T, x Impl) {
	stillReady := map[int]bool{1: true, 2: false}
	q := x.NewWith(readyq.Config[int]{
		Mode:    readyq.Level,
		Recheck: func(k int) bool { return stillReady[k] },
	})
	add(q, 1, 2)
	q.Done(q.TryTake(2)...)
	wantItems(t, "after the re-poll", q.TryTake(2), 1)
	q.Add(2) // marked again: queued in level mode once more
	wantItems(t, "after a new mark", q.TryTake(2), 2)
}

func testLevelMarkWhileInFlightBeatsRecheck(t *testing.T, x Impl) {
	q := x.NewWith(readyq.Config[int]{
		Mode:    readyq.Level,
		Recheck: func(int) bool { return false },
	})
	add(q, 1)
	q.TryTake(1)
	q.Add(1) // became ready again while in flight
	q.Done(1)
	wantItems(t, "TryTake", q.TryTake(1), 1)
}

func testOneShotDisarmedUntilRearm(t *testing.T, x Impl) {
	q := x.NewWith(readyq.Config[int]{Mode: readyq.OneShot})
	add(q, 1)
	wantItems(t, "TryTake", q.TryTake(1), 1)
	q.Done(1)
	if !q.Add(1) || q.Add(1) {
		t.Fatal("Add of a disarmed item: want true (kept), then false")
	}
	wantItems(t, "TryTake while disarmed", q.TryTake(1))
	if q.Stats().Disarmed != 1 {
		t.Fatalf("Stats = %v, want one disarmed item", q.Stats())
	}
	if !q.Rearm(1) || q.Rearm(1) {
		t.Fatal("Rearm: want true, then false (already armed)")
	}
	wantItems(t, "TryTake after Rearm", q.TryTake(1), 1) // the mark kept while disarmed
}

func testOneShotRearmWithoutMarkWaitsForNextMark(t *testing.T, x Impl) {
	q := x.New()
	q.AddMode(7, readyq.OneShot)
	q.Done(q.TryTake(1)...)
	q.Rearm(7)
	wantItems(t, "TryTake", q.TryTake(1))
	q.Add(7) // the item keeps its one-shot mode while the queue knows it
	wantItems(t, "TryTake", q.TryTake(1), 7)
	q.Done(7)
	q.Add(7)
	wantItems(t, "TryTake while disarmed", q.TryTake(1))
}

func testOneShotRearmWhileInFlight(t *testing.T, x Impl) {
	q := x.NewWith(readyq.Config[int]{Mode: readyq.OneShot})
	add(q, 1)
	q.TryTake(1)
	q.Add(1)
	if !q.Rearm(1) || q.Stats().Aside != 1 {
		t.Fatalf("Rearm in flight: %v", q.Stats())
	}
	q.Done(1)
	wantItems(t, "TryTake", q.TryTake(1), 1)
}

func testModeIsFixedWhileKnown(t *testing.T, x Impl) {
	q := x.New()
	q.AddMode(1, readyq.Level)
	q.AddMode(1, readyq.Edge) // already queued: mode unchanged
	q.Done(q.TryTake(1)...)
	wantItems(t, "level item back", q.TryTake(1), 1)
	q.Remove(1)
	q.Done(1)
	q.AddMode(1, readyq.Edge)
	q.Done(q.TryTake(1)...)
	wantItems(t, "edge item forgotten", q.TryTake(1))
	if q.AddMode(2, readyq.Mode(9)) || q.Len() != 0 {
		t.Fatal("AddMode with an unknown mode changed something")
	}
}

func testRemoveWinsOverLaterHandOut(t *testing.T, x Impl) {
	q := x.New()
	add(q, 1, 2, 3)
	if !q.Remove(2) || q.Remove(2) {
		t.Fatal("Remove: want true, then false")
	}
	wantItems(t, "TryTake", q.TryTake(10), 1, 3)
	if q.Stats().Queued != 0 {
		t.Fatal("holes counted as queued")
	}
}

func testRemoveInFlightDropsMarkAndForgetsAtDone(t *testing.T, x Impl) {
	q := x.NewWith(readyq.Config[int]{Mode: readyq.Level})
	add(q, 1)
	q.TryTake(1)
	q.Add(1)
	if !q.Remove(1) || q.Stats().InFlight != 1 || q.Stats().Aside != 0 {
		t.Fatalf("Remove in flight: %v", q.Stats())
	}
	if q.Done(1) != 1 {
		t.Fatal("Done of a removed item in flight must end its hand-out")
	}
	wantItems(t, "TryTake", q.TryTake(1))
	if q.Done(1) != 0 {
		t.Fatal("second Done counted")
	}
}

func testReAddAfterRemoveInFlightIsNotHandedOutTwice(t *testing.T, x Impl) {
	q := x.New()
	add(q, 1)
	q.TryTake(1)
	q.Remove(1)
	q.Add(1) // still held by the consumer: kept aside
	wantItems(t, "TryTake while held", q.TryTake(1))
	q.Done(1)
	wantItems(t, "TryTake after Done", q.TryTake(1), 1)
}

func testDoneOfItemsNotInFlightIsANoOp(t *testing.T, x Impl) {
	q := x.New()
	add(q, 1)
	before := q.Stats()
	if n := q.Done(1, 2, 3); n != 0 {
		t.Fatalf("Done of a queued and unknown items = %d, want 0", n)
	}
	if q.Stats() != before {
		t.Fatalf("Stats changed: %v → %v", before, q.Stats())
	}
	q.TryTake(1)
	if n := q.Done(1, 1); n != 1 {
		t.Fatalf("Done(1, 1) = %d, want 1", n)
	}
	if q.Rearm(1) || q.Rearm(9) {
		t.Fatal("Rearm of an edge or unknown item succeeded")
	}
}

func testBadArguments(t *testing.T, x Impl) {
	q := x.New()
	add(q, 1)
	for name, max := range map[string]int{"max=0": 0, "max=-1": -1} {
		if _, err := q.Wait(bg, max); !errors.Is(err, readyq.ErrInvalid) {
			t.Errorf("Wait %s: %v, want ErrInvalid", name, err)
		}
		if got := q.TryTake(max); got != nil {
			t.Errorf("TryTake %s = %v, want nil", name, got)
		}
	}
	if _, err := q.Wait(testkit.NilContext, 1); !errors.Is(err, readyq.ErrInvalid) {
		t.Errorf("Wait(nil ctx): %v", err)
	}
	buf := []int{42}
	if got, err := q.WaitAppend(testkit.NilContext, buf, 1); !errors.Is(err, readyq.ErrInvalid) || !slices.Equal(got, buf) {
		t.Errorf("WaitAppend(nil ctx) = %v, %v", got, err)
	}
	testkit.ErrIs(t, "Drain(nil ctx)", q.Drain(testkit.NilContext), readyq.ErrInvalid)
	if q.Len() != 1 || q.InFlight() != 0 {
		t.Fatalf("refused calls changed the queue: %v", q)
	}
}

func testWaitAppendReusesTheBuffer(t *testing.T, x Impl) {
	q := x.New()
	buf := make([]int, 0, 8)
	testkit.NoAllocs(t, "Add+WaitAppend+Done", func() {
		add(q, 1, 2, 3)
		var err error
		buf, err = q.WaitAppend(bg, buf[:0], 8)
		if err != nil || len(buf) != 3 {
			t.Fatalf("WaitAppend = %v, %v", buf, err)
		}
		q.Done(buf...)
	})
	testkit.NoAllocs(t, "Add+TryTakeAppend+Done", func() {
		add(q, 1, 2, 3)
		buf = q.TryTakeAppend(buf[:0], 2)
		q.Done(buf...)
		buf = q.TryTakeAppend(buf[:0], 2)
		q.Done(buf...)
	})
}

func testBlockedWaitAllocatesNothing(t *testing.T, x Impl) {
	synctest.Test(t, func(t *testing.T) {
		q := x.New()
		buf := make([]int, 0, 8)
		in, out := make(chan struct{}), make(chan struct{})
		go func() {
			for range in {
				buf, _ = q.WaitAppend(bg, buf[:0], 8)
				q.Done(buf...)
				out <- struct{}{}
			}
		}()
		testkit.NoAllocs(t, "blocked WaitAppend", func() {
			in <- struct{}{}
			synctest.Wait() // blocked in WaitAppend
			q.Add(1)
			<-out
		})
		close(in)
	})
}

func testWaitBlocksUntilAdd(t *testing.T, x Impl) {
	synctest.Test(t, func(t *testing.T) {
		q := x.New()
		res := parkWait(bg, q, 4)
		testkit.Pending(t, res)
		if q.Stats().Waiting != 1 {
			t.Fatalf("Stats = %v, want one waiter", q.Stats())
		}
		q.Add(5)
		r := <-res
		testkit.MustNil(t, r.err)
		wantItems(t, "Wait", r.items, 5)
		if q.InFlight() != 1 {
			t.Fatal("handed-out item not in flight")
		}
	})
}

// testStatsCountsBlockedDrains: Stats shows a blocked Drain caller, and
// none once the queue is idle and the caller has returned.
func testStatsCountsBlockedDrains(t *testing.T, x Impl) {
	synctest.Test(t, func(t *testing.T) {
		q := x.New()
		add(q, 1)
		drained := testkit.Park(func() error { return q.Drain(bg) })
		if st := q.Stats(); st.Draining != 1 {
			t.Fatalf("Stats = %v with a Drain parked, want draining=1", st)
		}
		if got := q.TryTake(1); len(got) != 1 {
			t.Fatalf("TryTake = %v, want the item", got)
		}
		q.Done(1)
		testkit.MustNil(t, <-drained)
		if st := q.Stats(); st.Draining != 0 {
			t.Fatalf("Stats = %v once drained, want draining=0", st)
		}
	})
}

func testWaitersServedInFIFOOrder(t *testing.T, x Impl) {
	synctest.Test(t, func(t *testing.T) {
		q := x.New()
		const n = 5
		res := make([]<-chan result, n)
		for i := range res {
			res[i] = parkWait(bg, q, 1) // i is queued before i+1 starts
		}
		for i := range n {
			q.Add(i)
			r := <-res[i]
			wantItems(t, "Wait", r.items, i)
		}
	})
}

func testWaitCanceledLosesNothing(t *testing.T, x Impl) {
	synctest.Test(t, func(t *testing.T) {
		q := x.New()
		ctx, cancel := context.WithCancel(bg)
		res := parkWait(ctx, q, 1)
		cancel()
		r := <-res
		testkit.ErrIs(t, "Wait", r.err, context.Canceled)
		q.Add(1)
		if st := q.Stats(); st.Queued != 1 || st.Waiting != 0 {
			t.Fatalf("after a cancelled Wait: %v", st)
		}
		wantItems(t, "TryTake", q.TryTake(1), 1)
	})
}

// testDoneContextStopsWaits: a done context is a request to stop, so Wait,
// WaitAppend and Drain return ctx.Err() at once and take nothing, even with
// items queued; TryTake takes them.
func testDoneContextStopsWaits(t *testing.T, x Impl) {
	q := x.New()
	done := testkit.Cancelled()
	add(q, 1)
	got, err := q.Wait(done, 1)
	testkit.ErrIs(t, "Wait(done) with an item queued", err, context.Canceled)
	wantItems(t, "Wait(done)", got)
	buf := []int{7}
	got, err = q.WaitAppend(done, buf, 1)
	testkit.ErrIs(t, "WaitAppend(done)", err, context.Canceled)
	wantItems(t, "WaitAppend(done)", got, 7)
	testkit.ErrIs(t, "Drain(done) with an item queued", q.Drain(done), context.Canceled)
	_, err = q.Wait(done, 0)
	testkit.ErrIs(t, "Wait(done, 0)", err, readyq.ErrInvalid)
	wantItems(t, "TryTake", q.TryTake(1), 1)
	q.Done(1)
	testkit.ErrIs(t, "Drain(done) on an idle queue", q.Drain(done), context.Canceled)
	q.Close()
	_, err = q.Wait(done, 1)
	testkit.ErrIs(t, "Wait(done) on an exhausted queue", err, context.Canceled)
}

// testNextWithDoneContextFinishesThenStops: Next with a done context still
// finishes the items it is given (skipping that would strand them), then
// returns ctx.Err() without taking the next batch. The consumer loop of
// the package doc so ends once ctx is done, even with a level item that is
// queued again at every Done.
//
// It runs in a synctest bubble, so that a Next that blocks (a level item
// not queued again) fails the test at once as a deadlock.
func testNextWithDoneContextFinishesThenStops(t *testing.T, x Impl) {
	for _, recheck := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) { nextStopsAtCancel(t, recheck) })
	}
}

func nextStopsAtCancel(t *testing.T, recheck bool) {
	c := readyq.Config[int]{Mode: readyq.Level}
	if recheck {
		c.Recheck = func(int) bool { return true }
	}
	q := readyq.NewWithConfig(c)
	add(q, 1)
	ctx, cancel := context.WithCancel(bg)
	defer cancel()
	var batch []int
	var err error
	handOuts := 0
	for {
		batch, err = q.Next(ctx, batch, 64)
		if err != nil {
			break
		}
		if handOuts++; handOuts == 3 {
			cancel()
		}
	}
	testkit.ErrIs(t, "Next after cancel", err, context.Canceled)
	if handOuts != 3 {
		t.Fatalf("recheck %v: %d hand-outs, want 3 (the loop must stop at the cancel)", recheck, handOuts)
	}
	if len(batch) != 0 || q.InFlight() != 0 || q.Len() != 1 {
		t.Fatalf("recheck %v: Next(done) returned %v with %v: the held item must be finished and queued again", recheck, batch, q)
	}
}

func testCanceledHeadLetsOthersProceed(t *testing.T, x Impl) {
	synctest.Test(t, func(t *testing.T) {
		q := x.New()
		ctx, cancel := context.WithCancel(bg)
		head := parkWait(ctx, q, 1)
		behind := parkWait(bg, q, 1)
		cancel()
		q.Add(1) // the head may or may not have noticed: the item goes to a live caller
		r := <-behind
		wantItems(t, "Wait behind a cancelled head", r.items, 1)
		testkit.ErrIs(t, "head", (<-head).err, context.Canceled)
	})
}

func testGrantRacingCancelIsNotLost(t *testing.T, x Impl) {
	// The item is handed over while ctx is live; ctx ends before the
	// caller runs. The call must return the item, never ctx.Err() with
	// the item gone.
	synctest.Test(t, func(t *testing.T) {
		q := x.New()
		ctx, cancel := context.WithCancel(bg)
		res := parkWait(ctx, q, 1)
		q.Add(1)
		cancel()
		r := <-res
		testkit.MustNil(t, r.err)
		wantItems(t, "Wait", r.items, 1)
	})
}

func testCloseWakesEveryWaiter(t *testing.T, x Impl) {
	synctest.Test(t, func(t *testing.T) {
		q := x.New()
		var res []<-chan result
		for range 3 {
			res = append(res, parkWait(bg, q, 1))
		}
		q.Close()
		for i, r := range res {
			testkit.ErrIs(t, "Wait #"+string(rune('0'+i)), (<-r).err, readyq.ErrClosed)
		}
	})
}

func testWaitAfterCloseDrainsThenErrClosed(t *testing.T, x Impl) {
	q := x.New()
	add(q, 1, 2)
	q.Close()
	if q.Add(3) || q.AddMode(3, readyq.Level) {
		t.Fatal("Add after Close succeeded")
	}
	mustWait(t, q, 1, 1)
	mustWait(t, q, 1, 2)
	_, err := q.Wait(bg, 1)
	testkit.ErrIs(t, "Wait", err, readyq.ErrClosed)
	if !q.Stats().Closed {
		t.Fatal("Stats().Closed = false")
	}
}

func testWaitAfterCloseWaitsForKeptAsideMarks(t *testing.T, x Impl) {
	synctest.Test(t, func(t *testing.T) {
		q := x.New()
		add(q, 1, 2)
		q.TryTake(2)
		q.Add(1) // kept aside: Done(1) will queue it again
		q.Close()
		res := parkWait(bg, q, 1)
		testkit.Pending(t, res) // 1 may still come back
		q.Done(2)               // no mark: nothing comes back
		synctest.Wait()
		testkit.Pending(t, res)
		q.Done(1)
		wantItems(t, "Wait", (<-res).items, 1)
		q.Done(1)
		_, err := q.Wait(bg, 1)
		testkit.ErrIs(t, "Wait", err, readyq.ErrClosed)
	})
}

func testWaitAfterCloseEndsWhenRemoveDropsTheLastMark(t *testing.T, x Impl) {
	synctest.Test(t, func(t *testing.T) {
		q := x.New()
		add(q, 1)
		q.TryTake(1)
		q.Add(1)
		q.Close()
		res := parkWait(bg, q, 1)
		testkit.Pending(t, res)
		q.Remove(1)
		testkit.ErrIs(t, "Wait", (<-res).err, readyq.ErrClosed)
	})
}

func testLevelItemsNotRequeuedAfterClose(t *testing.T, x Impl) {
	q := x.NewWith(readyq.Config[int]{Mode: readyq.Level})
	add(q, 1, 2)
	q.TryTake(2)
	q.Add(2) // a mark kept aside before Close still counts
	q.Close()
	q.Done(1, 2)
	mustWait(t, q, 2, 2)
	q.Done(2)
	_, err := q.Wait(bg, 2)
	testkit.ErrIs(t, "Wait", err, readyq.ErrClosed)
}

func testRearmAfterCloseIsRefused(t *testing.T, x Impl) {
	q := x.NewWith(readyq.Config[int]{Mode: readyq.OneShot})
	add(q, 1)
	q.Done(q.TryTake(1)...)
	q.Add(1)
	q.Close()
	if q.Rearm(1) {
		t.Fatal("Rearm after Close succeeded")
	}
	if _, err := q.Wait(bg, 1); !errors.Is(err, readyq.ErrClosed) {
		t.Fatalf("Wait: %v", err)
	}
}

func testDrainReturnsWhenNothingQueuedOrInFlight(t *testing.T, x Impl) {
	synctest.Test(t, func(t *testing.T) {
		q := x.New()
		testkit.MustNil(t, q.Drain(bg)) // already idle
		add(q, 1, 2)
		res := testkit.Park(func() error { return q.Drain(bg) })
		items := q.TryTake(2)
		synctest.Wait()
		testkit.Pending(t, res) // in flight
		q.Done(items[0])
		synctest.Wait()
		testkit.Pending(t, res)
		q.Done(items[1])
		testkit.MustNil(t, <-res)
	})
}

func testDrainWorksOnClosedQueueAndCancels(t *testing.T, x Impl) {
	synctest.Test(t, func(t *testing.T) {
		q := x.New()
		add(q, 1)
		q.Close()
		ctx, cancel := context.WithCancel(bg)
		res := testkit.Park(func() error { return q.Drain(ctx) })
		cancel()
		testkit.ErrIs(t, "Drain", <-res, context.Canceled)
		res = testkit.Park(func() error { return q.Drain(bg) })
		q.Done(q.TryTake(1)...)
		testkit.MustNil(t, <-res)
	})
}

func testReadyFiresOnAddAndOnExhaustion(t *testing.T, x Impl) {
	q := x.New()
	ch := q.Ready()
	if testkit.IsClosed(ch) {
		t.Fatal("Ready closed on an empty queue")
	}
	q.Add(1)
	if !testkit.IsClosed(ch) || !testkit.IsClosed(q.Ready()) {
		t.Fatal("Ready not closed after Add")
	}
	q.TryTake(1)
	ch = q.Ready()
	if testkit.IsClosed(ch) {
		t.Fatal("Ready closed with nothing queued")
	}
	q.Close() // the item in flight has no mark: nothing is left to hand out
	if !testkit.IsClosed(ch) {
		t.Fatal("Ready not closed once the closed queue is exhausted")
	}
}

func testStatsAndString(t *testing.T, x Impl) {
	q := x.NewWith(readyq.Config[int]{Mode: readyq.OneShot})
	add(q, 1, 2, 3)
	q.TryTake(2)
	q.Add(1)
	q.Rearm(1)
	q.Done(2)
	testkit.WantString(t, q, x.Name+"{queued=1 inflight=1 aside=1 disarmed=1 waiting=0 draining=0}")
	q.Close()
	testkit.WantString(t, q, x.Name+"{queued=1 inflight=1 aside=1 disarmed=1 waiting=0 draining=0 closed}")
	if readyq.Level.String() != "level" || readyq.Mode(5).String() != "Mode(5)" {
		t.Fatal("Mode.String")
	}
}

func testNextFinishesThenWaits(t *testing.T, x Impl) {
	synctest.Test(t, func(t *testing.T) {
		q := x.New()
		add(q, 1, 2)
		batch, err := q.Next(bg, nil, 1)
		testkit.MustNil(t, err)
		wantItems(t, "Next", batch, 1)
		q.Add(1) // kept aside
		r := <-parkWait(bg, q, 5)
		wantItems(t, "other Wait", r.items, 2)
		res := testkit.Park(func() result {
			items, err := q.Next(bg, batch, 5) // Done(1) queues 1 again; Next then takes it
			return result{items, err}
		})
		r = <-res
		testkit.MustNil(t, r.err)
		wantItems(t, "Next", r.items, 1)
		if q.InFlight() != 2 {
			t.Fatalf("InFlight = %d, want 2 (1 and 2)", q.InFlight())
		}
		q.Close()
		q.Done(2)
		r.items, r.err = q.Next(bg, r.items, 5)
		testkit.ErrIs(t, "Next after Close", r.err, readyq.ErrClosed)
		if q.InFlight() != 0 || len(r.items) != 0 {
			t.Fatalf("Next's Done did not take effect: %v, %v", q, r.items)
		}
	})
}

func testNextServesBlockedCallersFirst(t *testing.T, x Impl) {
	synctest.Test(t, func(t *testing.T) {
		q := x.New()
		add(q, 1)
		batch := q.TryTake(1)
		q.Add(1)
		waiting := parkWait(bg, q, 1)
		res := testkit.Park(func() result {
			items, err := q.Next(testkit.Cancelled(), batch, 1)
			return result{items, err}
		})
		wantItems(t, "blocked caller", (<-waiting).items, 1)
		testkit.ErrIs(t, "Next", (<-res).err, context.Canceled)
	})
}

// testNextWithMaxZeroReturnsDoneUnchanged: Next with max ≤ 0 returns
// ErrInvalid and its done argument as it was, length and items. It
// finishes none of them, so the caller still holds them and may pass them
// again. The model's Next returns the same (model.ReadyQ.Next).
func testNextWithMaxZeroReturnsDoneUnchanged(t *testing.T, x Impl) {
	for _, max := range []int{0, -1} {
		q := x.New()
		add(q, 1, 2)
		held := q.TryTake(2)
		got, err := q.Next(bg, held, max)
		testkit.ErrIs(t, "Next with max ≤ 0", err, readyq.ErrInvalid)
		if !slices.Equal(got, []int{1, 2}) {
			t.Fatalf("Next(%v, %d) = %v, want its argument back", held, max, got)
		}
		if q.InFlight() != 2 {
			t.Fatalf("Next(%v, %d) finished items: %v", held, max, q)
		}
	}
}
