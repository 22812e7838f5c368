// Package signal provides a sum-and-reset signal with the semantics of a
// plain Linux eventfd. Writers add to a count, and a reader takes the whole
// sum and resets it to zero.
//
// The package works inside a testing/synctest bubble. A blocked Wait or
// AddWait is durably blocked, so synctest.Wait returns while it waits. The
// timer of WithWakeDelay runs on the bubble's fake clock, as context
// deadlines do. Make each Signal in the bubble that uses it. Its channels
// and its timer belong to that bubble, so it must not be shared with
// another bubble or with code outside.
package signal

import (
	"context"
	"fmt"

	"github.com/evsync/evsync/internal/counter"
	"github.com/evsync/evsync/internal/evserr"
)

// Max is the largest count: 1<<64-2, the eventfd counter's maximum.
const Max uint64 = counter.Max

// Errors returned by this package. They are the same values in every
// evsync package and work with errors.Is.
var (
	// ErrWouldBlock is returned by Add when count+n would pass Max.
	ErrWouldBlock = evserr.ErrWouldBlock
	// ErrInvalid is what the errors of Add and AddWait for n = 1<<64-1
	// (eventfd's EINVAL), and of the blocking calls for a nil context,
	// match. Each says what was wrong, e.g. "signal: wait: nil context:
	// evsync: invalid argument". Test for it with errors.Is.
	ErrInvalid = evserr.ErrInvalid
	// ErrClosed is returned by writes after Close and by Wait once a closed
	// signal has nothing left.
	ErrClosed = evserr.ErrClosed
)

// A Signal is a sum-and-reset counter. Any number of goroutines may Add.
// Each read, by Take or Wait, takes the whole count. So every added unit
// is read exactly once, whatever the interleaving, cancellations or Close:
//
//	sum of all reads + final count = initial count + sum of successful adds
//
// The zero value is a signal with count 0, and New sets a starting count.
// A Signal must not be copied after first use.
//
// An Add synchronizes before the read that returns its units.
//
// Fairness: blocked Wait callers are served in FIFO order. Each wakeup
// hands the whole sum to exactly one of them, so there is no thundering
// herd. Take never blocks and takes whatever is there, even while others
// wait. Blocked AddWait callers are FIFO among themselves. Add does not
// wait behind them.
//
// Cancel safety: a Wait or AddWait that returns ctx.Err() changed nothing.
// A call whose context is already done when it starts returns ctx.Err() at
// once, even if the count is there to take. A done context is a request to
// stop, while Take takes what is there. A sum is never handed to a reader
// whose context is already done. It goes to the next reader or stays in the
// count. A sum may be handed over while the context is still live, and the
// context may end before the reader wakes. Then the read took effect first,
// and Wait returns the sum with a nil error. No unit is ever lost or read
// twice.
type Signal struct {
	c    counter.Counter // in Plain mode
	wake *delayer        // delays waking blocked readers (WithWakeDelay), nil if not set
}

// New returns a signal whose count starts at initial. It panics if initial
// is above Max.
func New(initial uint64, opts ...Option) *Signal {
	if initial > Max {
		panic("signal: initial count above Max")
	}
	var o options
	for _, opt := range opts {
		opt.apply(&o)
	}
	s := &Signal{}
	var d counter.Delayer
	if o.delayed {
		d = s.delayer(o.wake, o.clk)
	}
	s.c.Init(Max, initial, d)
	return s
}

// Add adds n to the count. It never blocks. It returns:
//   - nil once n is added
//   - ErrWouldBlock if count+n would pass Max
//   - ErrInvalid for n = 1<<64-1
//   - ErrClosed after Close
//
// A failed Add changes nothing. Add(0) changes nothing.
func (s *Signal) Add(n uint64) error {
	if s.c.AddFast(n) {
		return nil
	}
	err := s.c.AddSlow(counter.Plain, n)
	if err == ErrInvalid {
		err = errAddMax // the only bad argument of an add
	}
	return err
}

// invalid returns an error that says what was wrong with a call's
// arguments and matches ErrInvalid with errors.Is (evserr.Invalid).
func invalid(format string, args ...any) error { return evserr.Invalid("signal", format, args...) }

