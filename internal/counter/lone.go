package counter

import "github.com/evsync/evsync/internal/spin"

// The lone slot: a single reader waits without the lock, and a writer
// hands it units without the lock. The word says who owns the slot's
// record: lone|busy while the reader waits, busy while a writer or the
// reader itself holds it, neither when it is free. Every transition keeps
// the generation (SetLimit's, see the snapshot rule), which cannot change
// while lone is set: a locked section clears lone first.

// parkLone parks a reader in the lone slot, if the word is free: count
// 0, nobody waiting, no locked section. It returns nil if it could not.
// A reader whose context never ends publishes itself with one
// compare-and-swap; one whose context can end first claims the record,
// stores its context's Done channel there, then publishes.
func (c *Counter) parkLone(done <-chan struct{}, need uint64) *spin.Waiter[req] {
	g := c.word.Load()
	if g&^genMask != 0 {
		return nil
	}
	r := &c.lone
	if done == nil && c.loneReady.Load() {
		hook(pLonePublish)
		if c.word.CompareAndSwap(g, g|loneBit|busyBit) {
			return r
		}
		return nil
	}
	if !c.word.CompareAndSwap(g, g|busyBit) {
		return nil
	}
	if !c.loneReady.Load() {
		r.Keep()
		r.P.need = need
		c.loneReady.Store(true)
	}
	r.Arm(done)
	hook(pLoneClaimed)
	if c.word.CompareAndSwap(g|busyBit, g|loneBit|busyBit) {
		return r
	}
	r.Arm(nil) // a write or a locked section came in between: give up the slot
	c.clearBits(busyBit)
	return nil
}

// claimLone takes the lone reader's record (lone|busy → busy), after a
// look at the word and the window p. It fails if the slot was taken back,
// claimed or moved first.
func (c *Counter) claimLone(p point) bool {
	w := c.word.Load()
	hook(p)
	return w&loneBit != 0 && c.word.CompareAndSwap(w, w&^loneBit)
}

// handLone gives n to the reader in the lone slot: it claims the record,
// then hands n over if the reader's context is live. If it has ended, n
// goes to the count instead, and the reader is told it was dropped only
// if that write succeeded; otherwise it is handed n after all (a grant is
// never lost). It reports false if the slot was taken back first.
func (c *Counter) handLone(m Mode, n uint64) bool {
	if !c.claimLone(pWriterClaim) {
		return false
	}
	r := &c.lone
	hook(pWriterClaimed)
	if !r.Live() && c.Write(m, n) == nil {
		r.Settle(spin.Cancelled, req{need: r.P.need})
		return true
	}
	r.Settle(spin.Granted, req{need: r.P.need, got: n})
	return true
}

// finishLone ends the lone reader's wait. If its context ended first it
// takes the slot back; if a writer or a locked section was first, the
// record's verdict stands (Finish). Then it frees the record.
func (c *Counter) finishLone(woke bool) (req, spin.Result) {
	r := &c.lone
	p, res := req{}, spin.Cancelled
	if woke || !c.claimLone(pLoneReclaim) {
		p, res = c.sec.readers.Finish(c, r, woke)
	}
	r.Arm(nil)
	c.clearBits(busyBit)
	return p, res
}
