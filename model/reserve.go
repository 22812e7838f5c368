package model

import (
	"context"
	"slices"

	"github.com/evsync/evsync/internal/spin"
)

type reservationState uint8

const (
	pending reservationState = iota
	granted
	rejected
)

// A Reservation models a semaphore Reservation: a place in the Counter's
// FIFO queue of acquirers that is granted once its units fit, or refused
// by Close.
type Reservation struct {
	c         *Counter
	need      uint64
	state     reservationState
	cancelled bool // Cancel has run
	kept      bool // Cancel could not give the units back
}

// Reserve models semaphore Reserve. It returns ErrInvalid if n is above
// the limit. Otherwise the reservation joins the tail of the queue and the
// queue is served: Reserve(0) is granted at once even behind others, and
// one that fits with nobody ahead is granted at once. After Close a
// reservation that does not fit is refused: Reserve returns ErrClosed.
func (c *Counter) Reserve(n uint64) (*Reservation, error) {
	c.must(semaphoreKind)
	if n > c.limit {
		return nil, spin.ErrInvalid
	}
	r := &Reservation{c: c, need: n}
	if n == 0 {
		r.state = granted
	} else {
		c.queue = append(c.queue, r)
	}
	c.settle()
	if r.state == rejected {
		return nil, spin.ErrClosed
	}
	return r, nil
}

// Need is the number of units the reservation asks for.
func (r *Reservation) Need() uint64 { return r.need }

// Done reports whether the real Done channel is closed: the reservation
// was granted, refused or cancelled.
func (r *Reservation) Done() bool { return r.state != pending || r.cancelled }

// Err models Reservation.Err: nil while it is pending and once the units
// are held (also after a Cancel that could not give them back), ErrClosed
// if Close refused the reservation, context.Canceled after a successful
// Cancel.
func (r *Reservation) Err() error {
	switch {
	case r.cancelled && !r.kept:
		return context.Canceled
	case r.state == pending, r.state == granted:
		return nil
	}
	return spin.ErrClosed
}

// Cancel models Reservation.Cancel. A pending reservation leaves the queue
// (those behind it may then be served); granted units go back to the count
// (after Close, to what is left) unless that would pass the limit, in which
// case Cancel reports false and the caller keeps them. Later calls return
// the first answer and change nothing.
func (r *Reservation) Cancel() bool {
	if r.cancelled {
		return !r.kept
	}
	r.cancelled = true
	c := r.c
	switch r.state {
	case pending:
		c.remove(r)
	case granted:
		pay := min(r.need, c.debt)
		if r.need-pay > c.limit-c.count {
			r.kept = true
			return false
		}
		c.debt -= pay
		c.count += r.need - pay
	}
	c.settle()
	return true
}

func (c *Counter) remove(r *Reservation) {
	if i := slices.Index(c.queue, r); i >= 0 {
		c.queue = slices.Delete(c.queue, i, i+1)
	}
}
