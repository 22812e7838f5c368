package model

import (
	"time"

	"github.com/evsync/evsync/internal/evserr"
)

// A Limiter models a semaphore.Limiter. It is a semaphore Counter that
// starts full and counts in ints. Unlike a semaphore, it refuses every
// acquire once closed, and a Release of more than is held fails with
// ErrOverRelease. Make one with NewLimiter, strict FIFO, or with
// NewEventualLimiter, eventually fair.
//
// The calls map onto the model as follows:
//
//	semaphore.Limiter                   Limiter
//	NewLimiter(n)                       NewLimiter(n)
//	NewLimiter(n,                       NewEventualLimiter(n, d)
//	  WithEventualFairness(d))
//	the same with WithClock(c)          NewEventualLimiter(n, d), its clock standing for c
//	Acquire(ctx, n)                     Acquire(ctx, n)
//	TryAcquire(n)                       TryAcquire(n)
//	AcquireUpTo(ctx, max)               AcquireUpTo(ctx, max)
//	TryAcquireUpTo(max)                 TryAcquireUpTo(max)
//	Release(n)                          Release(n)
//	Reserve(n)                          Reserve(n)
//	AcquirePermit(ctx, n)               Acquire(ctx, n), the permit holding n units
//	TryAcquirePermit(n)                 TryAcquire(n), the same
//	AcquirePermitUpTo(ctx, max)         AcquireUpTo(ctx, max), the permit holding what it took
//	TryAcquirePermitUpTo(max)           TryAcquireUpTo(max), the same
//	Permit.Release()                    Release(n) of the permit's n units, once
//	SetLimit(n)                         SetLimit(n)
//	Drain(ctx)                          Drain(ctx)
//	Close()                             Close()
//	Stats()                             Limit, InUse, Free, Waiting, Closed
//	the clock moves on by d             Advance(d)
//
// A Reservation's calls are modelled by Reservation. Its granted units go
// back with Release, as the real ones do. Stats' Waiting counts pending
// reservations only, as a sequential caller leaves no Acquire waiting.
//
// # Clock
//
// The model has a clock of its own. Now starts at 0 and moves only with
// Advance. Advance(d) plays the part of the clock given with
// semaphore.WithClock, or of testing/synctest's fake clock, moving on by
// d. Reserve notes the time on this clock when it queues a reservation.
// A pending reservation's age is Now minus that time. A strict Limiter
// keeps the clock too, and no call looks at it.
//
// # Barging
//
// The head is the oldest pending reservation. A call barges when it
// takes free units ahead of pending reservations. Barging is allowed:
//   - with no reservation pending, in either mode
//   - in the eventual mode, while the limiter is not starving
//
// The limiter starts starving when a call finds the head older than the
// bound. A barging call reads no clock, as the real one does not. These
// calls look at the head's age when they end:
//   - a call that adds units: a Release of n > 0, a raise by SetLimit, a
//     Cancel that gives units back
//   - a Reserve that queues
//   - any call while the limiter starves
//
// An Acquire or AcquireUpTo that returns ErrWouldBlock changes nothing,
// and so does not look. The real one queues, and looks: a caller that
// parks it models that in a queue of its own.
//
// The limiter starves if the head is older than the bound, and stops
// otherwise. It stops too once nothing is pending. So it stays strict
// until the head is served or cancelled and a head at most bound old
// takes its place. A large reservation is never starved: once it is the
// head and older than the bound, nobody takes units ahead of it after
// the next call that looks. These are the rules of
// semaphore.WithEventualFairness, with reservations as the waiters.
//
// What barging changes, in the eventual mode:
//   - Acquire, TryAcquire, AcquireUpTo and TryAcquireUpTo, and so the
//     permit forms, take free units at once while barging is allowed,
//     even with reservations pending. Otherwise they fail or would wait,
//     as in the strict mode.
//   - Reserve(n) is granted at once while barging is allowed and n units
//     are free, even behind pending reservations. Otherwise it queues at
//     the tail.
//
// What it does not change, in either mode:
//   - Release, a raise by SetLimit and a Cancel that gives units back
//     serve the pending reservations in order, oldest first, while the
//     head's units are free. The units are handed to them.
//   - Advance serves nobody. Time passing only changes what later calls
//     may do.
//   - The argument checks, Close, a Done context, calls for 0 units, and
//     Stats' Waiting, the number of pending reservations.
type Limiter struct {
	c Counter
}

