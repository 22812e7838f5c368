//go:build readyq_oneheap

package readyq

// heaps is the simpler twin of the near and far heaps (delay_split.go),
// built with -tags readyq_oneheap. One heap holds every wait, as Go's
// runtime keeps its timers. The position of a delayed entry
// (slab.positions) is its index in it.
type heaps struct {
	all heap
}

// first returns the earliest wait, or nil if nothing is delayed.
func (d *delays) first() *wait {
	if d.all.n > 0 {
		return d.all.waits.at(0)
	}
	return nil
}

// advance does nothing: one heap has no bound to move.
func (q *Queue[T]) advance(int64) {}

// locate returns the heap of the delayed item e and its position in it.
func (q *Queue[T]) locate(e *entry[T]) (*heap, int) {
	return &q.delays.all, int(*q.slab.positions.at(int(e.id)))
}

// push adds w to the heap.
func (q *Queue[T]) push(w wait) { q.insert(&q.delays.all, w) }

// sooner puts back in order the wait at position i of h, whose time has
// just moved earlier.
func (q *Queue[T]) sooner(h *heap, i int) { q.up(h, i, *h.waits.at(i)) }

// position returns what slab.positions holds for a wait at position i of
// h: i itself.
func (*delays) position(_ *heap, i int) int32 { return int32(i) }
