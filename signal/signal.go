// Package signal provides a sum-and-reset signal with the semantics of a
// plain Linux eventfd: writers add to a count, a reader takes the whole sum
// and resets it to zero.
package signal

import (
	"context"
	"fmt"
	"time"

	"github.com/evsync/evsync/coalesce"
	"github.com/evsync/evsync/internal/spin"
)

// Max is the largest count: 1<<64-2, the eventfd counter's maximum.
const Max uint64 = 1<<64 - 2

// Errors returned by this package; they are the same values in every
// evsync package and work with errors.Is.
var (
	// ErrWouldBlock is returned by Add when count+n would pass Max.
	ErrWouldBlock = spin.ErrWouldBlock
	// ErrInvalid is returned by Add and AddWait for n = 1<<64-1 (eventfd's
	// EINVAL) and by the blocking calls for a nil context.
	ErrInvalid = spin.ErrInvalid
	// ErrClosed is returned by writes after Close and by Wait once a closed
	// signal has nothing left.
	ErrClosed = spin.ErrClosed
)

// A Signal is a sum-and-reset counter. Any number of goroutines may Add;
// each read (Take or Wait) takes the whole count, so every added unit is
// read exactly once: the sum of all reads plus the final count equals the
// initial count plus the sum of all successful adds, whatever the
// interleaving, cancellations or Close.
//
// The zero value is a signal with count 0; New sets a starting count. A
// Signal must not be copied after first use.
//
// An Add synchronizes before the read that returns its units.
//
// Fairness: blocked Wait callers are served in FIFO order, and each
// wakeup hands the whole sum to exactly one of them (no thundering herd).
// Take never blocks and takes whatever is there, even while others wait.
// Blocked AddWait callers are FIFO among themselves; Add does not wait
// behind them.
//
// Cancel safety: a Wait or AddWait that returns ctx.Err() changed nothing.
// A call whose context is already done when it starts returns ctx.Err() at
// once, even if the count is there to take: a done context is a request to
// stop (Take takes what is there).
// A sum is never handed to a reader whose context is already done; it goes
// to the next reader or stays in the count. If a sum was handed over while
// the context was still live and it ended before the reader woke, the read
// took effect first and Wait returns the sum with a nil error: no unit is
// ever lost or read twice.
type Signal struct {
	_     noCopy
	count spin.Count

	mu      spin.Lock
	readers spin.Queue // Wait callers; only with mu held
	writers spin.Queue // AddWait callers; only with mu held
	ready   spin.Notifier

	wake      *coalesce.Waker // WithWakeDelay: delays waking blocked readers; nil if not set
	delay     time.Duration   // options, read by New
	delayed   bool
	batch     uint64
	adaptive  bool
	wakeLimit uint64 // an add notes an event while the coalescer has no more pending
}

// New returns a signal whose count starts at initial. It panics if initial
// is above Max.
func New(initial uint64, opts ...Option) *Signal {
	if initial > Max {
		panic("signal: initial count above Max")
	}
	s := &Signal{}
	for _, o := range opts {
		o.apply(s)
	}
	if (s.batch != 0 || s.adaptive) && !s.delayed {
		panic("signal: WithWakeBatch or WithAdaptiveWake without WithWakeDelay")
	}
	if s.delayed {
		copts := []coalesce.Option{coalesce.WithFunc(s.delayedWake)}
		if s.adaptive {
			copts = append(copts, coalesce.WithAdaptive())
			s.wakeLimit = coalesce.AdaptiveWakeups
		}
		s.wake = coalesce.New(s.delay, copts...)
	}
	s.count.Store(initial)
	return s
}

// delayedWake is the coalescer's wakeup: it serves the readers blocked
// since the adds it covers.
func (s *Signal) delayedWake(uint64) {
	s.mu.Lock()
	s.settle()
	s.mu.Unlock()
}

// Add adds n to the count. It never blocks: it returns ErrWouldBlock,
// changing nothing, if count+n would pass Max; ErrInvalid for
// n = 1<<64-1; ErrClosed after Close. Add(0) changes nothing.
func (s *Signal) Add(n uint64) error {
	if n > Max {
		return ErrInvalid
	}
	if err := s.count.Add(n, Max); err != nil {
		return err
	}
	s.added(n)
	return nil
}

