// Coalescer models coalesce.Waker, the debounced waker. Time is the
// model's own: Now starts at 0 and moves only through Advance, which plays
// the part of the fake clock of testing/synctest (a time.Sleep(d) in the
// bubble followed by synctest.Wait lets every timer due by then run, in
// deadline order). The calls map onto the model as follows:
//
//	coalesce                                   Coalescer
//	var w coalesce.Waker (the zero value)      NewCoalescer(0, 0, 0)
//	New(delay)                                 NewCoalescer(delay, 0, 0)
//	New(delay, WithMaxBatch(n))                NewCoalescer(delay, n, 0)
//	New(delay, WithMaxWait(w))                 NewCoalescer(delay, 0, w)
//	New(delay, WithAdaptive(), ...)            NewCoalescer(...).Adaptive()
//	Wake()                                     Wake()
//	Flush()                                    Flush()
//	Close()                                    Close()
//	Wait(ctx)                                  Wait(ctx)
//	receive from C() (or Ready()), then Events TryWait()
//	Events() alone                             Events()
//	fake clock moves by d                      Advance(d)
//	Stats-style observations                   Pending, Armed, Wakeups, Closed, Now
//
// TryWait is the non-blocking consumer: (n, true, nil) is Wait returning
// (n, nil); (0, false, nil) means Wait would park; (0, false, ErrClosed)
// is Wait returning ErrClosed. Wait(ctx) is TryWait for a Live context;
// with Done it returns context.Canceled and changes nothing.
// A Wake made at the very instant of a deadline is modelled as coming after
// the expiry, which is the order synctest gives when the sleeper wakes.

package model

import (
	"math"
	"time"

	"github.com/evsync/evsync/internal/spin"
)

// A Coalescer models one coalesce.Waker: the events noted since the last
// wakeup (pending), the events handed over by wakeups and not yet read
// (delivered), the timer, the single wakeup token and the closed state.
// Construct it with NewCoalescer.
//
// In audit mode (maxWait 0) the first event of a window arms the timer
// for delay and later events do not move it. In trailing-debounce mode
// (maxWait > 0) an event while the timer is armed asks for a quiet period:
// when the timer expires after such an event it is re-armed instead of
// firing, for delay or for what is left of maxWait since the window
// opened, whichever is less. The quiet period is therefore measured in
// timer periods, not from each event, exactly as the real timer does it:
// the wakeup comes between one and two delays after the last event (or at
// maxWait after the first, if that is sooner).
type Coalescer struct {
	delay    time.Duration
	maxBatch uint64        // 0: no count threshold
	maxWait  time.Duration // 0: audit mode; > 0: trailing debounce
	adaptive bool          // coalesce.WithAdaptive

	lastFire time.Duration // adaptive: when the last wakeup fired
	hot      bool          // adaptive: coalescing
	period   time.Duration // adaptive, not hot: when the counted wakeups began
	fires    int           // adaptive, not hot: immediate wakeups since period

	now       time.Duration
	pending   uint64 // events since the last wakeup
	delivered uint64 // events handed over by wakeups, not yet read
	token     bool   // a wakeup is outstanding; at most one, later ones coalesce
	closed    bool
	wakeups   uint64 // wakeups fired, coalesced ones included

	armed    bool
	deadline time.Duration // when the armed timer expires
	opened   time.Duration // when the first event of the window arrived
	extended bool          // debounce: an event arrived since the timer was (re)armed
}

// NewCoalescer returns a model of coalesce.New(delay) with the count
// threshold maxBatch (0 for none, as without WithMaxBatch) and maxWait (0
// for audit mode, as without WithMaxWait). Like the real constructor it
// takes any non-negative delay and maxWait, and panics if delay is
// negative, or if maxWait is set and below delay.
func NewCoalescer(delay time.Duration, maxBatch uint64, maxWait time.Duration) *Coalescer {
	if delay < 0 {
		panic("model: negative coalesce delay")
	}
	if maxWait != 0 && maxWait < delay {
		panic("model: coalesce maxWait below delay")
	}
	return &Coalescer{delay: delay, maxBatch: maxBatch, maxWait: maxWait}
}

// adaptiveWakeups is coalesce.AdaptiveWakeups.
const adaptiveWakeups = 4

