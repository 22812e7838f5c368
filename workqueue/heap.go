package workqueue

// A wait is one delayed item in the heap.
type wait struct {
	at  int64
	seq uint64 // the order its time was set: ties go first come, first served
	e   int32  // the item's slot in the slab
}

// before reports whether w comes out of the heap before v.
func (w *wait) before(v *wait) bool {
	return w.at < v.at || (w.at == v.at && w.seq < v.seq)
}

// arity is the heaps' fan-out. A 4-ary heap is half as deep as a binary
// one, so taking the top moves half as many waits, for the same
// comparisons. Each move also writes the moved entry's position.
const arity = 4

// A heap is a 4-ary min-heap of waits. Its zero value is empty. It holds
// values (time, order, slot) in pages like the slab's (internal/rq/slab.go). So it
// grows without copying and holds no pointer.
//
// Each wait it moves tells its entry its new position: the heap writes
// it to the spots its caller gives, by the wait's slot. So a delayed item
// can be found in the heap (delays.locate) and taken out of its middle
// (remove). Like the runtime's timer heap, its methods know nothing of
// the queue that owns it.
type heap struct {
	waits paged[wait]
	n     int // waits in it
}

// spots are where a heap writes the position of each wait it moves. The
// position of a wait at index i of the heap is i^flip, stored at the
// wait's slot in pos. A flip of 0 stores i, and a flip of -1 stores ^i,
// which is below 0. So two heaps can share one array (delay_split.go).
type spots struct {
	pos  *paged[int32] // the delays' positions, by slot
	flip int32
}

// insert adds w to h.
func (h *heap) insert(s spots, w wait) {
	if h.n == h.waits.Cap() {
		h.waits.Grow()
	}
	h.n++
	h.up(s, h.n-1, w)
}

// remove takes the wait at position i out of h. h's last wait fills the
// hole and moves up or down from there.
func (h *heap) remove(s spots, i int) {
	h.n--
	if i == h.n {
		return
	}
	last := *h.waits.At(h.n)
	switch {
	case i == 0:
		h.sink(s, last)
	case last.before(h.waits.At((i - 1) / arity)):
		h.up(s, i, last)
	default:
		h.down(s, i, last)
	}
}

// sink fills the hole at the top of h with w, bottom-up. The least child
// of each level moves up until the hole reaches a leaf, and w moves up
// from there. w was the last leaf, so it seldom climbs. This saves the
// comparison with w that down makes at every level.
func (h *heap) sink(s spots, w wait) {
	i := 0
	for {
		c := arity*i + 1
		if c >= h.n {
			break
		}
		c, cw := h.least(c)
		h.put(s, i, *cw)
		i = c
	}
	h.up(s, i, w)
}

// up fills a hole at position i of h with w. It moves the waits above
// the hole down until w's place is found. Each wait moved tells its entry
// its new position (put).
func (h *heap) up(s spots, i int, w wait) {
	for i > 0 {
		p := (i - 1) / arity
		pw := h.waits.At(p)
		if !w.before(pw) {
			break
		}
		h.put(s, i, *pw)
		i = p
	}
	h.put(s, i, w)
}

// down fills a hole at position i of h with w, as up does, but moves
// the waits below the hole up.
func (h *heap) down(s spots, i int, w wait) {
	for {
		c := arity*i + 1
		if c >= h.n {
			break
		}
		c, cw := h.least(c)
		if !cw.before(&w) {
			break
		}
		h.put(s, i, *cw)
		i = c
	}
	h.put(s, i, w)
}

// least returns the earliest of the children that start at position c
// (which h has) and its position.
func (h *heap) least(c int) (int, *wait) {
	cw := h.waits.At(c)
	for j, end := c+1, min(c+arity, h.n); j < end; j++ {
		if r := h.waits.At(j); r.before(cw) {
			c, cw = j, r
		}
	}
	return c, cw
}

// put stores w at position i of h and tells its entry, in s.
func (h *heap) put(s spots, i int, w wait) {
	*h.waits.At(i) = w
	*s.pos.At(int(w.e)) = int32(i) ^ s.flip
}
