// Package semaphore provides a concurrency limiter and a counting
// semaphore. The Limiter, and the Group on top of it, are for the users of
// golang.org/x/sync/semaphore and errgroup. The Semaphore is FIFO-fair and
// has the semantics of a Linux eventfd opened with EFD_SEMAPHORE.
//
// Each of them serves waiting callers in order by default. With
// WithEventualFairness, a running caller may take free units ahead of
// waiters, until the oldest waiter has waited longer than a bound. That
// is sync.Mutex's rule, and it is much faster under contention.
//
// The package works inside a testing/synctest bubble. A call that waits is
// durably blocked, so synctest.Wait returns while it waits. The package
// has no timers of its own, and context deadlines follow the bubble's
// fake clock. Make each Semaphore, Limiter and Group in the bubble that
// uses it. Its channels belong to that bubble, so it must not be shared
// with another bubble or with code outside.
//
// # Errors
//
// The error of a bad argument says what was wrong and matches ErrInvalid,
// e.g. "semaphore: acquire 5 units exceeds the limit 4: evsync: invalid
// argument". So test errors with errors.Is, not ==. The doc of a call
// lists such an error as ErrInvalid. The other errors (ErrClosed,
// ErrWouldBlock, ErrOverRelease, ctx.Err()) are returned as they are.
// Only a failed call builds a message. A call that succeeds allocates
// nothing for it.
package semaphore

import (
	"context"
	"fmt"

	"github.com/evsync/evsync/internal/counter"
	"github.com/evsync/evsync/internal/evserr"
)

// Max is the largest count and the default limit. It is 1<<64-2, the
// eventfd counter's maximum.
const Max uint64 = counter.Max

// Errors returned by this package. They are the same values in every
// evsync package and work with errors.Is.
var (
	// ErrWouldBlock is returned by Release when the count has no room.
	ErrWouldBlock = evserr.ErrWouldBlock
	// ErrInvalid is what every error for a bad argument matches, such as
	// a request above the limit or a nil context. Each such error says
	// what was wrong, e.g. "semaphore: acquire 5 units exceeds the limit
	// 4: evsync: invalid argument". Test for it with errors.Is.
	ErrInvalid = evserr.ErrInvalid
	// ErrClosed is returned by writes after Close and by acquires that find
	// a closed semaphore without enough units left.
	ErrClosed = evserr.ErrClosed
)

// A Semaphore is a counting semaphore. It holds a count of available
// units, 0 ≤ count ≤ limit, which Acquire takes and Release adds. It has
// eventfd's semantics. The limit is Max unless WithLimit sets one, so a
// Release is refused only past it. To bound how much work runs at once,
// use a Limiter (NewLimiter). It counts in ints, reports an over-release,
// and its Close stops new work.
//
// The zero value is a semaphore with count 0 and limit Max. New sets a
// starting count and options. A Semaphore must not be copied after first
// use.
//
// A Release that makes units available synchronizes before the Acquire
// (or TryAcquire, or granted Reservation) that takes them.
//
// Fairness: by default, acquirers that have to wait are served strictly
// in the order they started waiting. A large request at the head blocks
// smaller ones behind it until it is served, so it cannot be starved.
// TryAcquire fails rather than take units while anyone is queued. With
// WithEventualFairness, acquirers may take units ahead of the queue while
// its oldest waiter has waited at most the bound (see there), and a
// woken waiter whose context has ended takes nothing. Release and ReleaseWait
// never wait behind acquirers. ReleaseWait callers are FIFO among
// themselves.
//
// Cancel safety: an Acquire or ReleaseWait that returns ctx.Err() changed
// nothing. A call whose context is already done when it starts returns
// ctx.Err() at once, even if it could succeed without waiting. A done
// context is a request to stop, while TryAcquire takes what is there.
// Units are never handed to a waiter whose context is already done. They
// go to the next waiter in line, so a cancelled waiter at the head never
// holds up those behind it. Units may be handed over while the context is
// still live, and the context may end before the waiter wakes. Then the
// call took effect first and returns nil. The grant is never lost, and the
// caller holds the units. Handing them back instead would let other
// callers observe a count that the history cannot explain.
type Semaphore struct {
	c counter.Counter // in Semaphore mode
}

// New returns a semaphore holding initial units. It panics if initial is
// above the limit, which is Max unless set with WithLimit.
func New(initial uint64, opts ...Option) *Semaphore {
	o := apply(opts)
	if o.limit == 0 {
		o.limit = Max
	}
	if initial > o.limit {
		panic("semaphore: initial count above the limit")
	}
	s := &Semaphore{}
	s.c.Init(o.limit, initial, nil)
	counter.SetFairness(&s.c, o.bound, o.clock)
	return s
}

