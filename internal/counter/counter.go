// Package counter is the eventfd counter behind packages semaphore and
// signal. It keeps one count and reads it in one of two modes, as the
// kernel reads one eventfd with or without EFD_SEMAPHORE.
//
// # The word
//
// The count and the counter's state share one atomic word. The count
// takes the low 36 bits, a generation sits above it, and the flags take
// the high bits.
//
//   - closed: Close has run.
//   - big: the count is too large for the low bits and lives in big. The
//     low bits are then 0. Every change of big takes the lock, and Count
//     reads big without the lock.
//   - slow: a locked section is under way, or needsSlow says one is
//     needed. That is the case with waiters queued, a channel armed, a
//     debt, or a poll set's watcher armed (watch.go).
//   - lone: one reader waits in the lone slot.
//   - busy: the lone slot's record is owned, by its reader or by a writer
//     handing it units.
//   - notify: with a wake delay, readers wait or a Ready channel is armed.
//     Writes then stay lock-free and tell the Delayer. With eventual
//     fairness, readers wait and may be barged (fair.go). Writes then stay
//     lock-free and wake the oldest reader unless woken is set.
//   - woken: with eventual fairness, a reader was woken to retry and has
//     not yet looked at the count (fair.go).
//   - generation: 21 bits that SetLimit steps each time it changes the
//     limit, so that the word never comes back to a value read before.
//
// With none of closed, big, slow, lone and notify set, a read or a write
// is one load and one compare-and-swap that keeps the busy bit. The load
// comes first, so a CAS that cannot succeed is never tried. The facades'
// exported methods inline these paths (TakeFast, TakeAllFast, AddFast).
// An uncontended call then runs in their own frame. One call level less
// saves about a tenth of an uncontended acquire. Where a fast path cannot
// decide, it reports false and has changed nothing. The full call then
// decides. The facades call TakeSlow and AddSlow for that, which skip the
// checks the caller has made and the fast path that failed.
//
// # Invariants
//
// These hold at every moment.
//
//   - slow set implies the count changes only under the lock.
//   - slow clear implies needsSlow is false. The only waiters are then
//     the lone reader and a Delayer's readers.
//   - lone set implies the word is lone|busy and its generation. So the
//     count is 0 and no other flag is set.
//   - busy clear implies nobody owns the lone slot's record.
//   - debt > 0 implies slow set.
//   - a generation unchanged since a load implies the limit is what it
//     was then, provided slow was clear at that load.
//
// These hold outside a locked section. They also hold of a section's
// working count at its end.
//
//   - count ≤ limit.
//   - debt > 0 implies count = 0. A cut takes the free units before it
//     makes a debt, and a write pays the debt before it adds.
//
// # The snapshot rule
//
// Every lock-free outcome stands on one state of the word, the limit and
// the debt. SetLimit stores the limit inside its locked section, and the
// count goes out only at unlock. So two reads can see two states. Only
// two ways pair them right.
//
//   - A grant is a CAS from the word w it judged, with the limit read
//     after w. A SetLimit begun since then sets slow and steps the
//     generation, so the CAS fails.
//   - Any other outcome stands on a look. Such outcomes are a refusal, a
//     done context's error that says the request was valid, and the
//     answers of Writable and Drain. A look (look) reads the word, the
//     limit and the word again. It vouches only if neither load shows
//     slow and both show one generation.
//
// A look that cannot vouch sends the caller to a locked section. There
// the count, the limit and the debt agree. A look that vouches has no
// debt, since debt > 0 implies slow. Any other read of the limit is a
// hint, for a path that judges again. The one gap is a wrapped
// generation. It takes a fast path stalled between its load and its CAS
// across 2^21 SetLimit calls.
//
// # The lone slot
//
// The commonest wait has one waiter, such as a signal's reader or an
// acquirer of one unit. It needs no lock on either side. The words below
// keep the generation. A reader whose context never ends publishes
// itself with one CAS (0 → lone|busy) and sleeps. One whose context can
// end first claims the record (0 → busy) and stores its Done channel
// there. Then it publishes (busy → lone|busy).
//
// A writer claims the reader with one CAS (lone|busy → busy). If the
// reader's context is live, the writer hands it the units and wakes it.
// If the context has ended, the writer adds the units to the count
// instead. It tells the reader it was dropped only if that add
// succeeded. Otherwise it hands the units over after all, and the read
// succeeds. A grant is never lost.
//
// To give up, the reader takes its record back (lone|busy → busy). If
// that fails, someone claimed the record first, and the reader waits for
// the verdict. The reader clears the record, then releases busy.
//
// A loneSlot (lone.go) owns the record and these steps. Its doc gives
// the protocol as a table. The table gives the next word by the word
// found and the actor.
//
// # Locked sections
//
// Every locked section starts with lock and ends with unlock (locked.go).
// First, lock sets slow, so that from then on the count changes only
// under the lock. If a reader waits in the lone slot, lock claims it and
// puts it at the head of the queue, which is then empty. So FIFO order
// holds across the slot and the queue. Then lock returns the section's
// state as a *locked. It holds a copy of the count to work on, and the
// queues and channels that mu guards. Every step of a section takes it,
// and no other code touches those fields. At the end, unlock serves the
// waiters that can be served, fires Ready, and writes the count back. It
// clears slow only if no waiter needs it (needsSlow).
//
// # Why no wakeup is lost
//
// The waiter flags and the count are in one word. A writer that read the
// word before a waiter set lone or slow fails its CAS and reads it again.
// With slow set, the count changes only under the lock, and every locked
// section ends by serving. Slow stays set while anyone waits for a change
// of the count (needsSlow). A Delayer's readers have notify instead,
// which sends every write to the Delayer. With lone set, the count is 0,
// and a writer must claim the waiter before it can add anything.
package counter

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/evsync/evsync/internal/evserr"
	"github.com/evsync/evsync/internal/waitq"
	"github.com/evsync/evsync/internal/watch"
)

