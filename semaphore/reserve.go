package semaphore

import "github.com/evsync/evsync/internal/counter"

// A Reservation is a select-able, FIFO-fair acquire of a Semaphore or a
// Limiter. It is a place in the queue of acquirers. Its Done channel is
// closed once the units are handed over, or once the semaphore or limiter
// is closed first. Unlike Ready, it keeps its place in line and cannot
// lose a wakeup to another caller.
//
// A Reservation that is no longer wanted must be cancelled with Cancel.
// Cancel also gives back units handed over in the meantime. A granted
// Reservation is released like any other acquire, with Release.
//
// A pending Reservation holds its place in the FIFO queue like a blocked
// Acquire. Every acquirer behind it waits until it is granted or
// cancelled, and TryAcquire fails meanwhile. So a forgotten Reservation,
// neither cancelled nor, once granted, released, holds up the whole queue
// or holds its units for good. Nothing cancels it on garbage collection.
// Cancel it on every path that gives up waiting. But a Cancel after the
// units were taken into use would give them back while they are in use.
//
// A Reservation's methods may be called from several goroutines at once.
// Done, Err and Cancel are safe for concurrent use. Cancel takes effect
// once, and later calls return its first answer. Any number of goroutines
// may select on Done's channel. The units it grants belong to whoever
// releases them. Releasing them twice adds them twice.
type Reservation struct{ r counter.Reservation }

// Reserve joins the queue of acquirers for n units and returns at once. It
// returns:
//   - a Reservation, which may already be granted, and nil
//   - ErrInvalid if n is above the limit
//   - ErrClosed if the semaphore is closed and fewer than n units are left
//
// Reserve allocates, while the blocking Acquire does not.
func (s *Semaphore) Reserve(n uint64) (*Reservation, error) {
	r := new(Reservation)
	if err := s.c.Reserve(&r.r, n); err != nil {
		return nil, s.readErr("reserve", err, false, n)
	}
	return r, nil
}

// Done returns a channel that is closed once the reservation is settled.
// It is settled when one of these happens:
//   - the units are held, and Err returns nil
//   - the semaphore was closed first, and Err returns ErrClosed
//   - Cancel gave it up, and Err returns context.Canceled
//
// So a Cancel from another goroutine wakes a goroutine blocked on Done.
func (r *Reservation) Done() <-chan struct{} { return r.r.Done() }

// Err reports what happened to the reservation, as context.Context's Err
// does. It returns nil while the reservation waits, with Done not yet
// closed. Once Done is closed, it returns:
//   - nil if the units are held
//   - ErrClosed if the semaphore was closed before they could be
//   - context.Canceled if Cancel gave the reservation up
//
// A Cancel may fail to give the units back and return false. The caller
// then holds them, and Err is nil.
func (r *Reservation) Err() error { return r.r.Err() }

// Cancel gives up the reservation. If it is still queued, it leaves the
// queue and those behind it move up. If its units were already handed
// over, they are given back, so the caller holds nothing. Cancel reports
// false only when the units were handed over and the count could not take
// them back without passing the limit. The caller then holds them and
// must Release them as usual. Later calls return the same answer and
// change nothing.
func (r *Reservation) Cancel() bool { return r.r.Cancel() }
