package model_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evsync/evsync/internal/evserr"
	"github.com/evsync/evsync/model"
	"pgregory.net/rapid"
)

// Tests of the controller work-queue rules: the clock and delays,
// priorities, fair share and the rate limiter.

func valid(t *testing.T, q *model.WorkQueue) {
	t.Helper()
	if err := q.Validate(); err != nil {
		t.Fatal(err)
	}
}

func wantQueue(t *testing.T, q *model.WorkQueue, want ...int) {
	t.Helper()
	if got := q.Queue(); !slices.Equal(got, want) {
		t.Fatalf("Queue() = %v, want %v", got, want)
	}
	valid(t, q)
}

// wantReadyAt checks that k is delayed until want.
func wantReadyAt(t *testing.T, q *model.WorkQueue, k int, want time.Duration) {
	t.Helper()
	for _, d := range q.Delays() {
		if d.Item == k && d.At != want {
			t.Fatalf("item %d ready at %v, want %v", k, d.At, want)
		}
		if d.Item == k {
			return
		}
	}
	t.Fatalf("item %d not delayed, want ready at %v (Delays %v)", k, want, q.Delays())
}

// delayedItems lists the delayed items in the order Delays gives them.
func delayedItems(q *model.WorkQueue) []int {
	var ks []int
	for _, d := range q.Delays() {
		ks = append(ks, d.Item)
	}
	return ks
}

func wantAdd(t *testing.T, name string, got, want bool) {
	t.Helper()
	if got != want {
		t.Fatalf("%s = %v, want %v", name, got, want)
	}
}

func TestWorkQueueAddAfterDelaysUntilReadyTime(t *testing.T) {
	q := model.NewWorkQueue(model.Edge, nil)
	tk := q.Ready()
	wantAdd(t, "AddAfter(1, 10ms)", q.AddAfter(1, 10*ms), true)
	if q.Len() != 0 || q.Stats().Delayed != 1 || q.Fired(tk) {
		t.Fatalf("Len %d, Delayed %d, fired %v", q.Len(), q.Stats().Delayed, q.Fired(tk))
	}
	wantReadyAt(t, q, 1, 10*ms)
	if ds := q.Delays(); len(ds) != 1 || ds[0] != (model.Delay{Item: 1, At: 10 * ms}) {
		t.Fatalf("Delays() = %v", ds)
	}
	q.Advance(9 * ms)
	wantQueue(t, q)
	q.Advance(ms)
	wantQueue(t, q, 1)
	if q.Now() != 10*ms || q.Stats().Delayed != 0 || !q.Fired(tk) {
		t.Fatalf("Now %v, Delayed %d, fired %v", q.Now(), q.Stats().Delayed, q.Fired(tk))
	}
	if ds := q.Delays(); len(ds) != 0 {
		t.Fatalf("Delays() = %v with nothing delayed", ds)
	}
}

func TestWorkQueueAddAfterNonPositiveIsAdd(t *testing.T) {
	q := model.NewWorkQueue(model.Edge, nil)
	wantAdd(t, "AddAfter(1, 0)", q.AddAfter(1, 0), true)
	wantAdd(t, "AddAfter(2, -1)", q.AddAfter(2, -1), true)
	wantAdd(t, "AddAfter(1, 0) again", q.AddAfter(1, 0), false)
	wantQueue(t, q, 1, 2)
	if q.Stats().Delayed != 0 {
		t.Fatalf("Delayed = %d", q.Stats().Delayed)
	}
}

func TestWorkQueueDelayedKeepsEarlierTime(t *testing.T) {
	q := model.NewWorkQueue(model.Edge, nil)
	q.AddAfter(1, 10*ms)
	wantAdd(t, "later AddAfter", q.AddAfter(1, 20*ms), false)
	wantReadyAt(t, q, 1, 10*ms)
	wantAdd(t, "earlier AddAfter", q.AddAfter(1, 5*ms), false)
	wantReadyAt(t, q, 1, 5*ms)
	wantAdd(t, "AddAfter(0) of a delayed item", q.AddAfter(1, 0), true)
	wantQueue(t, q, 1)
	if q.Stats().Delayed != 0 {
		t.Fatalf("Delayed = %d after queueing", q.Stats().Delayed)
	}
}

func TestWorkQueueAddOfDelayedQueuesNowAndCancelsDelay(t *testing.T) {
	q := model.NewWorkQueue(model.Edge, nil)
	q.AddAfter(1, 10*ms)
	wantAdd(t, "Add of a delayed item", q.Add(1), true)
	wantTake(t, q, 5, 1)
	q.Advance(time.Hour)
	wantQueue(t, q) // the cancelled delay queues nothing
	if !slices.Equal(q.InFlightItems(), []int{1}) {
		t.Fatalf("InFlightItems = %v", q.InFlightItems())
	}
}

