// Package coalesce provides a coalescing waker. Producers note events
// with Wake, and the consumer gets one wakeup for many events. The wakeup
// comes at most a bounded delay after the first of them.
//
// The package works inside a testing/synctest bubble. A blocked Wait, or a
// receive from C, is durably blocked, so synctest.Wait returns while it
// waits. The window's timer runs on the bubble's fake clock, so a wakeup
// comes exactly when its window ends. Make each Waker in the bubble that
// uses it. Its channel and its timer belong to that bubble, so it must not
// be shared with another bubble or with code outside.
package coalesce

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/evsync/evsync/internal/evserr"
	"github.com/evsync/evsync/internal/watch"
	"github.com/evsync/evsync/internal/window"
)

// Errors returned by this package. They are the same values in every
// evsync package and work with errors.Is.
var (
	// ErrInvalid is what Wait's error for a nil context matches. The
	// error says so: "coalesce: wait: nil context: evsync: invalid
	// argument". Test for it with errors.Is.
	ErrInvalid = evserr.ErrInvalid
	// ErrClosed is returned by Wait once the waker is closed and every
	// event noted before Close has been reported.
	ErrClosed = evserr.ErrClosed
)

// A Waker coalesces events. Wake notes one, and the consumer is woken once
// per window, through C (or Ready) or Wait. Wait reports how many events
// the wakeup covers.
//
// The policies are these:
//   - By default (audit), the first event after an idle period arms one
//     timer for the delay. Later events neither re-arm nor extend it. When
//     it fires, the consumer gets one wakeup for all of them.
//   - WithAdaptive (recommended) wakes at once while wakeups are rare. It
//     coalesces only while they would come often.
//   - WithMaxBatch wakes at once when that many events are pending.
//   - WithMaxWait switches to a trailing debounce. It wakes between one and
//     two delays after the last event of a burst, and never later than
//     maxWait after the window's first event.
//   - A delay of 0 wakes at once.
//
// No timer is armed while nothing is pending, and no goroutine exists per
// Waker.
//
// Wakeups never double up. A wakeup that finds the previous one not yet
// consumed merges into it, since C holds at most one token. Flush cancels
// the pending timer. So the same events are never reported twice.
//
// The zero value is a Waker with a delay of 0 and the default policy, so
// every Wake is a wakeup at once. New sets a delay and options. A Waker
// must not be copied after first use.
//
// A Wake synchronizes before the Wait or Events call that reports its
// event.
//
// Fairness and consumers: every event is reported exactly once, to one
// consumer. Several goroutines may call Wait at once. The events of each
// wakeup go to one of them, in no promised order. There is no queue, and
// the token goes to whichever receiver the channel serves. Wait never
// returns 0 events with a nil error, because a Wait whose token's events
// another consumer took first goes back to waiting.
//
// A receive from C followed by Events promises less. Events returns the
// events of every wakeup so far. So with several consumers, one's Events
// may take the events of the token another has just received. The other's
// Events then returns 0, and it should go back to receiving. Several
// consumers should rather use Wait. With one consumer, a receive from C
// never finds a wakeup with no events.
//
// In a poll set (package poll), a Waker reports In while a wakeup is
// pending. The loop consumes it with Events, with no receive from C:
// Events takes the token with the events, so neither the set nor C
// reports that wakeup again (see the package's poll example). A closed
// Waker reports In|Hup for good: after a last Events, the loop removes
// it from the set.
//
// Cancel safety: a Wait that returns ctx.Err() has taken nothing. The
// events stay for the next call. If ctx ends just as a wakeup comes, Wait
// may return the events with a nil error instead, so they are never lost.
// After Close, Wait or Events report the events noted before it exactly
// once. Then Wait returns ErrClosed.
type Waker struct {
	win window.Window // the policy and the pending events, whose lock guards out too
	out outbox
}

// outbox is a Waker's consumer side. The window delivers wakeups to it
// under the window's lock, which Events takes too.
type outbox struct {
	delivered atomic.Uint64 // events handed over and not yet reported, written with the window's lock held
	once      sync.Once     // makes c on first use, so that the zero value works
	c         chan struct{} // the wakeup token, read through ch and closed by Close
	shut      sync.Once     // closes c, once the window is closed

	watch  watch.List   // the poll sets watching the Waker (watch.go)
	armed  atomic.Int32 // their registrations waiting for the next wakeup
	closed atomic.Bool  // Close ran, for their polls
}

// New returns a Waker with the given delay, which may be any non-negative
// duration. A delay of 0 wakes at once for every event, which meets every
// option's bound, so the options then change nothing. New panics if delay
// is negative, or if an option is invalid for it.
func New(delay time.Duration, opts ...Option) *Waker {
	if delay < 0 {
		panic("coalesce: negative delay")
	}
	s := settings{p: window.Policy{Delay: delay}}
	for _, o := range opts {
		o.apply(&s)
	}
	if s.p.MaxWait != 0 && s.p.MaxWait < delay {
		panic("coalesce: maxWait below the delay")
	}
	w := &Waker{}
	w.win.Init(s.p, s.clk)
	return w
}

// ch returns the token channel. The zero value has none, so the first use
// makes it. The Once makes concurrent first uses (C, Wait, a wakeup) agree
// on one channel without a data race. After that it costs one atomic load.
// Wake's fast path never gets here.
func (b *outbox) ch() chan struct{} {
	b.once.Do(b.makeCh)
	return b.c
}

func (b *outbox) makeCh() { b.c = make(chan struct{}, 1) }

