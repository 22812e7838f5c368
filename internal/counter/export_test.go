package counter

import (
	"errors"
	"fmt"
)

// The word's flags and its count field, for the external tests' white-box
// checks (see the package doc).
const (
	ClosedBit = closedBit
	BigBit    = bigBit
	SlowBit   = slowBit
	LoneBit   = loneBit
	BusyBit   = busyBit
	NotifyBit = notifyBit
	CountMask = countMask
)

// Word returns c's word.
func Word(c *Counter) uint64 { return c.word.Load() }

// CheckInvariants returns an error that names the first invariant of the
// package doc that c breaks, or nil. It checks two promises more:
//   - nobody waits whom a locked section would serve ("Why no wakeup is
//     lost");
//   - no queued request asks for more than the limit lets in (SetLimit).
//
// Only at rest: no call on c is under way, and every waiter is parked.
func CheckInvariants(c *Counter) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	l := &c.sec
	w, limit, debt := c.word.Load(), c.Limit(), c.debt.Load()
	count := c.Count()
	queued, _ := c.lone.rec.Settled()
	slow, notify := w&slowBit != 0, w&notifyBit != 0
	held := c.delay != nil && l.readersWait() || mayBarge(c, l)
	switch {
	case w&bigBit != 0 && (w&countMask != 0 || count <= countMask):
		return fmt.Errorf("word %#x, big %d: big set for a count that fits the low bits", w, count)
	case w&loneBit != 0 && w&^genMask != loneBit|busyBit:
		return fmt.Errorf("word %#x: lone set with a count or another flag", w)
	case w&busyBit == 0 && queued:
		return fmt.Errorf("word %#x: busy clear, but the lone record is queued", w)
	case w&busyBit != 0 && w&loneBit == 0 && !queued:
		return fmt.Errorf("word %#x: busy set at rest, but the lone record is neither parked nor queued", w)
	case slow != c.needsSlow(l):
		return fmt.Errorf("word %#x: slow is %v at rest, needsSlow %v", w, slow, c.needsSlow(l))
	case notify != held:
		return fmt.Errorf("word %#x: notify is %v, readers held by a Delayer or bargeable %v", w, notify, held)
	case w&wokenBit != 0 != l.woken:
		return fmt.Errorf("word %#x: woken is not the section's %v", w, l.woken)
	case l.woken:
		return fmt.Errorf("word %#x: at rest, a reader woken to retry has not retried", w)
	case debt > 0 && !slow:
		return fmt.Errorf("word %#x, debt %d: a debt without slow", w, debt)
	case count > limit:
		return fmt.Errorf("count %d above the limit %d", count, limit)
	case debt > 0 && count != 0:
		return fmt.Errorf("count %d with a debt of %d", count, debt)
	case l.readers.MaxNeed(needOf) > limit:
		return fmt.Errorf("a queued reader needs more than the limit %d", limit)
	case c.overDebt(l.writers.MaxNeed(needOf)):
		return fmt.Errorf("a queued writer brings more than the limit %d and the debt %d let in", limit, debt)
	}
	return nobodyLeft(c, l, count, limit, debt)
}

// nobodyLeft returns an error if a waiter is left at rest that a locked
// section would serve.
func nobodyLeft(c *Counter, l *locked, count, limit, debt uint64) error {
	closed := c.closed()
	nr, nw := l.readers.Len(), l.writers.Len()
	switch {
	case closed && nr+nw != 0:
		return fmt.Errorf("closed, but %d readers and %d writers are queued", nr, nw)
	case c.delay == nil && l.ready.Armed() && (count != 0 || closed):
		return fmt.Errorf("count %d, closed %v, but Ready is armed", count, closed)
	case l.writable.Armed() && (count < limit || closed):
		return fmt.Errorf("count %d of %d, closed %v, but Writable is armed", count, limit, closed)
	case l.drainers.Len() != 0 && count == limit:
		return fmt.Errorf("count at the limit %d, but Drain waits", limit)
	}
	r, w := l.readers.Front(), l.writers.Front() // at rest no head's context has ended, so these change nothing
	switch {
	case l.readers.Len() != nr || l.writers.Len() != nw:
		return errors.New("a waiter whose context ended is still queued at rest")
	case c.delay == nil && r != nil && count != 0 && count >= r.P.need:
		return fmt.Errorf("count %d, but the head reader (need %d) waits", count, r.P.need)
	case w != nil && w.P.need-min(w.P.need, debt) <= limit-count:
		return fmt.Errorf("count %d of %d, debt %d, but the head writer (%d) waits", count, limit, debt, w.P.need)
	}
	return nil
}
