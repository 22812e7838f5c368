package model

import (
	"context"
	"math"
	"time"

	"github.com/evsync/evsync/internal/evserr"
)

// A Ctx is the state of a blocking call's context when the call starts.
// A model's blocking calls take a Ctx where the real ones take a
// context.Context.
type Ctx uint8

const (
	// Live is a context that is not done. The call completes at once, or
	// the model returns ErrWouldBlock where the real call would wait.
	Live Ctx = iota

	// Done is a context that is already done. After its argument checks
	// the call returns context.Canceled and changes nothing.
	Done
)

// stopped is what a call with context ctx returns before it looks at the
// state: context.Canceled for Done, nil (go on) for Live.
func stopped(ctx Ctx) error {
	if ctx == Done {
		return context.Canceled
	}
	return nil
}

// Max is the eventfd counter's maximum, 1<<64-2. It is semaphore.Max and
// signal.Max, and a Counter's default limit.
const Max uint64 = 1<<64 - 2

// kind is how a Counter is read.
type kind uint8

const (
	// semaphoreKind is an eventfd opened with EFD_SEMAPHORE, with weighted
	// acquires, an optional lower limit and a FIFO queue of reservations,
	// like package semaphore.
	semaphoreKind kind = iota + 1
	// signalKind is an eventfd without EFD_SEMAPHORE: a read takes the
	// whole count and resets it to zero, like package signal.
	signalKind
)

// A Counter models one eventfd counter. It has a count between 0 and its
// limit, a closed state and, as a semaphore, a FIFO queue of pending
// reservations. Make one with NewSemaphore, which models a strict FIFO
// semaphore.Semaphore, NewEventualSemaphore, which models one made with
// WithEventualFairness, or NewSignal, which models a signal.Signal. A
// semaphore's calls panic on a signal's Counter, and the other way round.
//
// The calls map onto the model as follows:
//
//	semaphore             signal             Counter
//	New(n, WithLimit(l))  New(n)             NewSemaphore(n, l), NewSignal(n)
//	New(n, WithLimit(l),                     NewEventualSemaphore(n, l, d)
//	  WithEventualFairness(d))
//	the clock moves on by d                  Advance(d)
//	Release(n)            Add(n)             Write(n)
//	ReleaseWait(ctx, n)   AddWait(ctx, n)    WriteWait(ctx, n)
//	Acquire(ctx, n)                          Acquire(ctx, n)
//	TryAcquire(n)                            TryAcquire(n)
//	AcquireUpTo(ctx, max)                    AcquireUpTo(ctx, max)
//	TakeAll()                                TakeAll()
//	Reserve(n)                               Reserve(n), see Reservation
//	SetLimit(l)                              SetLimit(l)
//	Drain(ctx)                               Drain(ctx)
//	                      Take()             Take()
//	                      Wait(ctx)          Wait(ctx)
//	Ready()               Ready()            Ready(), Fired(ticket)
//	Writable()            Writable()         Writable(), WritableFired(ticket)
//	Count()               Count()            Count()
//	Stats()               Stats()            Count, Limit, Waiting, Closed, Debt
//	Close()               Close()            Close()
//
// Sequential callers never leave a call waiting. So Stats' WritersWaiting
// is always 0, and Waiting counts pending reservations only.
//
// Read and Poll model the kernel's non-blocking read(2) and poll(2) on an
// eventfd, for tests against a real one.
//
// # Eventual fairness
//
// A semaphore made by NewEventualSemaphore follows the rules of Limiter's
// Clock and Barging sections, on a clock of its own (Now, Advance). The
// head is the oldest pending reservation. While no reservation is
// pending, or the head's age is at most the bound, these calls barge:
//   - Acquire, TryAcquire, AcquireUpTo and TakeAll take free units even
//     with reservations pending. Read does too, as TryAcquire(1).
//   - Reserve(n) is granted at once if n units are free.
//
// Once the head is older than the bound, they take nothing ahead of it,
// as in the strict mode. TakeAll then returns 0. These are the same in
// both modes:
//   - Write, a raise by SetLimit and a Cancel that gives units back hand
//     them to the pending reservations in order, oldest first.
//   - Close serves the pending reservations in order while what is left
//     covers them, and refuses the rest. None is pending after it, so
//     every later call may barge.
//   - WriteWait: writers wait for room in a line of their own, which
//     barging does not touch.
//   - Ready and Writable fire as in the strict mode. A Write whose units
//     all go to pending reservations does not fire Ready.
//
// The model has no goroutine waiters. In the eventual mode a real one,
// parked in Acquire, may not be handed its units: a Write may wake it to
// take them, and they are free until it runs. So that Write fires Ready,
// and a Drain may return in between. A test that parks Acquires next to
// the model must allow for that.
//
// A strict semaphore keeps the clock too, and no call looks at it.
type Counter struct {
	kind   kind
	count  uint64 // available units; after Close, what is left to read
	limit  uint64
	debt   uint64 // what SetLimit took away that holders still have
	closed bool
	stops  bool           // a Limiter's: Close refuses every reservation, even one that fits
	queue  []*Reservation // pending reservations, oldest first
	fair   fairness       // a semaphore's clock and eventual-fairness bound (0: strict)

	armed bool   // a Ready channel is out and has not fired yet
	fires uint64 // how many times an armed Ready channel has fired

	warmed bool   // a Writable channel is out and has not fired yet
	wfires uint64 // how many times an armed Writable channel has fired

	sets setList // the Sets it is in, told of its wakeups
}

