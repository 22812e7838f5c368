//go:build !workqueue_oneheap

package workqueue

import (
	"math"
	"time"
)

// heaps are the delays' two heaps, near and far. Every wait in near comes
// before every wait in far, so the earliest wait is near's first, or far's
// if near is empty. The bound keeps them apart:
//
//   - a new wait goes to near if it comes before the bound, to far if not;
//   - each time due items are queued (the timer, Close), the bound moves to
//     horizon ahead of the clock;
//   - the waits of far that it passes move to near, at most maxMoves in one
//     locked section, and then the bound stops at the next wait of far;
//   - before the first time, the bound is 0 and every wait is in far.
//
// So items delayed for a short while (a retry, a requeue) go through a
// small heap of the waits due soon. A million waits delayed for hours stay
// in far, untouched. With 10^5 or 10^6 of them, one heap makes a worker's
// cycle (Get, Done, AddAfter below 1 ms) 10–17 % slower. Build with -tags
// workqueue_oneheap for one heap, to compare.
//
// The position of a delayed entry (delays.pos) is its index in near, or
// the complement of its index in far, which is below 0.
type heaps struct {
	near, far heap
	bound     wait // its at and seq: waits before it are in near, the others in far
}

// horizon is how far ahead of the clock the bound goes: items due within
// it are in near. maxMoves is the most waits a locked section moves from
// far to near.
const (
	horizon  = int64(time.Second)
	maxMoves = 64
)

// first returns the earliest wait, or nil if nothing is delayed.
func (d *delays) first() *wait {
	switch {
	case d.near.n > 0:
		return d.near.waits.At(0)
	case d.far.n > 0:
		return d.far.waits.At(0)
	}
	return nil
}

// advance moves the bound to horizon ahead of now, and the waits of far
// it passes to near. After maxMoves of them it stops at the next one.
func (d *delays) advance(now int64) {
	to := now + min(horizon, math.MaxInt64-now)
	if d.bound.at >= to {
		return
	}
	for moves := 0; d.far.n > 0 && d.far.waits.At(0).at < to; moves++ {
		w := *d.far.waits.At(0)
		if moves == maxMoves {
			d.bound = wait{at: w.at, seq: w.seq}
			return
		}
		d.far.remove(d.spots(&d.far), 0)
		d.near.insert(d.spots(&d.near), w)
	}
	d.bound = wait{at: to} // every wait of far is at to or later, so after it
}

// locate returns the heap of the delayed item in slot e and its position
// in it.
func (d *delays) locate(e int32) (*heap, int) {
	i := *d.pos.At(int(e))
	if i < 0 {
		return &d.far, int(^i)
	}
	return &d.near, int(i)
}

// push adds w to near or far, by the bound.
func (d *delays) push(w wait) {
	if w.before(&d.bound) {
		d.near.insert(d.spots(&d.near), w)
	} else {
		d.far.insert(d.spots(&d.far), w)
	}
}

// sooner puts back in order the wait at position i of h, whose time has
// just moved earlier. A wait of far that now comes before the bound moves
// to near.
func (d *delays) sooner(h *heap, i int) {
	w := *h.waits.At(i)
	if h == &d.far && w.before(&d.bound) {
		h.remove(d.spots(h), i)
		d.push(w)
		return
	}
	h.up(d.spots(h), i, w)
}

// postpone puts back in order the wait at position i of h, whose time
// has just moved later, or whose tie-break number has. A wait of near that
// no longer comes before the bound moves to far: every wait of near must
// come before every wait of far.
func (d *delays) postpone(h *heap, i int) {
	w := *h.waits.At(i)
	if h == &d.near && !w.before(&d.bound) {
		h.remove(d.spots(h), i)
		d.far.insert(d.spots(&d.far), w)
		return
	}
	h.down(d.spots(h), i, w)
}

// spots returns where h writes the positions of its waits: d.pos, with i
// for position i in near and ^i in far.
func (d *delays) spots(h *heap) spots {
	if h == &d.far {
		return spots{&d.pos, -1}
	}
	return spots{&d.pos, 0}
}
