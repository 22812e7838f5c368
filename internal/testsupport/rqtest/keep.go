package rqtest

import (
	"context"
	"runtime"
	"testing"

	"github.com/evsync/evsync/internal/rq"
	"github.com/evsync/evsync/readyq"
)

// skipKeepAll skips a test of a queue without Keep in a build with
// -tags rq_keep, where every queue keeps (internal/rq's KeepAll).
func skipKeepAll(t *testing.T) {
	if rq.KeepAll {
		t.Skip("-tags rq_keep: every queue keeps its entries")
	}
}

// cycle marks item, takes it and finishes it: one Done-then-Add round of
// a queue with nothing else in it.
func cycle(t *testing.T, q Queue[int], item int) {
	if !q.Add(item) {
		t.Fatalf("Add(%d) = false on an empty queue", item)
	}
	if got := q.TryTake(1); len(got) != 1 || got[0] != item {
		t.Fatalf("TryTake(1) = %v, want [%d]", got, item)
	}
	if n := q.Done(item); n != 1 {
		t.Fatalf("Done(%d) = %d, want 1", item, n)
	}
}

// testKeepIsForgottenAsSeenFromOutside: with Config.Keep, an item Done
// and not marked again is kept, but every call sees it forgotten. The
// model machines check the same with Keep drawn; this pins each outcome
// of Keep's list by name.
func testKeepIsForgottenAsSeenFromOutside(t *testing.T, x Impl) {
	q := x.NewWith(readyq.Config[int]{Keep: true})
	cycle(t, q, 1)
	if x.Entries(q) != 1 {
		t.Fatalf("%d entries after one cycle with Keep, want 1 (kept)", x.Entries(q))
	}
	if st := q.Stats(); st != (readyq.Stats{}) {
		t.Fatalf("Stats() = %+v with an item kept, want zero", st)
	}
	if err := q.Drain(context.Background()); err != nil {
		t.Fatalf("Drain = %v with an item kept, want nil at once", err)
	}
	if n := q.Done(1); n != 0 {
		t.Fatalf("Done(1) = %d for a kept item, want 0", n)
	}
	if q.Rearm(1) {
		t.Fatal("Rearm(1) = true for a kept item, want false")
	}
	// The next mark is a new item's, in its own mode: a level item is
	// queued again at Done.
	if !q.AddMode(1, readyq.Level) {
		t.Fatal("AddMode(1, Level) = false for a kept item, want true")
	}
	got := q.TryTake(1)
	q.Done(got...)
	if q.Len() != 1 {
		t.Fatalf("Len() = %d after Done of a level item, want 1: the kept entry's mode stayed", q.Len())
	}
	if !q.Remove(1) { // a known level item: Remove forgets it as without Keep
		t.Fatal("Remove(1) = false for a queued item, want true")
	}
}

// testKeepRemoveFreesTheEntries: Remove of a kept item frees its entry
// and returns false, since the queue did not know it. A queue without
// Keep keeps no entry at all.
func testKeepRemoveFreesTheEntries(t *testing.T, x Impl) {
	skipKeepAll(t)
	const n = 100
	for _, keep := range []bool{false, true} {
		q := x.NewWith(readyq.Config[int]{Keep: keep})
		for k := range n {
			cycle(t, q, k)
		}
		want := 0
		if keep {
			want = n
		}
		if got := x.Entries(q); got != want {
			t.Fatalf("Keep %v: %d entries after %d cycles, want %d", keep, got, n, want)
		}
		for k := range n {
			if q.Remove(k) {
				t.Fatalf("Keep %v: Remove(%d) = true for an item Done, want false", keep, k)
			}
		}
		if got := x.Entries(q); got != 0 {
			t.Fatalf("Keep %v: %d entries after Remove of each, want 0", keep, got)
		}
	}
}

// testChurnOfDistinctItemsLeavesTheHeapBounded: without Keep, a queue's
// memory follows what it holds at once. A churn of 10^7 distinct items
// (10^6 with -short, 2·10^5 under -race), one at a time, leaves the heap
// within a generous 1 MiB of where 10^3 left it; kept entries would take
// 80 MB per 10^6.
func testChurnOfDistinctItemsLeavesTheHeapBounded(t *testing.T, x Impl) {
	skipKeepAll(t)
	n := 10_000_000
	switch {
	case raceOn:
		n = 200_000 // the race detector's 10^6 took 11 s per queue; kept entries would still be 16 MB
	case testing.Short():
		n = 1_000_000
	}
	q := x.New()
	churn := func(from, to int) uint64 {
		for k := from; k < to; k++ {
			cycle(t, q, k)
		}
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := churn(0, 1000)
	after := churn(1000, 1000+n)
	runtime.KeepAlive(q)
	if after > before+1<<20 {
		t.Fatalf("heap %d B after %d distinct items, %d B after 10^3: it grew by %d B", after, n, before, after-before)
	}
}