// NewSemaphore returns a model of semaphore.New(initial, WithLimit(limit)).
// Pass Max as the limit for a semaphore without WithLimit. Like the real
// constructor, it panics unless 1 ≤ limit ≤ Max and initial ≤ limit.
func NewSemaphore(initial, limit uint64) *Counter {
	if limit == 0 || limit > Max {
		panic("model: limit must be between 1 and Max")
	}
	if initial > limit {
		panic("model: initial count above the limit")
	}
	return &Counter{kind: semaphoreKind, count: initial, limit: limit}
}

// NewEventualSemaphore returns a model of semaphore.New(initial,
// WithLimit(limit), WithEventualFairness(bound)), eventually fair with
// that bound on the model's clock (see Eventual fairness). Pass Max as
// the limit for a semaphore without WithLimit. Like the real option, it
// panics if bound is not positive. Like NewSemaphore, it panics unless
// 1 ≤ limit ≤ Max and initial ≤ limit.
func NewEventualSemaphore(initial, limit uint64, bound time.Duration) *Counter {
	if bound <= 0 {
		panic("model: eventual fairness needs a positive bound")
	}
	c := NewSemaphore(initial, limit)
	c.fair.bound = bound
	return c
}

// NewSignal returns a model of signal.New(initial). Like signal.New, it
// panics if initial is above Max.
func NewSignal(initial uint64) *Counter {
	if initial > Max {
		panic("model: initial count above Max")
	}
	return &Counter{kind: signalKind, count: initial, limit: Max}
}

// Count is what the real Count returns, the units there are to take.
// After Close, it is what is left to read.
func (c *Counter) Count() uint64 { return c.count }

// Limit is the largest count, Stats().Limit.
func (c *Counter) Limit() uint64 { return c.limit }

// Closed reports whether Close has been called.
func (c *Counter) Closed() bool { return c.closed }

// Waiting is Stats().Waiting, the number of pending reservations.
func (c *Counter) Waiting() int { return len(c.queue) }

// Queue returns the units each pending reservation asks for, oldest
// first.
func (c *Counter) Queue() []uint64 {
	needs := make([]uint64, len(c.queue))
	for i, r := range c.queue {
		needs[i] = r.need
	}
	return needs
}

// Write models semaphore Release(n) and signal Add(n). It adds n to the
// count and serves the queue of reservations, oldest first. It returns:
//   - nil once n is added
//   - ErrInvalid if n is above the limit (plus the debt), changing nothing
//   - ErrClosed on a closed signal, changing nothing
//   - ErrWouldBlock if the count would pass the limit, changing nothing
//
// A closed semaphore still takes back what its holders give back. Write(0)
// succeeds and changes nothing. After SetLimit cut the limit into a debt,
// a write pays the debt first and adds only the rest.
func (c *Counter) Write(n uint64) error {
	pay := min(n, c.debt)
	switch {
	case n > c.limit+c.debt:
		return evserr.ErrInvalid
	case c.closed && c.kind == signalKind:
		return evserr.ErrClosed
	case n-pay > c.limit-c.count:
		return evserr.ErrWouldBlock
	}
	c.debt -= pay
	c.count += n - pay
	if n != 0 {
		c.fair.notice()
	}
	wake(c, In|settle(c))
	return nil
}

