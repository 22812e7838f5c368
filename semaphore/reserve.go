package semaphore

import "github.com/evsync/evsync/internal/counter"

// A Reservation is a select-able, FIFO-fair acquire of a Semaphore or a
// Limiter: a place in its queue of acquirers whose Done channel is closed
// once the units are handed over (or it is closed first). Unlike Ready,
// it keeps its place in line and cannot lose a wakeup to another caller.
//
// A Reservation that is no longer wanted must be cancelled with Cancel,
// which also gives back units handed over in the meantime; one that is
// granted is released like any other acquire, with Release.
//
// A pending Reservation holds its place in the FIFO queue like a blocked
// Acquire: every acquirer behind it waits until it is granted or
// cancelled, and TryAcquire fails meanwhile. So a Reservation that is
// forgotten (neither cancelled nor, once granted, released) holds up the
// whole queue, or holds its units, for good; nothing cancels it on
// garbage collection. Cancel it on every path that gives up waiting (a
// Cancel after the units were taken into use would give them back while
// they are in use).
//
// A Reservation's methods may be called from several goroutines at once:
// Done, Err and Cancel are safe for concurrent use, Cancel takes effect
// once (later calls return its first answer), and Done's channel may be
// selected on by any number of goroutines. The units it grants belong to
// whoever releases them; releasing them twice adds them twice.
type Reservation struct{ r counter.Reservation }

// Reserve joins the queue of acquirers for n units and returns at once. It
// returns ErrInvalid if n is above the limit and ErrClosed if the
// semaphore is closed and fewer than n units are left; otherwise a
// Reservation, which may already be granted. Reserve allocates (the
// blocking Acquire does not).
func (s *Semaphore) Reserve(n uint64) (*Reservation, error) {
	r := new(Reservation)
	if err := s.c.Reserve(&r.r, n); err != nil {
		return nil, err
	}
	return r, nil
}

// Done returns a channel that is closed once the reservation is settled:
// the units are held (Err returns nil), the semaphore was closed first
// (Err returns ErrClosed), or Cancel gave it up (Err returns
// context.Canceled). A goroutine blocked on Done is therefore woken by a
// Cancel from another goroutine.
func (r *Reservation) Done() <-chan struct{} { return r.r.Done() }

// Err reports what happened to the reservation, as context.Context's Err
// does: nil while it waits (Done not yet closed); once Done is closed, nil
// if the units are held, ErrClosed if the semaphore was closed before they
// could be, and context.Canceled if Cancel gave the reservation up. After a
// Cancel that could not give the units back (it returned false) the
// caller holds them and Err is nil.
func (r *Reservation) Err() error { return r.r.Err() }

// Cancel gives up the reservation. If it is still queued it leaves the
// queue (those behind it move up); if its units were already handed over
// they are given back, so the caller holds nothing. Cancel reports false
// only when the units were handed over and the count could not take them
// back without passing the limit: the caller then holds them and must
// Release them as usual. Later calls return the same answer and change
// nothing.
func (r *Reservation) Cancel() bool { return r.r.Cancel() }