// Max is the largest count, eventfd's 1<<64-2.
const Max uint64 = 1<<64 - 2

// The word's flags (see the package doc) and its count.
const (
	closedBit = 1 << 63
	bigBit    = 1 << 62
	slowBit   = 1 << 61
	loneBit   = 1 << 60
	busyBit   = 1 << 59
	notifyBit = 1 << 58
	wokenBit  = 1 << 57
	genMask   = 1<<57 - genOne // SetLimit's generation (see the snapshot rule)
	genOne    = 1 << 36
	countMask = genOne - 1

	// With none of fastMask's flags set, a fast path may change the count.
	fastMask = closedBit | bigBit | slowBit | loneBit
)

// A Mode is how a counter is read.
type Mode uint8

const (
	// Semaphore reads take the units they ask for (EFD_SEMAPHORE). A read
	// of 0 takes nothing and never waits.
	Semaphore Mode = iota
	// Plain reads take the whole count, as a plain eventfd does. Their n
	// is ignored.
	Plain
)

// need is what a read of n asks for. That is n, or 0 for the whole count.
func (m Mode) need(n uint64) uint64 {
	if m == Plain {
		return 0
	}
	return n
}

// A req is a waiter's payload. It holds what a reader needs or a writer
// adds, and what a reader was handed.
type req struct {
	need  uint64 // units to take, or 0 for the whole count (at least one unit)
	max   uint64 // with need 0, the most to take, or 0 for no cap
	got   uint64 // what was taken
	since int64  // with eventual fairness, when the reader started waiting (fair.go)
	retry bool   // woken to retry: nothing was handed over (fair.go)
	sel   bool   // a reservation, which is handed its units in both modes
}

// A Delayer delays the wakeup of blocked readers and of Ready channels. A
// write that finds them waiting calls Note with the count it left. The
// Delayer calls Serve later. Note is called without the lock held. Serve
// never calls Note, because readers still waiting after it have no count
// left. So a Delayer may call Serve with its own lock held.
type Delayer interface{ Note(count uint64) }

