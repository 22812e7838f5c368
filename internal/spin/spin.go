// Package spin is the one waiting mechanism behind every evsync primitive:
// a FIFO list of parked waiters with direct hand-off, a cancel-safe park, a
// readiness notifier for Ready(), and the shared error values.
//
// # Design
//
// Each primitive keeps its value (a count) in an atomic word and changes it
// with compare-and-swap on the fast path (see Count). The lock (a Lock: a
// sync.Mutex plus a list of waiters to wake) is taken only when somebody
// has to wait or be woken. A Queue publishes its length in an atomic so
// that the fast path can tell, without the lock, whether anyone is waiting.
//
// Despite the package's name, waiters do not busy-wait: they park on a
// channel at once. A spin-before-park was measured and made a two-goroutine
// ping-pong two to four times slower, because the goroutine a channel send
// wakes is queued to run next on the waker's own processor, where spinning
// only delays it.
//
// States of a Waiter: queued (on a Queue, pending) → granted or rejected
// (off the queue, settled). Only the holder of the owner's lock moves a
// waiter between states, and it does so by removing the waiter from the
// queue in the same critical section. The parked goroutine owns the waiter
// again once it has observed the settlement, either by receiving on the
// wake channel or, after cancellation, by taking the lock and finding the
// waiter off the queue.
//
// Lock ordering: the owner's Lock is the only lock, and nothing blocks
// while holding it. Waking a parked goroutine (a channel send that readies
// it, often with a system call to start an idle processor for it) is the
// dearest step of a hand-off, so it happens after the lock is released,
// as the kernel's wake_q does: Grant and Reject record the verdict and put
// the waiter on the Lock's wake list, and Lock.Unlock sends the wake-ups
// once the lock is free. Under a standing queue this keeps the critical
// section short enough that releasers do not convoy on the lock.
//
// Hand-off, not broadcast: the goroutine that changes the count decides,
// under the lock, which waiters it satisfies and gives each its share
// before waking it. A woken waiter never re-checks a condition and never
// races the others (the kernel wakes all sleepers and lets them race;
// evsync does not), so FIFO order holds and there is no thundering herd.
//
// Why no wakeup is lost: a waiter increments the queue length (atomic)
// and then re-reads the count before it parks; a writer changes the count
// (atomic) and then reads the queue length. Go's atomics are sequentially
// consistent, so at least one of the two sees the other: either the waiter
// finds the new count, or the writer finds the waiter and takes the slow
// path. The same argument covers Notifier.Armed.
//
// Why no grant is lost to cancellation, and why the outcome is always
// linearizable: a granter never hands a share to a waiter whose context is
// already done. Front checks the head's Done channel (without blocking) and
// drops a cancelled head, so the share goes to the next waiter instead.
// When the context ends, Park takes the lock. If the waiter is still queued
// (or was dropped) nothing was given to it: Cancelled. If it was granted,
// the grant happened while its context was still live, so the call took
// effect before the cancellation and reports success (GrantedLate). Handing
// the share back instead would not be linearizable: between the grant and
// the hand-back other callers may have observed the count without it.
//
// The wait on the wake channel is a plain channel receive; no goroutine is
// started per wait or per instance, and Waiters used by blocking calls are
// recycled through a per-queue sync.Pool so steady-state waiting does not
// allocate.
package spin

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
)

// Errors shared by every evsync package; each package re-exports them.
var (
	// ErrWouldBlock is returned by non-blocking calls that could only
	// succeed by waiting (eventfd's EAGAIN).
	ErrWouldBlock = errors.New("evsync: operation would block")
	// ErrInvalid is returned for arguments that can never succeed, such as
	// a request above the limit (eventfd's EINVAL) or a nil context.
	ErrInvalid = errors.New("evsync: invalid argument")
	// ErrClosed is returned by writes after Close and by reads once a
	// closed primitive has nothing left to hand out.
	ErrClosed = errors.New("evsync: closed")
)

// Outcome is how a parked waiter's wait ended.
type Outcome uint8

const (
	// Granted: the waiter was given its share before its context ended.
	Granted Outcome = iota
	// Rejected: the owner was closed while the waiter was queued.
	Rejected
	// Cancelled: the context ended while the waiter was still queued; it
	// has been removed and was given nothing.
	Cancelled
	// GrantedLate: the context ended, but the share had been handed over
	// while it was still live; the call succeeded.
	GrantedLate
)

