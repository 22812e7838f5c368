package semaphore

import (
	"context"
	"fmt"

	"github.com/evsync/evsync/internal/counter"
	"github.com/evsync/evsync/internal/evserr"
)

// ErrOverRelease is returned by a Limiter's Release of more units than
// its holders hold. The Limiter is unchanged.
var ErrOverRelease = evserr.ErrOverRelease

// A Limiter bounds how many units of work run at once. It has a limit of
// units, all free at first, which Acquire takes and Release gives back.
// It is what golang.org/x/sync/semaphore's Weighted is, with four
// differences:
//   - Its limit can change while units are held (SetLimit).
//   - Its Close stops new work.
//   - Its permits cannot be released twice.
//   - An over-release is an error (ErrOverRelease) rather than a panic.
//
// Create a Limiter with NewLimiter. The zero value is not usable. A
// Limiter must not be copied after first use.
//
// A Release synchronizes before the Acquire that takes the units it gave
// back.
//
// Fairness: by default, acquirers that have to wait are served strictly
// in the order they started waiting. A large request at the head holds
// back smaller ones behind it, so it is never starved. TryAcquire and
// TryAcquireUpTo take nothing rather than jump the queue. Each contended
// acquire then costs a park and a wake-up. WithEventualFairness trades
// order for speed: running callers may take free units ahead of the
// queue until its oldest waiter has waited longer than a bound (see
// there).
//
// Cancel safety: an Acquire or AcquireUpTo that returns ctx.Err() took
// nothing. A call whose context is already done returns ctx.Err() at
// once, even with units free. Units handed to a waiter whose context ends
// just then are kept. The call returns nil, and the caller holds them.
// In the eventual mode a release may instead wake the waiter to take the
// units itself. If its context has ended by then, it takes nothing, and
// the units stay free.
//
// Close ends new work. Every later acquire fails with ErrClosed, or takes
// nothing, even with units free, and so do the acquirers waiting then.
// Holders still give their units back, and Drain waits until they all
// have.
//
// A *Limiter is a source of package poll's sets. It reports In while
// units are free and Out while some are held, and Hup once closed. Answer
// its In with TryAcquireUpTo, which takes what is free in one call.
type Limiter struct {
	c counter.Counter // in Semaphore mode, with reads stopped by Close
}

// NewLimiter returns a limiter of n units, all free. It panics if n is
// below 1, or if given WithLimit. Its options are WithEventualFairness and
// WithClock.
func NewLimiter(n int, opts ...Option) *Limiter {
	if n < 1 {
		panic("semaphore: limit below 1")
	}
	o := apply(opts)
	if o.limit != 0 {
		panic("semaphore: WithLimit is an option of New; a Limiter's limit is its n")
	}
	l := new(Limiter)
	l.c.Init(uint64(n), uint64(n), nil)
	l.c.StopReadsAtClose()
	counter.SetFairness(&l.c, o.bound, o.clock)
	return l
}

// Acquire waits until n units are free and takes them all at once. It
// returns nil once it holds them. Otherwise it takes nothing and returns:
//   - ErrInvalid at once for a nil ctx, or n negative or above the limit
//   - ctx.Err() at once if ctx is already done, or when ctx ends first
//   - ErrClosed once the limiter is closed
//
// Acquire(ctx, 0) returns nil at once on an open limiter.
func (l *Limiter) Acquire(ctx context.Context, n int) error {
	if n > 0 && ctx != nil && ctx.Err() == nil {
		if l.c.TakeFast(uint64(n)) {
			return nil
		}
		if err := l.c.TakeSlow(ctx, uint64(n)); err != nil {
			return l.acquireErr(err, ctx == nil, n)
		}
		return nil
	}
	if n < 0 {
		return invalid("acquire %d units: a negative count", n)
	}
	if _, err := l.c.Read(ctx, counter.Semaphore, uint64(n)); err != nil {
		return l.acquireErr(err, ctx == nil, n)
	}
	return nil
}

// acquireErr is the error of a failed acquire of n units: err, or what was
// wrong if err is the count's bare ErrInvalid.
func (l *Limiter) acquireErr(err error, nilCtx bool, n int) error {
	if err != ErrInvalid {
		return err
	}
	return badRead("acquire", nilCtx, uint64(n), l.c.Limit())
}

// TryAcquire takes n units if they are free and nobody is queued ahead,
// and reports whether it did. It never blocks. It is false for n negative
// or above the limit, and once the limiter is closed. TryAcquire(0) is
// true on an open limiter. With WithEventualFairness, it takes free units
// ahead of the queue until the limiter turns strict.
func (l *Limiter) TryAcquire(n int) bool {
	if n > 0 && l.c.TakeFast(uint64(n)) {
		return true
	}
	if n < 0 {
		return false
	}
	_, ok := l.c.TryRead(counter.Semaphore, uint64(n))
	return ok
}

// TryAcquireUpTo takes the free units, at most max of them, and returns
// how many it took. It never blocks. It returns 0, taking nothing:
//   - while an acquirer is queued, so it never takes what a waiter ahead
//     of it is owed (with WithEventualFairness, only once the limiter
//     has turned strict)
//   - once the limiter is closed, even with units free
//   - for max 0, and for max negative, as TryAcquire(-1) is false
//
// It is the one-call answer to a poll set's In, where a loop of
// TryAcquire(1) pays a call per unit and Stats().Free followed by
// TryAcquire of that many may find them gone. To take every free unit,
// pass math.MaxInt. The units go back with Release, as Acquire's do.
func (l *Limiter) TryAcquireUpTo(max int) int {
	if max <= 0 {
		return 0
	}
	if v, ok := counter.TakeUpToFast(&l.c, uint64(max)); ok {
		return int(v)
	}
	return int(l.c.TryReadUpTo(uint64(max)))
}