func TestWorkQueueAddAfterOfQueuedIsUnchanged(t *testing.T) {
	q := model.NewWorkQueue(model.Edge, nil)
	q.Add(1)
	q.Add(2)
	wantAdd(t, "AddAfter of a queued item", q.AddAfter(1, 10*ms), false)
	wantQueue(t, q, 1, 2)
	if q.Stats().Delayed != 0 {
		t.Fatal("a queued item became delayed")
	}
}

// TestWorkQueueDelayedQueuedInReadyTimeOrderTiesBySetting: due items go to
// the tail in ready-time order; equal times in the order they were set,
// an adopted earlier time counting as set when it was adopted.
func TestWorkQueueDelayedQueuedInReadyTimeOrderTiesBySetting(t *testing.T) {
	q := model.NewWorkQueue(model.Edge, nil)
	q.AddAfter(4, 20*ms)
	q.AddAfter(3, 10*ms)
	q.AddAfter(1, 10*ms)
	q.AddAfter(2, 5*ms)
	q.AddAfter(4, 10*ms) // now ties with 3 and 1, set after them
	q.AddAfter(5, 11*ms)
	if got := delayedItems(q); !slices.Equal(got, []int{2, 3, 1, 4, 5}) {
		t.Fatalf("DelayedItems = %v", got)
	}
	q.Add(9)
	q.Advance(10 * ms)
	wantQueue(t, q, 9, 2, 3, 1, 4)
	wantReadyAt(t, q, 5, 11*ms)
}

func TestWorkQueueAddAfterInFlightKeptAsideEarliestWins(t *testing.T) {
	q := model.NewWorkQueue(model.Edge, nil)
	q.Add(1)
	wantTake(t, q, 1, 1)
	wantAdd(t, "first kept-aside mark", q.AddAfter(1, 20*ms), true)
	wantAdd(t, "earlier kept-aside mark", q.AddAfter(1, 10*ms), false)
	wantAdd(t, "later kept-aside mark", q.AddAfter(1, 30*ms), false)
	if q.Stats().Aside != 1 {
		t.Fatalf("Aside = %d", q.Stats().Aside)
	}
	q.Done(1) // the mark is in the future: delayed, at the earliest time
	if q.Len() != 0 || q.InFlight() != 0 {
		t.Fatalf("Len %d, InFlight %d", q.Len(), q.InFlight())
	}
	wantReadyAt(t, q, 1, 10*ms)
	q.Advance(10 * ms)
	wantQueue(t, q, 1)
}

// TestWorkQueueKeptAsideDueAtDoneQueuedInArrivalOrder: marks whose time has
// come at Done are queued as before, in the order the marks arrived,
// whatever their times.
func TestWorkQueueKeptAsideDueAtDoneQueuedInArrivalOrder(t *testing.T) {
	q := model.NewWorkQueue(model.Edge, nil)
	q.Add(1)
	q.Add(2)
	q.Add(3)
	wantTake(t, q, 3, 1, 2, 3)
	q.AddAfter(2, 10*ms)
	q.Add(3)
	q.AddAfter(1, 5*ms)
	q.Advance(10 * ms)
	q.Done(1, 2, 3)
	wantQueue(t, q, 2, 3, 1)
}

// TestWorkQueueKeptAsideDelayKeepsItsTieOrder: a mark turned into a delay at
// Done ties with other items by the time the mark was set.
func TestWorkQueueKeptAsideDelayKeepsItsTieOrder(t *testing.T) {
	q := model.NewWorkQueue(model.Edge, nil)
	q.Add(1)
	wantTake(t, q, 1, 1)
	q.AddAfter(1, 10*ms)
	q.AddAfter(2, 10*ms)
	q.Done(1)
	if got := delayedItems(q); !slices.Equal(got, []int{1, 2}) {
		t.Fatalf("DelayedItems = %v", got)
	}
	q.Advance(10 * ms)
	wantQueue(t, q, 1, 2)
}