// SetLimit models semaphore SetLimit, as Resize describes. It returns:
//   - nil once the limit is changed
//   - ErrInvalid unless 1 ≤ limit ≤ Max, or if a pending reservation asks
//     for more than limit
//   - ErrClosed after Close
//
// A failed SetLimit changes nothing.
func (c *Counter) SetLimit(limit uint64) error {
	must(c, semaphoreKind)
	switch {
	case limit == 0 || limit > Max:
		return evserr.ErrInvalid
	case c.closed:
		return evserr.ErrClosed
	}
	for _, r := range c.queue {
		if r.need > limit {
			return evserr.ErrInvalid
		}
	}
	if limit > c.limit {
		c.fair.notice()
	}
	c.count, c.debt = Resize(c.count, c.limit, c.debt, limit)
	c.limit = limit
	settle(c)
	wake(c, In|Out)
	return nil
}

// Resize is what SetLimit does to the free units (count) and the debt
// when the limit goes from limit to to. It returns the new count and the
// new debt.
//   - A raise pays the debt first and adds the rest to the count.
//   - A cut takes what it can from the count and owes the rest as debt.
//
// Units held are never taken from their holders. Resize is for a test's
// own model of a semaphore, such as a linearizability checker's.
func Resize(count, limit, debt, to uint64) (newCount, newDebt uint64) {
	switch {
	case to > limit:
		pay := min(to-limit, debt)
		return count + to - limit - pay, debt - pay
	case to < limit:
		take := min(limit-to, count)
		return count - take, debt + limit - to - take
	}
	return count, debt
}

// Debt is Stats().Debt, the units a cut of the limit took away that
// holders still have. Releases pay it back before they add to the count.
func (c *Counter) Debt() uint64 { return c.debt }

// WriteWait models semaphore ReleaseWait and signal AddWait. It returns:
//   - ErrInvalid if n is above the limit (plus the debt)
//   - context.Canceled if ctx is Done
//   - ErrClosed where Write would block on a closed counter, which is
//     never waited on
//   - otherwise what Write returns, ErrWouldBlock meaning the call waits
//
// A call that returns an error changes nothing.
func (c *Counter) WriteWait(ctx Ctx, n uint64) error {
	if n > c.limit+c.debt {
		return evserr.ErrInvalid
	}
	if err := stopped(ctx); err != nil {
		return err
	}
	err := c.Write(n)
	if err == evserr.ErrWouldBlock && c.closed {
		return evserr.ErrClosed // a closed counter is never waited on
	}
	return err
}

// Drain models semaphore Drain, open or closed. It returns:
//   - context.Canceled if ctx is Done
//   - nil if every unit is back, the count at the limit
//   - ErrWouldBlock otherwise, where the real Drain waits
func (c *Counter) Drain(ctx Ctx) error {
	must(c, semaphoreKind)
	switch {
	case ctx == Done:
		return stopped(ctx)
	case c.count == c.limit:
		return nil
	}
	return evserr.ErrWouldBlock
}

// Acquire models semaphore Acquire. It returns, in this order of checks:
//   - ErrInvalid if n is above the limit
//   - context.Canceled if ctx is Done
//   - nil, taking n units, if n is 0, or if n units are there and
//     barging is allowed: nobody is queued, or in the eventual mode the
//     semaphore is not starving
//   - ErrClosed after Close
//   - ErrWouldBlock otherwise, where the real Acquire waits. The model
//     does not queue the call. A caller that parks the real one keeps it
//     in a queue of its own, and in the eventual mode looks at the head's
//     age then, as the real one's section does (see Limiter's Barging).
//
// A call that returns an error changes nothing.
func (c *Counter) Acquire(ctx Ctx, n uint64) error {
	must(c, semaphoreKind)
	switch {
	case n > c.limit:
		return evserr.ErrInvalid
	case ctx == Done:
		return stopped(ctx)
	case n == 0:
		return nil
	case c.fair.barges(c.queue) && n <= c.count:
		c.count -= n
		settle(c)
		wake(c, Out)
		return nil
	case c.closed:
		return evserr.ErrClosed
	}
	return evserr.ErrWouldBlock
}

// TryAcquire models semaphore TryAcquire. It takes n units and returns
// true if they are there and barging is allowed (see Acquire).
// TryAcquire(0) is true, and n above the limit is false.
func (c *Counter) TryAcquire(n uint64) bool {
	must(c, semaphoreKind)
	switch {
	case n > c.limit:
		return false
	case n == 0:
		return true
	case !c.fair.barges(c.queue) || n > c.count:
		return false
	}
	c.count -= n
	settle(c)
	wake(c, Out)
	return true
}

// Take models signal Take. It returns the whole count and resets it to 0.
func (c *Counter) Take() uint64 {
	must(c, signalKind)
	v := c.count
	c.count = 0
	settle(c)
	if v != 0 {
		wake(c, Out)
	}
	return v
}