// added wakes a reader after n was added on the fast path. Reading the
// queue after the add pairs with a reader publishing its Push before it
// re-checks the count (see internal/spin).
func (s *Signal) added(n uint64) {
	if n == 0 || (s.readers.Len() == 0 && !s.ready.Armed()) {
		return
	}
	if s.wake != nil {
		s.addedDelayed()
		return
	}
	s.mu.Lock()
	s.settle()
	s.mu.Unlock()
}

// addedDelayed tells the coalescer about an add that a blocked reader (or
// a Ready channel) waits for; the coalescer calls delayedWake within the
// delay. Only the first add of a window notes an event (the first
// AdaptiveWakeups+1, with WithAdaptiveWake, which judges a window by
// them): the count already holds the sum, so the adds after them only
// load the coalescer's pending count. That keeps them from writing a
// second shared cache line, which would cost several times the add itself
// while writers run unthrottled.
//
// No add is missed: an add that finds an event pending made its units
// visible before that load, and the wakeup that clears the event reads
// the count only after clearing it, so it sees them.
func (s *Signal) addedDelayed() {
	if s.batch != 0 && s.count.Load() >= s.batch {
		s.wake.Wake() // make sure there is an event to flush
		s.wake.Flush()
		return
	}
	if s.wake.Pending() <= s.wakeLimit {
		s.wake.Wake()
	}
}

