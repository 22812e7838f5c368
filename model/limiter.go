package model

import "github.com/evsync/evsync/internal/spin"

// A Limiter models semaphore.Limiter: a Semaphore-mode Counter that starts
// full, counts in ints, refuses every acquire once closed, and reports a
// Release of more than is held as ErrOverRelease. Construct it with
// NewLimiter.
//
// The calls map onto the model as follows:
//
//	Limiter                 model.Limiter
//	Acquire(ctx, n)         Acquire(ctx, n)
//	TryAcquire(n)           TryAcquire(n)
//	Release(n)              Release(n)
//	AcquirePermit(ctx, n)   Acquire(ctx, n); the permit is n units
//	Permit.Release()        Release(n) of the permit's units
//	SetLimit(n)             SetLimit(n)
//	Drain(ctx)              Drain(ctx)
//	Close()                 Close()
//	Stats()                 Limit(), InUse(), Free(), Closed()
type Limiter struct {
	c Counter
}

// NewLimiter returns a model of a limiter of n units, all free. Like
// semaphore.NewLimiter it panics if n is below 1.
func NewLimiter(n int) *Limiter {
	if n < 1 {
		panic("model: limit below 1")
	}
	return &Limiter{c: Counter{kind: semaphoreKind, count: uint64(n), limit: uint64(n)}}
}

// Acquire models Limiter.Acquire: ErrInvalid for n negative or above the
// limit; context.Canceled if ctx is Done; ErrClosed after Close; nil,
// taking n units, if n is 0 or the units are free; otherwise
// ErrWouldBlock (the real call waits).
func (l *Limiter) Acquire(ctx Ctx, n int) error {
	switch {
	case n < 0 || uint64(n) > l.c.limit:
		return spin.ErrInvalid
	case ctx == Done:
		return stopped(ctx)
	case l.c.closed:
		return spin.ErrClosed
	}
	return l.c.Acquire(ctx, uint64(n))
}

// TryAcquire models Limiter.TryAcquire: true, taking n units, if the
// limiter is open, 0 ≤ n ≤ limit and the units are free.
func (l *Limiter) TryAcquire(n int) bool {
	if n < 0 || l.c.closed {
		return false
	}
	return l.c.TryAcquire(uint64(n))
}

// Release models Limiter.Release: ErrInvalid for n negative,
// ErrOverRelease (changing nothing) if the holders hold fewer than n
// units, nil otherwise (after Close too).
func (l *Limiter) Release(n int) error {
	if n < 0 {
		return spin.ErrInvalid
	}
	if l.c.Write(uint64(n)) != nil {
		return spin.ErrOverRelease
	}
	return nil
}

// SetLimit models Limiter.SetLimit: ErrInvalid for n below 1, then as
// Counter.SetLimit.
func (l *Limiter) SetLimit(n int) error {
	if n < 1 {
		return spin.ErrInvalid
	}
	return l.c.SetLimit(uint64(n))
}

// Drain models Limiter.Drain: context.Canceled if ctx is Done, nil if no
// unit is held, otherwise ErrWouldBlock (the real call waits).
func (l *Limiter) Drain(ctx Ctx) error { return l.c.Drain(ctx) }

// Close models Limiter.Close.
func (l *Limiter) Close() { l.c.Close() }

// Limit is Stats().Limit.
func (l *Limiter) Limit() int { return int(l.c.limit) }

// InUse is Stats().InUse: the units held.
func (l *Limiter) InUse() int { return int(l.c.limit + l.c.debt - l.c.count) }

// Free is Stats().Free: the units an Acquire can take now.
func (l *Limiter) Free() int { return int(l.c.count) }

// Closed reports whether Close has been called.
func (l *Limiter) Closed() bool { return l.c.closed }
