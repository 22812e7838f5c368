package poll

import "time"

// dheap is a Set's heap of armed Deadlines not yet due: a 4-ary min-heap
// by time, as the runtime's timer heap is. Guarded by the Set's mu.
//
// Each entry keeps its Deadline's time as a key. So a sift reads the
// heap's own array, and writes a registration only to move its index.
// Reading the time through the registration and the Deadline instead
// costs two cache misses a comparison once the heap holds 10^5 of them.
//
// A key is the Deadline's time less the epoch, the time of the first
// Deadline the heap took, as time.Time.Sub gives it. So keys order as
// Before does: by the monotonic clock readings if both times have one,
// else by the wall clock. Sub saturates about 292 years from the epoch;
// there, equal keys fall back to the times themselves.
//
// A registration in the heap holds its index plus 1 in hidx, and 0 while
// it is not in the heap. So remove takes any entry in O(log n).
type dheap[K comparable] struct {
	es    []dentry[K]
	epoch time.Time
	began bool // epoch is set
}

// A dentry is one armed Deadline's registration and its key.
type dentry[K comparable] struct {
	key time.Duration
	r   *reg[K]
}

// The saturated keys, which Sub gives for times far from the epoch.
const (
	keyMin = time.Duration(-1 << 63)
	keyMax = time.Duration(1<<63 - 1)
)

// min returns the registration of the earliest Deadline, nil if the heap
// is empty.
func (h *dheap[K]) min() *reg[K] {
	if len(h.es) == 0 {
		return nil
	}
	return h.es[0].r
}

// push puts r in the heap.
func (h *dheap[K]) push(r *reg[K]) {
	if !h.began {
		h.epoch, h.began = r.dl.at, true
	}
	h.es = append(h.es, dentry[K]{r.dl.at.Sub(h.epoch), r})
	h.up(len(h.es) - 1)
}

// remove takes r out of the heap.
func (h *dheap[K]) remove(r *reg[K]) {
	i, last := int(r.hidx-1), len(h.es)-1
	moved := h.es[last]
	h.es[last] = dentry[K]{}
	h.es = h.es[:last]
	r.hidx = 0
	if i != last {
		h.es[i] = moved
		h.up(i)
		h.down(int(moved.r.hidx - 1))
	}
}

// up moves the entry at i toward the root while it is earlier than its
// parent.
func (h *dheap[K]) up(i int) {
	e := h.es[i]
	for i > 0 {
		p := (i - 1) / 4
		if !e.before(h.es[p]) {
			break
		}
		h.put(i, h.es[p])
		i = p
	}
	h.put(i, e)
}

// down moves the entry at i toward the leaves while one of its children
// is earlier.
func (h *dheap[K]) down(i int) {
	e, n := h.es[i], len(h.es)
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c // the earliest child
		for j := c + 1; j < min(c+4, n); j++ {
			if h.es[j].before(h.es[m]) {
				m = j
			}
		}
		if !h.es[m].before(e) {
			break
		}
		h.put(i, h.es[m])
		i = m
	}
	h.put(i, e)
}

// put stores e at i and tells its registration.
func (h *dheap[K]) put(i int, e dentry[K]) {
	h.es[i] = e
	e.r.hidx = int32(i + 1)
}

// before reports whether e's Deadline is earlier than f's.
func (e dentry[K]) before(f dentry[K]) bool {
	if e.key != f.key || e.key != keyMin && e.key != keyMax {
		return e.key < f.key
	}
	return e.r.dl.at.Before(f.r.dl.at)
}