func TestWorkQueueOneShotDisarmedMarkCarriesItsTime(t *testing.T) {
	q := model.NewWorkQueue(model.OneShot, nil)
	q.Add(1)
	q.Add(2)
	wantTake(t, q, 2, 1, 2)
	q.Done(1, 2)
	wantAdd(t, "AddAfter of a disarmed item", q.AddAfter(1, 10*ms), true)
	wantAdd(t, "later AddAfter of a disarmed item", q.AddAfter(1, 20*ms), false)
	wantAdd(t, "Rearm with a mark in the future", q.Rearm(1), true) // delayed, at the earlier time
	wantReadyAt(t, q, 1, 10*ms)
	q.AddAfter(2, 5*ms)
	q.Advance(5 * ms)
	wantAdd(t, "Rearm with a mark due", q.Rearm(2), true)
	wantQueue(t, q, 2)
	q.Advance(5 * ms)
	wantQueue(t, q, 2, 1)
}

func TestWorkQueueOneShotRearmedInFlightMarkInFutureDelays(t *testing.T) {
	q := model.NewWorkQueue(model.OneShot, nil)
	q.Add(1)
	wantTake(t, q, 1, 1)
	q.AddAfter(1, 10*ms)
	q.Rearm(1)
	q.Done(1)
	wantReadyAt(t, q, 1, 10*ms)
	q.Advance(10 * ms)
	wantTake(t, q, 1, 1)
	q.Done(1)
	if q.Stats().Disarmed != 1 {
		t.Fatalf("Disarmed = %d after the delayed hand-out", q.Stats().Disarmed)
	}
}

// TestWorkQueueLevelStillReadyBeatsFutureMark: a level item still ready at
// Done is ready now, earlier than its kept-aside mark; one no longer
// ready waits for the mark.
func TestWorkQueueLevelStillReadyBeatsFutureMark(t *testing.T) {
	ready := map[int]bool{1: true}
	q := model.NewWorkQueue(model.Level, func(k int) bool { return ready[k] })
	q.Add(1)
	q.Add(2)
	wantTake(t, q, 2, 1, 2)
	q.AddAfter(1, 10*ms)
	q.AddAfter(2, 10*ms)
	q.Done(1, 2)
	wantQueue(t, q, 1)
	wantReadyAt(t, q, 2, 10*ms)
}

func TestWorkQueueRemoveForgetsDelayedAndAsideTimes(t *testing.T) {
	q := model.NewWorkQueue(model.Edge, nil)
	q.AddAfter(1, 10*ms)
	q.Add(2)
	wantTake(t, q, 1, 2)
	q.AddAfter(2, 10*ms)
	wantAdd(t, "Remove of a delayed item", q.Remove(1), true)
	wantAdd(t, "Remove of an item in flight with a timed mark", q.Remove(2), true)
	if st := q.Stats(); st.Delayed != 0 || st.Aside != 0 {
		t.Fatalf("Remove kept a ready time: %+v", st)
	}
	q.Done(2)
	q.Advance(time.Hour)
	wantQueue(t, q)
	if len(q.Known()) != 0 {
		t.Fatalf("Known = %v", q.Known())
	}
}

func TestWorkQueueCloseQueuesDelayedInReadyTimeOrder(t *testing.T) {
	q := model.NewWorkQueue(model.Edge, nil)
	q.AddAfter(1, 30*ms)
	q.AddAfter(2, 10*ms)
	q.AddAfter(3, 20*ms)
	q.Add(4)
	q.Close()
	wantQueue(t, q, 4, 2, 3, 1)
	if q.Stats().Delayed != 0 || q.AddAfter(5, ms) || q.AddAfter(5, 0) {
		t.Fatal("delayed after Close, or AddAfter accepted")
	}
	if items, err := q.Wait(model.Live, 10); err != nil || !slices.Equal(items, []int{4, 2, 3, 1}) {
		t.Fatalf("Wait = %v, %v", items, err)
	}
	q.Done(1, 2, 3, 4)
	if _, err := q.Wait(model.Live, 1); err != evserr.ErrClosed {
		t.Fatalf("Wait = %v, want ErrClosed", err)
	}
}

func TestWorkQueueKeptAsideDelayedMarkDueAtDoneAfterClose(t *testing.T) {
	q := model.NewWorkQueue(model.Edge, nil)
	q.Add(1)
	wantTake(t, q, 1, 1)
	q.AddAfter(1, time.Hour)
	q.Close()
	if _, err := q.Wait(model.Live, 1); err != evserr.ErrWouldBlock {
		t.Fatalf("Wait with a timed mark aside = %v, want ErrWouldBlock", err)
	}
	q.Done(1)
	if items, err := q.Wait(model.Live, 1); err != nil || !slices.Equal(items, []int{1}) {
		t.Fatalf("Wait = %v, %v", items, err)
	}
	q.Done(1)
	if _, err := q.Wait(model.Live, 1); err != evserr.ErrClosed {
		t.Fatalf("Wait = %v, want ErrClosed", err)
	}
}

