package counter

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/evsync/evsync/internal/clk"
	"github.com/evsync/evsync/internal/evserr"
	"github.com/evsync/evsync/internal/waitq"
)

// Eventual fairness
//
// With a bound, a Semaphore counter lets a running reader take units
// ahead of queued ones (barge), until the oldest has waited longer than
// the bound. It is sync.Mutex's rule, for counts. Without a bound, the
// default, queued readers are served strictly in order.
//
// The mode changes three steps, and nothing else.
//
//   - Queued readers set notify, not slow, while barging is allowed. So a
//     reader's fast path may take units with readers queued, and a write
//     adds lock-free and then tells the queue (noted).
//   - A write does not hand units to a queued reader. A section wakes the
//     oldest one to retry (woken), leaving the units in the count. The
//     woken reader takes them in a section of its own if they are still
//     there. Otherwise it queues again at the head, with its first start.
//     One reader at a time is woken. A woken reader that took its units
//     wakes the next one if units are left (its section's serve).
//   - Once the oldest reader has waited longer than the bound, the
//     counter starves: slow is set, and sections hand units over in
//     order, as in the default mode. It stops starving at the end of a
//     section whose oldest reader is within the bound, or once nobody is
//     queued.
//
// Reservations have no goroutine to retry. They are handed their units,
// in order, in both modes.
//
// Invariants, with the bound set:
//
//   - woken set implies one goroutine holds a retry verdict and has not
//     yet run its retry section. That section clears woken. So woken
//     implies that a section will run and see the count.
//   - notify set implies readers are queued, the counter is not starving,
//     and head holds the oldest one's start. Every publish of notify
//     follows the store of head.
//   - starving set and readers queued imply slow. So a barge's CAS from a
//     word read before the counter started starving fails.

// A fairness is a Semaphore counter's eventual-fairness setting. With a
// bound of 0, the default, queued readers are served strictly in order.
type fairness struct {
	bound int64        // nanoseconds the oldest reader may wait before order is strict, or 0
	clock clk.Clock    // where the ages are read
	epoch time.Time    // when the clock's readings start, so ages are monotonic on the wall clock
	head  atomic.Int64 // the oldest queued reader's start, stored by sections before they publish
}

// SetFairness sets the counter's eventual-fairness bound (0 for strict
// FIFO) and the clock that ages are read on. Only before the Counter is
// shared. It is a function, not a method, so that the Counter's method
// set stays what it was (the layout ratchet).
func SetFairness(c *Counter, bound time.Duration, k clk.Clock) {
	if bound <= 0 {
		return
	}
	c.fair.bound, c.fair.clock, c.fair.epoch = int64(bound), k, k.Now()
}

// now returns the time on the fairness clock, in nanoseconds since its
// epoch.
func (f *fairness) now() int64 { return int64(f.clock.Since(f.epoch)) }

// overdue reports whether a reader that started waiting at since has
// waited longer than the bound.
func (f *fairness) overdue(since int64) bool { return f.now()-since > f.bound }

// barging reports whether readers may take units ahead of queued ones
// now, judged in a section. It is false without a bound, and while the
// counter starves. If the oldest queued reader has waited longer than the
// bound, the counter starts starving and barging reports false.
func barging(c *Counter, l *locked) bool {
	if c.fair.bound == 0 || l.starving {
		return false
	}
	h := l.readers.Front()
	if h != nil && c.fair.overdue(h.P.since) {
		l.starving = true
		return false
	}
	return true
}

// barge takes n ≥ 1 units without the lock, ahead of queued readers if
// barging is allowed (TakeSlow, TryRead). It fails on a word that needs a
// locked section, on a short count, and with queued readers whose oldest
// has waited longer than the bound. The CAS is from the word it judged:
// a counter that started starving since then has set slow, so it fails.
func barge(c *Counter, n uint64) bool {
	for {
		w := c.word.Load()
		if w&fastMask != 0 || w&countMask < n {
			return false
		}
		if w&notifyBit != 0 && c.fair.overdue(c.fair.head.Load()) {
			return false // a section will start starving
		}
		hook(pBarge)
		if c.word.CompareAndSwap(w, w-n) {
			return true
		}
	}
}

// endFair ends an eventually fair section: it stops starving once the
// oldest reader is within the bound or nobody is queued, and stores that
// reader's start for barge. It runs after serve, before the publish.
func endFair(c *Counter, l *locked) {
	h := l.readers.Front()
	if h == nil {
		l.starving = false
		return
	}
	if l.starving && !c.fair.overdue(h.P.since) {
		l.starving = false
	}
	c.fair.head.Store(h.P.since)
}

// retry is the wait of a reader woken to retry (see Eventual fairness).
// In a section, it takes what p asks for if it is there. Otherwise it
// queues again at the head, with its first start, and sleeps. It returns
// what finish returns. Like every woken reader, it takes nothing if its
// context has ended.
func retry(c *Counter, ctx context.Context, p req) (uint64, error) {
	for {
		l := c.lock()
		l.woken = false
		if err := ctx.Err(); err != nil {
			c.unlock(l)
			return 0, err
		}
		if v, ok := c.take(l, p.need, p.max); ok {
			c.unlock(l)
			return v, nil
		}
		if c.closed() {
			c.unlock(l)
			return 0, evserr.ErrClosed
		}
		if c.fair.overdue(p.since) {
			l.starving = true
		}
		p.retry = false
		w := l.readers.PushHead(ctx.Done(), p)
		c.unlock(l)
		hook(pSleep)
		got, r := c.sec.readers.Finish(c, w, w.Sleep())
		switch {
		case r == waitq.Closed:
			return 0, evserr.ErrClosed
		case r == waitq.Cancelled:
			return 0, ctx.Err()
		case !got.retry:
			return got.got, nil
		}
		p = got
	}
}
