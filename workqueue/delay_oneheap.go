//go:build workqueue_oneheap

package workqueue

// heaps is the simpler twin of the near and far heaps (delay_split.go),
// built with -tags workqueue_oneheap. One heap holds every wait, as Go's
// runtime keeps its timers. The position of a delayed entry
// (delays.pos) is its index in it.
type heaps struct {
	all heap
}

// first returns the earliest wait, or nil if nothing is delayed.
func (d *delays) first() *wait {
	if d.all.n > 0 {
		return d.all.waits.At(0)
	}
	return nil
}

// advance does nothing: one heap has no bound to move.
func (*delays) advance(int64) {}

// locate returns the heap of the delayed item in slot e and its position
// in it.
func (d *delays) locate(e int32) (*heap, int) {
	return &d.all, int(*d.pos.At(int(e)))
}

// push adds w to the heap.
func (d *delays) push(w wait) { d.all.insert(d.spots(&d.all), w) }

// sooner puts back in order the wait at position i of h, whose time has
// just moved earlier.
func (d *delays) sooner(h *heap, i int) { h.up(d.spots(h), i, *h.waits.At(i)) }

// postpone puts back in order the wait at position i of h, whose time
// has just moved later, or whose tie-break number has.
func (d *delays) postpone(h *heap, i int) { h.down(d.spots(h), i, *h.waits.At(i)) }

// spots returns where h writes the positions of its waits: d.pos, with i
// itself for position i.
func (d *delays) spots(*heap) spots { return spots{&d.pos, 0} }