func TestWorkQueueDrainWaitsForDelayed(t *testing.T) {
	q := model.NewWorkQueue(model.Edge, nil)
	q.AddAfter(1, 10*ms)
	for _, step := range []func(){
		func() {},                       // delayed
		func() { q.Advance(10 * ms) },   // queued
		func() { wantTake(t, q, 1, 1) }, // in flight
		func() { q.AddAfter(1, 10*ms) }, // aside
		func() { q.Done(1) },            // delayed again
		func() { q.Close() },            // queued by Close
		func() { wantTake(t, q, 1, 1) }, // in flight
	} {
		step()
		if err := q.Drain(model.Live); err != evserr.ErrWouldBlock {
			t.Fatalf("Drain = %v, want ErrWouldBlock", err)
		}
	}
	q.Done(1)
	if err := q.Drain(model.Live); err != nil {
		t.Fatalf("Drain = %v", err)
	}
}

func TestWorkQueueAdvanceBackwardsPanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.HasPrefix(fmt.Sprint(r), "model: ") {
			t.Fatalf("recover() = %v", r)
		}
	}()
	model.NewWorkQueue(model.Edge, nil).Advance(-1)
}

func add(q *model.WorkQueue, k, prio int) bool { return q.AddWith(k, model.AddOpts{Priority: prio}) }

func TestWorkQueueHighestPriorityFirstFIFOWithin(t *testing.T) {
	q := model.NewWorkQueue(model.Edge, nil)
	for _, kp := range [][2]int{{1, 0}, {2, 5}, {3, 5}, {4, -1}, {5, 0}} {
		add(q, kp[0], kp[1])
	}
	wantQueue(t, q, 2, 3, 1, 5, 4)
	wantTake(t, q, 2, 2, 3)
	add(q, 6, 9)
	wantTake(t, q, 5, 6, 1, 5, 4)
}

func TestWorkQueueRaisingQueuedPriorityMovesToTail(t *testing.T) {
	q := model.NewWorkQueue(model.Edge, nil)
	add(q, 1, 1)
	add(q, 2, 1)
	add(q, 3, 0)
	wantAdd(t, "raise of a queued item", add(q, 3, 1), false)
	wantQueue(t, q, 1, 2, 3)
	wantAdd(t, "equal priority", add(q, 1, 1), false)
	wantAdd(t, "Add (priority 0)", q.Add(2), false)
	wantQueue(t, q, 1, 2, 3) // neither moved nor lowered
	add(q, 1, 2)
	wantQueue(t, q, 1, 2, 3)
	add(q, 2, 2)
	wantQueue(t, q, 1, 2, 3)
	if p, ok := q.Priority(3); !ok || p != 1 {
		t.Fatalf("Priority(3) = %d, %v", p, ok)
	}
}

func TestWorkQueueNegativePriorityRaisedByAdd(t *testing.T) {
	q := model.NewWorkQueue(model.Edge, nil)
	add(q, 1, -3)
	q.Add(2)
	wantQueue(t, q, 2, 1)
	wantAdd(t, "Add of a negative-priority item", q.Add(1), false)
	wantQueue(t, q, 2, 1)
	if p, _ := q.Priority(1); p != 0 {
		t.Fatalf("Priority(1) = %d, want 0", p)
	}
}

func TestWorkQueuePriorityKeptAcrossDoneAndDelay(t *testing.T) {
	q := model.NewWorkQueue(model.Level, nil)
	q.Add(2)
	add(q, 1, 3)
	wantTake(t, q, 1, 1)
	q.Done(1) // level: re-queued, still priority 3
	wantQueue(t, q, 1, 2)

	e := model.NewWorkQueue(model.Edge, nil)
	e.Add(1)
	wantTake(t, e, 1, 1)
	add(e, 1, 7) // kept aside, raises the priority
	e.Add(2)
	e.Done(1)
	wantQueue(t, e, 1, 2)

	d := model.NewWorkQueue(model.Edge, nil)
	d.AddWith(1, model.AddOpts{After: 10 * ms, Priority: 4})
	d.Add(2)
	d.AddAfter(1, 5*ms) // an earlier time, priority 0: 4 stays
	d.Advance(5 * ms)
	wantQueue(t, d, 1, 2)
}

func TestWorkQueueForgottenItemLosesItsPriority(t *testing.T) {
	q := model.NewWorkQueue(model.Edge, nil)
	add(q, 1, 5)
	wantTake(t, q, 1, 1)
	q.Done(1)
	if _, ok := q.Priority(1); ok {
		t.Fatal("Priority of a forgotten item")
	}
	q.Add(1)
	add(q, 2, 5)
	q.Remove(2)
	q.Add(2)
	for _, k := range []int{1, 2} {
		if p, ok := q.Priority(k); !ok || p != 0 {
			t.Fatalf("Priority(%d) = %d, %v; want 0", k, p, ok)
		}
	}
}