// Deliver hands a wakeup of n events to the consumer as a token on C. If
// the last token is not consumed yet, it sends none, and the two wakeups
// merge.
func (b *outbox) Deliver(n uint64) {
	b.delivered.Add(n)
	select {
	case b.ch() <- struct{}{}:
	default:
	}
	hook(pointDelivered)
	if b.armed.Load() != 0 { // after delivered: a set that arms, then polls, sees one or the other
		b.watch.Wake(watch.In)
	}
}

// take takes the token off C, if one is there.
func (b *outbox) take() {
	select {
	case <-b.ch():
	default:
	}
}

// close closes C with no token left in it.
func (b *outbox) close() {
	b.take()
	close(b.ch())
}

// Wake notes one event. It does not allocate and never waits for the
// consumer. At most two events of a window take the lock. The first arms
// the timer, and the one that reaches the batch threshold wakes the
// consumer. After Close it does nothing.
func (w *Waker) Wake() { w.win.Wake(&w.out) }

// Flush wakes the consumer now for the pending events, if any, and cancels
// the pending timer. So the same events never cause a second wakeup.
func (w *Waker) Flush() { w.win.Flush(&w.out) }

// C returns the channel that receives one token per wakeup. Wakeups that
// find a token still there merge into it. After a receive, Events reports
// how many events the wakeup covers. With several consumers that may be 0
// (see the Waker doc). Close closes C with no token left in it. So a
// receive after Close returns at once, and Events then returns the events
// left.
func (w *Waker) C() <-chan struct{} { return w.out.ch() }

// Ready is C, for symmetry with the other evsync primitives.
func (w *Waker) Ready() <-chan struct{} { return w.out.ch() }

// Events returns the events handed over by wakeups and not yet reported,
// and resets that count. Call it after a receive from C. Wait calls it for
// you. If a later wakeup left a token on C meanwhile, Events takes that
// token too, since it returns that wakeup's events. So a single consumer's
// receive from C never finds a wakeup with no events. After Close, Events
// also returns the events still pending.
func (w *Waker) Events() uint64 {
	w.win.Lock()
	defer w.win.Unlock()
	n := w.out.delivered.Swap(0) + w.win.Drain()
	if n != 0 {
		w.out.take() // the token of a wakeup whose events n includes
	}
	return n
}

// Wait waits for the next wakeup and returns how many events it covers,
// always at least one. It returns:
//   - the events and nil, once a wakeup comes
//   - 0 and an error matching ErrInvalid for a nil ctx ("coalesce: wait:
//     nil context")
//   - 0 and ctx.Err() at once if ctx is already done, even if a wakeup is
//     there, or when ctx ends while it waits
//   - after Close, the events noted before Close, and then 0 and ErrClosed
//
// A Wait that returns ctx.Err() loses no event. The events stay for the
// next call. A token whose events another consumer took meanwhile does
// not end the wait. Wait then waits for the next one.
func (w *Waker) Wait(ctx context.Context) (events uint64, err error) {
	if ctx == nil {
		return 0, errWaitNilCtx
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	c := w.out.ch()
	for {
		select {
		case _, open := <-c:
			if n, err := w.received(open); n != 0 || err != nil {
				return n, err
			}
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
}

// errWaitNilCtx is Wait's error for a nil context. It is built once, so
// that returning it allocates nothing.
var errWaitNilCtx = evserr.Invalid("coalesce", "wait: nil context")

// received is what Wait returns for a token it received from C. The flag
// open is false once C is closed. It returns the events, or ErrClosed once
// none are left after Close. If another consumer's Events took the events,
// it returns (0, nil) and Wait waits on. The next wakeup brings a token of
// its own.
func (w *Waker) received(open bool) (uint64, error) {
	n := w.Events()
	if n == 0 && !open {
		return 0, ErrClosed
	}
	return n, nil
}

// Close stops the waker. The timer is stopped, and when Close returns no
// timer run is left and none will come. C is closed, with no token left in
// it. The events noted before Close stay readable through Events and Wait,
// each reported once. Later Wake calls do nothing. Close is idempotent,
// and every call returns only once the first one has finished.
func (w *Waker) Close() {
	w.win.Close()
	w.out.shut.Do(w.out.close) // no wakeup comes now to send on C
	if !w.out.closed.Swap(true) && w.out.armed.Load() != 0 {
		w.out.watch.Wake(watch.Hup)
	}
}

// Stats is a snapshot of a Waker's state.
type Stats struct {
	Pending   uint64 // events noted since the last wakeup (a window is open while non-zero)
	Delivered uint64 // events handed over by wakeups and not yet reported by Wait or Events
	Wakeups   uint64 // wakeups fired so far, those merged into an earlier one included
	Armed     bool   // a timer is set for the open window
	Closed    bool   // Close has been called
}

// Pending returns the events noted since the last wakeup. It is non-zero
// while a window is open. It is one atomic load, for producers that need
// to know whether a wakeup is already on its way.
func (w *Waker) Pending() uint64 { return w.win.Pending() }

// Stats returns a snapshot read with atomic loads only. It never takes the
// lock, so observers never slow writers. The fields are read one by one and
// may be mutually inconsistent under concurrent use.
func (w *Waker) Stats() Stats {
	st := w.win.Stats()
	return Stats{st.Pending, w.out.delivered.Load(), st.Wakeups, st.Armed, st.Closed}
}

// String formats a Stats snapshot.
func (w *Waker) String() string { return w.Stats().String() }

// String formats the snapshot.
func (st Stats) String() string {
	return fmt.Sprintf("coalesce{pending=%d delivered=%d wakeups=%d armed=%t closed=%t}",
		st.Pending, st.Delivered, st.Wakeups, st.Armed, st.Closed)
}
