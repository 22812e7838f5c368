package rq

import (
	"slices"
	"sync/atomic"
)

// slot is one place in the ready list.
type slot[T comparable] struct {
	item T
	dead bool // removed while queued: a hole that hand-outs step over
}

// An Array is the storage of a ready list.
type Array[T comparable] struct {
	slots []slot[T]
	Scans atomic.Int32 // copies from this array under way outside the lock
}

// Len returns the number of slots in a, for tests of its growth.
func (a *Array[T]) Len() int { return len(a.slots) }

// minSlots is the size of the first array.
const minSlots = 64

// A Fifo is a ready list. Only with the queue's lock held.
//
// The list is an array of slots indexed by sequence number. The n-th item
// ever queued has seq n and sits in slots[seq-base] of the current array.
// Slots with head ≤ seq < tail are queued, and those below head have been
// handed out. A hand-out of k items is head += k, plus a walk over holes
// left by Remove if there are any. The queue decides whether an item is
// in flight by comparing its entry's seq with head. So a whole batch
// changes state at once, and a splice of any size holds the lock for
// O(1). Epoll splices its ready list onto a private txlist for the same
// reason.
//
// Large batches are copied out after the lock is released. While a copy
// from an array is under way (Array.Scans > 0), nobody writes into the
// part of that array it reads.
//
//   - New items only go to slots above tail.
//   - Remove only marks queued slots (seq ≥ head).
//   - An array with a copy under way is never compacted in place. When it
//     fills up, the queued slots move to a new array. The old one stays
//     with its readers until the collector takes it.
type Fifo[T comparable] struct {
	Arr   *Array[T]
	base  uint64 // seq of Arr.slots[0]
	Head  uint64 // seq of the oldest queued slot
	tail  uint64 // seq of the next item queued
	holes int    // dead slots in [Head, tail)
	Live  int    // queued items: tail - Head - holes
}

// Push queues item at the tail and returns its seq.
func (f *Fifo[T]) Push(item T) uint64 {
	i := f.tail - f.base
	if f.Arr == nil || i == uint64(len(f.Arr.slots)) {
		i = f.makeRoom()
	}
	f.Arr.slots[i] = slot[T]{item: item}
	f.Live++
	f.tail++
	return f.tail - 1
}

// makeRoom moves the queued slots to the front of the array, or of a new
// one twice their number (at least minSlots). It returns the index of the
// tail. It compacts in place only when at least half of the array is free
// and no copy from it is under way. So pushes stay amortized O(1), and
// copies never see their slots overwritten.
func (f *Fifo[T]) makeRoom() uint64 {
	n := int(f.tail - f.Head)
	if f.Arr != nil && f.Arr.Scans.Load() == 0 && n <= len(f.Arr.slots)/2 {
		s := f.Arr.slots
		copy(s, s[f.Head-f.base:])
		clear(s[n:]) // stale copies of the moved slots (consumed slots were cleared at hand-out)
	} else {
		a := &Array[T]{slots: make([]slot[T], max(minSlots, 2*n))}
		if f.Arr != nil {
			copy(a.slots, f.Arr.slots[f.Head-f.base:f.tail-f.base])
		}
		f.Arr = a
	}
	f.base = f.Head
	return f.tail - f.base
}

// Splice takes the k oldest queued items (1 ≤ k ≤ live) off the list. It
// returns the index range of arr.slots that holds them. The range is
// exactly k slots, unless Remove left holes, which it then also covers.
// It takes O(1) time without holes. With holes it walks the range.
func (f *Fifo[T]) Splice(k int) (lo, hi int) {
	lo = int(f.Head - f.base)
	hi = lo + k
	if f.holes != 0 {
		hi = f.skip(lo, k)
	}
	f.Head = f.base + uint64(hi)
	f.Live -= k
	if f.Live == 0 {
		f.dropHoles()
	}
	return lo, hi
}

// skip returns the end of the shortest range from lo holding k live slots,
// counting the holes it passes.
func (f *Fifo[T]) skip(lo, k int) int {
	s := f.Arr.slots
	i := lo
	for ; k > 0; i++ {
		if s[i].dead {
			f.holes--
		} else {
			k--
		}
	}
	return i
}

// Kill makes the queued slot seq a hole (Remove).
func (f *Fifo[T]) Kill(seq uint64) {
	f.Arr.slots[seq-f.base] = slot[T]{dead: true}
	f.holes++
	if f.Live--; f.Live == 0 {
		f.dropHoles()
	}
}

// dropHoles moves head past the holes that are all that is left queued.
// Their slots were cleared when they became holes.
func (f *Fifo[T]) dropHoles() {
	f.Head, f.holes = f.tail, 0
}

// CopyOut appends the live items of slots[lo:hi] to buf and clears the
// slots, so that the array keeps no item alive.
func (a *Array[T]) CopyOut(buf []T, lo, hi int) []T {
	s := a.slots[lo:hi]
	buf = slices.Grow(buf, len(s))
	for i := range s {
		if !s[i].dead {
			buf = append(buf, s[i].item)
		}
	}
	clear(s)
	return buf
}

// CopyOutside is CopyOut for a hand-out too large to copy under the
// lock. The hand-out adds 1 to Scans before its unlock, and CopyOutside
// runs after it, then takes the 1 off again.
func (a *Array[T]) CopyOutside(buf []T, lo, hi int) []T {
	buf = a.CopyOut(buf, lo, hi)
	a.Scans.Add(-1) // after the last read of the slots
	return buf
}
