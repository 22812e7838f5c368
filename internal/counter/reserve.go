package counter

import (
	"context"

	"github.com/evsync/evsync/internal/evserr"
	"github.com/evsync/evsync/internal/waitq"
)

// A Reservation is a select-able read of a Semaphore counter. It is a
// place in the readers' queue, whose Done channel is closed once it is
// served or refused. Its flags are used only with c.mu held.
type Reservation struct {
	c         *Counter
	w         *waitq.Waiter[req]
	cancelled bool // Cancel has run
	kept      bool // Cancel could not give the units back
}

// Reserve queues r as a select-able read of n units. It is served at once
// if n is 0, or if n fits with nobody ahead. It returns nil, or one of
// these errors, with r not queued:
//
//   - ErrInvalid for n above the limit
//   - ErrClosed if the counter is closed with fewer than n units left
func (c *Counter) Reserve(r *Reservation, n uint64) error {
	if c.above(n, false) {
		return evserr.ErrInvalid
	}
	l := c.lock()
	defer c.unlock(l)
	if n > c.Limit() {
		return evserr.ErrInvalid // lowered since the look above: never queue what no count can serve
	}
	p := req{need: n, sel: true}
	if c.fair.bound != 0 {
		p.since = c.fair.now()
	}
	ahead := l.readers.Len() != 0 && barging(c, l) // eventual fairness: taken at once if the units are free (fair.go)
	r.c, r.w = c, l.readers.PushSelectable(p)
	switch {
	case n == 0 && c.zeroRead() == nil:
		l.readers.Grant(r.w, req{}) // like a read of 0, it never waits, even behind others
	case ahead:
		if v, ok := c.take(l, n, 0); ok {
			l.readers.Grant(r.w, req{need: n, got: v})
		}
	}
	c.serve(l)
	if queued, v := r.w.Settled(); !queued && v == waitq.Closed {
		return evserr.ErrClosed
	}
	return nil
}

// Done returns the channel that is closed once r is served, refused or
// cancelled.
func (r *Reservation) Done() <-chan struct{} { return r.w.Done() }

// Err returns:
//
//   - nil while r waits, and once it holds its units
//   - ErrClosed if r was refused
//   - context.Canceled once Cancel has given r up, and given back what it
//     held
func (r *Reservation) Err() error {
	defer r.c.unlock(r.c.lock())
	queued, v := r.w.Settled()
	switch {
	case queued:
		return nil
	case r.cancelled && !r.kept:
		return context.Canceled
	case v == waitq.Granted:
		return nil
	}
	return evserr.ErrClosed
}

// Cancel gives r up. A waiting r leaves the queue, and its Done channel is
// closed. Units already handed to r go back to the count. Cancel reports
// false only if they could not go back without passing the limit. The
// caller then holds them. Later calls return the first answer.
func (r *Reservation) Cancel() bool {
	c := r.c
	l := c.lock()
	defer c.unlock(l)
	if r.cancelled {
		return !r.kept
	}
	r.cancelled = true
	switch queued, v := r.w.Settled(); {
	case queued:
		l.readers.Cancel(r.w)
	case v == waitq.Granted && c.add(l, Semaphore, r.w.P.need) != nil: // after Close too: into what is left to read
		r.kept = true
	}
	return !r.kept
}