// NewLimiter returns a model of semaphore.NewLimiter(n), a strict FIFO
// limiter of n units, all free. Like the real one, it panics if n is
// below 1.
func NewLimiter(n int) *Limiter {
	if n < 1 {
		panic("model: limit below 1")
	}
	return &Limiter{c: Counter{kind: semaphoreKind, count: uint64(n), limit: uint64(n), stops: true}}
}

// NewEventualLimiter returns a model of
// semaphore.NewLimiter(n, semaphore.WithEventualFairness(bound)), a
// limiter of n units, all free, in the eventual mode with that bound on
// the model's clock. Like the real option, it panics if bound is not
// positive. Like NewLimiter, it panics if n is below 1.
func NewEventualLimiter(n int, bound time.Duration) *Limiter {
	if bound <= 0 {
		panic("model: eventual fairness needs a positive bound")
	}
	l := NewLimiter(n)
	l.c.fair.bound = bound
	return l
}

// A fairness is a Counter's clock and its eventual-fairness bound. The
// zero value is strict FIFO at time 0.
type fairness struct {
	bound    time.Duration // 0: strict FIFO
	now      time.Duration // starts at 0, moves only with Advance
	starving bool          // the head was found older than the bound: order is strict
	noticed  bool          // the call added units or would queue: end looks at the head
}

// barges reports whether a call may take free units ahead of the pending
// reservations in queue, oldest first: with none pending, or in the
// eventual mode while the limiter is not starving.
func (f fairness) barges(queue []*Reservation) bool {
	return len(queue) == 0 || f.bound > 0 && !f.starving
}

// end ends a call as the real limiter ends a locked section. It looks at
// the head's age if the limiter starves or the call noticed (added units,
// or queued a caller). The limiter then starves if the head is older than
// the bound, and stops otherwise. With nothing pending it never starves.
func (f *fairness) end(queue []*Reservation) {
	look := f.starving || f.noticed
	f.noticed = false
	switch {
	case len(queue) == 0:
		f.starving = false
	case look && f.bound > 0:
		f.starving = f.now-queue[0].start > f.bound
	}
}

// notice makes the call's end look at the head's age (see end).
func (f *fairness) notice() { f.noticed = true }

// ordered reports whether the reservations in queue started in queue
// order, none after now.
func (f fairness) ordered(queue []*Reservation) bool {
	last := time.Duration(0)
	for _, r := range queue {
		if r.start < last || r.start > f.now {
			return false
		}
		last = r.start
	}
	return true
}

// Now is the time on the model's clock: 0 at first, moved on by Advance.
func (l *Limiter) Now() time.Duration { return l.c.Now() }

// Advance moves the model's clock on by d. Past the largest Duration the
// clock stays there. Advance serves nobody: in the eventual mode it only
// ages the pending reservations, which may end barging. It panics if d is
// negative, as time does not go back.
func (l *Limiter) Advance(d time.Duration) { l.c.Advance(d) }

// Bound is the eventual-fairness bound, or 0 for a strict Limiter.
func (l *Limiter) Bound() time.Duration { return l.c.fair.bound }

// Ages returns the age of each pending reservation on the model's clock,
// oldest first, in the order of Queue.
func (l *Limiter) Ages() []time.Duration { return l.c.Ages() }

// Barges reports whether barging is allowed now: no reservation is
// pending, or in the eventual mode the limiter is not starving.
func (l *Limiter) Barges() bool { return l.c.Barges() }

// Starving reports whether the eventual mode has found the head older
// than the bound, so that order is strict until the head changes.
func (l *Limiter) Starving() bool { return l.c.Starving() }

// Acquire models Limiter.Acquire. It returns, in this order of checks:
//   - ErrInvalid for n negative or above the limit
//   - context.Canceled if ctx is Done
//   - ErrClosed after Close
//   - nil, taking n units, if n is 0, or the units are free and barging
//     is allowed
//   - ErrWouldBlock otherwise, where the real Acquire waits
//
// A call that returns an error changes nothing.
func (l *Limiter) Acquire(ctx Ctx, n int) error {
	switch {
	case n < 0 || uint64(n) > l.c.limit:
		return evserr.ErrInvalid
	case ctx == Done:
		return stopped(ctx)
	case l.c.closed:
		return evserr.ErrClosed
	}
	return l.c.Acquire(ctx, uint64(n))
}

// Reserve models Limiter.Reserve. It is granted at once if its units are
// free and barging is allowed. Otherwise it joins the tail of the queue,
// noting the time on the model's clock. Reserve(0) is granted at once,
// even behind others. It returns, in this order of checks:
//   - nil and ErrInvalid for n negative or above the limit
//   - nil and ErrClosed after Close
//   - the reservation and nil otherwise
//
// Close refuses every pending reservation, even one whose units are free.
func (l *Limiter) Reserve(n int) (*Reservation, error) {
	switch {
	case n < 0 || uint64(n) > l.c.limit:
		return nil, evserr.ErrInvalid
	case l.c.closed:
		return nil, evserr.ErrClosed
	}
	return l.c.Reserve(uint64(n))
}

