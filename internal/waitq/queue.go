package waitq

import (
	"context"
	"sync/atomic"

	"github.com/evsync/evsync/internal/evserr"
)

// Result is how a wait ended.
type Result uint8

const (
	// Granted means the waiter was served. Its payload holds what it was
	// handed.
	Granted Result = iota
	// Closed means the primitive was closed before the waiter could be
	// served.
	Closed
	// Cancelled means the waiter's context ended first and it was handed
	// nothing.
	Cancelled
)

// An Owner is a primitive's lock. Its Unlock ends a locked section the
// way all of the primitive's locked sections end. It serves the waiters
// the change may have unblocked, then unlocks.
type Owner interface {
	Lock()
	Unlock()
}

// A Waiter is one parked caller. Its payload P is what it asks for until
// it is served, then what it was handed.
type Waiter[P any] struct {
	P P

	next, prev *Waiter[P]
	queued     bool            // on its Queue, only with the owner's lock held
	verdict    Result          // written before the wake-up, read by the waiter after it
	sel        bool            // woken by closing wake (a select-able waiter)
	kept       bool            // the primitive's own record: never recycled
	wake       chan struct{}   // one token per settlement, or closed if sel
	done       <-chan struct{} // the caller's ctx.Done(), nil if it never ends
	free       *Waiter[P]      // next in the Queue's freed stack
	woken      *Waiter[P]      // next on the Queue's list to wake, only with the lock held
}

// Sleep parks the caller until w is settled (true) or its context ends
// (false). It is small enough to be inlined, so that the caller parks in
// its own frame (see the package doc).
func (w *Waiter[P]) Sleep() bool {
	if w.done == nil {
		<-w.wake
		return true
	}
	select {
	case <-w.wake:
		return true
	case <-w.done:
		return false
	}
}

// Keep makes w a record of the primitive's own (its lone slot), which
// Finish never recycles, and gives it its wake channel. Before w is used.
func (w *Waiter[P]) Keep() {
	w.kept, w.wake = true, make(chan struct{}, 1)
}

// Arm sets the context of a kept record before the primitive publishes
// it. Only by the record's owner.
func (w *Waiter[P]) Arm(done <-chan struct{}) { w.done = done }

// Live reports whether w's context has not ended. Only whoever owns w
// calls it. That is the owner's lock holder for a queued waiter, or a
// claimer.
func (w *Waiter[P]) Live() bool { return w.done == nil || !isDone(w.done) }

// Settle hands a kept record that its primitive claimed outside any
// queue its verdict and payload, and wakes it.
func (w *Waiter[P]) Settle(r Result, p P) {
	w.P, w.verdict = p, r
	w.wake <- struct{}{}
}

// Done returns the channel of a select-able waiter, closed once it is
// settled.
func (w *Waiter[P]) Done() <-chan struct{} { return w.wake }

// Settled reports a select-able waiter's state. It returns whether w is
// still queued and, if not, its verdict. Only with the owner's lock held.
func (w *Waiter[P]) Settled() (queued bool, r Result) { return w.queued, w.verdict }

// A Queue is a FIFO list of parked callers, kept under its owner's lock.
// The zero value is an empty queue. Records are recycled per Queue, so a
// channel made in one synctest bubble never reaches another.
type Queue[P any] struct {
	head, tail *Waiter[P]
	n          atomic.Int32              // queued waiters, written under the lock and read by observers
	spare      *Waiter[P]                // recycled records, only with the lock held
	freed      atomic.Pointer[Waiter[P]] // records their waiters gave back, without the lock
	woken      *Waiter[P]                // settled waiters to wake after the unlock, only with the lock held
}

// Len returns the number of queued waiters. It may be called without the
// lock, by observers.
func (q *Queue[P]) Len() int { return int(q.n.Load()) }

