// Package semaphore provides a FIFO-fair counting semaphore with the
// semantics of a Linux eventfd opened with EFD_SEMAPHORE, plus a limit,
// cancellation, Close and a select-able acquire.
package semaphore

import (
	"context"
	"fmt"

	"github.com/evsync/evsync/internal/spin"
)

// Max is the largest count and the default limit: 1<<64-2, the eventfd
// counter's maximum.
const Max uint64 = 1<<64 - 2

// Errors returned by this package; they are the same values in every
// evsync package and work with errors.Is.
var (
	// ErrWouldBlock is returned by Release when the count has no room.
	ErrWouldBlock = spin.ErrWouldBlock
	// ErrInvalid is returned for a request above the limit or a nil context.
	ErrInvalid = spin.ErrInvalid
	// ErrClosed is returned by writes after Close and by acquires that find
	// a closed semaphore without enough units left.
	ErrClosed = spin.ErrClosed
)

// A Semaphore is a counting semaphore: a count of available units,
// 0 ≤ count ≤ limit, taken by Acquire and added by Release.
//
// The zero value is a semaphore with count 0 and limit Max; New sets a
// starting count and options. A Semaphore must not be copied after first
// use.
//
// A Release that makes units available synchronizes before the Acquire
// (or TryAcquire, or granted Reservation) that takes them.
//
// Fairness: acquirers that have to wait are served strictly in the order
// they started waiting. A large request at the head blocks smaller ones
// behind it until it is served, so it cannot be starved, and TryAcquire
// fails rather than take units while anyone is queued. Release and
// ReleaseWait never wait behind acquirers; ReleaseWait callers are FIFO
// among themselves.
//
// Cancel safety: an Acquire or ReleaseWait that returns ctx.Err() changed
// nothing. A call whose context is already done when it starts returns
// ctx.Err() at once, even if it could succeed without waiting: a done
// context is a request to stop (TryAcquire takes what is there). Units are never handed to a waiter whose context is already
// done: they go to the next waiter in line, so a cancelled waiter at the
// head never holds up those behind it. If the units were handed over while
// the context was still live and it ended before the waiter woke, the call
// took effect first and returns nil: the grant is never lost and the
// caller holds the units. (Handing them back instead would let other
// callers observe a count that the history cannot explain.)
type Semaphore struct {
	_     noCopy
	count spin.Count
	lim   uint64 // 0 means Max, so that the zero value works

	mu    spin.Lock
	acq   spin.Queue // Acquire and Reserve callers; only with mu held
	rel   spin.Queue // ReleaseWait callers; only with mu held
	ready spin.Notifier
}

// New returns a semaphore holding initial units. It panics if initial is
// above the limit (Max unless set with WithLimit).
func New(initial uint64, opts ...Option) *Semaphore {
	s := &Semaphore{}
	for _, o := range opts {
		o.apply(s)
	}
	if initial > s.limit() {
		panic("semaphore: initial count above the limit")
	}
	s.count.Store(initial)
	return s
}

func (s *Semaphore) limit() uint64 {
	if s.lim == 0 {
		return Max
	}
	return s.lim
}

// Acquire waits until n units can be taken and takes them all at once. It
// returns nil on success; ErrInvalid at once if ctx is nil or n is above the
// limit; ctx.Err() at once if ctx is already done, even if the units are
// there (use TryAcquire to take them regardless), and ctx.Err() if ctx ends
// while it waits; ErrClosed if the semaphore is closed and fewer than n
// units are left. On failure the count is unchanged. Acquire(ctx, 0)
// returns nil at once (ctx.Err() if ctx is done).
func (s *Semaphore) Acquire(ctx context.Context, n uint64) error {
	if ctx == nil || n > s.limit() {
		return ErrInvalid
	}
	if err := ctx.Err(); err != nil {
		return err // a done context is a request to stop (rule 1)
	}
	if n == 0 {
		return nil
	}
	if s.acq.Len() == 0 && s.count.Sub(n) {
		s.tookUnits()
		return nil
	}
	return s.acquireSlow(ctx, n)
}

func (s *Semaphore) acquireSlow(ctx context.Context, n uint64) error {
	s.mu.Lock()
	if s.acq.Len() == 0 && s.count.Sub(n) {
		s.settle()
		s.mu.Unlock()
		return nil
	}
	if s.count.Closed() {
		s.mu.Unlock()
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		s.mu.Unlock()
		return err
	}
	w := s.acq.Get(ctx, n)
	s.acq.Push(w)
	s.settle() // a Release may have missed our Push: re-check under the lock
	s.mu.Unlock()
	out := s.acq.Park(ctx, &s.mu, w)
	s.acq.Put(w)
	switch out {
	case spin.Granted:
		return nil
	case spin.Rejected:
		return ErrClosed
	case spin.Cancelled:
		s.settle() // Park returned with mu held
		s.mu.Unlock()
		return ctx.Err()
	}
	return nil // granted while ctx was still live (spin.GrantedLate)
}

