package counter

import (
	"sync/atomic"

	"github.com/evsync/evsync/internal/waitq"
)

// A loneSlot is the lone slot (see the package doc). It holds the record
// of the one reader that waits without the lock. A writer hands that
// reader units without the lock too. The methods are the protocol's
// compare-and-swap steps on the word, whose lone and busy bits say who
// owns the record. Each step keeps the generation. The generation cannot
// change while lone is set, because a locked section clears lone first.
//
// The table gives the word each step leaves, by the word it finds. Bits
// it does not name stay as they are. A step that "fails" changes nothing,
// and the actor takes the locked path. For a writer that is its ordinary
// path. A "–" cannot happen, because the reader holds busy from its park
// until it frees the record.
//
//	word found  reader parks   reader takes back  reader frees  writer claims  lock moves
//	free        lone|busy (a)  –                  –             fails          slow
//	busy        fails (b)      fails (c)          busy cleared  fails          slow|busy
//	lone|busy   fails          busy               –             busy (d)       slow|busy (e)
//	other       fails          –                  –             fails          slow
//
// Free is a count of 0 and no flag. Other is any other word without lone
// or busy. These notes go with the table.
//
//	(a) With a context that can end, busy comes first. The reader stores
//	    the context's Done channel, then publishes (busy → lone|busy).
//	(b) Another reader fails. The one that set busy publishes if the word
//	    is still busy alone. Else it frees the record and takes the
//	    locked path.
//	(c) A writer or a locked section was first. The reader waits for the
//	    verdict.
//	(d) The writer hands the reader its units. If the reader's context
//	    has ended, the writer drops the reader instead (handLone).
//	(e) The record goes to the head of the readers' queue, which serves it.
//
// So a locked section sees slow, with busy while a reader owns the
// record, and never lone. Only busy can change under it, when the reader
// frees the record. So unlock's publish keeps busy as it finds it.
type loneSlot struct {
	rec   waitq.Waiter[req] // the record, whose need its first reader sets (one mode per Counter)
	ready atomic.Bool       // rec has its channel and its need
}

// park parks a reader in the slot if the word is free, and returns the
// record. It returns nil if it could not. A reader whose context never
// ends publishes itself with one compare-and-swap. One whose context can
// end first claims the record, stores its context's Done channel there,
// then publishes.
func (s *loneSlot) park(word *atomic.Uint64, done <-chan struct{}, need uint64) *waitq.Waiter[req] {
	g := word.Load()
	if g&^genMask != 0 {
		return nil
	}
	r := &s.rec
	if done == nil && s.ready.Load() {
		hook(pLonePublish)
		if word.CompareAndSwap(g, g|loneBit|busyBit) {
			return r
		}
		return nil
	}
	if !word.CompareAndSwap(g, g|busyBit) {
		return nil
	}
	if !s.ready.Load() {
		r.Keep()
		r.P.need = need
		s.ready.Store(true)
	}
	r.Arm(done)
	hook(pLoneClaimed)
	if word.CompareAndSwap(g|busyBit, g|loneBit|busyBit) {
		return r
	}
	s.free(word) // a write or a locked section came in between, so give up the slot
	return nil
}

// claim takes the waiting reader's record (lone|busy → busy). The reader
// calls it to take the record back, and a writer calls it to claim the
// record. It looks at the word and passes the window p. It fails if the
// record was taken back, claimed or moved first.
func (s *loneSlot) claim(word *atomic.Uint64, p point) bool {
	w := word.Load()
	hook(p)
	return w&loneBit != 0 && word.CompareAndSwap(w, w&^loneBit)
}

// free gives the record up by clearing busy. Its reader calls it once the
// verdict is in, or once its publish failed.
func (s *loneSlot) free(word *atomic.Uint64) {
	s.rec.Arm(nil)
	for w := word.Load(); w&busyBit != 0 && !word.CompareAndSwap(w, w&^busyBit); w = word.Load() {
	}
}

// moveTo moves the waiting reader to the head of the queue q, for lock
// (lone|busy → slow|busy). The compare-and-swap is from w, the word lock
// read. It fails if the word has changed since.
func (s *loneSlot) moveTo(word *atomic.Uint64, w uint64, q *waitq.Queue[req]) bool {
	if !word.CompareAndSwap(w, w&^loneBit|slowBit) {
		return false
	}
	q.PushFront(&s.rec)
	return true
}

// handLone gives n to the reader in the lone slot. It claims the record,
// then hands n over if the reader's context is live. If the context has
// ended, n goes to the count instead. The reader is told it was dropped
// only if that write succeeded. Otherwise it is handed n after all, since
// a grant is never lost. handLone reports false if the slot was taken
// back first.
func (c *Counter) handLone(m Mode, n uint64) bool {
	if !c.lone.claim(&c.word, pWriterClaim) {
		return false
	}
	r := &c.lone.rec
	hook(pWriterClaimed)
	if !r.Live() && c.Write(m, n) == nil {
		r.Settle(waitq.Cancelled, req{need: r.P.need})
		return true
	}
	r.Settle(waitq.Granted, req{need: r.P.need, got: n})
	handed(c)
	return true
}

// finishLone ends the lone reader's wait. If its context ended first, it
// takes the record back. If a writer or a locked section was first, the
// record's verdict stands (Finish). Then it frees the record.
func (c *Counter) finishLone(woke bool) (req, waitq.Result) {
	r := &c.lone.rec
	p, res := req{}, waitq.Cancelled
	if woke || !c.lone.claim(&c.word, pLoneReclaim) {
		p, res = c.sec.readers.Finish(c, r, woke)
	}
	c.lone.free(&c.word)
	return p, res
}