// AcquireUpTo waits until at least one unit is free, then takes the free
// units, at most max of them, at once. It waits in the same FIFO line as
// Acquire, so a waiter ahead of it is served first. It returns:
//   - how many units it took, and nil
//   - 0 and ErrInvalid at once for a nil ctx or max negative
//   - 0 and ctx.Err() at once if ctx is already done, or when ctx ends
//     first
//   - 0 and ErrClosed once the limiter is closed, even with units free
//
// A failed call takes nothing. AcquireUpTo(ctx, 0) returns 0 and nil at
// once on an open limiter, as Acquire(ctx, 0) does. Units handed to it
// just as its context ends are kept: it returns them with a nil error.
func (l *Limiter) AcquireUpTo(ctx context.Context, max int) (int, error) {
	if max < 0 {
		return 0, invalid("acquire up to %d units: a negative count", max)
	}
	v, err := l.c.ReadUpTo(ctx, uint64(max))
	if err == ErrInvalid {
		err = errUpToNilCtx // its only bad argument left
	}
	return int(v), err
}

// Reserve is the select-able Acquire. It joins the queue for n units and
// returns at once with a Reservation. The Reservation's Done channel is
// closed once the units are held or the limiter is closed. It returns
// ErrInvalid for n negative or above the limit, and ErrClosed once the
// limiter is closed. Give granted units back with Release, or Cancel the
// reservation (see Reservation).
func (l *Limiter) Reserve(n int) (*Reservation, error) {
	if n < 0 {
		return nil, invalid("reserve %d units: a negative count", n)
	}
	r := new(Reservation)
	if err := l.c.Reserve(&r.r, uint64(n)); err != nil {
		if err == ErrInvalid {
			err = badRead("reserve", false, uint64(n), l.c.Limit())
		}
		return nil, err
	}
	return r, nil
}

// Release gives back n units that its caller holds. It never blocks, and
// it works after Close too. It returns:
//   - nil once the units are back
//   - ErrOverRelease if the holders hold fewer than n units
//   - ErrInvalid for n negative
//
// A failed Release changes nothing. Release(0) does nothing.
func (l *Limiter) Release(n int) error {
	if n > 0 && l.c.AddFast(uint64(n)) {
		return nil
	}
	if n < 0 {
		return invalid("release %d units: a negative count", n)
	}
	if l.c.AddSlow(counter.Semaphore, uint64(n)) != nil {
		return ErrOverRelease // free units would pass limit plus debt, so more than is held
	}
	return nil
}

// SetLimit changes the limit while units are held.
//   - A raise frees the difference at once, to the waiters first.
//   - A cut takes free units first. Units still held are never taken, so
//     the limiter may hold more than its new limit for a while. Releases
//     then pay that back before they free anything.
//
// It returns ErrInvalid, changing nothing, for n below 1 or below a
// waiting Acquire, which could never be served then. It returns ErrClosed
// after Close.
func (l *Limiter) SetLimit(n int) error {
	if n < 1 {
		return invalid("set limit %d: below 1", n)
	}
	if err := l.c.SetLimit(uint64(n)); err != nil {
		if err == ErrInvalid {
			err = badLimit(uint64(n))
		}
		return err
	}
	return nil
}

// Drain waits until every unit is back and nothing is held. It is a
// limiter's shutdown, after Close. It returns:
//   - nil then, at once if it is now
//   - ErrInvalid for a nil ctx
//   - ctx.Err() at once if ctx is done, or when ctx ends first
//
// It changes nothing and works on an open limiter too.
func (l *Limiter) Drain(ctx context.Context) error {
	err := l.c.Drain(ctx)
	if err == ErrInvalid {
		err = errDrainNilCtx // its only bad argument
	}
	return err
}

// Close ends new work (see Limiter). It is idempotent.
func (l *Limiter) Close() { l.c.Close() }

// LimiterStats is a snapshot of a limiter's state.
type LimiterStats struct {
	Limit   int  // the number of units
	InUse   int  // units held, above Limit for a while after a cut
	Free    int  // units not held (after Close, no Acquire takes them)
	Waiting int  // acquirers queued
	Closed  bool // Close has been called
}

// Stats returns a snapshot read with atomic loads only, so observers
// never slow the limiter. The fields are read one by one and may be
// mutually inconsistent under concurrent use, but none is negative.
func (l *Limiter) Stats() LimiterStats {
	free, closed, waiting, _ := l.c.Snapshot()
	limit, debt := l.c.Limit(), l.c.Debt()
	inUse := limit + debt - free
	if free > limit+debt { // read on either side of a SetLimit
		inUse = 0
	}
	return LimiterStats{
		Limit:   int(limit),
		InUse:   int(inUse),
		Free:    int(free),
		Waiting: waiting,
		Closed:  closed,
	}
}

// String formats a Stats snapshot, e.g.
// "limiter{limit=8 in-use=3 free=5 waiting=0}".
func (l *Limiter) String() string { return l.Stats().String() }

// String formats the snapshot.
func (st LimiterStats) String() string {
	closed := ""
	if st.Closed {
		closed = " closed"
	}
	return fmt.Sprintf("limiter{limit=%d in-use=%d free=%d waiting=%d%s}",
		st.Limit, st.InUse, st.Free, st.Waiting, closed)
}
