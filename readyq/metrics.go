package readyq

import (
	"math"
	"math/bits"
	"time"
)

// Metrics receives what a queue measures, the figures of client-go's
// workqueue metrics. A queue made WithMetrics calls its methods after it
// has released its lock, from the goroutine whose call caused the event,
// so they may block briefly or call the queue; concurrent events may be
// reported in either order. Without WithMetrics the queue reads no clock
// and counts nothing for it.
type Metrics interface {
	// Depth reports a change of the number of queued items (Len): +1
	// per item queued, -1 per item handed out or removed (client-go's
	// depth gauge, Inc and Dec).
	Depth(delta int)
	// Added reports a new mark (one that Add, AddAfter or AddWith
	// reports as new: client-go's adds).
	Added()
	// Waited reports, for an item handed out, how long it was queued
	// (client-go's queue latency).
	Waited(d time.Duration)
	// Worked reports, for an item Done, how long it was in flight
	// (client-go's work duration).
	Worked(d time.Duration)
	// Retried reports an AddRateLimited, or an AddWith with RateLimited
	// (client-go's retries).
	Retried()
}

// Running returns the two figures client-go updates in the background:
// the total time the items in flight have been in flight (unfinished
// work), and the longest of them (longest running processor). Both are 0
// without WithMetrics, which is what times the hand-outs. The total stays
// at the largest Duration once it would pass it. It takes O(1) time with
// the lock held.
func (q *Queue[T]) Running() (unfinished, longest time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	r := &q.running
	if q.metrics == nil || r.n == 0 {
		return 0, 0
	}
	now := q.now()
	head := q.slab.entry(r.head)
	return r.unfinished(now), time.Duration(now - q.slab.extra(head.x).start)
}

// running is the list of items in flight, oldest hand-out first, kept
// only with metrics: the slots of its ends, and in each item's extra part
// those of its neighbours. Only with mu held.
type running struct {
	head, tail int32 // while n > 0
	n          int
	sum        wide // of their start times
}

// unfinished returns the time in flight of all the items: n·now less the
// sum of their start times. A few items in flight for a century pass the
// largest Duration, so it works in 128 bits and saturates there.
func (r *running) unfinished(now int64) time.Duration {
	hi, lo := bits.Mul64(uint64(r.n), uint64(now)) // now ≥ every start ≥ 0
	lo, borrow := bits.Sub64(lo, r.sum.lo, 0)
	hi -= r.sum.hi + borrow
	if hi != 0 || lo > math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(lo)
}

// wide is an unsigned 128-bit sum of start times, which no number of
// items in flight can wrap.
type wide struct{ hi, lo uint64 }

func (w *wide) add(v int64) {
	var carry uint64
	w.lo, carry = bits.Add64(w.lo, uint64(v), 0)
	w.hi += carry
}

func (w *wide) sub(v int64) {
	var borrow uint64
	w.lo, borrow = bits.Sub64(w.lo, uint64(v), 0)
	w.hi -= borrow
}

// A post is what a locked section leaves to do after the unlock: the
// metrics it measured and the items whose retry state the limiter is to
// forget.
type post[T comparable] struct {
	depth, adds    int
	waited, worked []time.Duration
	forgot         []T
}

// posting returns the post of the current locked section. Only with mu
// held.
func (q *Queue[T]) posting() *post[T] {
	if q.post == nil {
		if q.post = q.spareMail.Swap(nil); q.post == nil {
			q.post = new(post[T])
		}
	}
	return q.post
}

// deliver does what a locked section posted, after the unlock.
func (q *Queue[T]) deliver(p *post[T]) {
	if m := q.metrics; m != nil {
		if p.depth != 0 {
			m.Depth(p.depth)
		}
		for range p.adds {
			m.Added()
		}
		for _, d := range p.waited {
			m.Waited(d)
		}
		for _, d := range p.worked {
			m.Worked(d)
		}
	}
	for _, item := range p.forgot {
		q.limiter().Forget(item)
	}
	clear(p.forgot)
	p.depth, p.adds = 0, 0
	p.waited, p.worked, p.forgot = p.waited[:0], p.worked[:0], p.forgot[:0]
	q.spareMail.Store(p)
}

// measure notes the change of depth for the metrics before the unlock.
// Only with mu held and metrics set.
func (q *Queue[T]) measure() {
	if n := q.queuedLen(); n != q.depth {
		q.posting().depth += n - q.depth
		q.depth = n
	}
}

// started times the items just handed out. Only with mu held and metrics
// set.
func (q *Queue[T]) started(items []T) {
	if len(items) == 0 {
		return
	}
	now := q.now()
	p := q.posting()
	r := &q.running
	for _, item := range items {
		e := q.lookup(item)
		x := q.extra(e)
		p.waited = append(p.waited, time.Duration(now-x.queuedAt))
		x.start, x.prev = now, r.tail
		if r.n > 0 {
			q.slab.extra(q.slab.entry(r.tail).x).next = e.id
		} else {
			r.head = e.id
		}
		r.tail = e.id
		r.n++
		r.sum.add(now)
	}
}

// finished times the item e, Done. Only with mu held and metrics set.
func (q *Queue[T]) finished(e *entry[T]) {
	if e.x == 0 { // handed out before metrics were set: cannot happen, metrics are set by New
		return
	}
	x := q.slab.extra(e.x)
	q.posting().worked = append(q.posting().worked, time.Duration(q.now()-x.start))
	r := &q.running
	if r.head != e.id {
		q.slab.extra(q.slab.entry(x.prev).x).next = x.next
	} else {
		r.head = x.next
	}
	if r.tail != e.id {
		q.slab.extra(q.slab.entry(x.next).x).prev = x.prev
	} else {
		r.tail = x.prev
	}
	x.prev, x.next = 0, 0
	r.n--
	r.sum.sub(x.start)
}