// TryAcquire models Limiter.TryAcquire. It takes n units and returns true
// if the limiter is open, 0 ≤ n ≤ limit, barging is allowed and the
// units are free. TryAcquire(0) of an open limiter is true.
func (l *Limiter) TryAcquire(n int) bool {
	if n < 0 || l.c.closed {
		return false
	}
	return l.c.TryAcquire(uint64(n))
}

// AcquireUpTo models Limiter.AcquireUpTo. It returns, in this order of
// checks:
//   - 0 and ErrInvalid for max negative
//   - 0 and context.Canceled if ctx is Done
//   - 0 and ErrClosed after Close
//   - 0 and nil for max 0
//   - min(free, max) units and nil, taking them, if some are free and
//     barging is allowed
//   - 0 and ErrWouldBlock otherwise, where the real call waits
//
// A call that returns an error changes nothing.
func (l *Limiter) AcquireUpTo(ctx Ctx, max int) (int, error) {
	switch {
	case max < 0:
		return 0, evserr.ErrInvalid
	case ctx == Done:
		return 0, stopped(ctx)
	case l.c.closed:
		return 0, evserr.ErrClosed
	}
	n, err := l.c.AcquireUpTo(ctx, uint64(max))
	return int(n), err
}

// TryAcquireUpTo models Limiter.TryAcquireUpTo. It takes min(free, max)
// units and returns how many, if the limiter is open, max is above 0 and
// barging is allowed. Otherwise it returns 0 and changes nothing.
func (l *Limiter) TryAcquireUpTo(max int) int {
	if max <= 0 || l.c.closed || !l.c.fair.barges(l.c.queue) || l.c.count == 0 {
		return 0 // where the real call would not take: it never queues
	}
	n := min(l.c.count, uint64(max))
	l.c.count -= n
	settle(&l.c)
	wake(&l.c, Out)
	return int(n)
}

// Release models Limiter.Release, which works after Close too. The units
// serve the pending reservations in order, in either mode. It returns:
//   - nil once the n units are back
//   - ErrInvalid for n negative
//   - ErrOverRelease if the holders hold fewer than n units
//
// A failed Release changes nothing.
func (l *Limiter) Release(n int) error {
	if n < 0 {
		return evserr.ErrInvalid
	}
	if l.c.Write(uint64(n)) != nil {
		return evserr.ErrOverRelease
	}
	return nil
}

// SetLimit models Limiter.SetLimit. A raise serves the pending
// reservations in order, in either mode. It returns ErrInvalid for n
// below 1, and otherwise what Counter.SetLimit returns.
func (l *Limiter) SetLimit(n int) error {
	if n < 1 {
		return evserr.ErrInvalid
	}
	return l.c.SetLimit(uint64(n))
}

// Drain models Limiter.Drain. It returns:
//   - context.Canceled if ctx is Done
//   - nil if no unit is held
//   - ErrWouldBlock otherwise, where the real Drain waits
func (l *Limiter) Drain(ctx Ctx) error { return l.c.Drain(ctx) }

// Close models Limiter.Close. Later acquires fail with ErrClosed, and
// releases still work.
func (l *Limiter) Close() { l.c.Close() }

// Limit is Stats().Limit, the number of units.
func (l *Limiter) Limit() int { return int(l.c.limit) }

// InUse is Stats().InUse, the units held. After a cut it may be above
// Limit for a while.
func (l *Limiter) InUse() int { return int(l.c.limit + l.c.debt - l.c.count) }

// Free is Stats().Free, the units not held.
func (l *Limiter) Free() int { return int(l.c.count) }

// Waiting is Stats().Waiting, the number of pending reservations.
func (l *Limiter) Waiting() int { return len(l.c.queue) }

// Queue returns the units each pending reservation asks for, oldest
// first.
func (l *Limiter) Queue() []int {
	needs := make([]int, len(l.c.queue))
	for i, r := range l.c.queue {
		needs[i] = int(r.need)
	}
	return needs
}

// Closed reports whether Close has been called.
func (l *Limiter) Closed() bool { return l.c.closed }

// Validate checks the model's own invariants, those of Counter.Validate,
// and describes the first one broken. It returns nil unless the model has
// a bug.
func (l *Limiter) Validate() error { return l.c.Validate() }