// TestWorkQueueRemovedInFlightStartsAgainWithMarkPriority: Remove of an
// item in flight forgets its priority; a mark then makes it known again
// with the mark's priority, and Done queues it at that priority.
func TestWorkQueueRemovedInFlightStartsAgainWithMarkPriority(t *testing.T) {
	q := model.NewWorkQueue(model.Edge, nil)
	add(q, 1, 9)
	wantTake(t, q, 1, 1)
	q.Remove(1)
	if _, ok := q.Priority(1); ok {
		t.Fatal("Priority of a Removed item in flight")
	}
	q.Add(2)
	wantAdd(t, "mark of a Removed item in flight", add(q, 1, 5), true)
	if p, ok := q.Priority(1); !ok || p != 5 {
		t.Fatalf("Priority(1) = %d, %v; want 5", p, ok)
	}
	q.Done(1)
	wantQueue(t, q, 1, 2)
}

// tenantByHundreds: item 100·i+j belongs to tenant "a"+i.
func tenantByHundreds(k int) string { return string(rune('a' + k/100)) }

func fair() *model.WorkQueue {
	return model.NewWorkQueueWith(model.WorkQueueConfig{Fairness: tenantByHundreds})
}

func TestWorkQueueFairShareRoundRobinAcrossTenants(t *testing.T) {
	q := fair()
	for _, k := range []int{1, 2, 3, 101, 102, 201} {
		q.Add(k)
	}
	wantQueue(t, q, 1, 101, 201, 2, 102, 3)
	if tn, ok := q.Tenant(101); !ok || tn != "b" {
		t.Fatalf("Tenant(101) = %q, %v", tn, ok)
	}
}

// TestWorkQueueFairShareNewTenantJoinsLast: a tenant with its first queued
// item waits for one hand-out per tenant already in the round, however
// many items they have.
func TestWorkQueueFairShareNewTenantJoinsLast(t *testing.T) {
	q := fair()
	for _, k := range []int{1, 2, 3, 101, 102, 103} {
		q.Add(k)
	}
	wantTake(t, q, 1, 1) // b is next
	q.Add(201)
	q.Add(301)
	wantQueue(t, q, 101, 2, 201, 301, 102, 3, 103)
	wantTake(t, q, 4, 101, 2, 201, 301)
	q.Add(302)             // d left the round: joins last again
	wantTake(t, q, 1, 102) // b was next
	wantQueue(t, q, 3, 302, 103)
}

// TestWorkQueueFairShareTenantLeavingKeepsOthersOrder: a tenant whose last
// item is Removed leaves the round wherever it is in it; the others keep
// their turns, and the tenant rejoins last.
func TestWorkQueueFairShareTenantLeavingKeepsOthersOrder(t *testing.T) {
	for _, c := range []struct {
		name   string
		taken  []int // round after these: [a b c] rotated
		remove []int
		want   []int
	}{
		{"last in the round", []int{1, 101}, []int{102}, []int{201, 2, 202}},
		{"in the middle", []int{1}, []int{201, 202}, []int{101, 2, 102}},
		{"next to serve", []int{1}, []int{101, 102}, []int{201, 2, 202}},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := fair()
			for _, k := range []int{1, 2, 101, 102, 201, 202} {
				q.Add(k)
			}
			wantTake(t, q, len(c.taken), c.taken...)
			for _, k := range c.remove {
				q.Remove(k)
			}
			wantQueue(t, q, c.want...)
			q.Add(c.remove[0]) // its tenant rejoins last
			wantQueue(t, q, append(c.want[:len(c.want)-1:len(c.want)-1], c.remove[0], c.want[len(c.want)-1])...)
		})
	}
}

func TestWorkQueueFairShareWithinEachPriority(t *testing.T) {
	q := fair()
	q.Add(1)
	q.Add(2)
	q.Add(101)
	add(q, 201, 1)
	add(q, 202, 1)
	add(q, 3, 1)
	wantQueue(t, q, 201, 3, 202, 1, 101, 2)
	add(q, 2, 1) // a at priority 1 still has 3 queued: 2 goes behind it
	wantQueue(t, q, 201, 3, 202, 2, 1, 101)
}