// A Counter is an eventfd counter. The zero value is an open counter of 0
// with the limit Max. A Counter must not be copied after first use.
//
// Its fields come in four groups.
//
//   - the word and the limits, read without the lock
//   - the lock and what only a locked section may touch (locked.go)
//   - the lone slot (lone.go)
//   - the configuration, set before the Counter is shared
//
// The fields big, lim and debt are written in locked sections.
type Counter struct {
	word atomic.Uint64 // the count and the flags (see the package doc)
	big  atomic.Uint64 // the count while bigBit is set
	lim  atomic.Uint64 // the limit, where 0 means Max so that the zero value works
	debt atomic.Uint64 // units SetLimit took away that holders still have, which releases pay first

	mu  sync.Mutex
	sec locked // reached through the *locked that lock returns

	lone loneSlot // the lone slot (lone.go)

	delay Delayer    // a wake delay, or nil for none
	stops bool       // Close refuses every later read (a limiter's Close)
	watch watch.List // the poll sets watching it (watch.go)
	fair  fairness   // eventual fairness (fair.go)
}

// Init sets the limit (Max if 0), the starting count and a Delayer (nil
// for none). Only before the Counter is shared.
func (c *Counter) Init(limit, initial uint64, d Delayer) {
	c.lim.Store(limit)
	c.delay = d
	l := c.lock()
	l.cnt = initial
	c.unlock(l)
}

// StopReadsAtClose makes Close refuse every later read, even while units
// are left. That is a limiter's Close, which ends new work while holders
// still give units back. Only before the Counter is shared.
func (c *Counter) StopReadsAtClose() { c.stops = true }

// Limit returns the largest count.
func (c *Counter) Limit() uint64 {
	if l := c.lim.Load(); l != 0 {
		return l
	}
	return Max
}

// look reads the word and the limit for an outcome that no
// compare-and-swap will check (see the snapshot rule). It reports whether
// they are one state. They are if neither load of the word shows a locked
// section under way and both show the same generation. The debt is then
// 0.
func (c *Counter) look() (w, limit uint64, ok bool) {
	w = c.word.Load()
	hook(pLook)
	limit = c.Limit()
	hook(pLookAgain)
	ok = w&(slowBit|bigBit) == 0 && (c.word.Load()^w)&^countMask == 0
	return w, limit, ok
}

// within judges on one state whether n is within the limit. With
// withDebt, the debt is added to the limit, since a write may bring that
// much more. It judges on a look that vouches, or else in a locked
// section.
func (c *Counter) within(n uint64, withDebt bool) bool {
	if _, limit, ok := c.look(); ok {
		return n <= limit
	}
	hook(pJudgeLocked)
	defer c.unlock(c.lock())
	l := c.Limit()
	return n <= l || withDebt && n-l <= c.debt.Load()
}

// above reports whether n is above the limit, plus the debt if withDebt.
// Being within the limit as read now is only a hint. It is for a path
// that judges again before it acts, by a CAS or in a locked section. A
// refusal is judged on one state.
func (c *Counter) above(n uint64, withDebt bool) bool {
	return n > c.Limit() && !c.within(n, withDebt)
}

// tryFast takes need units (the whole count if need is 0) with one load
// and one compare-and-swap. It reports false, with the word it read, if a
// flag of mask is set or the count is short.
func (c *Counter) tryFast(need, mask uint64) (uint64, bool, uint64) {
	for {
		w := c.word.Load()
		v := w & countMask
		if w&mask != 0 || v == 0 || v < need {
			return 0, false, w
		}
		n := need
		if n == 0 {
			n = v
		}
		hook(pFastTake)
		if c.word.CompareAndSwap(w, w-n) {
			return n, true, w
		}
	}
}

// TakeFast takes n ≥ 1 units if nobody waits and they are there. It is a
// fast path for the facades to inline (see the package doc).
func (c *Counter) TakeFast(n uint64) bool {
	w := c.word.Load()
	if w&(fastMask|notifyBit) != 0 || w&countMask < n {
		return false
	}
	hook(pFastTake)
	return c.word.CompareAndSwap(w, w-n)
}

