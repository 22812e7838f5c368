package counter

import (
	"context"
	"runtime"
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
//     reader's fast path may take units with readers queued (barge), and
//     a write adds lock-free and then tells the queue (noted). A barge
//     reads no clock. It judges the word, whose slow bit says whether the
//     counter starves.
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
// The clock is read off the fast paths only. Two steps notice that the
// oldest reader is overdue, and start starving:
//
//   - its own retry, when it finds its units gone;
//   - the end of a section that added units or queued a reader (endFair).
//     Every write makes one while readers are queued and none is woken.
//
// So a barge can take units ahead of an overdue reader only until the
// next of these: the woken reader's next run, the next write, or the next
// reader that queues. A clock read costs about 30ns on a 2-core VM, half
// of a barge, which is why barge does not read it.
//
// Reservations have no goroutine to retry. They are handed their units,
// in order, in both modes.
//
// Invariants, with the bound set:
//
//   - woken set implies one goroutine holds a retry verdict and has not
//     yet run its retry section. That section clears woken. So woken
//     implies that a section will run and see the count.
//   - notify set implies readers are queued and the counter is not
//     starving.
//   - starving set and readers queued imply slow. So a barge's CAS from a
//     word read before the counter started starving fails.

// A fairness is a Semaphore counter's eventual-fairness setting. With a
// bound of 0, the default, queued readers are served strictly in order.
type fairness struct {
	bound int64     // nanoseconds the oldest reader may wait before order is strict, or 0
	clock clk.Clock // where the ages are read
	epoch time.Time // when the clock's readings start, so ages are monotonic on the wall clock
	yield bool      // a section that woke a parked reader yields to it (handed)
}

// SetFairness sets the counter's eventual-fairness bound (0 for strict
// FIFO) and the clock that ages are read on. It also makes every wake-up
// of a parked reader yield the processor to that reader (see handed). It
// is for the semaphore package's counters. Only before the Counter is
// shared. It is a function, not a method, so that the Counter's method
// set stays what it was (the layout ratchet).
func SetFairness(c *Counter, bound time.Duration, k clk.Clock) {
	c.fair.yield = true
	if bound <= 0 {
		return
	}
	c.fair.bound, c.fair.clock, c.fair.epoch = int64(bound), k, k.Now()
}

// handed ends a section that woke a parked reader, after the wake-ups:
// it yields the processor, so that the reader runs at once. The wake-up
// puts the reader next in line on this processor. Without the yield it
// would wait there until the waker blocks or is preempted. A reader
// handed units would leave them idle meanwhile, however long the releaser
// works on. A reader woken to retry would find them gone, and its wait
// would pass the bound by that much.
//
// Measured on 2 cores, against no yield: ReleaseThenWork went from 2.19
// to 1.10 times its floor, and the strict mode's contended rows took a
// quarter to a half of the time. In the eventual mode, a yield after a
// wake to retry took the longest wait at limit 1 with 8 goroutines from
// 15.5 ms to 4.2 ms, and changed no row's time.
func handed(c *Counter) {
	if c.fair.yield {
		runtime.Gosched()
	}
}

// now returns the time on the fairness clock, in nanoseconds since its
// epoch.
func (f *fairness) now() int64 { return int64(f.clock.Since(f.epoch)) }

// overdue reports whether a reader that started waiting at since has
// waited longer than the bound.
func (f *fairness) overdue(since int64) bool { return f.now()-since > f.bound }

// barging reports whether readers may take units ahead of queued ones
// now, judged in a section. It is false without a bound, and while the
// counter starves. Like a barge, it reads no clock.
func barging(c *Counter, l *locked) bool { return c.fair.bound != 0 && !l.starving }

// barge takes n ≥ 1 units without the lock, ahead of queued readers
// while the counter is not starving (TakeSlow, TryRead). It fails on a
// word that needs a locked section, which a starving counter's is, and on
// a short count. The CAS is from the word it judged. A counter that
// started starving since then has set slow, so the CAS fails.
func barge(c *Counter, n uint64) bool {
	for {
		w := c.word.Load()
		if w&fastMask != 0 || w&countMask < n {
			return false
		}
		hook(pBarge)
		if c.word.CompareAndSwap(w, w-n) {
			return true
		}
	}
}

// endFair ends an eventually fair section. It runs after serve, before
// the publish. It looks at the oldest queued reader's age if the counter
// starves, or if the section added units or queued a reader (noticed).
// The counter then starves if that reader has waited longer than the
// bound, and stops otherwise. With nobody queued, it never starves. With
// a reader woken, that reader is older than any queued one, and its retry
// decides.
func endFair(l *locked, c *Counter) {
	h, look := l.readers.Front(), l.starving || l.noticed && !l.woken
	l.noticed = false
	switch {
	case h == nil:
		l.starving = false
	case look:
		l.starving = c.fair.overdue(h.P.since)
	}
}

// retry is the wait of a reader woken to retry (see Eventual fairness).
// In a section, it takes what p asks for if it is there. Otherwise it
// queues again at the head, with its first start, and sleeps. It returns
// what finish returns. Like every woken reader, it takes nothing if its
// context has ended.
func retry(c *Counter, ctx context.Context, p req) (uint64, error) {
	for {
		l := c.lock()
		l.woken, l.noticed = false, true // it goes on with the write that woke it, which looks at the head (endFair)
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