const (
	pending uint8 = iota
	granted
	rejected
	dropped // removed by a granter because its context was done
)

// A Waiter is one parked caller. Need is set by the owner before Push;
// Got is set by the granter (for sum-and-reset hand-offs).
type Waiter struct {
	Need uint64 // what the waiter asks for; read by the granter
	Got  uint64 // what the granter handed over

	next, prev *Waiter
	woken      *Waiter         // next on the Lock's wake list; only with the lock held
	queued     bool            // on a Queue; only with the owner's lock held
	state      uint8           // pending, granted, ...; only with the lock held
	sel        bool            // wake by closing (select-able waiters, never pooled)
	wake       wakeCh          // settlement: one token, or closed if sel
	cancel     <-chan struct{} // the caller's ctx.Done(); nil if none
}

// Get returns a recycled waiter for a blocking call whose context is ctx.
// Return it with Put once Park has returned.
//
// Each Queue recycles its own waiters rather than sharing one global pool:
// a waiter's channel then belongs to whoever uses that primitive, so an
// instance made inside a testing/synctest bubble never hands a channel
// created in one bubble to a goroutine in another (which would panic).
func (q *Queue) Get(ctx context.Context, need uint64) *Waiter {
	w, _ := q.pool.Get().(*Waiter)
	if w == nil {
		w = &Waiter{wake: make(wakeCh, 1)}
	}
	w.Need, w.Got, w.state, w.cancel = need, 0, pending, ctx.Done()
	return w
}

// Put recycles a waiter obtained from Get. Park leaves the wake channel
// empty, so the next user starts clean.
func (q *Queue) Put(w *Waiter) {
	w.cancel = nil
	q.pool.Put(w)
}

// NewSelectable returns a waiter that is woken by closing its channel, for
// select-able reservations that callers hold on to. It is never pooled.
func NewSelectable(need uint64) *Waiter {
	return &Waiter{Need: need, sel: true, wake: make(wakeCh)}
}

// Done returns the channel that is ready once the waiter is settled. For
// a selectable waiter it is closed; for a pooled one it carries one token.
func (w *Waiter) Done() <-chan struct{} { return w.wake }

// Settled reports whether the waiter was granted (true, true), rejected
// (true, false) or is still pending (false, false). Only with the lock held.
func (w *Waiter) Settled() (settled, wasGranted bool) {
	return w.state != pending, w.state == granted
}

// A Lock is the owner's mutex. Unlock also wakes the waiters settled
// while it was held, after releasing it (see the package doc). The zero
// value is an unlocked Lock.
type Lock struct {
	mu    sync.Mutex
	woken *Waiter // settled waiters to wake at Unlock; only with mu held
}

// Lock locks l.
func (l *Lock) Lock() { l.mu.Lock() }

// Unlock unlocks l, then wakes the waiters settled while it was held.
func (l *Lock) Unlock() {
	w := l.woken
	l.woken = nil
	l.mu.Unlock()
	for w != nil {
		next := w.woken // read before the wake: after it, w belongs to its goroutine
		w.wake.signal(w.sel)
		w = next
	}
}

// A Queue is a FIFO list of waiters. The zero value is empty and ready.
// All methods except Len need the owner's lock.
type Queue struct {
	head, tail *Waiter
	n          atomic.Int32 // waiters queued; read without the lock by fast paths
	pool       sync.Pool    // recycled *Waiter for blocking calls
}

// Len is the number of queued waiters. It may be read without the lock;
// see the package doc for why a racing reader cannot lose a wakeup.
func (q *Queue) Len() int { return int(q.n.Load()) }

// Front is the waiter that has waited longest and whose context is still
// live, or nil. Cancelled waiters found at the head are dropped on the way
// (their own Park reports Cancelled), so a granter never hands a share to
// a caller that has given up.
func (q *Queue) Front() *Waiter {
	for w := q.head; w != nil; w = q.head {
		select {
		case <-w.cancel: // nil for waiters without a context: never ready
			q.Remove(w)
			w.state = dropped
		default:
			return w
		}
	}
	return nil
}