// TakeAllFast takes the whole count (Take) if no locked section is
// needed. It is a fast path for the facades to inline.
func (c *Counter) TakeAllFast() uint64 {
	w := c.word.Load()
	if v := w & countMask; w&fastMask == 0 && v != 0 && c.word.CompareAndSwap(w, w-v) {
		return v
	}
	return 0
}

// AddFast adds n if nobody waits and the count has room for it. It is a
// fast path for the facades to inline. The limit it reads after the word
// is the word's if its CAS succeeds (see the snapshot rule).
func (c *Counter) AddFast(n uint64) bool {
	w := c.word.Load()
	v := w & countMask
	if w&(fastMask|notifyBit) != 0 || n > c.Limit()-v || v+n > countMask {
		return false
	}
	hook(pWriteFast)
	return c.word.CompareAndSwap(w, w+n)
}

// Read waits until it can take what a read of n in mode m asks for, and
// takes it (Acquire, Wait). It returns what it took and nil. Otherwise it
// returns:
//
//   - ErrInvalid for a nil ctx or n above the limit
//   - ctx.Err() at once if ctx is done, or when ctx ends first
//   - ErrClosed once closed with too little left
func (c *Counter) Read(ctx context.Context, m Mode, n uint64) (uint64, error) {
	if err := ctxErr(ctx); err != nil {
		if err != evserr.ErrInvalid && !c.within(n, false) {
			return 0, evserr.ErrInvalid // the context's error would say that n was valid
		}
		return 0, err
	}
	if c.above(n, false) {
		return 0, evserr.ErrInvalid
	}
	if n == 0 && m == Semaphore {
		return 0, c.zeroRead()
	}
	need := m.need(n)
	if v, ok, _ := c.tryFast(need, fastMask|notifyBit); ok {
		return v, nil
	}
	hook(pReadSlow)
	w, v, err := c.readWait(ctx.Done(), req{need: need})
	if w == nil {
		return v, err
	}
	hook(pSleep)
	return c.finish(ctx, &c.sec.readers, w, w.Sleep())
}

// TakeSlow is Read in Semaphore mode after TakeFast(n) failed (Acquire).
// The caller has seen n ≥ 1 and ctx live. So TakeSlow skips the checks
// that Read makes first and the fast path that just failed. It goes to
// the lone slot or the locked section at once, which judge n against the
// limit. It returns what Read returns. The checks it skips cost a tenth
// of a contended acquire (BenchmarkLimiterContended).
func (c *Counter) TakeSlow(ctx context.Context, n uint64) error {
	if c.fair.bound != 0 && barge(c, n) {
		return nil
	}
	hook(pReadSlow)
	w, _, err := c.readWait(ctx.Done(), req{need: n})
	if w == nil {
		return err
	}
	hook(pSleep)
	_, err = c.finish(ctx, &c.sec.readers, w, w.Sleep())
	return err
}

// ReadUpTo waits until the count is non-zero and takes up to max units
// of it, in a Semaphore counter's FIFO order (AcquireUpTo). It returns:
//
//   - what it took and nil
//   - 0 and nil at once for max 0, or ErrClosed once a Close that stops
//     reads has run (zeroRead)
//   - ErrInvalid for a nil ctx
//   - ctx.Err() at once if ctx is done, or when ctx ends first
//   - ErrClosed once closed and empty, or once a Close that stops reads
//     has run
func (c *Counter) ReadUpTo(ctx context.Context, max uint64) (uint64, error) {
	if err := ctxErr(ctx); err != nil {
		return 0, err
	}
	if max == 0 {
		return 0, c.zeroRead()
	}
	if w := c.word.Load(); w&(fastMask|notifyBit) == 0 && w&countMask != 0 {
		if n := min(w&countMask, max); c.word.CompareAndSwap(w, w-n) {
			return n, nil
		}
	}
	w, v, err := c.readWait(ctx.Done(), req{max: max})
	if w == nil {
		return v, err
	}
	hook(pSleep)
	return c.finish(ctx, &c.sec.readers, w, w.Sleep())
}

