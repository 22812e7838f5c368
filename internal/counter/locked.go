package counter

import "github.com/evsync/evsync/internal/spin"

// Lock begins a locked section (see the package doc): it takes mu, sets
// slow, moves a reader waiting in the lone slot to the head of the
// readers' queue, and reads the count into cnt. Every locked section ends
// with Unlock.
func (c *Counter) Lock() {
	hook(pLockWait)
	c.mu.Lock()
	for {
		w := c.word.Load()
		hook(pLock)
		switch {
		case w&loneBit != 0:
			if !c.word.CompareAndSwap(w, w&^loneBit|slowBit) {
				continue
			}
			c.readers.PushFront(&c.lone)
		case w&slowBit == 0:
			if !c.word.CompareAndSwap(w, w|slowBit) {
				continue
			}
		}
		c.cnt = w & countMask
		if w&bigBit != 0 {
			c.cnt = c.big.Load()
		}
		c.was = c.cnt
		return
	}
}

// Unlock ends a locked section: it serves the waiters that can be served
// and fires Ready, writes the count back with the flags the queues call
// for, unlocks mu, and then wakes the waiters it served and tells the
// Delayer about a count that waits for its readers.
func (c *Counter) Unlock() {
	c.serve()
	waiting := c.readers.Len() != 0 || c.ready.Armed()
	held := c.delay != nil && waiting
	c.publish(c.writers.Len() != 0 || c.writable.Armed() || c.drainers.Len() != 0 || c.debt.Load() != 0 || waiting && !held, held)
	c.serving = false
	note := held && c.cnt > c.was && !c.closed() // the section wrote to a count readers wait for
	count := c.cnt
	r, w, d := c.readers.Woken(), c.writers.Woken(), c.drainers.Woken()
	c.mu.Unlock()
	spin.WakeAll(r)
	spin.WakeAll(w)
	spin.WakeAll(d)
	if note {
		c.delay.Note(count)
	}
}

// publish writes cnt back into the word (into big, with bigBit, if it does
// not fit), with slow and notify as given, keeping the closed bit and the
// generation. Only the busy bit can have changed since Lock.
func (c *Counter) publish(slow, notify bool) {
	low, flags := c.cnt, uint64(0)
	if low > countMask {
		c.big.Store(low)
		low, flags = 0, bigBit
	}
	if slow {
		flags |= slowBit
	}
	if notify {
		flags |= notifyBit
	}
	for {
		w := c.word.Load()
		hook(pPublish)
		nw := w&(closedBit|busyBit|genMask) | flags | low
		if w == nw || c.word.CompareAndSwap(w, nw) {
			return
		}
	}
}

// serve hands the count to the readers that can be served, oldest first,
// and lets back-pressured writers in while there is room, until neither
// can move; after Close it refuses those that never can be. With a
// Delayer, readers and Ready wait for Serve (or Close). Only in a locked
// section.
func (c *Counter) serve() {
	readers := c.delay == nil || c.serving || c.closed()
	for {
		if readers {
			c.serveReaders()
		}
		if !c.serveWriters() {
			break // the readers have had what the writers added
		}
	}
	if c.closed() {
		// Nothing will be added: refuse each head what is left cannot
		// serve, and see whether the next one fits.
		for w := c.readers.Front(); w != nil; w = c.readers.Front() {
			if v, ok := c.take(w.P.need, w.P.max); ok {
				c.readers.Grant(w, req{need: w.P.need, max: w.P.max, got: v})
			} else {
				c.readers.Reject(w)
			}
		}
		c.writers.RejectAll()
	}
	if readers {
		c.ready.Fire(c.cnt != 0 || c.closed())
	}
	c.writable.Fire(c.cnt < c.Limit() || c.closed())
	if c.cnt == c.Limit() {
		for w := c.drainers.Front(); w != nil; w = c.drainers.Front() {
			c.drainers.Grant(w, req{})
		}
	}
}

// serveReaders hands the count to the readers at the head of the queue
// while it covers them. With the count at 0 it serves nobody, so it need
// not look at the head (whose context Front would check).
func (c *Counter) serveReaders() {
	for c.cnt != 0 {
		w := c.readers.Front()
		if w == nil {
			return
		}
		v, ok := c.take(w.P.need, w.P.max)
		if !ok {
			return
		}
		c.readers.Grant(w, req{need: w.P.need, max: w.P.max, got: v})
	}
}

// serveWriters adds what the writers at the head of the queue bring while
// there is room, and reports whether it let any in.
func (c *Counter) serveWriters() bool {
	moved := false
	for w := c.writers.Front(); w != nil && c.add(Plain, w.P.need) == nil; w = c.writers.Front() { // Plain: none is let in after Close
		c.writers.Grant(w, w.P)
		moved = true
	}
	return moved
}

// add adds n to the count. Only in a locked section.
func (c *Counter) add(m Mode, n uint64) error {
	debt := c.debt.Load()
	pay := min(n, debt) // a write pays SetLimit's debt before it adds to the count
	switch {
	case c.overDebt(n):
		return spin.ErrInvalid // no count could ever take it: a bad argument, even after Close
	case c.closed() && m == Plain:
		return spin.ErrClosed
	case n-pay > c.Limit()-c.cnt:
		return spin.ErrWouldBlock
	}
	c.debt.Store(debt - pay)
	c.cnt += n - pay
	return nil
}

// take takes need units (the whole count if 0). It never takes after a
// Close that stops reads (StopReadsAtClose). Only in a locked section.
func (c *Counter) take(need, max uint64) (uint64, bool) {
	if c.cnt == 0 || c.cnt < need || c.stops && c.closed() {
		return 0, false
	}
	if need == 0 {
		need = c.cnt
		if max != 0 {
			need = min(need, max)
		}
	}
	c.cnt -= need
	return need, true
}

func (c *Counter) closed() bool { return c.word.Load()&closedBit != 0 }

// setBits and clearBits change flags, keeping the rest of the word.
func (c *Counter) setBits(b uint64) {
	for w := c.word.Load(); !c.word.CompareAndSwap(w, w|b); w = c.word.Load() {
	}
}

func (c *Counter) clearBits(b uint64) {
	for w := c.word.Load(); w&b != 0 && !c.word.CompareAndSwap(w, w&^b); w = c.word.Load() {
	}
}

var _ spin.Owner = (*Counter)(nil)
