package rqtest

import (
	"slices"
	"testing"
)

// testLargeHandOutIsCopiedOutsideTheLock adds items from inside the copy
// of a large batch: if the copy held the lock, the hook would deadlock.
// The adds also fill the array, so they must move the queued items to a
// new one rather than overwrite the slots being copied (the race detector
// watches those).
func testLargeHandOutIsCopiedOutsideTheLock(t *testing.T, x Impl) {
	if !x.CopiesOutside {
		t.Skip("built with the copy-all twin's tag: every hand-out is copied under the lock")
	}
	const n = 5000
	q := x.New()
	for i := range n {
		q.Add(i)
	}
	slots := x.Slots(q)
	x.SetCopyHook(func() {
		for i := n; i < n+2*slots; i++ {
			q.Add(i)
		}
		q.Add(0) // in flight: kept aside
	})
	got := q.TryTake(n)
	x.SetCopyHook(nil)
	if len(got) != n || got[0] != 0 || got[n-1] != n-1 {
		t.Fatalf("TryTake(%d) returned %d items, %v...%v", n, len(got), got[:3], got[len(got)-3:])
	}
	if q.Len() != 2*slots || q.Stats().Aside != 1 {
		t.Fatalf("after the hand-out: %v", q)
	}
	q.Done(got...)
	rest := q.TryTake(3 * slots)
	if len(rest) != 2*slots+1 || rest[0] != n || rest[len(rest)-1] != 0 {
		t.Fatalf("later items: %d, first %d, last %d", len(rest), rest[0], rest[len(rest)-1])
	}
}

// testSmallBatchesCopiedOutsideTheLockToo runs the copy-outside path with
// batches of every size over holes left by Remove.
func testSmallBatchesCopiedOutsideTheLockToo(t *testing.T, x Impl) {
	if !x.CopiesOutside {
		t.Skip("built with the copy-all twin's tag: every hand-out is copied under the lock")
	}
	q := x.New()
	x.SetBigBatch(1)
	defer x.SetBigBatch(0)
	var want []int
	for i := range 100 {
		q.Add(i)
		if i%3 == 1 {
			q.Remove(i)
		} else {
			want = append(want, i)
		}
	}
	var got []int
	for size := 1; q.Len() > 0; size++ {
		got = append(got, q.TryTake(size)...)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// testArrayStaysBoundedInSteadyState checks that a queue cycling through
// a fixed set of items reuses its array instead of growing it.
func testArrayStaysBoundedInSteadyState(t *testing.T, x Impl) {
	q := x.New()
	buf := make([]int, 0, 64)
	for i := range 100_000 {
		q.Add(i % 1000)
		if i%50 == 0 {
			buf = q.TryTakeAppend(buf[:0], 64)
			q.Done(buf...)
		}
	}
	if s := x.Slots(q); s > 4096 {
		t.Fatalf("array of %d slots for at most 1000 queued items", s)
	}
}