// TryAcquire takes n units if they are available and nobody is queued
// ahead, and reports whether it did. It never blocks and never jumps the
// queue. TryAcquire(0) is true; a request above the limit is false.
func (s *Semaphore) TryAcquire(n uint64) bool {
	if n > s.limit() {
		return false
	}
	if n == 0 {
		return true
	}
	if s.acq.Len() != 0 {
		return s.tryAcquireQueued(n)
	}
	if !s.count.Sub(n) {
		return false
	}
	s.tookUnits()
	return true
}

// tryAcquireQueued is TryAcquire when acquirers are queued: those whose
// context has ended may not have left the queue yet, and a TryAcquire
// after their cancellation must not wait behind them. settle drops them
// (and serves the live ones); if nobody is left, n may be taken.
func (s *Semaphore) tryAcquireQueued(n uint64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settle()
	if s.acq.Len() != 0 || !s.count.Sub(n) {
		return false
	}
	s.settle() // let back-pressured writers into the room
	return true
}

// tookUnits lets blocked ReleaseWait callers in after units were taken on
// the fast path. Reading rel's length after the Sub pairs with the writer
// publishing its Push before it re-checks the count (see internal/spin).
func (s *Semaphore) tookUnits() {
	if s.rel.Len() != 0 {
		s.mu.Lock()
		s.settle()
		s.mu.Unlock()
	}
}

// Release adds n units. It never blocks: if count+n would pass the limit it
// returns ErrWouldBlock and changes nothing. It returns ErrInvalid if n is
// above the limit and ErrClosed after Close. Release(0) changes nothing.
// Release does not wait behind ReleaseWait callers.
func (s *Semaphore) Release(n uint64) error {
	if n > s.limit() {
		return ErrInvalid
	}
	if n != 0 && s.acq.Len() != 0 && s.handOff(n) {
		return nil
	}
	err := s.count.Add(n, s.limit())
	if err == ErrWouldBlock && s.acq.Len() != 0 {
		return s.releaseQueued(n)
	}
	if err != nil {
		return err
	}
	s.addedUnits(n)
	return nil
}

// releaseQueued is Release when the count has no room for n and
// acquirers are queued: the head may be a waiter whose context has ended
// and that has not left the queue yet, holding up live waiters behind it
// that the units there would serve. settle drops it and serves them
// first, and the room is checked after that.
func (s *Semaphore) releaseQueued(n uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settle()
	if err := s.count.Add(n, s.limit()); err != nil {
		return err
	}
	s.settle()
	return nil
}

// handOff gives n units straight to the head acquirer when it waits for
// exactly n and the count is empty: the same outcome as adding n and
// letting settle take them again (count 0 + n never passes the limit), but
// without the round trip through the shared count. It reports false,
// changing nothing, in every other case.
func (s *Semaphore) handOff(n uint64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.acq.Front()
	if w == nil || w.Need != n || s.count.Load() != 0 || s.count.Closed() {
		return false
	}
	s.acq.Grant(&s.mu, w, n)
	return true
}

// addedUnits serves waiters after units were added on the fast path.
func (s *Semaphore) addedUnits(n uint64) {
	if n != 0 && (s.acq.Len() != 0 || s.ready.Armed()) {
		s.mu.Lock()
		s.settle()
		s.mu.Unlock()
	}
}