// Adaptive switches c to the adaptive policy of coalesce.WithAdaptive and
// returns c. It starts out coalescing. Out of coalescing, the first event of a window fires at once,
// and these immediate wakeups are counted over periods of at least one
// delay, each starting at the first event after the last one ended. A
// period that ended with more than 4 of them, followed within a delay of
// the last wakeup by the event that starts the next one, turns coalescing
// on: that event opens a normal window. Coalescing goes on until a
// window that expires (not one flushed or cut short by maxBatch) holds 4
// events or fewer.
func (c *Coalescer) Adaptive() *Coalescer {
	c.adaptive, c.hot = true, true
	return c
}

// immediate reports whether, in adaptive mode, the event opening a window
// now fires at once, updating the adaptive state.
func (c *Coalescer) immediate() bool {
	if !c.adaptive || c.hot {
		return false
	}
	if c.fires == 0 || c.now-c.period >= c.delay {
		busy := c.fires > adaptiveWakeups && c.now-c.lastFire <= c.delay
		c.period, c.fires = c.now, 0
		if busy {
			c.hot = true
			return false
		}
	}
	c.fires++
	return true
}

// Now is the model's clock: the sum of every Advance so far.
func (c *Coalescer) Now() time.Duration { return c.now }

// Pending is the number of events noted since the last wakeup.
func (c *Coalescer) Pending() uint64 { return c.pending }

// Delivered is the number of events handed over by wakeups that TryWait
// has not returned yet.
func (c *Coalescer) Delivered() uint64 { return c.delivered }

// Signalled reports whether a wakeup token is outstanding, that is, on
// an open Coalescer, whether a receive from C() would succeed without
// waiting (after Close every receive does: C is closed).
func (c *Coalescer) Signalled() bool { return c.token }

// Armed reports whether the timer is armed and, if so, its deadline.
func (c *Coalescer) Armed() (bool, time.Duration) { return c.armed, c.deadline }

// Wakeups is the number of wakeups fired, including those that coalesced
// into a token the consumer had not taken yet.
func (c *Coalescer) Wakeups() uint64 { return c.wakeups }

// Closed reports whether Close has been called.
func (c *Coalescer) Closed() bool { return c.closed }

// Extended reports whether, in debounce mode, an event has come since the
// timer was last armed: its expiry will arm it again rather than fire.
// The real window tells it by Pending differing from Seen.
func (c *Coalescer) Extended() bool { return c.extended }

func (c *Coalescer) debounce() bool { return c.maxWait > 0 }

// Wake models Wake: it notes one event. The first event of a window fires
// at once if delay is 0 and arms the timer for delay otherwise; reaching
// maxBatch pending events fires at once. After Close it does nothing.
func (c *Coalescer) Wake() {
	if c.closed {
		return
	}
	c.pending++
	switch {
	case c.pending == 1 && (c.delay == 0 || c.immediate()):
		c.fire()
		return
	case c.pending == 1:
		c.arm(c.delay)
		c.opened = c.now
	case c.armed && c.debounce():
		c.extended = true
	}
	if c.maxBatch != 0 && c.pending == c.maxBatch {
		c.fire()
	}
}

// Advance moves the clock forward by d, letting the timer expire at each
// deadline on the way, in order: a debounce re-arm may expire again within
// the same Advance. It panics if d is negative. The clock stops at the
// largest Duration, as the runtime's timers do for a deadline past it.
func (c *Coalescer) Advance(d time.Duration) {
	if d < 0 {
		panic("model: negative Advance")
	}
	end := c.after(d)
	for c.armed && c.deadline <= end {
		c.now = c.deadline
		c.expire()
	}
	c.now = end
}

// expire is the timer's callback at its deadline. In debounce mode, after
// a new event and with maxWait not yet used up, it re-arms instead of
// firing; the re-arm is never past opened+maxWait, so a steady stream
// still wakes the consumer at least every maxWait.
func (c *Coalescer) expire() {
	c.armed = false
	left := c.maxWait - (c.now - c.opened)
	if c.debounce() && c.extended && left > 0 {
		c.arm(min(c.delay, left))
		return
	}
	if c.hot && c.pending <= adaptiveWakeups {
		c.hot = false // a whole window caught few events
	}
	c.fire()
}