// TakeUpToFast is TryReadUpTo's fast path, for the facades to inline
// (TakeAll, TryAcquireUpTo). It reports whether it decided, and what it
// took. It decides only on a word that shows no locked state: with slow
// clear nobody is queued, so it takes up to max units (the whole count if
// max is 0) with one compare-and-swap, and a count of 0 is an answer too.
// A lone reader leaves the count at 0. A word with closed, big or slow
// set, or a failed compare-and-swap, is left to TryReadUpTo, having
// changed nothing. It is a function, not a method, so that the Counter's
// method set stays what it was (the layout ratchet).
func TakeUpToFast(c *Counter, max uint64) (uint64, bool) {
	w := c.word.Load()
	v := w & countMask
	if w&(closedBit|bigBit|slowBit) != 0 || w&notifyBit != 0 && c.fair.bound != 0 {
		return 0, false // with queued readers that may be barged, TryReadUpTo judges their age
	}
	if max != 0 && v > max {
		v = max
	}
	if v == 0 {
		return 0, true
	}
	hook(pFastTake)
	if c.word.CompareAndSwap(w, w-v) {
		return v, true
	}
	return 0, false
}

// TryReadUpTo takes up to max units without waiting, or every unit if
// max is 0 (TakeAll). It takes nothing while a reader is queued, since it
// never takes what a queued reader is owed, and nothing after a Close
// that stops reads. It returns what it took.
func (c *Counter) TryReadUpTo(max uint64) uint64 {
	l := c.lock()
	defer c.unlock(l)
	c.serve(l)
	if l.readers.Len() != 0 && !barging(c, l) {
		return 0
	}
	v, _ := c.take(l, 0, max)
	return v
}

// zeroRead is the result of a read of 0 units. It is nil, or ErrClosed
// once a counter whose Close stops reads is closed.
func (c *Counter) zeroRead() error {
	if c.stops && c.closed() {
		return evserr.ErrClosed
	}
	return nil
}

// readWait parks a reader in the lone slot or queues it in a locked
// section, and returns its record. If the read need not wait, it returns
// the read's result at once, with a nil record.
func (c *Counter) readWait(done <-chan struct{}, p req) (*waitq.Waiter[req], uint64, error) {
	if p.need <= 1 && p.max == 0 && c.delay == nil && c.fair.bound == 0 { // the lone record keeps one need, so no capped reads go there; a barged reader must retry, which the slot cannot
		if w := c.lone.park(&c.word, done, p.need); w != nil {
			return w, 0, nil
		}
	}
	l := c.lock()
	defer c.unlock(l)
	if p.need > c.Limit() {
		return nil, 0, evserr.ErrInvalid // lowered since the caller looked: never queue what no count can serve
	}
	if l.readers.Len() == 0 || barging(c, l) {
		if v, ok := c.take(l, p.need, p.max); ok {
			return nil, v, nil
		}
	}
	if c.closed() {
		return nil, 0, evserr.ErrClosed
	}
	if c.fair.bound != 0 {
		p.since = c.fair.now()
	}
	return l.readers.Push(done, p), 0, nil
}

// finish is the tail of every wait. Each caller parks on w, a record of
// the queue q or the lone slot's, in its own frame (see internal/waitq's
// Cost), and hands finish what Sleep returned:
//
//	hook(pSleep)
//	return c.finish(ctx, q, w, w.Sleep())
//
// A function that also parked could not be inlined. Its extra frame cost
// a tenth of a Limiter's hand-off at limit 1 (BenchmarkLimiterContended).
// Then finish ends the wait (Finish, or finishLone for the lone slot's
// record). It returns what w got and nil. Otherwise it returns ctx.Err()
// or ErrClosed.
func (c *Counter) finish(ctx context.Context, q *waitq.Queue[req], w *waitq.Waiter[req], woke bool) (uint64, error) {
	var p req
	var r waitq.Result
	if w == &c.lone.rec {
		p, r = c.finishLone(woke)
	} else {
		p, r = q.Finish(c, w, woke)
	}
	switch {
	case r == waitq.Closed:
		return 0, evserr.ErrClosed
	case r == waitq.Cancelled:
		return 0, ctx.Err()
	case p.retry:
		return retry(c, ctx, p)
	}
	return p.got, nil
}