// Push queues w at the tail. The length is published before the caller
// re-checks the count (the waiter side of the no-lost-wakeup argument).
func (q *Queue) Push(w *Waiter) {
	w.next, w.prev, w.queued = nil, q.tail, true
	if q.tail == nil {
		q.head = w
	} else {
		q.tail.next = w
	}
	q.tail = w
	q.n.Add(1)
}

// Remove takes w off the queue without settling it.
func (q *Queue) Remove(w *Waiter) {
	if w.prev == nil {
		q.head = w.next
	} else {
		w.prev.next = w.next
	}
	if w.next == nil {
		q.tail = w.prev
	} else {
		w.next.prev = w.prev
	}
	w.next, w.prev, w.queued = nil, nil, false
	q.n.Add(-1)
}

// Grant removes w, records got as its share, and has l wake it at Unlock.
func (q *Queue) Grant(l *Lock, w *Waiter, got uint64) {
	q.Remove(w)
	w.Got, w.state = got, granted
	w.woken, l.woken = l.woken, w
}

// Reject removes w and has l wake it at Unlock with Rejected (the owner
// was closed).
func (q *Queue) Reject(l *Lock, w *Waiter) {
	q.Remove(w)
	w.state = rejected
	w.woken, l.woken = l.woken, w
}

// RejectAll rejects every queued waiter, oldest first.
func (q *Queue) RejectAll(l *Lock) {
	for q.head != nil {
		q.Reject(l, q.head)
	}
}

type wakeCh chan struct{}

// signal never blocks: a pooled waiter's channel has one free slot (each
// wait is settled at most once), and a selectable one is closed.
func (c wakeCh) signal(sel bool) {
	if sel {
		close(c)
		return
	}
	c <- struct{}{}
}

// Park blocks until w (already pushed on q by the caller, who has then
// released mu) is settled or ctx ends. It is the Go counterpart of the
// kernel's wait_event_interruptible_locked: the condition is evaluated by
// whoever changes the state, under mu, and the waiter only learns the
// verdict.
//
// On Cancelled, w is off q and Park returns with mu HELD, so that the
// owner can serve the waiters that were behind w before it unlocks (a
// cancelled head must not strand them). GrantedLate is a success (see the
// package doc). After Park returns, w's channel is empty and w may be Put.
func (q *Queue) Park(ctx context.Context, mu *Lock, w *Waiter) Outcome {
	if w.cancel == nil { // a context that never ends: a plain receive is cheaper than select
		<-w.wake
		return w.outcome()
	}
	select {
	case <-w.wake:
		return w.outcome()
	case <-w.cancel:
	}
	mu.Lock()
	if w.queued {
		q.Remove(w)
		return Cancelled
	}
	if w.state == dropped {
		return Cancelled // a granter took it off the queue; no token was sent
	}
	mu.Unlock()
	<-w.wake // settled under the lock we just held: the token is there or on its way
	if w.state == granted {
		return GrantedLate
	}
	return Rejected
}

func (w *Waiter) outcome() Outcome {
	if w.state == granted {
		return Granted
	}
	return Rejected
}

// A Notifier is the readiness channel behind Ready(): a channel that is
// closed at the next Fire. The zero value is ready to use.
type Notifier struct {
	armed atomic.Bool   // a channel is out; read without the lock by writers
	ch    chan struct{} // only with the owner's lock held
}

// closedCh is always ready: Ready's answer when no wait is needed (no allocation).
var closedCh = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// ClosedChan returns a channel that is always ready (closed), without
// allocating: the answer of a Ready method when no wait is needed.
func ClosedChan() <-chan struct{} { return closedCh }

// Arm returns the channel the next Fire closes, making one if needed. The
// caller holds the lock and must re-check its condition after Arm returns
// (Armed is published first: the waiter side of the no-lost-wakeup
// argument) and Fire if it already holds.
func (n *Notifier) Arm() <-chan struct{} {
	if n.ch == nil {
		n.ch = make(chan struct{})
		n.armed.Store(true)
	}
	return n.ch
}

// Armed reports, without the lock, whether a Ready channel is waiting for
// a Fire.
func (n *Notifier) Armed() bool { return n.armed.Load() }

// Fire closes the armed channel, if any. Only with the lock held.
func (n *Notifier) Fire() {
	if n.ch != nil {
		close(n.ch)
		n.ch = nil
		n.armed.Store(false)
	}
}
