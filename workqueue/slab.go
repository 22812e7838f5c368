package workqueue

// These are the page sizes. The first page starts at firstLen slots, and
// every page holds pageLen once full.
const (
	firstLen = 64
	pageBits = 10
	pageLen  = 1 << pageBits
	maxSlots = 1<<31 - 1 - pageLen // grow adds no page past this, so slots stay below 2³¹
)

// paged is an array of E that grows by pages, first and then the others.
type paged[E any] struct {
	first []E
	pages []*[pageLen]E
	cap   int // slots in the pages
}

// at returns slot i, which must be below cap.
func (p *paged[E]) at(i int) *E {
	if i < pageLen {
		return &p.first[i]
	}
	return &p.pages[i>>pageBits-1][i&(pageLen-1)]
}

// grow adds room. It doubles the first page while it is not full, moving
// its slots, or else adds a page. It panics if the array would pass
// maxSlots.
func (p *paged[E]) grow() {
	switch {
	case p.cap < pageLen:
		first := make([]E, max(firstLen, 2*p.cap))
		copy(first, p.first)
		p.first = first
		p.cap = len(first)
	case p.cap > maxSlots:
		panic("workqueue: more than 2³¹−1 items")
	default:
		p.pages = append(p.pages, new([pageLen]E))
		p.cap += pageLen
	}
}

// slab holds a queue's entries. Only with mu held.
//
// The queue keeps what it knows about each item in an entry. The slab
// stores the entries by value in pages, and names each entry by its slot,
// a small integer. The item index (index.go) holds slots. The delay heaps
// hold (time, order, slot) values, and the list of items in flight links
// slots. So for an item type without pointers (an int, a struct of
// numbers), none of them holds a pointer. The garbage collector then
// neither scans them nor finds an object per item. Released entries go on
// a free list, linked through them, so that a queue in a steady state
// allocates nothing.
//
// The pages hold 1,024 slots each and never move, except the first. The
// first page starts at 64 slots and doubles, by copying, until it is
// full, so that a small queue stays small. So a pointer to an entry stays
// valid only until the next one is made. A locked section holds none
// across making one, and nothing keeps one past its section.
//
// A queue holds at most 2³¹−1 items at once, since the slot is an int32.
// That would take some hundred gigabytes.
type slab[T comparable] struct {
	entries paged[entry[T]]
	free    int32 // the first released entry's slot plus 1, or 0 for none (each holds the next one's in seq)
	used    int   // entry slots handed out at least once
}

// entry returns the entry in slot i.
func (s *slab[T]) entry(i int32) *entry[T] { return s.entries.at(int(i)) }

// alloc returns a zero entry, either a released one or one in a new slot.
func (s *slab[T]) alloc() *entry[T] {
	if s.free == 0 {
		return s.fresh()
	}
	e := s.entry(s.free - 1)
	s.free, e.seq = int32(e.seq), 0
	return e
}

// fresh returns the entry in a slot never used, growing the slab if need
// be.
func (s *slab[T]) fresh() *entry[T] {
	if s.used == s.entries.cap {
		s.entries.grow()
	}
	e := s.entries.at(s.used)
	e.id = int32(s.used)
	s.used++
	return e
}

// release clears e, keeping no item alive, and puts its slot on the free
// list. Its extra part, if any, is released first (extras.release).
func (s *slab[T]) release(e *entry[T]) {
	*e = entry[T]{id: e.id, seq: uint64(s.free)}
	s.free = e.id + 1
}