// ReleaseWait adds n units, waiting while count+n would pass the limit
// (back-pressure, like a blocking eventfd write). It returns nil once the
// units are added; ErrInvalid at once for a nil ctx or n above the limit;
// ctx.Err() at once if ctx is already done, and if ctx ends while it waits
// (nothing added either way); ErrClosed after Close. Waiting callers are
// served in FIFO order.
//
// As with eventfd, the count never passes the limit, not even for an
// instant, so units are not passed straight through to a waiting acquirer:
// with count c, a head acquirer waiting for a > c units and a head writer
// waiting to add w > limit-c units wait for each other until some other
// call moves the count. A limit of at least the largest acquire plus the
// largest ReleaseWait rules this out.
func (s *Semaphore) ReleaseWait(ctx context.Context, n uint64) error {
	if ctx == nil || n > s.limit() {
		return ErrInvalid
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	// Releasing 0 never needs room (a write of 0 never blocks), so it
	// does not queue behind blocked writers either.
	if n == 0 || s.rel.Len() == 0 {
		if err := s.count.Add(n, s.limit()); err != ErrWouldBlock {
			if err == nil {
				s.addedUnits(n)
			}
			return err
		}
	}
	return s.releaseSlow(ctx, n)
}

func (s *Semaphore) releaseSlow(ctx context.Context, n uint64) error {
	s.mu.Lock()
	if s.rel.Len() == 0 {
		if err := s.count.Add(n, s.limit()); err != ErrWouldBlock {
			if err == nil {
				s.settle()
			}
			s.mu.Unlock()
			return err
		}
	}
	if s.count.Closed() {
		s.mu.Unlock()
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		s.mu.Unlock()
		return err
	}
	w := s.rel.Get(ctx, n)
	s.rel.Push(w)
	s.settle()
	s.mu.Unlock()
	out := s.rel.Park(ctx, &s.mu, w)
	s.rel.Put(w)
	switch out {
	case spin.Granted:
		return nil
	case spin.Rejected:
		return ErrClosed
	case spin.Cancelled:
		s.settle()
		s.mu.Unlock()
		return ctx.Err()
	}
	return nil // added while ctx was still live (spin.GrantedLate)
}

// settle hands units to the waiters that can be served now, oldest first,
// alternating between acquirers (which lower the count) and back-pressured
// releasers (which raise it) until neither can move; after Close it refuses
// those that can never be served. Only with mu held.
func (s *Semaphore) settle() {
	for moved := true; moved; {
		moved = false
		for w := s.acq.Front(); w != nil && s.count.Sub(w.Need); w = s.acq.Front() {
			s.acq.Grant(&s.mu, w, w.Need)
			moved = true
		}
		for w := s.rel.Front(); w != nil && s.count.Add(w.Need, s.limit()) == nil; w = s.rel.Front() {
			s.rel.Grant(&s.mu, w, w.Need)
			moved = true
		}
	}
	if s.count.Closed() {
		// Nothing will be added any more: refuse the head if what is left
		// cannot serve it, and see whether the next one fits.
		for w := s.acq.Front(); w != nil; w = s.acq.Front() {
			if s.count.Sub(w.Need) {
				s.acq.Grant(&s.mu, w, w.Need)
			} else {
				s.acq.Reject(&s.mu, w)
			}
		}
		s.rel.RejectAll(&s.mu)
	}
	s.ready.FireIf(&s.count)
}

// Ready returns a channel that is closed once the count is non-zero or the
// semaphore is closed (poll's POLLIN). Each call returns a channel for the
// next such moment; a goroutine woken by it may still find the units gone
// (taken by another caller or handed to a queued acquirer), so follow it
// with TryAcquire, or use Reserve for a select-able acquire that keeps its
// place in line.
func (s *Semaphore) Ready() <-chan struct{} { return s.ready.Ready(&s.mu, &s.count) }

// Count returns the number of available units (after Close: those left).
func (s *Semaphore) Count() uint64 { return s.count.Load() }

// Close closes the semaphore. Units already released stay available to
// Acquire and TryAcquire; queued acquirers are served while what is left
// covers them, in FIFO order, and the rest get ErrClosed, as does every
// later Acquire that does not fit. Release and ReleaseWait return ErrClosed
// from then on. Close is idempotent.
func (s *Semaphore) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.count.Close() {
		s.settle()
	}
}

// Stats is a snapshot of a semaphore's state.
type Stats struct {
	Count          uint64 // available units
	Limit          uint64 // the largest count: Max, or what WithLimit set
	Waiting        int    // queued acquirers (Acquire and pending Reservations)
	WritersWaiting int    // queued ReleaseWait callers
	Closed         bool   // Close has been called
}

// Stats returns a snapshot read with atomic loads only: it never takes the
// lock, so observers never slow writers. The fields are read one by one and
// may be mutually inconsistent under concurrent use.
func (s *Semaphore) Stats() Stats {
	count, closed := s.count.Snapshot()
	return Stats{
		Count:          count,
		Limit:          s.limit(),
		Waiting:        s.acq.Len(),
		WritersWaiting: s.rel.Len(),
		Closed:         closed,
	}
}

// String formats a Stats snapshot, e.g.
// "semaphore{count=3 limit=8 waiting=1 writers=0}".
func (s *Semaphore) String() string { return s.Stats().String() }

// String formats the snapshot.
func (st Stats) String() string {
	closed := ""
	if st.Closed {
		closed = " closed"
	}
	return fmt.Sprintf("semaphore{count=%d limit=%d waiting=%d writers=%d%s}",
		st.Count, st.Limit, st.Waiting, st.WritersWaiting, closed)
}

// noCopy lets go vet's copylocks check flag copies of a Semaphore.
type noCopy struct{}

// Lock is a no-op; its presence is what go vet looks for.
func (*noCopy) Lock() {}

// Unlock is a no-op, the pair of Lock.
func (*noCopy) Unlock() {}