// Acquire waits until n units can be taken and takes them all at once. It
// returns:
//   - nil once it holds them
//   - ErrInvalid at once if ctx is nil or n is above the limit
//   - ctx.Err() at once if ctx is already done, even if the units are
//     there, or when ctx ends while it waits
//   - ErrClosed if the semaphore is closed and fewer than n units are left
//
// On failure the count is unchanged. To take the units regardless of a
// done ctx, use TryAcquire. Acquire(ctx, 0) returns nil at once, or
// ctx.Err() if ctx is done.
func (s *Semaphore) Acquire(ctx context.Context, n uint64) error {
	if ctx != nil && n != 0 && ctx.Err() == nil {
		if s.c.TakeFast(n) {
			return nil
		}
		if err := s.c.TakeSlow(ctx, n); err != nil {
			return s.readErr("acquire", err, ctx == nil, n)
		}
		return nil
	}
	if _, err := s.c.Read(ctx, counter.Semaphore, n); err != nil {
		return s.readErr("acquire", err, ctx == nil, n)
	}
	return nil
}

// readErr is the error of a failed acquire of n units (op): err, or what
// was wrong if err is the count's bare ErrInvalid.
func (s *Semaphore) readErr(op string, err error, nilCtx bool, n uint64) error {
	if err != ErrInvalid {
		return err
	}
	return badRead(op, nilCtx, n, s.c.Limit())
}

// writeErr is readErr for a release of n units (op).
func (s *Semaphore) writeErr(op string, err error, nilCtx bool, n uint64) error {
	if err != ErrInvalid {
		return err
	}
	return badWrite(op, nilCtx, n, s.c.Limit(), s.c.Debt())
}

// TryAcquire takes n units if they are available and nobody is queued
// ahead, and reports whether it did. It never blocks, and by default
// never jumps the queue. A waiter whose context has ended does not count
// as queued. TryAcquire(0) is true, and a request above the limit is
// false. With WithEventualFairness it takes available units ahead of the
// queue, as Acquire does, until the semaphore turns strict.
func (s *Semaphore) TryAcquire(n uint64) bool {
	if n != 0 && s.c.TakeFast(n) {
		return true
	}
	_, ok := s.c.TryRead(counter.Semaphore, n)
	return ok
}

// AcquireUpTo waits until at least one unit is available and takes as
// many as there are, at most max, at once. It waits in the same FIFO line
// as Acquire, so a waiter ahead of it is served first. It returns:
//   - how many units it took, and nil
//   - 0 and ErrInvalid for a nil ctx
//   - 0 and ctx.Err() at once if ctx is already done, even for max 0, or
//     when ctx ends while it waits
//   - 0 and nil at once for max 0
//   - 0 and ErrClosed once the semaphore is closed and empty
//
// A failed call takes nothing. AcquireUpTo is Java's drainPermits with a
// wait, and a worker pool's "give me up to k slots".
func (s *Semaphore) AcquireUpTo(ctx context.Context, max uint64) (uint64, error) {
	v, err := s.c.ReadUpTo(ctx, max)
	if err == ErrInvalid {
		err = errUpToNilCtx // its only bad argument
	}
	return v, err
}

// TakeAll takes every available unit at once and returns how many it
// took, 0 if none. By default it takes nothing while an acquirer is
// queued, so it never takes what a waiter ahead of it is owed. With
// WithEventualFairness it takes them ahead of the queue, as Acquire
// does, until the semaphore turns strict. Release the units as usual, or
// keep them out of circulation.
func (s *Semaphore) TakeAll() uint64 {
	if v, ok := counter.TakeUpToFast(&s.c, 0); ok {
		return v
	}
	return s.c.TryReadUpTo(0)
}

// Release adds n units. It never blocks. It returns:
//   - nil once the units are added
//   - ErrWouldBlock if count+n would pass the limit
//   - ErrInvalid if n is above the limit plus the debt of a cut (see
//     SetLimit)
//
// A failed Release changes nothing. Release(0) changes nothing.
//
// After Close, Release still takes units back, so that Drain can tell when
// every unit is home. A holder gives back what it took, and nothing is
// lost. Release does not wait behind ReleaseWait callers. It judges the
// room only once the acquirers that the count serves have been served.
func (s *Semaphore) Release(n uint64) error {
	if s.c.AddFast(n) {
		return nil
	}
	if err := s.c.AddSlow(counter.Semaphore, n); err != nil {
		return s.writeErr("release", err, false, n)
	}
	return nil
}

