package model

import (
	"context"
	"slices"
	"time"

	"github.com/evsync/evsync/internal/evserr"
)

type reservationState uint8

const (
	pending reservationState = iota
	granted
	rejected
)

// A Reservation models a semaphore.Reservation, a place in a Counter's
// FIFO queue of acquirers. It is granted once its units fit and every
// reservation ahead of it is served, or refused by Close. Counter.Reserve
// and Limiter.Reserve make one. In the eventual mode either may grant it
// at once, ahead of others (see Limiter's Barging).
//
// The calls map onto the model as follows:
//
//	semaphore.Reservation   Reservation
//	Done()                  Done(), true once the channel is closed
//	Err()                   Err()
//	Cancel()                Cancel()
//
// A granted reservation's units are given back with Counter.Write or
// Limiter.Release, as the real ones are with Release.
type Reservation struct {
	c         *Counter
	need      uint64
	start     time.Duration // when Reserve queued it, on the Counter's clock
	state     reservationState
	cancelled bool // Cancel has run
	kept      bool // Cancel could not give the units back
}

// Reserve models semaphore Reserve. The reservation joins the tail of the
// queue, and the queue is served. Reserve(0) is granted at once, even
// behind others. It returns:
//   - the reservation and nil, granted at once if it fits with nobody
//     ahead, or in the eventual mode ahead of a head at most bound old
//   - nil and ErrInvalid if n is above the limit
//   - nil and ErrClosed after Close, if what is left does not cover n
func (c *Counter) Reserve(n uint64) (*Reservation, error) {
	must(c, semaphoreKind)
	if n > c.limit {
		return nil, evserr.ErrInvalid
	}
	r := &Reservation{c: c, need: n, start: c.fair.now}
	var ev Events
	switch {
	case n == 0:
		r.state = granted
	case n <= c.count && c.fair.barges(c.queue):
		// Granted at once: with nobody pending as settle would, or in a
		// Limiter's eventual mode ahead of a head that is young enough.
		c.count -= n
		r.state = granted
		ev = Out
	default:
		c.queue = append(c.queue, r)
		c.fair.notice()
	}
	wake(c, ev|settle(c)) // a grant is a read: Out
	if r.state == rejected {
		return nil, evserr.ErrClosed
	}
	return r, nil
}

// Need is the number of units the reservation asks for.
func (r *Reservation) Need() uint64 { return r.need }

// Done reports whether the real Done channel is closed. It is once the
// reservation is granted, refused or cancelled.
func (r *Reservation) Done() bool { return r.state != pending || r.cancelled }

// Err models Reservation.Err. It returns:
//   - context.Canceled after a Cancel that returned true, even of a
//     refused reservation
//   - nil while the reservation is pending
//   - nil once the units are held, also after a Cancel that returned false
//   - ErrClosed if Close refused the reservation
func (r *Reservation) Err() error {
	switch {
	case r.cancelled && !r.kept:
		return context.Canceled
	case r.state == pending, r.state == granted:
		return nil
	}
	return evserr.ErrClosed
}

// Cancel models Reservation.Cancel and reports whether the reservation
// was given up.
//   - A pending reservation leaves the queue, and those behind it may be
//     served. Cancel returns true.
//   - Granted units go back, paying any debt first, and Cancel returns
//     true.
//   - If they would pass the limit, Cancel returns false and the caller
//     keeps them.
//   - A refused reservation is given up, and Cancel returns true.
//
// Later calls return the first answer and change nothing.
func (r *Reservation) Cancel() bool {
	if r.cancelled {
		return !r.kept
	}
	r.cancelled = true
	c := r.c
	var ev Events
	switch r.state {
	case pending:
		remove(c, r)
	case granted:
		pay := min(r.need, c.debt)
		if r.need-pay > c.limit-c.count {
			r.kept = true
			return false
		}
		c.debt -= pay
		c.count += r.need - pay
		if r.need != 0 {
			c.fair.notice()
		}
		ev = In // giving units back is a write, of 0 too
	}
	wake(c, ev|settle(c))
	return true
}

func remove(c *Counter, r *Reservation) {
	if i := slices.Index(c.queue, r); i >= 0 {
		c.queue = slices.Delete(c.queue, i, i+1)
	}
}