// AddWait adds n, waiting while count+n would pass Max (a blocking eventfd
// write). It returns nil once n is added; ErrInvalid at once for a nil ctx
// or n = 1<<64-1; ctx.Err() at once if ctx is already done, and if ctx
// ends while it waits (nothing added either way); ErrClosed after Close.
func (s *Signal) AddWait(ctx context.Context, n uint64) error {
	if ctx == nil || n > Max {
		return ErrInvalid
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	// Adding 0 never needs room (a write of 0 never blocks), so it does
	// not queue behind blocked writers either.
	if n == 0 || s.writers.Len() == 0 {
		if err := s.count.Add(n, Max); err != ErrWouldBlock {
			if err == nil {
				s.added(n)
			}
			return err
		}
	}
	return s.addSlow(ctx, n)
}

func (s *Signal) addSlow(ctx context.Context, n uint64) error {
	s.mu.Lock()
	if s.writers.Len() == 0 {
		if err := s.count.Add(n, Max); err != ErrWouldBlock {
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
	w := s.writers.Get(ctx, n)
	s.writers.Push(w)
	s.settle()
	s.mu.Unlock()
	out := s.writers.Park(ctx, &s.mu, w)
	s.writers.Put(w)
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

// Take returns the whole count and resets it to 0, or returns 0 if there is
// nothing. It never blocks; after Close it returns what is left, then 0.
func (s *Signal) Take() uint64 {
	v := s.count.TakeAll()
	if v != 0 {
		s.took()
	}
	return v
}

// took lets blocked AddWait callers in after the count was emptied.
func (s *Signal) took() {
	if s.writers.Len() != 0 {
		s.mu.Lock()
		s.settle()
		s.mu.Unlock()
	}
}

// Wait waits until the count is non-zero, then takes all of it. It returns
// the sum and nil; 0 and ErrInvalid for a nil ctx; 0 and ctx.Err() at
// once if ctx is already done (the count stays, for Take or a later Wait),
// and if ctx ends while it waits; 0 and ErrClosed once the signal is closed
// and empty.
func (s *Signal) Wait(ctx context.Context) (uint64, error) {
	if ctx == nil {
		return 0, ErrInvalid
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if s.readers.Len() == 0 {
		if v := s.count.TakeAll(); v != 0 {
			s.took()
			return v, nil
		}
	}
	return s.waitSlow(ctx)
}

func (s *Signal) waitSlow(ctx context.Context) (uint64, error) {
	s.mu.Lock()
	if s.readers.Len() == 0 {
		if v := s.count.TakeAll(); v != 0 {
			s.settle()
			s.mu.Unlock()
			return v, nil
		}
	}
	if s.count.Closed() {
		s.mu.Unlock()
		return 0, ErrClosed
	}
	if err := ctx.Err(); err != nil {
		s.mu.Unlock()
		return 0, err
	}
	w := s.readers.Get(ctx, 0)
	s.readers.Push(w)
	s.settle()
	s.mu.Unlock()
	out := s.readers.Park(ctx, &s.mu, w)
	got := w.Got
	s.readers.Put(w)
	switch out {
	case spin.Granted:
		return got, nil
	case spin.Rejected:
		return 0, ErrClosed
	case spin.Cancelled:
		s.settle()
		s.mu.Unlock()
		return 0, ctx.Err()
	}
	return got, nil // handed over while ctx was still live (spin.GrantedLate)
}

// settle hands the sum to the oldest blocked reader and lets blocked
// writers in while there is room, until neither can move; after Close it
// refuses the waiters that can never be served. Only with mu held.
func (s *Signal) settle() {
	for moved := true; moved; {
		moved = false
		if w := s.readers.Front(); w != nil {
			if v := s.count.TakeAll(); v != 0 {
				s.readers.Grant(&s.mu, w, v)
				moved = true
			}
		}
		for w := s.writers.Front(); w != nil && s.count.Add(w.Need, Max) == nil; w = s.writers.Front() {
			s.writers.Grant(&s.mu, w, w.Need)
			moved = true
		}
	}
	if s.count.Closed() {
		s.readers.RejectAll(&s.mu) // the loop above left nothing for them
		s.writers.RejectAll(&s.mu)
	}
	s.ready.FireIf(&s.count)
}

// Ready returns a channel that is closed once the count is non-zero or the
// signal is closed (poll's POLLIN). Each call returns a channel for the
// next such moment. A goroutine woken by it may find the sum already taken
// by another reader: Take then returns 0, and it calls Ready again.
func (s *Signal) Ready() <-chan struct{} { return s.ready.Ready(&s.mu, &s.count) }

// Count returns the current count without taking it (after Close: what is
// left to read).
func (s *Signal) Count() uint64 { return s.count.Load() }

// Close closes the signal. What was added stays readable: Take and Wait
// return it, then Wait returns ErrClosed and Take 0. Add and AddWait return
// ErrClosed from then on, blocked AddWait callers included. Close is
// idempotent.
func (s *Signal) Close() {
	if s.wake != nil {
		// Before taking mu: a delayed wakeup under way takes mu itself, and
		// Close waits for it. Close's own settle serves every reader.
		s.wake.Close()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.count.Close() {
		s.settle()
	}
}

// Stats is a snapshot of a signal's state.
type Stats struct {
	Count          uint64 // the current sum
	Waiting        int    // blocked Wait callers
	WritersWaiting int    // blocked AddWait callers
	Closed         bool   // Close has been called
}

// Stats returns a snapshot read with atomic loads only: it never takes the
// lock, so observers never slow writers. The fields are read one by one and
// may be mutually inconsistent under concurrent use.
func (s *Signal) Stats() Stats {
	count, closed := s.count.Snapshot()
	return Stats{
		Count:          count,
		Waiting:        s.readers.Len(),
		WritersWaiting: s.writers.Len(),
		Closed:         closed,
	}
}

// String formats a Stats snapshot, e.g. "signal{count=3 waiting=1 writers=0}".
func (s *Signal) String() string { return s.Stats().String() }

// String formats the snapshot.
func (st Stats) String() string {
	closed := ""
	if st.Closed {
		closed = " closed"
	}
	return fmt.Sprintf("signal{count=%d waiting=%d writers=%d%s}",
		st.Count, st.Waiting, st.WritersWaiting, closed)
}

// noCopy lets go vet's copylocks check flag copies of a Signal.
type noCopy struct{}

// Lock is a no-op; its presence is what go vet looks for.
func (*noCopy) Lock() {}

// Unlock is a no-op, the pair of Lock.
func (*noCopy) Unlock() {}