// ctxErr is the opening of every call that may wait. It returns
// ErrInvalid for a nil ctx, else ctx.Err().
func ctxErr(ctx context.Context) error {
	if ctx == nil {
		return evserr.ErrInvalid
	}
	return ctx.Err()
}

// TryRead takes what a read of n in mode m asks for, without waiting, and
// reports whether it did (TryAcquire, Take). With waiters queued it serves
// them first, so that one whose context has just ended does not hold it
// up. A Semaphore read never takes what a queued reader is owed.
func (c *Counter) TryRead(m Mode, n uint64) (uint64, bool) {
	if c.above(n, false) {
		return 0, false
	}
	if n == 0 && m == Semaphore {
		return 0, c.zeroRead() == nil
	}
	need := m.need(n)
	mask := uint64(fastMask)
	if c.fair.bound != 0 {
		mask |= notifyBit // queued readers: barge judges their age
	}
	v, ok, w := c.tryFast(need, mask)
	if !ok && w&mask&notifyBit != 0 {
		if barge(c, need) {
			return need, true
		}
		w = c.word.Load()
	}
	hook(pTryDecide)
	if ok || w&(closedBit|bigBit|slowBit) == 0 {
		return v, ok // or, with no locked state, the count it read was short
	}
	l := c.lock()
	defer c.unlock(l)
	c.serve(l)
	if m == Semaphore && l.readers.Len() != 0 && !barging(c, l) {
		return 0, false
	}
	return c.take(l, need, 0)
}

// Write adds n in mode m (Release, Add). It never blocks. It returns nil,
// or one of these errors:
//
//   - ErrInvalid for n above the limit
//   - ErrWouldBlock, having changed nothing, if the count has no room for n
//   - ErrClosed after Close in Plain mode, since a Semaphore takes units
//     back after Close
func (c *Counter) Write(m Mode, n uint64) error {
	if c.AddFast(n) {
		return nil
	}
	return c.write(m, n)
}

// AddSlow is Write after AddFast(n) failed (Release, Add). A word that
// shows a locked section needed sends it straight to one. A look could
// not vouch for that word anyway.
func (c *Counter) AddSlow(m Mode, n uint64) error {
	if c.word.Load()&slowBit != 0 {
		return c.writeLocked(m, n)
	}
	return c.write(m, n)
}

// write is Write when the fast path cannot take it. Its lock-free
// outcomes stand on a look that vouches (see the snapshot rule). Any
// other word goes to a locked section.
func (c *Counter) write(m Mode, n uint64) error {
	for {
		w, limit, ok := c.look()
		v := w & countMask
		switch {
		case n == 0 && w&(closedBit|slowBit) == 0:
			return nil // with slow set, armed watchers may want the wakeup of a write of 0
		case !ok || w&closedBit != 0:
			return c.writeLocked(m, n)
		case n > limit:
			return evserr.ErrInvalid // a look that vouches has no debt to let more in
		case w&loneBit != 0:
			if m == Semaphore && n != 1 {
				return c.writeLocked(m, n) // the lone record holds one unit
			}
			if c.handLone(m, n) {
				return nil
			}
		case n > limit-v:
			return evserr.ErrWouldBlock // nobody waits, so no read can make room first
		case v+n > countMask:
			return c.writeLocked(m, n)
		case c.word.CompareAndSwap(w, w+n):
			c.noted(w, v+n)
			return nil
		}
	}
}