// Push queues a caller asking for p and returns its record, for Sleep and
// Finish. The done channel is the caller's context's Done channel, nil if
// it never ends. Only with the owner's lock held.
func (q *Queue[P]) Push(done <-chan struct{}, p P) *Waiter[P] {
	w := q.record()
	w.P, w.done = p, done
	q.link(w)
	return w
}

// PushSelectable queues a select-able waiter asking for p. Its Done
// channel is closed once it is settled. It is never recycled. Only with
// the owner's lock held.
func (q *Queue[P]) PushSelectable(p P) *Waiter[P] {
	w := &Waiter[P]{P: p, sel: true, wake: make(chan struct{})}
	q.link(w)
	return w
}

// PushHead queues a caller asking for p ahead of everyone and returns its
// record, as Push does. It is for a caller that was first in line, was
// woken to retry, and must wait again. Only with the owner's lock held.
func (q *Queue[P]) PushHead(done <-chan struct{}, p P) *Waiter[P] {
	w := q.record()
	w.P, w.done = p, done
	q.insert(w, nil)
	return w
}

// PushFront queues the kept record w ahead of everyone. It is for a
// waiter that waited outside the queue and came first. Only with the lock
// held.
func (q *Queue[P]) PushFront(w *Waiter[P]) { q.insert(w, nil) }

// record returns a recycled record, or a new one. It makes records a few
// at a time. The spare ones then save most Pushes the swap that takes
// back the records waiters have given back.
func (q *Queue[P]) record() *Waiter[P] {
	if q.spare == nil {
		q.spare = q.freed.Swap(nil)
	}
	if q.spare == nil {
		for range recordBatch {
			q.spare = &Waiter[P]{wake: make(chan struct{}, 1), free: q.spare}
		}
	}
	w := q.spare
	q.spare, w.free = w.free, nil
	return w
}

// recordBatch is how many records a Queue makes when it has none spare.
const recordBatch = 4

func (q *Queue[P]) link(w *Waiter[P]) { q.insert(w, q.tail) }

// insert links w into the queue after prev (at the head if prev is nil).
func (q *Queue[P]) insert(w, prev *Waiter[P]) {
	next := q.head
	if prev == nil {
		q.head = w
	} else {
		next, prev.next = prev.next, w
	}
	if next == nil {
		q.tail = w
	} else {
		next.prev = w
	}
	w.prev, w.next, w.queued = prev, next, true
	q.n.Add(1)
}

