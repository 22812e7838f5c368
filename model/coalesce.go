package model

import (
	"math"
	"time"

	"github.com/evsync/evsync/internal/evserr"
)

// A Coalescer models a coalesce.Waker, the debounced waker. It keeps the
// events noted since the last wakeup (pending), the events wakeups handed
// over and nobody read yet (delivered), the timer, the one wakeup token
// and the closed state. Make one with NewCoalescer.
//
// The calls map onto the model as follows:
//
//	coalesce                                  Coalescer
//	var w coalesce.Waker, the zero value      NewCoalescer(0, 0, 0)
//	New(delay)                                NewCoalescer(delay, 0, 0)
//	New(delay, WithMaxBatch(n))               NewCoalescer(delay, n, 0)
//	New(delay, WithMaxWait(w))                NewCoalescer(delay, 0, w)
//	New(delay, WithAdaptive(), ...)           NewCoalescer(...).Adaptive()
//	Wake()                                    Wake()
//	Flush()                                   Flush()
//	Close()                                   Close()
//	Wait(ctx)                                 Wait(ctx)
//	a receive from C() or Ready(), then Events TryWait()
//	Events() alone                            Events()
//	Pending(), Stats()                        Pending, Armed, Wakeups, Closed
//	the fake clock moves on by d              Advance(d)
//
// The model has a clock of its own. Now starts at 0 and moves only with
// Advance. Advance(d) plays the part of testing/synctest's fake clock.
// There, a time.Sleep(d) and a synctest.Wait let every timer due by then
// run, in deadline order. A Wake at the very instant of a deadline comes
// after the expiry, the order synctest gives when the sleeper wakes.
// On a fake clock given with coalesce.WithClock, Advance(d) is a move of
// d made one timer deadline at a time, each step letting the timer run.
//
// In audit mode, with maxWait 0, the first event of a window arms the
// timer for delay, and later events do not move it. In trailing-debounce
// mode, with maxWait above 0, an event while the timer is armed asks for a
// quiet period. The timer then re-arms at expiry instead of firing. It
// re-arms for delay or for what is left of maxWait, whichever is less. So
// the wakeup comes one to two delays after the last event, as with the
// real timer. A steady stream still wakes the consumer maxWait after its
// first event.
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

// NewCoalescer returns a model of coalesce.New(delay) with options.
//   - maxBatch is WithMaxBatch's count, 0 for none.
//   - maxWait is WithMaxWait's, 0 for audit mode.
//
// Like the real constructor, it panics if delay is negative. It panics
// too if maxWait is set and below delay.
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
// returns c. Call it before any other call. The policy works as follows.
//   - It starts out coalescing, with windows as without it.
//   - Coalescing stops once a window that expires holds 4 events or fewer.
//     A window ended by Flush or by maxBatch does not count.
//   - Out of coalescing, the first event of a window wakes at once.
//   - These immediate wakeups are counted over periods of at least one
//     delay. A period starts at the first event after the last one ended.
//   - Coalescing starts again at the event that starts a period, if the
//     period before had more than 4 wakeups and ended within a delay of
//     it. That event opens a normal window.
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

// Now is the model's clock, the sum of every Advance so far.
func (c *Coalescer) Now() time.Duration { return c.now }

// Pending is what the real Pending returns, the events noted since the
// last wakeup.
func (c *Coalescer) Pending() uint64 { return c.pending }

// Delivered is the number of events that wakeups handed over and that
// TryWait or Events has not returned yet.
func (c *Coalescer) Delivered() uint64 { return c.delivered }

// Signalled reports whether a wakeup token is out. On an open Coalescer,
// that is whether a receive from C() succeeds without waiting. After
// Close every receive does, as C is closed.
func (c *Coalescer) Signalled() bool { return c.token }

// Armed reports whether the timer is armed and, if it is, its deadline on
// the model's clock.
func (c *Coalescer) Armed() (bool, time.Duration) { return c.armed, c.deadline }

// Wakeups is the number of wakeups fired. It counts those that merged
// into a token the consumer had not taken yet.
func (c *Coalescer) Wakeups() uint64 { return c.wakeups }

// Closed reports whether Close has been called.
func (c *Coalescer) Closed() bool { return c.closed }

// Extended reports whether, in debounce mode, an event has come since the
// timer was last armed. If so, the timer re-arms at expiry rather than
// fire, unless maxWait is used up.
func (c *Coalescer) Extended() bool { return c.extended }

func (c *Coalescer) debounce() bool { return c.maxWait > 0 }

// Wake models Wake and notes one event.
//   - The first event of a window wakes at once if delay is 0. Otherwise
//     it arms the timer for delay.
//   - The event that makes maxBatch pending wakes at once.
//   - After Close, Wake does nothing.
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

// Advance moves the clock on by d. The timer expires at each deadline on
// the way, in order, so a debounce re-arm may expire again within one
// Advance. Advance panics if d is negative. The clock stops at the largest
// Duration, as the runtime's timers do for a deadline past it.
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

// Flush models Flush. With events pending, it wakes now and disarms the
// timer, so no second wakeup comes for the same events. With nothing
// pending, or after Close, it does nothing.
func (c *Coalescer) Flush() {
	if !c.closed {
		c.fire()
	}
}

// TryWait models a Wait that does not wait. It models too a receive from
// C that succeeds, followed by Events. It returns:
//   - the events Events returns and nil, if a token is out or after Close
//   - 0 and ErrClosed after Close, once no event is left
//   - 0 and ErrWouldBlock on an open Coalescer with no token out, where
//     Wait waits and a receive from C blocks
func (c *Coalescer) TryWait() (events uint64, err error) {
	if !c.token && !c.closed {
		return 0, evserr.ErrWouldBlock
	}
	if events = c.Events(); events == 0 {
		return 0, evserr.ErrClosed // only after Close: a token always has events
	}
	return events, nil
}

// Events models Events. It returns the delivered events and resets them to
// 0. After Close it adds the pending ones, which no wakeup will deliver
// any more. The token goes with the events, so no later receive from C
// finds a wakeup whose events were reported.
func (c *Coalescer) Events() uint64 {
	events := c.delivered
	c.delivered, c.token = 0, false
	if c.closed {
		events, c.pending = events+c.pending, 0
	}
	return events
}

// Wait models Wait(ctx). With Done it returns 0 and context.Canceled and
// changes nothing. With Live it is TryWait.
func (c *Coalescer) Wait(ctx Ctx) (events uint64, err error) {
	if err := stopped(ctx); err != nil {
		return 0, err
	}
	return c.TryWait()
}

// Close models Close. The timer is disarmed and nothing fires afterwards.
// Later Wakes and Flushes do nothing. The events already noted stay
// readable through TryWait and Events. A second Close changes nothing.
func (c *Coalescer) Close() {
	c.closed = true
	c.armed, c.extended = false, false
}

// Validate checks the model's own invariants and describes the first one
// broken. It returns nil unless the model has a bug. It checks that:
//   - the timer is armed only with events pending, on an open Coalescer,
//     for a time to come
//   - an open Coalescer with events pending has its timer armed, so no
//     wakeup is lost
//   - the token is out exactly when delivered events wait to be read
//   - pending stays below maxBatch
//   - the deadline is where the mode puts it
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
