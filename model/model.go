// Package model holds pure sequential reference models of the evsync
// counters: an eventfd counter in semaphore mode (package semaphore) and in
// plain, sum-and-reset mode (package signal). Each method returns exactly
// what the real call must return when calls are made one at a time, so a
// property test can step a model next to the real object and compare every
// result. Models use no goroutines, no clock and no locks.
//
// A blocking call takes the state of its context when the call starts, a
// Ctx. With Live the model returns the call's immediate result when it can
// complete without waiting, and ErrWouldBlock when it would have to wait
// (the real call would park). With Done the call's arguments are checked
// as usual (ErrInvalid), and then it returns context.Canceled and changes
// nothing, even where it could complete at once: a context that is already
// done is a request to stop (rule 1 of the contract). A nil context makes
// every real blocking call return ErrInvalid and change nothing; the
// models do not model it.
//
// The calls map onto the models as follows:
//
//	semaphore             signal             Counter
//	Release(n)            Add(n)             Write(n)
//	ReleaseWait(ctx, n)   AddWait(ctx, n)    WriteWait(ctx, n)
//	Acquire(ctx, n)                          Acquire(ctx, n)
//	TryAcquire(n)                            TryAcquire(n)
//	Reserve(n)                               Reserve(n), Reservation
//	                      Take()             Take()
//	                      Wait(ctx)          Wait(ctx)
//	Ready()               Ready()            Ready(), Fired(ticket)
//	Writable()            Writable()         Writable(), WritableFired(ticket)
//	Count()               Count()            Count()
//	Stats()               Stats()            Count(), Limit(), Waiting(), Closed()
//	Close()               Close()            Close()
//
// Sequential callers never leave a blocking call parked, so Stats'
// WritersWaiting is always 0 and Waiting counts pending reservations only.
// Errors are the shared evsync values from internal/spin, which every
// package re-exports.
//
// Read and Poll model the kernel's non-blocking read(2) and poll(2) on an
// eventfd, for differential tests against the real thing.
package model

import (
	"context"

	"github.com/evsync/evsync/internal/spin"
)

// Ctx is the state of a blocking call's context when the call starts.
type Ctx uint8

