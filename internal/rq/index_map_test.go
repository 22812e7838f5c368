//go:build rq_mapindex

package rq

import (
	"math"
	"testing"
)

// TestMapIndex drives the map twin of the index as the queue does: find,
// add with find's hash bits, and del before the entry is released.
func TestMapIndex(t *testing.T) {
	var ix Index[float64]
	var s Slab[float64]
	add := func(item float64) int32 {
		e, h := ix.Find(&s, item)
		if e != nil {
			t.Fatalf("find(%v) of an item not held found slot %d", item, e.ID)
		}
		e = s.Alloc()
		e.Item = item
		ix.Add(e, h)
		return e.ID
	}
	del := func(slot int32) {
		ix.Del(s.Entry(slot))
		s.Release(s.Entry(slot))
	}
	slots := map[float64]int32{}
	for k := range 3000 {
		slots[float64(k)] = add(float64(k))
	}
	for k := 0; k < 3000; k += 2 {
		del(slots[float64(k)])
		delete(slots, float64(k))
	}
	nan := add(math.NaN())
	if e, _ := ix.Find(&s, math.NaN()); e != nil {
		t.Fatal("find(NaN) found an item")
	}
	del(nan)
	for k := range 3000 {
		e, _ := ix.Find(&s, float64(k))
		want, ok := slots[float64(k)]
		if (e != nil) != ok || ok && e.ID != want {
			t.Fatalf("find(%d) = %v, want slot %d (%v)", k, e, want, ok)
		}
	}
}

// TestMapIndexFindOrAdd: the map twin's FindOrAdd finds a held item's
// entry, and adds a new one in an entry that holds it.
func TestMapIndexFindOrAdd(t *testing.T) {
	var ix Index[string]
	var s Slab[string]
	a, added := ix.FindOrAdd(&s, "a")
	if !added || a.Item != "a" {
		t.Fatalf("FindOrAdd(a) into an empty index = %+v, %v", a, added)
	}
	b, added := ix.FindOrAdd(&s, "b")
	if !added || b.ID == a.ID {
		t.Fatalf("FindOrAdd(b) = slot %d, %v beside a's slot %d", b.ID, added, a.ID)
	}
	if e, added := ix.FindOrAdd(&s, "a"); added || e.ID != a.ID {
		t.Fatalf("FindOrAdd(a) again = slot %d, %v, want %d, false", e.ID, added, a.ID)
	}
	if e, _ := ix.Find(&s, "b"); e == nil || e.ID != b.ID {
		t.Fatalf("Find(b) after FindOrAdd = %v", e)
	}
}
