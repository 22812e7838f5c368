package poll

import "fmt"

// HeapErr returns what is wrong with the heap of s's Deadlines (heap.go),
// or nil: each entry no earlier than its parent, with the key of its
// time and its index in its registration; and each Deadline registration
// in it if and only if it is armed and not yet due.
func HeapErr[K comparable](s *Set[K]) error {
	s.mu.Lock()
	defer s.unlock() // due reads the clock for the section
	h := &s.t.dls
	for i, e := range h.es {
		switch {
		case i > 0 && e.before(h.es[(i-1)/4]):
			return fmt.Errorf("entry %d (%v) is earlier than its parent %d (%v)", i, e.key, (i-1)/4, h.es[(i-1)/4].key)
		case e.key != e.r.dl.at.Sub(h.epoch):
			return fmt.Errorf("entry %d has the key %v for %v", i, e.key, e.r.dl.at.Sub(h.epoch))
		case int(e.r.hidx) != i+1:
			return fmt.Errorf("entry %d is of a registration with the index %d", i, e.r.hidx-1)
		}
	}
	n := 0
	for _, r := range s.regs {
		if r.dl == nil {
			continue
		}
		if in := r.hidx != 0; in != (r.state == armed && !s.t.due(r)) {
			return fmt.Errorf("a registration in state %d, in the heap: %v", r.state, in)
		}
		if r.hidx != 0 {
			n++
		}
	}
	if n != len(h.es) {
		return fmt.Errorf("%d entries for %d registrations in the Set", len(h.es), n)
	}
	return nil
}