// noted tells the Delayer about a write that left count, if the word w
// it changed said readers were waiting for one.
func (c *Counter) noted(w, count uint64) {
	switch {
	case w&notifyBit == 0:
	case c.delay != nil:
		c.delay.Note(count)
	case w&wokenBit == 0:
		c.unlock(c.lock()) // eventual fairness: wake the oldest reader to retry (fair.go)
	}
}

// writeLocked is Write in a locked section. If the count has no room, the
// queues are served and the room is judged again. A reader whose context
// has just ended must not hold up a write that the live readers behind it
// make room for.
func (c *Counter) writeLocked(m Mode, n uint64) error {
	l := c.lock()
	defer c.unlock(l)
	hook(pWriteRoom)
	err := c.add(l, m, n)
	if err == evserr.ErrWouldBlock {
		c.serve(l)
		err = c.add(l, m, n)
	}
	return err
}

// WriteWait adds n in mode m, waiting while the count has no room for it
// (ReleaseWait, AddWait). A write of 0 never waits. It returns nil, or one
// of these errors:
//
//   - ErrInvalid for a nil ctx or n above the limit
//   - ctx.Err() at once if ctx is done, or when ctx ends first, with
//     nothing added
//   - ErrClosed after Close, in Semaphore mode only when there is no
//     room (a closed counter is never waited on)
func (c *Counter) WriteWait(ctx context.Context, m Mode, n uint64) error {
	if err := ctxErr(ctx); err != nil {
		if err != evserr.ErrInvalid && !c.within(n, true) {
			return evserr.ErrInvalid // the context's error would say that n was valid
		}
		return err
	}
	if c.above(n, true) {
		return evserr.ErrInvalid
	}
	if n == 0 || c.word.Load()&fastMask == 0 {
		if err := c.Write(m, n); err != evserr.ErrWouldBlock {
			return err
		}
	}
	w, err := c.writeWait(ctx.Done(), m, n)
	if w == nil {
		return err
	}
	hook(pSleep)
	_, err = c.finish(ctx, &c.sec.writers, w, w.Sleep())
	return err
}

// writeWait queues a back-pressured writer in a locked section. If there
// is room and nobody is ahead, it adds n at once and returns a nil record.
func (c *Counter) writeWait(done <-chan struct{}, m Mode, n uint64) (*waitq.Waiter[req], error) {
	l := c.lock()
	defer c.unlock(l)
	c.serve(l)
	if c.overDebt(n) {
		return nil, evserr.ErrInvalid // never queue a writer no room can take
	}
	if l.writers.Len() == 0 {
		if err := c.add(l, m, n); err != evserr.ErrWouldBlock {
			return nil, err
		}
	}
	if c.closed() {
		return nil, evserr.ErrClosed
	}
	return l.writers.Push(done, req{need: n}), nil
}

// Ready returns a channel that is closed once the count is non-zero or
// the counter is closed (poll's POLLIN). It is closed at once if that
// holds now.
func (c *Counter) Ready() <-chan struct{} {
	if w := c.word.Load(); w&(countMask|closedBit|bigBit) != 0 {
		return waitq.ClosedChan()
	}
	hook(pReadyLook)
	l := c.lock()
	defer c.unlock(l)
	return l.ready.Arm(l.cnt != 0 || c.closed())
}

// Writable returns a channel that is closed once the count is below the
// limit or the counter is closed (poll's POLLOUT). It is closed at once if
// that holds now. While one is armed, the count changes only in locked
// sections (the slow bit), which fire it.
func (c *Counter) Writable() <-chan struct{} {
	if w, limit, ok := c.look(); w&closedBit != 0 || ok && w&countMask < limit {
		return waitq.ClosedChan()
	}
	l := c.lock()
	defer c.unlock(l)
	return l.writable.Arm(l.cnt < c.Limit() || c.closed())
}