// AddWait adds n, waiting while count+n would pass Max, as a blocking
// eventfd write does. It returns:
//   - nil once n is added
//   - ErrInvalid at once for a nil ctx or n = 1<<64-1
//   - ctx.Err() at once if ctx is already done, or when ctx ends while it
//     waits
//   - ErrClosed after Close
//
// A failed AddWait adds nothing. AddWait(ctx, 0) never waits.
func (s *Signal) AddWait(ctx context.Context, n uint64) error {
	err := s.c.WriteWait(ctx, counter.Plain, n)
	if err == ErrInvalid {
		err = errAddWaitMax
		if ctx == nil {
			err = errAddWaitNilCtx
		}
	}
	return err
}

// Take returns the whole count and resets it to 0. It returns 0 if there
// is nothing. It never blocks. After Close it returns what is left, then
// 0.
func (s *Signal) Take() uint64 {
	if v := s.c.TakeAllFast(); v != 0 {
		return v
	}
	v, _ := s.c.TryRead(counter.Plain, 0)
	return v
}

// Wait waits until the count is non-zero, then takes all of it. It
// returns:
//   - the sum and nil
//   - 0 and ErrInvalid for a nil ctx
//   - 0 and ctx.Err() at once if ctx is already done, or when ctx ends
//     while it waits
//   - 0 and ErrClosed once the signal is closed and empty
//
// A failed Wait takes nothing. The count stays for Take or a later Wait.
func (s *Signal) Wait(ctx context.Context) (uint64, error) {
	v, err := s.c.Read(ctx, counter.Plain, 0)
	if err == ErrInvalid {
		err = errWaitNilCtx // the only bad argument of a read of 0
	}
	return v, err
}

// The errors for bad arguments. Each matches ErrInvalid, and each is
// built once, so that a call's error path costs no allocation and its
// success path stays small enough to be inlined.
var (
	errAddMax        = invalid("add %d: above Max %d", uint64(1<<64-1), Max)
	errAddWaitMax    = invalid("add and wait %d: above Max %d", uint64(1<<64-1), Max)
	errAddWaitNilCtx = invalid("add and wait: nil context")
	errWaitNilCtx    = invalid("wait: nil context")
)

// Ready returns a channel that is closed once the count is non-zero or the
// signal is closed, like poll's POLLIN. Each call returns a channel for
// the next such moment. A goroutine woken by it may find the sum already
// taken by another reader. Take then returns 0, and the goroutine calls
// Ready again.
func (s *Signal) Ready() <-chan struct{} { return s.c.Ready() }

// Writable returns a channel that is closed once an Add(1) would not
// block for want of room, or once the signal is closed. There is room
// while the count is below Max, like poll's POLLOUT. After Close, writes
// fail at once. Each call returns a channel for the next such moment.
// A goroutine woken by it may find the room taken by another writer. So
// follow it with Add, or use AddWait, which keeps its place in line.
func (s *Signal) Writable() <-chan struct{} { return s.c.Writable() }

// Count returns the current count without taking it. After Close, that is
// what is left to read.
func (s *Signal) Count() uint64 { return s.c.Count() }

// Close closes the signal. What was added stays readable. Take and Wait
// return it, then Wait returns ErrClosed and Take 0. Add and AddWait return
// ErrClosed from then on, blocked AddWait callers included. Close is
// idempotent.
func (s *Signal) Close() {
	if s.wake != nil {
		s.wake.Close() // a delayed wakeup under way ends first, then c.Close serves every reader
	}
	s.c.Close()
}

// Stats is a snapshot of a signal's state.
type Stats struct {
	Count          uint64 // the current sum
	Waiting        int    // blocked Wait callers
	WritersWaiting int    // blocked AddWait callers
	Closed         bool   // Close has been called
}

// Stats returns a snapshot read with atomic loads only. It never takes the
// lock, so observers never slow writers. The fields are read one by one and
// may be mutually inconsistent under concurrent use.
func (s *Signal) Stats() Stats {
	count, closed, readers, writers := s.c.Snapshot()
	return Stats{count, readers, writers, closed}
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
