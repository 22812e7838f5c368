package model

import "github.com/evsync/evsync/internal/evserr"

// A Limiter models a semaphore.Limiter. It is a semaphore Counter that
// starts full and counts in ints. Unlike a semaphore, it refuses every
// acquire once closed, and a Release of more than is held fails with
// ErrOverRelease. Make one with NewLimiter.
//
// The calls map onto the model as follows:
//
//	semaphore.Limiter            Limiter
//	NewLimiter(n)                NewLimiter(n)
//	Acquire(ctx, n)              Acquire(ctx, n)
//	TryAcquire(n)                TryAcquire(n)
//	AcquireUpTo(ctx, max)        AcquireUpTo(ctx, max)
//	TryAcquireUpTo(max)          TryAcquireUpTo(max)
//	Release(n)                   Release(n)
//	Reserve(n)                   Reserve(n)
//	AcquirePermit(ctx, n)        Acquire(ctx, n), the permit holding n units
//	TryAcquirePermit(n)          TryAcquire(n), the same
//	AcquirePermitUpTo(ctx, max)  AcquireUpTo(ctx, max), the permit holding what it took
//	TryAcquirePermitUpTo(max)    TryAcquireUpTo(max), the same
//	Permit.Release()             Release(n) of the permit's n units, once
//	SetLimit(n)                  SetLimit(n)
//	Drain(ctx)                   Drain(ctx)
//	Close()                      Close()
//	Stats()                      Limit, InUse, Free, Waiting, Closed
//
// A Reservation's calls are modelled by Reservation. Its granted units go
// back with Release, as the real ones do. Stats' Waiting counts pending
// reservations only, as a sequential caller leaves no Acquire waiting.
type Limiter struct {
	c Counter
}

// NewLimiter returns a model of semaphore.NewLimiter(n), a limiter of n
// units, all free. Like the real one, it panics if n is below 1.
func NewLimiter(n int) *Limiter {
	if n < 1 {
		panic("model: limit below 1")
	}
	return &Limiter{c: Counter{kind: semaphoreKind, count: uint64(n), limit: uint64(n), stops: true}}
}

// Acquire models Limiter.Acquire. It returns, in this order of checks:
//   - ErrInvalid for n negative or above the limit
//   - context.Canceled if ctx is Done
//   - ErrClosed after Close
//   - nil, taking n units, if n is 0, or the units are free and no
//     reservation is pending
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

// Reserve models Limiter.Reserve. The reservation joins the tail of the
// queue, and it is granted at once if its units are free with nobody
// ahead. Reserve(0) is granted at once, even behind others. It returns,
// in this order of checks:
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
// if the limiter is open, 0 ≤ n ≤ limit, no reservation is pending and
// the units are free. TryAcquire(0) of an open limiter is true.
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
//   - min(free, max) units and nil, taking them, if some are free and no
//     reservation is pending
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
// no reservation is pending. Otherwise it returns 0 and changes nothing.
func (l *Limiter) TryAcquireUpTo(max int) int {
	if max <= 0 {
		return 0
	}
	n, _ := l.AcquireUpTo(Live, max) // 0 where the real call would wait or is refused
	return n
}

// Release models Limiter.Release, which works after Close too. It returns:
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

// SetLimit models Limiter.SetLimit. It returns ErrInvalid for n below 1,
// and otherwise what Counter.SetLimit returns.
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