// Drain waits until the count is at the limit, which is when every unit
// taken has been given back. It returns:
//
//   - nil then, at once if it is now
//   - ErrInvalid for a nil ctx
//   - ctx.Err() at once if ctx is done, or when ctx ends first
func (c *Counter) Drain(ctx context.Context) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	if w, limit, ok := c.look(); ok && w&countMask == limit {
		return nil
	}
	l := c.lock()
	if l.cnt == c.Limit() {
		c.unlock(l)
		return nil
	}
	w := l.drainers.Push(ctx.Done(), req{})
	c.unlock(l)
	hook(pSleep)
	_, err := c.finish(ctx, &c.sec.drainers, w, w.Sleep())
	return err
}

// Serve serves the readers a Delayer held back, and fires Ready.
func (c *Counter) Serve() {
	l := c.lock()
	l.serving = true
	c.unlock(l)
}

// Close closes the counter. Writes fail from now on, and what is left
// stays readable. Queued waiters that it cannot serve get ErrClosed. It is
// idempotent.
func (c *Counter) Close() {
	l := c.lock()
	defer c.unlock(l)
	if !c.closed() && l.armed != 0 {
		l.events |= watch.Hup
	}
	c.setBits(closedBit)
}

// Count returns the count (after Close, what is left), with atomic loads
// only.
func (c *Counter) Count() uint64 {
	w := c.word.Load()
	if w&bigBit != 0 {
		return c.big.Load()
	}
	return w & countMask
}

// SetLimit changes the limit to limit (1 ≤ limit ≤ Max).
//
//   - Raising it adds the difference to the count, after paying any debt.
//     So queued readers are served at once, in FIFO order.
//   - Lowering it takes the difference from the count. What the count
//     cannot give becomes a debt, which later writes pay before they add
//     to the count. Units held are never taken from their holders.
//
// It returns nil, or one of these errors:
//
//   - ErrInvalid, having changed nothing, for a limit out of range or
//     below a queued request, which could then never be served
//   - ErrClosed after Close
func (c *Counter) SetLimit(limit uint64) error {
	if limit == 0 || limit > Max {
		return evserr.ErrInvalid
	}
	l := c.lock()
	defer c.unlock(l)
	if c.closed() {
		return evserr.ErrClosed
	}
	if limit < l.readers.MaxNeed(needOf) || limit < l.writers.MaxNeed(needOf) || l.woken && limit < l.wakeNeed {
		return evserr.ErrInvalid
	}
	old, debt := c.Limit(), c.debt.Load()
	switch {
	case limit > old:
		pay := min(limit-old, debt)
		c.debt.Store(debt - pay)
		l.cnt += limit - old - pay
	case limit < old:
		take := min(old-limit, l.cnt)
		l.cnt -= take
		c.debt.Store(debt + old - limit - take)
	}
	if limit != old {
		c.lim.Store(limit)
		c.newGeneration()
	}
	if l.armed != 0 {
		l.events |= watch.In | watch.Out
	}
	hook(pSetLimit)
	return nil
}

// newGeneration steps the word's generation (see the snapshot rule). A
// compare-and-swap from a word read before this section then fails, even
// if the count comes back to what it was. Only in a locked section.
func (c *Counter) newGeneration() {
	for {
		w := c.word.Load()
		if c.word.CompareAndSwap(w, w&^genMask|(w+genOne)&genMask) {
			return
		}
	}
}

// needOf is a request's need, for MaxNeed.
func needOf(p req) uint64 { return p.need }

// overDebt reports whether a write of n can never be taken, because it is
// above the limit plus what a debt lets in. Only in a locked section.
func (c *Counter) overDebt(n uint64) bool {
	l := c.Limit()
	return n > l && n-l > c.debt.Load()
}

// Debt returns what SetLimit took away that holders still have.
func (c *Counter) Debt() uint64 { return c.debt.Load() }

// Snapshot returns, with atomic loads only, the count, whether the counter
// is closed, and how many readers and writers wait. The values are read
// one by one and may be mutually inconsistent under concurrent use.
func (c *Counter) Snapshot() (count uint64, closed bool, readers, writers int) {
	w := c.word.Load()
	readers = c.sec.readers.Len()
	if w&loneBit != 0 {
		readers++
	}
	return c.Count(), w&closedBit != 0, readers, c.sec.writers.Len()
}