func TestWorkQueueFairShareLevelRequeueRejoinsLast(t *testing.T) {
	q := model.NewWorkQueueWith(model.WorkQueueConfig{Mode: model.Level, Fairness: tenantByHundreds})
	q.Add(1)
	q.Add(101)
	q.Add(102)
	wantTake(t, q, 1, 1)
	q.Done(1) // a rejoins after b
	wantQueue(t, q, 101, 1, 102)
}

// TestWorkQueueTenantCalledOncePerKnownItem: the tenant function is asked
// when an item becomes known, not for later marks; if it panics, the
// call panics and nothing changes.
func TestWorkQueueTenantCalledOncePerKnownItem(t *testing.T) {
	calls := map[int]int{}
	q := model.NewWorkQueueWith(model.WorkQueueConfig{Fairness: func(k int) string {
		calls[k]++
		if k < 0 {
			panic("tenant")
		}
		return tenantByHundreds(k)
	}})
	q.Add(1)
	q.Add(1)
	wantTake(t, q, 1, 1)
	q.AddAfter(1, ms)
	q.Done(1)
	q.Add(1)
	q.Close()
	q.Add(2) // refused: not asked
	if calls[1] != 1 || calls[2] != 0 {
		t.Fatalf("tenant calls = %v", calls)
	}
	q = model.NewWorkQueueWith(model.WorkQueueConfig{Fairness: func(k int) string {
		if k < 0 {
			panic("tenant")
		}
		return ""
	}})
	q.Add(1)
	func() {
		defer func() { _ = recover() }()
		q.AddWith(-1, model.AddOpts{RateLimited: true, Priority: 3})
		t.Fatal("no panic from the tenant function")
	}()
	if len(q.Known()) != 1 || q.NumRequeues(-1) != 0 || q.Retries() != 0 {
		t.Fatalf("a panicking tenant function changed the model: known %v", q.Known())
	}
	valid(t, q)
	q.Add(2)
	wantQueue(t, q, 1, 2)
}

func TestWorkQueueBackoff(t *testing.T) {
	for _, c := range []struct {
		base, max time.Duration
		n         int
		want      time.Duration
	}{
		{model.DefaultBaseDelay, model.DefaultMaxDelay, 0, 5 * ms},
		{model.DefaultBaseDelay, model.DefaultMaxDelay, 1, 10 * ms},
		{model.DefaultBaseDelay, model.DefaultMaxDelay, 17, 5 * ms << 17},
		{model.DefaultBaseDelay, model.DefaultMaxDelay, 18, 1000 * time.Second},
		{model.DefaultBaseDelay, model.DefaultMaxDelay, 1 << 20, 1000 * time.Second},
		{time.Second, 1<<63 - 1, 200, 1<<63 - 1},
		{0, time.Second, 10, 0},
		{3, 3, 5, 3},
	} {
		if got := model.Backoff(c.base, c.max, c.n); got != c.want {
			t.Errorf("Backoff(%v, %v, %d) = %v, want %v", c.base, c.max, c.n, got, c.want)
		}
	}
}

func TestWorkQueueAddRateLimitedDelaysByBackoff(t *testing.T) {
	q := model.NewWorkQueue(model.Edge, nil)
	wantAdd(t, "AddRateLimited", q.AddRateLimited(1), true)
	wantReadyAt(t, q, 1, 5*ms)
	if q.NumRequeues(1) != 1 || q.Retries() != 1 {
		t.Fatalf("NumRequeues %d, Retries %d", q.NumRequeues(1), q.Retries())
	}
	q.Advance(5 * ms)
	wantTake(t, q, 1, 1)
	wantAdd(t, "AddRateLimited in flight", q.AddRateLimited(1), true)
	q.Done(1)
	wantReadyAt(t, q, 1, 15*ms)
	q.Forget(1)
	if q.NumRequeues(1) != 0 || q.Retries() != 2 {
		t.Fatalf("after Forget: NumRequeues %d, Retries %d", q.NumRequeues(1), q.Retries())
	}
	wantAdd(t, "AddRateLimited of a delayed item", q.AddRateLimited(1), false)
	wantReadyAt(t, q, 1, 10*ms) // the count restarted: now+5ms, earlier than 15ms
	valid(t, q)
}

func TestWorkQueueAddRateLimitedOfQueuedItemStillCounts(t *testing.T) {
	q := model.NewWorkQueue(model.Edge, nil)
	q.Add(1)
	wantAdd(t, "AddRateLimited of a queued item", q.AddRateLimited(1), false)
	if q.NumRequeues(1) != 1 || q.Retries() != 1 || q.Len() != 1 {
		t.Fatalf("NumRequeues %d, Retries %d, Len %d", q.NumRequeues(1), q.Retries(), q.Len())
	}
}