const (
	// Live is a context that is not done: the call completes at once, or
	// the model returns ErrWouldBlock where the real call would wait.
	Live Ctx = iota
	// Done is a context that is already done: after its argument checks
	// the call returns context.Canceled (the ctx.Err() of a cancelled
	// context) and changes nothing.
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

// Max is the eventfd counter's maximum, 1<<64-2, and the default limit.
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

// A Counter models one eventfd counter: a count 0 ≤ count ≤ limit, a closed
// state and, in Semaphore mode, the FIFO queue of pending reservations.
// Construct it with NewSemaphore or NewSignal.
type Counter struct {
	kind   kind
	count  uint64 // available units; after Close, what is left to read
	limit  uint64
	debt   uint64 // what SetLimit took away that holders still have
	closed bool
	queue  []*Reservation // pending reservations, oldest first

	armed bool   // a Ready channel is out and has not fired yet
	fires uint64 // how many times an armed Ready channel has fired

	warmed bool   // a Writable channel is out and has not fired yet
	wfires uint64 // how many times an armed Writable channel has fired
}

// NewSemaphore returns a Semaphore-mode model holding initial units with
// the given limit (semaphore.Max for the default). Like semaphore.New and
// semaphore.WithLimit it panics unless 1 ≤ limit ≤ Max and initial ≤ limit.
func NewSemaphore(initial, limit uint64) *Counter {
	if limit == 0 || limit > Max {
		panic("model: limit must be between 1 and Max")
	}
	if initial > limit {
		panic("model: initial count above the limit")
	}
	return &Counter{kind: semaphoreKind, count: initial, limit: limit}
}

// NewSignal returns a Plain-mode model whose count starts at initial. Like
// signal.New it panics if initial is above Max.
func NewSignal(initial uint64) *Counter {
	if initial > Max {
		panic("model: initial count above Max")
	}
	return &Counter{kind: signalKind, count: initial, limit: Max}
}

// Count is what the real Count returns: the available units (after Close,
// what is left).
func (c *Counter) Count() uint64 { return c.count }

// Limit is the largest count.
func (c *Counter) Limit() uint64 { return c.limit }

// Closed reports whether Close has been called.
func (c *Counter) Closed() bool { return c.closed }

// Waiting is the number of queued acquirers (pending reservations), as
// reported by Stats.
func (c *Counter) Waiting() int { return len(c.queue) }

// Queue returns what each pending reservation asks for, oldest first.
func (c *Counter) Queue() []uint64 {
	needs := make([]uint64, len(c.queue))
	for i, r := range c.queue {
		needs[i] = r.need
	}
	return needs
}

// Write models Release(n) and Add(n): it adds n and serves the queue. It
// returns ErrInvalid if n is above the limit, ErrClosed after Close (in
// Plain mode: a semaphore takes back units given back after Close) and
// ErrWouldBlock if count+n would pass the limit (then nothing changes).
// Write(0) succeeds and changes nothing where a write may be made.
//
// After SetLimit lowered the limit into a debt, a write pays the debt
// first and adds only the rest to the count; up to limit+debt is accepted.
func (c *Counter) Write(n uint64) error {
	pay := min(n, c.debt)
	switch {
	case n > c.limit+c.debt:
		return spin.ErrInvalid
	case c.closed && c.kind == signalKind:
		return spin.ErrClosed
	case n-pay > c.limit-c.count:
		return spin.ErrWouldBlock
	}
	c.debt -= pay
	c.count += n - pay
	c.settle()
	return nil
}

// SetLimit models semaphore SetLimit: ErrInvalid unless 1 ≤ limit ≤ Max
// and no queued reservation asks for more than limit; ErrClosed after
// Close; otherwise a raise adds the difference to the count after paying
// the debt, and a cut takes it from the count, the rest becoming debt.
func (c *Counter) SetLimit(limit uint64) error {
	c.must(semaphoreKind)
	switch {
	case limit == 0 || limit > Max:
		return spin.ErrInvalid
	case c.closed:
		return spin.ErrClosed
	}
	for _, r := range c.queue {
		if r.need > limit {
			return spin.ErrInvalid
		}
	}
	c.count, c.debt = Resize(c.count, c.limit, c.debt, limit)
	c.limit = limit
	c.settle()
	return nil
}

// Resize is what a change of the limit from limit to to does to a count
// and a debt: a raise pays the debt first and adds the rest to the count;
// a cut takes what it can from the count and owes the rest (units held
// are never taken from their holders). The linearizability checks share
// it with SetLimit.
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

// Debt returns what SetLimit took away that holders still have.
func (c *Counter) Debt() uint64 { return c.debt }

// WriteWait models ReleaseWait and AddWait. Sequential callers never leave
// a writer parked, so with a Live context it is Write, with ErrWouldBlock
// meaning "would wait"; with Done it returns ErrInvalid for n above the
// limit and context.Canceled otherwise.
func (c *Counter) WriteWait(ctx Ctx, n uint64) error {
	if n > c.limit+c.debt {
		return spin.ErrInvalid
	}
	if err := stopped(ctx); err != nil {
		return err
	}
	err := c.Write(n)
	if err == spin.ErrWouldBlock && c.closed {
		return spin.ErrClosed // a closed counter is never waited on
	}
	return err
}

// Drain models semaphore Drain: ErrInvalid for n/a; context.Canceled if
// ctx is Done; nil if every unit is back (count = limit); otherwise
// ErrWouldBlock (a real Drain waits).
func (c *Counter) Drain(ctx Ctx) error {
	c.must(semaphoreKind)
	switch {
	case ctx == Done:
		return stopped(ctx)
	case c.count == c.limit:
		return nil
	}
	return spin.ErrWouldBlock
}

// Acquire models semaphore Acquire: ErrInvalid if n is above the limit;
// context.Canceled if ctx is Done; nil, taking n units, if n is 0 or nobody
// is queued and n units are there; otherwise ErrClosed after Close, else
// ErrWouldBlock.
func (c *Counter) Acquire(ctx Ctx, n uint64) error {
	c.must(semaphoreKind)
	switch {
	case n > c.limit:
		return spin.ErrInvalid
	case ctx == Done:
		return stopped(ctx)
	case n == 0:
		return nil
	case len(c.queue) == 0 && n <= c.count:
		c.count -= n
		c.settle()
		return nil
	case c.closed:
		return spin.ErrClosed
	}
	return spin.ErrWouldBlock
}

// TryAcquire models semaphore TryAcquire: it takes n units if nobody is
// queued and they are there. TryAcquire(0) is true, n above the limit false.
func (c *Counter) TryAcquire(n uint64) bool {
	c.must(semaphoreKind)
	switch {
	case n > c.limit:
		return false
	case n == 0:
		return true
	case len(c.queue) != 0 || n > c.count:
		return false
	}
	c.count -= n
	c.settle()
	return true
}

// Take models signal Take: it returns the whole count and resets it to 0.
func (c *Counter) Take() uint64 {
	c.must(signalKind)
	v := c.count
	c.count = 0
	c.settle()
	return v
}

// Wait models signal Wait: context.Canceled if ctx is Done; the whole
// count if it is non-zero, else ErrClosed after Close, else ErrWouldBlock.
func (c *Counter) Wait(ctx Ctx) (uint64, error) {
	c.must(signalKind)
	switch {
	case ctx == Done:
		return 0, stopped(ctx)
	case c.count != 0:
		return c.Take(), nil
	case c.closed:
		return 0, spin.ErrClosed
	}
	return 0, spin.ErrWouldBlock
}

// AcquireUpTo models semaphore AcquireUpTo: context.Canceled if ctx is
// Done; 0 and nil for max 0; with nobody queued and units there, up to max
// of them; otherwise ErrClosed after Close, else ErrWouldBlock.
func (c *Counter) AcquireUpTo(ctx Ctx, max uint64) (uint64, error) {
	c.must(semaphoreKind)
	switch {
	case ctx == Done:
		return 0, stopped(ctx)
	case max == 0:
		return 0, nil
	case len(c.queue) == 0 && c.count != 0:
		n := min(c.count, max)
		c.count -= n
		c.settle()
		return n, nil
	case c.closed && c.count == 0:
		return 0, spin.ErrClosed
	}
	return 0, spin.ErrWouldBlock
}

// TakeAll models semaphore TakeAll: every unit, unless a reservation is
// queued (then 0).
func (c *Counter) TakeAll() uint64 {
	c.must(semaphoreKind)
	if len(c.queue) != 0 {
		return 0
	}
	n := c.count
	c.count = 0
	c.settle()
	return n
}

// Read models a non-blocking read(2) of an eventfd: in Semaphore mode it
// is TryAcquire(1) and returns 1, in Plain mode it is Take and returns the
// whole count. It returns ErrWouldBlock (EAGAIN) when nothing can be read.
func (c *Counter) Read() (uint64, error) {
	if c.kind == semaphoreKind {
		if c.TryAcquire(1) {
			return 1, nil
		}
		return 0, spin.ErrWouldBlock
	}
	if v := c.Take(); v != 0 {
		return v, nil
	}
	return 0, spin.ErrWouldBlock
}

// Poll models poll(2) on an eventfd: in (POLLIN) iff the count is non-zero
// or the counter is closed, out (POLLOUT) iff it is open and below the
// limit. On an open counter with the default limit this is the kernel's
// rule.
func (c *Counter) Poll() (in, out bool) {
	return c.count != 0 || c.closed, !c.closed && c.count < c.limit
}

// Close models Close: the counter refuses writes from now on, the count
// stays readable, and queued reservations are served in FIFO order where
// what is left covers them and refused with ErrClosed where it does not.
// A second Close changes nothing.
func (c *Counter) Close() {
	if c.closed {
		return
	}
	c.closed = true
	c.settle()
}

// A Ticket names the channel a Ready call returned; Fired tells whether
// that channel is closed by now.
type Ticket uint64

// Ready models a call to Ready. The channel it returns is closed at once if
// the count is non-zero or the counter is closed; otherwise it is closed by
// the first later call that leaves the count non-zero (a Write whose units
// all go to queued reservations does not), or by Close.
func (c *Counter) Ready() Ticket {
	if c.count != 0 || c.closed {
		return Ticket(c.fires)
	}
	c.armed = true
	return Ticket(c.fires + 1)
}

// Fired reports whether the channel named by t is closed.
func (c *Counter) Fired(t Ticket) bool { return uint64(t) <= c.fires }

// Writable models a call to Writable. The channel it returns is closed at
// once if the count is below the limit or the counter is closed;
// otherwise it is closed by the first later call that leaves the count
// below the limit, or by Close. Its tickets are told apart from Ready's by
// WritableFired.
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
func (c *Counter) settle() {
	for len(c.queue) != 0 && c.queue[0].need <= c.count {
		c.grantHead()
	}
	for c.closed && len(c.queue) != 0 {
		if c.queue[0].need <= c.count {
			c.grantHead()
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
}

func (c *Counter) grantHead() {
	r := c.queue[0]
	c.queue = c.queue[1:]
	c.count -= r.need
	r.state = granted
}

func (c *Counter) must(k kind) {
	if c.kind != k {
		panic("model: call not available in this mode")
	}
}

// Validate checks the model's own invariants: the count is within the
// limit, the queue is empty once closed, the head of the queue does not
// fit (else it would have been served), and an armed Ready channel implies
// an open counter at 0. It returns a description of the first one broken.
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
