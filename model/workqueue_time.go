package model

import (
	"cmp"
	"math"
	"slices"
	"time"
)

// The model's clock, its delayed items and its rate limiter.
//
// Ready times are durations since the model started. Each time a ready
// time is set (an item delayed, a kept-aside mark made, an earlier time
// adopted) it takes the next sequence number; items due at the same time
// are queued in the order of their numbers. A kept-aside mark that Done or
// Rearm turns into a delay keeps the time and the number it was set with.

// The delays of a WorkQueue's rate limiter when WorkQueueConfig leaves
// them 0. They are those of workqueue.DefaultRateLimiter's per-item backoff, which
// is client-go's. The n-th retry of an item, from 0, waits
// DefaultBaseDelay·2ⁿ, at most DefaultMaxDelay.
const (
	DefaultBaseDelay = 5 * time.Millisecond
	DefaultMaxDelay  = 1000 * time.Second
)

// backoff is the delay an exponential limiter gives an item that has
// failed n times before: base·2ⁿ, but at most max (client-go's
// ItemExponentialFailureRateLimiter, without its float arithmetic).
func backoff(base, max time.Duration, n int) time.Duration {
	d := base
	for ; n > 0 && d > 0 && d < max; n-- {
		if d > max/2 {
			return max
		}
		d *= 2
	}
	return min(d, max)
}

// retryDelay is the limiter's delay for an item that has failed n times
// before: the backoff, cut by the jitter. It draws one u from the source
// when there is jitter, as the real limiter's When does.
func (w *wqCore) retryDelay(n int) time.Duration {
	d := backoff(w.base, w.maxDelay, n)
	if w.jitter == 0 {
		return d
	}
	return jitterCut(d, w.jitter, w.rand())
}

// jitterCut is d·(1 − f·u), u clamped to [0, 1] (NaN: 0), never below 0
// (workqueue.Backoff's Jitter).
func jitterCut(d time.Duration, f, u float64) time.Duration {
	switch {
	case math.IsNaN(u) || u <= 0:
		return d
	case u > 1:
		u = 1
	}
	c := float64(d) * (f * u)
	if c >= float64(d) {
		return 0
	}
	return d - time.Duration(c)
}

// Now is the model's clock, the sum of every Advance, at most the largest
// Duration.
func (q *WorkQueue) Now() time.Duration { return q.w.now }

// Advance moves the clock on by d, as time passing moves the real queue's
// timer. It queues every delayed item whose ready time is now or earlier.
// They go in ready-time order, ties in the order the times were set, each
// to the tail of its priority and tenant. Advance panics for d < 0. The
// clock stops at the largest Duration rather than wrap round into the
// past.
func (q *WorkQueue) Advance(d time.Duration) {
	if d < 0 {
		panic("model: workqueue clock moved back")
	}
	w := &q.w
	w.now += min(d, math.MaxInt64-w.now)
	w.queueDue(func(it *rqItem) bool { return it.at <= w.now })
	w.rq.settle()
}

// readyAt is the ready time of a mark made now with delay d: now for
// d ≤ 0, and at most the largest Duration, so that a delay too long for
// the clock means "not for ages", never a time in the past.
func (w *wqCore) readyAt(d time.Duration) time.Duration {
	if d > math.MaxInt64-w.now {
		return math.MaxInt64
	}
	return w.now + max(d, 0)
}

// queueDue queues the delayed items for which due holds, in ready-time
// order.
func (w *wqCore) queueDue(due func(*rqItem) bool) {
	for _, d := range w.delays() {
		if it := w.rq.items[d.Item]; due(it) {
			w.rq.enqueue(d.Item, it)
		}
	}
}

// place queues it now if at has come, else delays it until at.
func (w *wqCore) place(k int, it *rqItem, at time.Duration) {
	if at <= w.now {
		w.rq.enqueue(k, it)
		return
	}
	it.state, it.at, it.seq = rqDelayed, at, w.stamp()
}

// stamp numbers a ready time being set.
func (w *wqCore) stamp() uint64 {
	w.seqs++
	return w.seqs
}

// A Delay is a delayed item and its ready time on the model's clock.
type Delay struct {
	Item int
	At   time.Duration
}

// Delays returns the delayed items with their ready times, in the order
// they will be queued. That is by ready time, ties in the order the times
// were set. The real queue's timer is armed for the first one's time.
// Stats().Delayed is their number.
func (q *WorkQueue) Delays() []Delay { return q.w.delays() }

func (w *wqCore) delays() []Delay {
	var ks []int
	for k, it := range w.rq.items {
		if it.state == rqDelayed {
			ks = append(ks, k)
		}
	}
	slices.SortFunc(ks, func(a, b int) int {
		x, y := w.rq.items[a], w.rq.items[b]
		return cmp.Or(cmp.Compare(x.at, y.at), cmp.Compare(x.seq, y.seq))
	})
	ds := make([]Delay, len(ks))
	for i, k := range ks {
		ds[i] = Delay{Item: k, At: w.rq.items[k].at}
	}
	return ds
}

// Forget models Forget(k). k's failure count starts again at 0.
func (q *WorkQueue) Forget(k int) {
	if it, ok := q.w.rq.items[k]; ok {
		it.fails = 0
	}
}

// NumRequeues models NumRequeues(k). It returns k's failure count, the
// rate-limited marks of k since k became known, or since Forget or Remove
// last reset it. An item forgotten loses its count, as the real queue
// calls the limiter's Forget then.
func (q *WorkQueue) NumRequeues(k int) int {
	if it, ok := q.w.rq.items[k]; ok {
		return it.fails
	}
	return 0
}

// Retries counts the rate-limited marks that were not refused, by
// AddRateLimited and by AddWith with RateLimited. The real queue calls
// Metrics.Retried for each.
func (q *WorkQueue) Retries() uint64 { return q.w.retries }