// Wait models signal Wait. It returns:
//   - 0 and context.Canceled if ctx is Done
//   - the whole count and nil if it is not 0, resetting it to 0
//   - 0 and ErrClosed after Close
//   - 0 and ErrWouldBlock otherwise, where the real Wait waits
func (c *Counter) Wait(ctx Ctx) (uint64, error) {
	must(c, signalKind)
	switch {
	case ctx == Done:
		return 0, stopped(ctx)
	case c.count != 0:
		return c.Take(), nil
	case c.closed:
		return 0, evserr.ErrClosed
	}
	return 0, evserr.ErrWouldBlock
}

// AcquireUpTo models semaphore AcquireUpTo. It returns:
//   - 0 and context.Canceled if ctx is Done
//   - 0 and nil for max 0
//   - up to max units and nil, if some are there and barging is allowed
//     (see Acquire)
//   - 0 and ErrClosed after Close, with nothing left
//   - 0 and ErrWouldBlock otherwise, where the real call waits
func (c *Counter) AcquireUpTo(ctx Ctx, max uint64) (uint64, error) {
	must(c, semaphoreKind)
	switch {
	case ctx == Done:
		return 0, stopped(ctx)
	case max == 0:
		return 0, nil
	case c.fair.barges(c.queue) && c.count != 0:
		n := min(c.count, max)
		c.count -= n
		settle(c)
		wake(c, Out)
		return n, nil
	case c.closed && c.count == 0:
		return 0, evserr.ErrClosed
	}
	return 0, evserr.ErrWouldBlock
}

// TakeAll models semaphore TakeAll. It takes and returns every unit, or 0
// while barging is not allowed: a reservation is queued, and in the
// eventual mode the head is older than the bound.
func (c *Counter) TakeAll() uint64 {
	must(c, semaphoreKind)
	if !c.fair.barges(c.queue) {
		return 0
	}
	n := c.count
	c.count = 0
	settle(c)
	if n != 0 {
		wake(c, Out)
	}
	return n
}

// Read models a non-blocking read(2) of an eventfd. On a semaphore it is
// TryAcquire(1) and returns 1. On a signal it is Take and returns the
// whole count. It returns ErrWouldBlock, the kernel's EAGAIN, when nothing
// can be read.
func (c *Counter) Read() (uint64, error) {
	if c.kind == semaphoreKind {
		if c.TryAcquire(1) {
			return 1, nil
		}
		return 0, evserr.ErrWouldBlock
	}
	if v := c.Take(); v != 0 {
		return v, nil
	}
	return 0, evserr.ErrWouldBlock
}

// Poll models poll(2) on an eventfd.
//   - in (POLLIN) is true iff the count is not 0 or the counter is closed.
//   - out (POLLOUT) is true iff it is open and below the limit.
//
// On an open counter with the default limit, this is the kernel's rule.
func (c *Counter) Poll() (in, out bool) {
	return c.count != 0 || c.closed, !c.closed && c.count < c.limit
}

// Close models Close. A signal refuses writes from then on, and the count
// stays readable. Pending reservations are served in FIFO order where
// what is left covers them, and refused with ErrClosed where it does not.
// A second Close changes nothing.
func (c *Counter) Close() {
	if c.closed {
		return
	}
	c.closed = true
	wake(c, Hup|settle(c))
}

// wake tells the Sets c is in of a wakeup with events ev (none: no
// wakeup), or holds the events while c is muted.
func wake(c *Counter, ev Events) { c.sets.wake(c, ev) }

// A Ticket names the channel that one call of Ready or Writable returned.
// The model's Fired or WritableFired reports whether that channel is
// closed by now. A ticket means something only to the model that gave it.
type Ticket uint64

// Ready models a call to Ready and returns the ticket of its channel.
// The channel is closed at once if the count is not 0 or the counter is
// closed. Otherwise the first later call that leaves the count above 0
// closes it, or Close does. A Write whose units all go to pending
// reservations does not.
func (c *Counter) Ready() Ticket {
	if c.count != 0 || c.closed {
		return Ticket(c.fires)
	}
	c.armed = true
	return Ticket(c.fires + 1)
}

// Fired reports whether the Ready channel named by t is closed.
func (c *Counter) Fired(t Ticket) bool { return uint64(t) <= c.fires }

// Writable models a call to Writable and returns the ticket of its
// channel. The channel is closed at once if the count is below the limit
// or the counter is closed. Otherwise the first later call that leaves
// the count below the limit closes it, or Close does. Pass its tickets
// to WritableFired, not to Fired.
func (c *Counter) Writable() Ticket {
	if c.count < c.limit || c.closed {
		return Ticket(c.wfires)
	}
	c.warmed = true
	return Ticket(c.wfires + 1)
}