// ReleaseWait adds n units, waiting while count+n would pass the limit.
// This is back-pressure, like a blocking eventfd write. It returns:
//   - nil once the units are added
//   - ErrInvalid at once for a nil ctx or n above the limit
//   - ctx.Err() at once if ctx is already done, or when ctx ends while it
//     waits
//   - ErrClosed after Close if there is no room
//
// A failed ReleaseWait adds nothing. After Close it still adds the units
// if there is room, but a closed semaphore is never waited on. Callers
// waiting at Close get ErrClosed. Waiting callers are served in FIFO
// order. ReleaseWait(ctx, 0) never waits.
//
// As with eventfd, the count never passes the limit, not even for an
// instant. So units are not passed straight through to a waiting
// acquirer. Take a count c, a head acquirer waiting for a > c units and a
// head writer waiting to add w > limit-c units. The two wait for each
// other until some other call moves the count. A limit of at least the
// largest acquire plus the largest ReleaseWait rules this out.
func (s *Semaphore) ReleaseWait(ctx context.Context, n uint64) error {
	if err := s.c.WriteWait(ctx, counter.Semaphore, n); err != nil {
		return s.writeErr("release and wait", err, ctx == nil, n)
	}
	return nil
}

// SetLimit changes the limit of a running semaphore to limit.
//   - Raising it adds the difference as free units, after paying any debt.
//     So queued acquirers are served at once, in FIFO order.
//   - Lowering it takes the difference from the free units. What they
//     cannot cover becomes a debt, because units are never taken from
//     their holders. The releases that follow pay the debt first, and add
//     to the count only once it is paid. So the count settles at the new
//     limit once every holder has given back.
//
// While in debt, a Release of up to limit+debt units is accepted, and the
// semaphore's fast paths take its lock.
//
// SetLimit returns ErrInvalid, changing nothing, unless 1 ≤ limit ≤ Max.
// It does the same if limit is below a queued Acquire, Reservation or
// ReleaseWait, which could then never be served. Cancel that request
// first. SetLimit returns ErrClosed after Close, since a closed semaphore
// keeps its limit and is never reopened.
func (s *Semaphore) SetLimit(limit uint64) error {
	if err := s.c.SetLimit(limit); err != nil {
		if err == ErrInvalid {
			err = badLimit(limit)
		}
		return err
	}
	return nil
}

// Ready returns a channel that is closed once the count is non-zero or the
// semaphore is closed, like poll's POLLIN. Each call returns a channel for
// the next such moment. A goroutine woken by it may still find the units
// gone, taken by another caller or handed to a queued acquirer. So follow
// it with TryAcquire, or use Reserve for a select-able acquire that keeps
// its place in line.
func (s *Semaphore) Ready() <-chan struct{} { return s.c.Ready() }

// Writable returns a channel that is closed once a Release(1) would not
// block for want of room, or once the semaphore is closed. There is room
// while the count is below the limit, like poll's POLLOUT. After Close,
// writes fail at once. Each call returns a channel for the next such
// moment. A goroutine woken by it may find the room taken by another
// writer. So follow it with Release, or use ReleaseWait, which keeps its
// place in line.
func (s *Semaphore) Writable() <-chan struct{} { return s.c.Writable() }

// Count returns the number of available units. After Close, those are
// the units left.
func (s *Semaphore) Count() uint64 { return s.c.Count() }

// Close closes the semaphore. Units already released stay available to
// Acquire and TryAcquire. Queued acquirers are served in FIFO order while
// what is left covers them. The rest get ErrClosed, as does every later
// Acquire that does not fit what is there. Holders may still give their
// units back with Release, and those units serve later acquires. Drain
// waits until they all have. Close never reopens anything and is
// idempotent.
func (s *Semaphore) Close() { s.c.Close() }

// Drain waits until every unit is back, with the count at the limit.
// After Close, it waits until the holders still running have released
// what they hold. It returns:
//   - nil then, at once if it is now
//   - ErrInvalid for a nil ctx
//   - ctx.Err() at once if ctx is already done, or when ctx ends first
//
// It changes nothing and works on an open semaphore too. With the default
// limit (Max) the count is at the limit only once Max units are there.
func (s *Semaphore) Drain(ctx context.Context) error {
	err := s.c.Drain(ctx)
	if err == ErrInvalid {
		err = errDrainNilCtx // its only bad argument
	}
	return err
}

// Stats is a snapshot of a semaphore's state.
type Stats struct {
	Count          uint64 // available units
	Limit          uint64 // the largest count, Max or what WithLimit set
	Waiting        int    // queued acquirers (Acquire and pending Reservations)
	WritersWaiting int    // queued ReleaseWait callers
	Closed         bool   // Close has been called
	Debt           uint64 // units a lowered limit took away that holders still have (SetLimit)
}

// Stats returns a snapshot read with atomic loads only. It never takes the
// lock, so observers never slow writers. The fields are read one by one and
// may be mutually inconsistent under concurrent use.
func (s *Semaphore) Stats() Stats {
	count, closed, readers, writers := s.c.Snapshot()
	return Stats{count, s.c.Limit(), readers, writers, closed, s.c.Debt()}
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
	debt := ""
	if st.Debt != 0 {
		debt = fmt.Sprintf(" debt=%d", st.Debt)
	}
	return fmt.Sprintf("semaphore{count=%d limit=%d waiting=%d writers=%d%s%s}",
		st.Count, st.Limit, st.Waiting, st.WritersWaiting, debt, closed)
}