// Remove takes w off the queue without waking it (a cancelled
// select-able waiter). Only with the owner's lock held.
func (q *Queue[P]) Remove(w *Waiter[P]) {
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

// MaxNeed returns the largest need(p) of the queued waiters' payloads (0
// if none). Only with the owner's lock held.
func (q *Queue[P]) MaxNeed(need func(P) uint64) uint64 {
	m := uint64(0)
	for w := q.head; w != nil; w = w.next {
		m = max(m, need(w.P))
	}
	return m
}

// Head returns the waiter that has waited longest if its context is
// still live, else nil. It is small enough to be inlined, so that a
// granter finds a live waiter in line. Front goes on where it returns nil.
// Only with the owner's lock held.
func (q *Queue[P]) Head() *Waiter[P] {
	if w := q.head; w != nil && (w.done == nil || !isDone(w.done)) {
		return w
	}
	return nil
}

// Front returns the waiter that has waited longest and whose context is
// still live, or nil. It settles waiters whose context has ended as
// Cancelled on the way. So a granter never hands anything to a caller
// that has given up. Only with the owner's lock held.
func (q *Queue[P]) Front() *Waiter[P] {
	for w := q.head; w != nil; w = q.head {
		if w.done == nil || !isDone(w.done) {
			return w
		}
		q.settle(w, Cancelled)
	}
	return nil
}

// Grant takes w off the queue and hands it p. Only with the lock held.
func (q *Queue[P]) Grant(w *Waiter[P], p P) {
	w.P, w.verdict = p, Granted
	q.Remove(w)
	w.woken, q.woken = q.woken, w
}

// RejectAll takes every waiter off the queue with the verdict Closed.
// Only with the owner's lock held.
func (q *Queue[P]) RejectAll() {
	for q.head != nil {
		q.Reject(q.head)
	}
}

// Reject takes w off the queue with the verdict Closed. Only with the
// owner's lock held.
func (q *Queue[P]) Reject(w *Waiter[P]) { q.settle(w, Closed) }

// Cancel takes the select-able waiter w off the queue with the verdict
// Cancelled, closing its Done channel after the unlock. Only with the
// owner's lock held.
func (q *Queue[P]) Cancel(w *Waiter[P]) { q.settle(w, Cancelled) }

// settle takes w off the queue with verdict r and wakes it. The wake-up
// never blocks, because a record's channel holds one token and a record
// is settled once.
func (q *Queue[P]) settle(w *Waiter[P], r Result) {
	q.Remove(w)
	w.verdict = r
	w.woken, q.woken = q.woken, w
}

// Woken takes the list of waiters settled since the last call, for
// WakeAll after the owner's lock is released. Only with the lock held.
func (q *Queue[P]) Woken() *Waiter[P] {
	w := q.woken
	q.woken = nil
	return w
}

// WakeAll wakes the waiters of a Woken list. It runs without the lock.
// Waking is the dearest step of a hand-off, and after the unlock it does
// not lengthen the critical section.
func WakeAll[P any](w *Waiter[P]) {
	for w != nil {
		next := w.woken // read before the wake, after which w belongs to its goroutine
		if w.sel {
			close(w.wake)
		} else {
			w.wake <- struct{}{}
		}
		w = next
	}
}

// Finish ends the wait of w after Sleep returned woke. It is called
// without the lock. It returns what w was handed and how its wait ended.
// If the context ended first, Finish takes the owner's lock. Then:
//   - A waiter still queued leaves with Cancelled. The owner's Unlock
//     serves those behind it.
//   - A waiter already settled keeps its verdict. It was settled while its
//     context was live, or just as it ended. A grant is never lost, and
//     the call succeeds.
//
// Then w is recycled, unless it is kept.
func (q *Queue[P]) Finish(o Owner, w *Waiter[P], woke bool) (p P, r Result) {
	if !woke {
		o.Lock()
		if w.queued {
			q.Remove(w)
			o.Unlock()
			q.recycle(w)
			return p, Cancelled
		}
		o.Unlock()
		<-w.wake // settled, so the token is there or on its way
	}
	p, r = w.P, w.verdict
	q.recycle(w)
	return p, r
}

// Await is the blocking tail of a call that waits with ctx for a
// payload. w was pushed with ctx.Done() and the lock released. Await
// sleeps on w and finishes it (Finish), then returns:
//   - w's payload and nil when it was granted, also if ctx ended after
//     the hand-over (a grant is never lost)
//   - evserr.ErrClosed when the primitive was closed first
//   - ctx.Err() when ctx ended first
//
// The payload of a call that failed is not to be used.
func (q *Queue[P]) Await(ctx context.Context, o Owner, w *Waiter[P]) (P, error) {
	p, r := q.Finish(o, w, w.Sleep())
	switch r {
	case Closed:
		return p, evserr.ErrClosed
	case Cancelled:
		return p, ctx.Err()
	}
	return p, nil
}

// recycle clears w and, unless it is kept, gives it back to q's freed
// stack. Only the lock holder pops that stack, so no record is popped
// twice.
func (q *Queue[P]) recycle(w *Waiter[P]) {
	w.done, w.verdict = nil, Granted
	if w.kept {
		return // its owner keeps what it needs in P
	}
	var zero P
	w.P = zero
	for {
		old := q.freed.Load()
		w.free = old
		if q.freed.CompareAndSwap(old, w) {
			return
		}
	}
}

func isDone(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
