package rq

import "testing"

// TestSlabPop: Pop takes released entries of the first page in line, last
// released first, and returns nil for one past it or for none; Alloc then
// takes that one, or a new slot.
func TestSlabPop(t *testing.T) {
	var s Slab[int]
	if e := s.Pop(); e != nil {
		t.Fatalf("Pop of a new slab = slot %d", e.ID)
	}
	for range pageLen + 10 { // the first page and some of the next
		s.Alloc().Item = 1
	}
	s.Release(s.Entry(pageLen + 3))
	s.Release(s.Entry(5))
	if e := s.Pop(); e == nil || e.ID != 5 || *e != (Entry[int]{ID: 5}) {
		t.Fatalf("Pop = %+v, want the zero entry in slot 5", e)
	}
	if e := s.Pop(); e != nil {
		t.Fatalf("Pop with slot %d next free = slot %d, want nil", pageLen+3, e.ID)
	}
	if e := s.Alloc(); e.ID != pageLen+3 || *e != (Entry[int]{ID: pageLen + 3}) {
		t.Fatalf("Alloc = %+v, want the zero entry in slot %d", e, pageLen+3)
	}
	if e := s.Alloc(); e.ID != pageLen+10 {
		t.Fatalf("Alloc with none free = slot %d, want a new one, %d", e.ID, pageLen+10)
	}
	if n := s.Live(); n != pageLen+11 {
		t.Fatalf("Live = %d, want %d", n, pageLen+11)
	}
}
