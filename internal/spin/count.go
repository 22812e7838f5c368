package spin

import "sync/atomic"

// closedMark marks a closed Count. It is 1<<64-1, the one value an eventfd
// counter can never hold (the maximum is 1<<64-2), so a single atomic word
// carries both the count and the closed state: a writer's compare-and-swap
// that raced with Close fails and sees the mark.
const closedMark = ^uint64(0)

// A Count is an eventfd counter: a uint64 that writers add to and readers
// take from without a lock. Close moves the value aside (to rest), where
// readers can still take it, and leaves closedMark behind, which every later
// write sees. The zero value is an open count of 0.
type Count struct {
	v    atomic.Uint64 // the count, or closedMark once closed
	rest atomic.Uint64 // after Close: what is left to read; unused before
}

// Store sets the initial value. Only before the Count is shared.
func (c *Count) Store(v uint64) { c.v.Store(v) }

// Load returns the current value, open or closed.
func (c *Count) Load() uint64 {
	if v := c.v.Load(); v != closedMark {
		return v
	}
	return c.rest.Load()
}

// Snapshot returns the value and whether the count is closed, reading the
// shared word once (observers touch the writers' cache line as little as
// possible).
func (c *Count) Snapshot() (v uint64, closed bool) {
	if v = c.v.Load(); v != closedMark {
		return v, false
	}
	return c.rest.Load(), true
}

// Closed reports whether Close has run.
func (c *Count) Closed() bool { return c.v.Load() == closedMark }

// Add adds n if the result stays at or below lim. It fails with ErrClosed
// after Close and with ErrWouldBlock (count unchanged) if it would not fit.
func (c *Count) Add(n, lim uint64) error {
	for {
		v := c.v.Load()
		if v == closedMark {
			return ErrClosed
		}
		if n > lim-v {
			return ErrWouldBlock
		}
		if c.v.CompareAndSwap(v, v+n) {
			return nil
		}
	}
}

// Sub takes n if at least n is there, open or closed.
func (c *Count) Sub(n uint64) bool {
	w := &c.v
	for {
		v := w.Load()
		if v == closedMark && w == &c.v {
			w = &c.rest
			continue
		}
		if v < n {
			return false
		}
		if w.CompareAndSwap(v, v-n) {
			return true
		}
	}
}

// TakeAll takes the whole value and leaves 0 (eventfd's plain read).
func (c *Count) TakeAll() uint64 {
	for {
		v := c.v.Load()
		if v == closedMark {
			return c.rest.Swap(0)
		}
		if v == 0 || c.v.CompareAndSwap(v, 0) {
			return v
		}
	}
}

// HandBack returns n taken by a waiter that was cancelled too late. Unlike
// Add it also works after Close (into what is left to read). It reports
// false, changing nothing, when the value cannot take n back without
// passing lim; the caller then keeps the grant (rule: report success).
func (c *Count) HandBack(n, lim uint64) bool {
	w := &c.v
	for {
		v := w.Load()
		if v == closedMark && w == &c.v {
			w = &c.rest
			continue
		}
		if n > lim-v {
			return false
		}
		if w.CompareAndSwap(v, v+n) {
			return true
		}
	}
}

// Close marks the count closed, keeping its value readable. It reports
// false if the count was already closed. rest is written before the mark is
// swapped in, and nobody reads rest until they see the mark, so no reader
// can see the mark with a stale rest.
func (c *Count) Close() bool {
	for {
		v := c.v.Load()
		if v == closedMark {
			return false
		}
		c.rest.Store(v)
		if c.v.CompareAndSwap(v, closedMark) {
			return true
		}
	}
}

// Ready returns the channel behind a primitive's Ready(): already closed if
// the count is non-zero or closed, else the notifier's channel, which the
// owner fires (under mu) when the count next becomes non-zero or is closed.
func (n *Notifier) Ready(mu *Lock, c *Count) <-chan struct{} {
	if c.v.Load() != 0 { // closedMark is non-zero too
		return closedCh
	}
	mu.Lock()
	ch := n.Arm()
	if c.v.Load() != 0 { // a writer may have missed Armed: re-check
		n.Fire()
	}
	mu.Unlock()
	return ch
}

// FireIf fires the notifier if the count is non-zero or closed. Only with
// the lock held.
func (n *Notifier) FireIf(c *Count) {
	if n.Armed() && c.v.Load() != 0 {
		n.Fire()
	}
}
