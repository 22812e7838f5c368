package rqtest

import (
	"fmt"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/readyq"
)

// testDoneRepeatNeverEndsAnotherConsumersHandOut is the scenario:
// with Config.Recheck, one Done of more than 64 items names an item at both
// ends. The first copy queues it again (a level item still ready, or a mark
// kept aside) and a parked consumer takes it; the second copy must not end
// that consumer's hand-out. Done used to finish its items 64 at a time and
// drop the lock in between, so the second copy found the item in flight
// again: Done counted it twice and, for the level item, queued it once more
// for a third consumer while the parked one held it.
func testDoneRepeatNeverEndsAnotherConsumersHandOut(t *testing.T, x Impl) {
	const n = 100
	for name, tc := range map[string]struct {
		mode   readyq.Mode
		mark   bool // 0 is marked again while in flight
		queued int  // items still queued after the parked consumer's take
	}{
		"level item still ready": {readyq.Level, false, n - 1},
		"kept-aside mark":        {readyq.Edge, true, 0},
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := x.NewWith(readyq.Config[int]{Mode: tc.mode, Recheck: func(int) bool { return true }})
				for i := range n {
					q.Add(i)
				}
				held := q.TryTake(n)
				if tc.mark {
					q.Add(0) // kept aside: Done queues 0 again
				}
				parked := parkWait(bg, q, 1)
				if got := q.Done(append(held, 0)...); got != n {
					t.Fatalf("Done of %d items in flight, one of them twice, = %d, want %d", n, got, n)
				}
				wantItems(t, "parked Wait", (<-parked).items, 0)
				if st := q.Stats(); st.InFlight != 1 || st.Queued != tc.queued {
					t.Fatalf("after Done: %v, want 1 in flight (the parked consumer's 0) and %d queued", st, tc.queued)
				}
				q.Add(0) // 0 is held: kept aside, not queued
				if rest := q.TryTake(2 * n); slices.Contains(rest, 0) {
					t.Fatalf("TryTake = %v: 0 handed to a third consumer while the parked one holds it", rest)
				}
			})
		})
	}
}

// testDoneWithRecheckOrdersTheWholeCall: with Config.Recheck, a Done of
// more than 64 items puts back the kept-aside marks first, in arrival
// order, then the level items in the order given, across the whole call (it
// used to be per group of 64).
func testDoneWithRecheckOrdersTheWholeCall(t *testing.T, x Impl) {
	const n = 100
	q := x.NewWith(readyq.Config[int]{Mode: readyq.Level, Recheck: func(int) bool { return true }})
	var want []int
	for i := range n {
		q.Add(i)
		if i != 70 && i != 99 {
			want = append(want, i)
		}
	}
	held := q.TryTake(n)
	q.Add(99) // marks in flight, past the first 64 arguments
	q.Add(70)
	q.Done(held...)
	wantItems(t, "TryTake after Done", q.TryTake(2*n), append([]int{99, 70}, want...)...)
}

// testDoneWithRecheckAllocatesNothing: the recheck results go to a stack
// array for small calls and to a pooled buffer for large ones.
func testDoneWithRecheckAllocatesNothing(t *testing.T, x Impl) {
	q := x.NewWith(readyq.Config[int]{Mode: readyq.Level, Recheck: func(int) bool { return true }})
	for _, n := range []int{3, 64, 65, 1000} {
		for i := range n {
			q.Add(i)
		}
		buf := q.TryTake(n)
		testkit.NoAllocs(t, fmt.Sprintf("Done of %d items with a recheck", n), func() {
			q.Done(buf...)
			buf = q.TryTakeAppend(buf[:0], n)
		})
		q.Done(buf...)
		for i := range n {
			q.Remove(i)
		}
	}
}