// WritableFired reports whether the Writable channel named by t is closed.
func (c *Counter) WritableFired(t Ticket) bool { return uint64(t) <= c.wfires }

// settle does what the real settle does after every change: grants queued
// reservations oldest first while the head fits; after Close, tries each of
// the rest in turn and refuses those that do not fit (nothing will be added
// any more, so a smaller one behind a refused one may still be served);
// then fires an armed Ready channel if the count is non-zero or closed.
//
// A grant is a read that takes units, so settle returns Out if it granted
// a reservation, for the Sets c is in, and no events otherwise.
func settle(c *Counter) Events {
	was := c.count
	for c.closed && c.stops && len(c.queue) != 0 {
		c.queue[0].state = rejected
		c.queue = c.queue[1:]
	}
	for len(c.queue) != 0 && c.queue[0].need <= c.count {
		grantHead(c)
	}
	for c.closed && len(c.queue) != 0 {
		if c.queue[0].need <= c.count {
			grantHead(c)
			continue
		}
		c.queue[0].state = rejected
		c.queue = c.queue[1:]
	}
	if c.armed && (c.count != 0 || c.closed) {
		c.armed = false
		c.fires++
	}
	if c.warmed && (c.count < c.limit || c.closed) {
		c.warmed = false
		c.wfires++
	}
	c.fair.end(c.queue)
	if c.count < was {
		return Out
	}
	return 0
}

func grantHead(c *Counter) {
	r := c.queue[0]
	c.queue = c.queue[1:]
	c.count -= r.need
	r.state = granted
}

// Now is the time on the model's clock: 0 at first, moved on by Advance.
// It is a semaphore's only.
func (c *Counter) Now() time.Duration {
	must(c, semaphoreKind)
	return c.fair.now
}

// Advance moves the model's clock on by d, standing for the clock given
// with semaphore.WithClock, or for testing/synctest's fake clock. Past
// the largest Duration the clock stays there. Advance serves nobody: in
// the eventual mode it only ages the pending reservations, which the next
// call that looks may find overdue. It panics if d is negative, as time
// does not go back, and on a signal's Counter.
func (c *Counter) Advance(d time.Duration) {
	must(c, semaphoreKind)
	if d < 0 {
		panic("model: negative Advance")
	}
	f := &c.fair
	if d > math.MaxInt64-f.now {
		f.now = math.MaxInt64
		return
	}
	f.now += d
}

// Ages returns the age of each pending reservation on the model's clock,
// oldest first, in the order of Queue.
func (c *Counter) Ages() []time.Duration {
	must(c, semaphoreKind)
	ages := make([]time.Duration, len(c.queue))
	for i, r := range c.queue {
		ages[i] = c.fair.now - r.start
	}
	return ages
}

// Barges reports whether barging is allowed now: no reservation is
// pending, or in the eventual mode the semaphore is not starving.
func (c *Counter) Barges() bool {
	must(c, semaphoreKind)
	return c.fair.barges(c.queue)
}

// Starving reports whether the eventual mode has found the head older
// than the bound, so that order is strict until the head changes (see
// Limiter's Barging).
func (c *Counter) Starving() bool {
	must(c, semaphoreKind)
	return c.fair.starving
}

func must(c *Counter, k kind) {
	if c.kind != k {
		panic("model: call not available in this mode")
	}
}

// Validate checks the model's own invariants and describes the first one
// broken. It returns nil unless the model has a bug. It checks that:
//   - the count is within the limit, and 0 while there is a debt
//   - no reservation is pending once closed
//   - the head of the queue does not fit, or it would have been served
//   - the pending reservations started in queue order, none in the future
//   - no Ready or Writable channel is open that should be closed
func (c *Counter) Validate() error {
	switch {
	case c.count > c.limit:
		return invariantError("count above the limit")
	case c.count != 0 && c.debt != 0:
		return invariantError("free units while in debt")
	case c.closed && len(c.queue) != 0:
		return invariantError("reservations queued after Close")
	case len(c.queue) != 0 && c.queue[0].need <= c.count:
		return invariantError("head of the queue fits but was not served")
	case !c.fair.ordered(c.queue):
		return invariantError("reservations out of the order of their start")
	case c.armed && (c.count != 0 || c.closed):
		return invariantError("armed Ready channel not fired")
	case c.warmed && (c.count < c.limit || c.closed):
		return invariantError("armed Writable channel not fired")
	}
	return nil
}

type invariantError string

// Error describes the broken invariant.
func (e invariantError) Error() string { return "model: " + string(e) }