func (c *Coalescer) arm(d time.Duration) {
	c.armed, c.deadline, c.extended = true, c.after(d), false
}

// after is the time d from now, or the largest Duration if that is
// further: no delay is too long, and none wraps around.
func (c *Coalescer) after(d time.Duration) time.Duration {
	if d > math.MaxInt64-c.now {
		return math.MaxInt64
	}
	return c.now + d
}

// fire is one wakeup: pending events become delivered and the token is
// set (if it was already set, the two wakeups coalesce into one token).
// With nothing pending it does nothing, so no wakeup is ever empty.
func (c *Coalescer) fire() {
	if c.pending == 0 {
		return
	}
	c.delivered += c.pending
	c.pending = 0
	c.armed, c.extended = false, false
	c.wakeups++
	c.token = true
	c.lastFire = c.now
}

// Flush models Flush: if events are pending it fires now and disarms the
// timer, so the timer never gives a second wakeup for the same events.
// With nothing pending, or after Close, it does nothing.
func (c *Coalescer) Flush() {
	if !c.closed {
		c.fire()
	}
}

// TryWait models Wait without waiting, and a receive from C followed by
// Events. If a token is outstanding, or after Close, it returns what
// Events does: the delivered events, and after Close the pending ones too
// (nothing will deliver them any more), or ErrClosed once none are left.
// On an open Coalescer with no token out it returns ErrWouldBlock: Wait
// would park.
func (c *Coalescer) TryWait() (events uint64, err error) {
	if !c.token && !c.closed {
		return 0, spin.ErrWouldBlock
	}
	if events = c.Events(); events == 0 {
		return 0, spin.ErrClosed // only after Close: a token always has events
	}
	return events, nil
}

// Events models Events: it returns the delivered events, and after Close
// the pending ones too, and resets them; the token goes with them, so
// that no receive finds a wakeup whose events were reported (after Close,
// C is closed and empty, and a receive finds no token either).
func (c *Coalescer) Events() uint64 {
	events := c.delivered
	c.delivered, c.token = 0, false
	if c.closed {
		events, c.pending = events+c.pending, 0
	}
	return events
}

// Wait models Wait(ctx): (0, context.Canceled) if ctx is Done, changing
// nothing, else TryWait.
func (c *Coalescer) Wait(ctx Ctx) (events uint64, err error) {
	if err := stopped(ctx); err != nil {
		return 0, err
	}
	return c.TryWait()
}

// Close models Close: the timer is disarmed and nothing fires afterwards,
// later Wakes and Flushes do nothing, and the events already noted stay
// readable through TryWait. A second Close changes nothing.
func (c *Coalescer) Close() {
	c.closed = true
	c.armed, c.extended = false, false
}

// Validate checks the model's own invariants and returns a description of
// the first one broken: the timer is armed only with events pending, on
// an open Coalescer and in the future; an open Coalescer with events
// pending has its timer armed (no lost wakeup); the token is out exactly
// when delivered events wait to be read; pending stays below maxBatch; and
// the deadline is where the mode puts it.
func (c *Coalescer) Validate() error {
	switch {
	case c.armed && (c.pending == 0 || c.closed):
		return invariantError("coalesce timer armed with nothing pending or after Close")
	case c.armed && c.deadline <= c.now:
		return invariantError("coalesce timer deadline passed without expiring")
	case !c.closed && c.pending != 0 && !c.armed:
		return invariantError("coalesce events pending with no timer armed")
	case c.token != (c.delivered != 0):
		return invariantError("coalesce token out without delivered events or the reverse")
	case c.maxBatch != 0 && c.pending >= c.maxBatch:
		return invariantError("coalesce maxBatch reached without a wakeup")
	case c.extended && !(c.armed && c.debounce()):
		return invariantError("coalesce quiet period asked for with no debounce timer")
	case c.armed && !c.debounce() && c.deadline-c.opened != min(c.delay, math.MaxInt64-c.opened):
		return invariantError("coalesce audit deadline moved")
	case c.armed && c.debounce() && c.deadline-c.opened > c.maxWait:
		return invariantError("coalesce debounce deadline past maxWait")
	}
	return nil
}
