//go:build !readyq_oneheap

package readyq

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
// readyq_oneheap for one heap, to compare.
//
// The position of a delayed entry (slab.positions) is its index in near,
// or the complement of its index in far, which is below 0.
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
		return d.near.waits.at(0)
	case d.far.n > 0:
		return d.far.waits.at(0)
	}
	return nil
}

// advance moves the bound to horizon ahead of now, and the waits of far
// it passes to near. After maxMoves of them it stops at the next one.
func (q *Queue[T]) advance(now int64) {
	d := &q.delays
	to := now + min(horizon, math.MaxInt64-now)
	if d.bound.at >= to {
		return
	}
	for moves := 0; d.far.n > 0 && d.far.waits.at(0).at < to; moves++ {
		w := *d.far.waits.at(0)
		if moves == maxMoves {
			d.bound = wait{at: w.at, seq: w.seq}
			return
		}
		q.remove(&d.far, 0)
		q.insert(&d.near, w)
	}
	d.bound = wait{at: to} // every wait of far is at to or later, so after it
}

// locate returns the heap of the delayed item e and its position in it.
func (q *Queue[T]) locate(e *entry[T]) (*heap, int) {
	i := *q.slab.positions.at(int(e.id))
	if i < 0 {
		return &q.delays.far, int(^i)
	}
	return &q.delays.near, int(i)
}

// push adds w to near or far, by the bound.
func (q *Queue[T]) push(w wait) {
	if w.before(&q.delays.bound) {
		q.insert(&q.delays.near, w)
	} else {
		q.insert(&q.delays.far, w)
	}
}

// sooner puts back in order the wait at position i of h, whose time has
// just moved earlier. A wait of far that now comes before the bound moves
// to near.
func (q *Queue[T]) sooner(h *heap, i int) {
	w := *h.waits.at(i)
	if h == &q.delays.far && w.before(&q.delays.bound) {
		q.remove(h, i)
		q.push(w)
		return
	}
	q.up(h, i, w)
}

// position returns what slab.positions holds for a wait at position i of
// h: i in near, ^i in far.
func (d *delays) position(h *heap, i int) int32 {
	if h == &d.far {
		return ^int32(i)
	}
	return int32(i)
}