func TestWorkQueueAddWithRateLimitedTakesSmallerDelay(t *testing.T) {
	q := model.NewWorkQueue(model.Edge, nil)
	q.AddWith(1, model.AddOpts{After: ms, RateLimited: true})
	q.AddWith(2, model.AddOpts{After: time.Hour, RateLimited: true})
	q.AddWith(3, model.AddOpts{RateLimited: true})
	q.AddWith(4, model.AddOpts{After: time.Hour})
	wantReadyAt(t, q, 1, ms)
	wantReadyAt(t, q, 2, 5*ms)
	wantReadyAt(t, q, 3, 5*ms)
	wantReadyAt(t, q, 4, time.Hour)
	if q.Retries() != 3 || q.NumRequeues(1) != 1 || q.NumRequeues(4) != 0 {
		t.Fatalf("Retries %d, NumRequeues(1) %d, (4) %d", q.Retries(), q.NumRequeues(1), q.NumRequeues(4))
	}
}

func TestWorkQueueCustomLimiterDelays(t *testing.T) {
	q := model.NewWorkQueueWith(model.WorkQueueConfig{BaseDelay: time.Second, MaxDelay: 3 * time.Second})
	q.Add(1)
	for _, want := range []time.Duration{1, 2, 3, 3} {
		wantTake(t, q, 1, 1)
		start := q.Now()
		q.AddRateLimited(1)
		q.Done(1)
		wantReadyAt(t, q, 1, start+want*time.Second)
		q.Advance(want * time.Second)
	}
}

// TestWorkQueueForgettingItemResetsFailures: once an item that
// AddRateLimited was called for leaves the queue, its failure count
// starts again (the real queue calls the limiter's Forget).
func TestWorkQueueForgettingItemResetsFailures(t *testing.T) {
	cases := []struct {
		name  string
		leave func(q *model.WorkQueue)
	}{
		{"Done of an edge item", func(q *model.WorkQueue) { q.Advance(5 * ms); q.TryTake(1); q.Done(1) }},
		{"Remove of a delayed item", func(q *model.WorkQueue) { q.Remove(1) }},
		{"Remove in flight, at once", func(q *model.WorkQueue) { q.Advance(5 * ms); q.TryTake(1); q.Remove(1) }},
		{"Remove of a queued item", func(q *model.WorkQueue) { q.Advance(5 * ms); q.Remove(1) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := model.NewWorkQueue(model.Edge, nil)
			q.AddRateLimited(1)
			q.AddRateLimited(1)
			c.leave(q)
			if q.NumRequeues(1) != 0 {
				t.Fatalf("NumRequeues = %d after the item left", q.NumRequeues(1))
			}
			valid(t, q)
		})
	}
}

func TestWorkQueueLevelForgottenAfterCloseResetsFailures(t *testing.T) {
	q := model.NewWorkQueue(model.Level, nil)
	q.AddRateLimited(1)
	q.Advance(5 * ms)
	wantTake(t, q, 1, 1)
	q.Done(1)
	wantTake(t, q, 1, 1)
	if q.NumRequeues(1) != 1 {
		t.Fatalf("NumRequeues = %d while known", q.NumRequeues(1))
	}
	q.Close()
	q.Done(1)
	if q.NumRequeues(1) != 0 || len(q.Known()) != 0 {
		t.Fatalf("NumRequeues %d, Known %v", q.NumRequeues(1), q.Known())
	}
}

func TestWorkQueueRateLimitedRefusedAfterClose(t *testing.T) {
	q := model.NewWorkQueue(model.Edge, nil)
	q.Close()
	if q.AddRateLimited(1) || q.AddWith(1, model.AddOpts{RateLimited: true, Priority: 1}) || q.NumRequeues(1) != 0 || q.Retries() != 0 {
		t.Fatal("a refused rate-limited mark changed the limiter")
	}
}

func TestNewWorkQueueWithPanics(t *testing.T) {
	for _, o := range []model.WorkQueueConfig{
		{Mode: model.OneShot + 1},
		{BaseDelay: -1},
		{BaseDelay: time.Second, MaxDelay: ms},
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.HasPrefix(fmt.Sprint(r), "model: ") {
					t.Errorf("NewWorkQueueWith(%+v): recover() = %v", o, r)
				}
			}()
			model.NewWorkQueueWith(o)
		}()
	}
}

// TestWorkQueueDrainDoneContextWithDelayed: Drain with a done context
// returns context.Canceled with a delayed item too.
func TestWorkQueueDrainDoneContextWithDelayed(t *testing.T) {
	q := model.NewWorkQueue(model.Edge, nil)
	q.AddAfter(1, ms)
	if err := q.Drain(model.Done); !errors.Is(err, context.Canceled) {
		t.Fatalf("Drain(Done) = %v", err)
	}
	valid(t, q)
}

