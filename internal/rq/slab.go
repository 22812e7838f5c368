package rq

// These are the page sizes. The first page starts at firstLen slots, and
// every page holds pageLen once full.
const (
	firstLen = 64
	pageBits = 10
	pageLen  = 1 << pageBits
	maxSlots = 1<<31 - 1 - pageLen // Grow adds no page past this, so slots stay below 2³¹
)

// Paged is an array of E that grows by pages, first and then the others.
type Paged[E any] struct {
	first []E
	pages []*[pageLen]E
	cap   int // slots in the pages
}

// At returns slot i, which must be below cap.
func (p *Paged[E]) At(i int) *E {
	if i < pageLen {
		return &p.first[i]
	}
	return &p.pages[i>>pageBits-1][i&(pageLen-1)]
}

// Cap returns the number of slots, all below it usable.
func (p *Paged[E]) Cap() int { return p.cap }

// Grow adds room. It doubles the first page while it is not full, moving
// its slots, or else adds a page. It panics if the array would pass
// maxSlots.
func (p *Paged[E]) Grow() {
	switch {
	case p.cap < pageLen:
		first := make([]E, max(firstLen, 2*p.cap))
		copy(first, p.first)
		p.first = first
		p.cap = len(first)
	case p.cap > maxSlots:
		panic("evsync: a queue of more than 2³¹−1 items")
	default:
		p.pages = append(p.pages, new([pageLen]E))
		p.cap += pageLen
	}
}

// A Slab holds a queue's entries. Only with mu held.
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
type Slab[T comparable] struct {
	entries Paged[Entry[T]]
	free    int32 // the first released entry's slot plus 1, or 0 for none (each holds the next one's in seq)
	used    int   // entry slots handed out at least once
}

// Entry returns the entry in slot i.
func (s *Slab[T]) Entry(i int32) *Entry[T] { return s.entries.At(int(i)) }

// Alloc returns a zero entry, either a released one or one in a new slot.
func (s *Slab[T]) Alloc() *Entry[T] {
	if e := s.Pop(); e != nil {
		return e
	}
	return s.alloc()
}

// Pop returns a zero entry released from the first page, or nil if the
// next released entry is not there. It is small enough to be inlined, so
// that a queue of up to 1,024 items allocates in line. Alloc goes on where
// it returns nil.
func (s *Slab[T]) Pop() *Entry[T] {
	f := uint(s.free) - 1 // past the page for 0, which is no entry
	if f >= uint(len(s.entries.first)) {
		return nil
	}
	e := &s.entries.first[f]
	s.free, e.Seq = int32(e.Seq), 0
	return e
}

// alloc is Alloc's out-of-line part: it pops a released entry past the
// first page, or else makes one in a new slot.
func (s *Slab[T]) alloc() *Entry[T] {
	if s.free == 0 {
		return s.fresh()
	}
	e := s.Entry(s.free - 1)
	s.free, e.Seq = int32(e.Seq), 0
	return e
}

// fresh returns the entry in a slot never used, growing the slab if need
// be.
func (s *Slab[T]) fresh() *Entry[T] {
	if s.used == s.entries.cap {
		s.entries.Grow()
	}
	e := s.entries.At(s.used)
	e.ID = int32(s.used)
	s.used++
	return e
}

// Release clears e, keeping no item alive, and puts its slot on the free
// list. Its extra part, if any, is released first (extras.release).
func (s *Slab[T]) Release(e *Entry[T]) {
	*e = Entry[T]{ID: e.ID, Seq: uint64(s.free)}
	s.free = e.ID + 1
}

// Live returns the number of entries in use: made and not released. It
// walks the free list, so it is for tests.
func (s *Slab[T]) Live() int {
	n := s.used
	for f := s.free; f != 0; f = int32(s.Entry(f - 1).Seq) {
		n--
	}
	return n
}