// TestWorkQueueModelInvariants steps the model through random calls of
// every kind and checks its invariants after each, and that a hand-out
// takes the head of Queue().
func TestWorkQueueModelInvariants(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		o := model.WorkQueueConfig{Mode: model.Mode(rapid.Uint8Range(uint8(model.Edge), uint8(model.OneShot)).Draw(t, "mode"))}
		if rapid.Bool().Draw(t, "fair") {
			o.Fairness = func(k int) string { return fmt.Sprint(k % 3) }
		}
		q := model.NewWorkQueueWith(o)
		key := rapid.IntRange(0, 8)
		t.Repeat(map[string]func(*rapid.T){
			"AddWith": func(t *rapid.T) {
				q.AddWith(key.Draw(t, "k"), model.AddOpts{ // drawn in this order, left to right
					After:       time.Duration(rapid.IntRange(-1, 3).Draw(t, "after")) * ms,
					RateLimited: rapid.Bool().Draw(t, "rateLimited"),
					Priority:    rapid.IntRange(-1, 2).Draw(t, "prio"),
				})
			},
			"Add": func(t *rapid.T) { q.Add(key.Draw(t, "k")) },
			"TryTake": func(t *rapid.T) {
				want := q.Queue()
				got := q.TryTake(rapid.IntRange(1, 3).Draw(t, "max"))
				if !slices.Equal(got, want[:len(got)]) {
					t.Fatalf("TryTake = %v, Queue() was %v", got, want)
				}
			},
			"Done": func(t *rapid.T) {
				held := q.InFlightItems()
				if len(held) == 0 {
					t.Skip("nothing in flight")
				}
				q.Done(rapid.SliceOfDistinct(rapid.SampledFrom(held), rapid.ID).Draw(t, "ks")...)
			},
			"Remove":  func(t *rapid.T) { q.Remove(key.Draw(t, "k")) },
			"Rearm":   func(t *rapid.T) { q.Rearm(key.Draw(t, "k")) },
			"Forget":  func(t *rapid.T) { q.Forget(key.Draw(t, "k")) },
			"Advance": func(t *rapid.T) { q.Advance(time.Duration(rapid.IntRange(0, 4).Draw(t, "d")) * ms) },
			"Close": func(t *rapid.T) {
				if rapid.IntRange(0, 9).Draw(t, "rarely") == 0 {
					q.Close()
				}
			},
			"": func(t *rapid.T) {
				if err := q.Validate(); err != nil {
					t.Fatal(err)
				}
				if q.Len() != len(q.Queue()) || q.Stats().Closed && q.Stats().Delayed != 0 {
					t.Fatalf("Len %d, Queue %v, Delayed %d", q.Len(), q.Queue(), q.Stats().Delayed)
				}
			},
		})
	})
}

// TestWorkQueueFairShareJoinsLast: with one priority, an item that is its
// tenant's only queued one is handed out after one hand-out to each
// tenant that had queued items when it was queued, and no later.
func TestWorkQueueFairShareJoinsLast(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tenant := func(k int) string { return fmt.Sprint(k % 4) }
		q := model.NewWorkQueueWith(model.WorkQueueConfig{Fairness: tenant})
		ahead := map[int]map[string]bool{} // joiners: tenants to serve first
		t.Repeat(map[string]func(*rapid.T){
			"Add": func(t *rapid.T) {
				k := rapid.IntRange(0, 30).Draw(t, "k")
				if slices.Contains(q.InFlightItems(), k) {
					t.Skip("a kept-aside mark would be re-queued by Done")
				}
				tenants := map[string]bool{}
				for _, x := range q.Queue() {
					tenants[tenant(x)] = true
				}
				if q.Add(k) && !tenants[tenant(k)] {
					ahead[k] = tenants
				}
			},
			"TakeOne": func(t *rapid.T) {
				got := q.TryTake(1)
				if len(got) == 0 {
					t.Skip("empty")
				}
				k, u := got[0], tenant(got[0])
				if len(ahead[k]) != 0 {
					t.Fatalf("item %d handed out before tenants %v", k, ahead[k])
				}
				delete(ahead, k)
				for j, s := range ahead {
					if !s[u] { // a hand-out to a tenant not ahead of j
						t.Fatalf("tenant %s served again before item %d (waiting for %v)", u, j, s)
					}
					delete(s, u)
				}
			},
			"Done": func(t *rapid.T) { q.Done(q.InFlightItems()...) },
		})
	})
}
