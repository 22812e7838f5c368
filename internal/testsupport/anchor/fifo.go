package anchor

import (
	"context"
	"sync"
)

// fifoSemaphore is the smallest FIFO-fair semaphore a Go programmer writes
// by hand: a mutex, a count and a list of waiters, each parked on a
// channel of its own. It has no resize, no Close and no over-release
// check. So it is the floor of a mutex-and-channel FIFO. Its gap to a
// buffered channel is the cost of the mechanism. Its gap to evsync's
// Limiter is the cost of evsync's contract and word.
//
// Invariants, with mu held:
//   - a waiter on the list ⇒ grant is false, and nobody has sent on its
//     channel
//   - a waiter off the list with grant true ⇒ it holds its units, and one
//     token is on its way to its channel
//   - a list that is not empty ⇒ the count is short of its head's need
type fifoSemaphore struct {
	mu    sync.Mutex
	count uint64
	limit uint64
	head  *fifoWaiter
	tail  *fifoWaiter
}

// fifoWaiters keeps woken waiters for reuse, so that a wait allocates
// nothing. It is per P, so a reuse takes no lock.
var fifoWaiters = sync.Pool{New: func() any { return &fifoWaiter{wake: make(chan struct{}, 1)} }}

type fifoWaiter struct {
	need       uint64
	grant      bool
	next, prev *fifoWaiter
	wake       chan struct{} // one slot: a Release never blocks on it
}

// NewFIFOSemaphore returns a FIFO semaphore holding limit units
// (limit ≥ 1).
func NewFIFOSemaphore(limit uint64) (Semaphore, error) {
	if limit == 0 {
		return nil, errLimit("fifo", limit)
	}
	return &fifoSemaphore{count: limit, limit: limit}, nil
}

// Acquire takes n units at once if they are free and nobody waits.
// Otherwise it queues and parks until a Release hands it the units or
// ctx ends. A request above the limit waits for ctx.
func (s *fifoSemaphore) Acquire(ctx context.Context, n uint64) error {
	if n > s.limit {
		<-ctx.Done()
		return ctx.Err()
	}
	s.mu.Lock()
	if s.head == nil && s.count >= n {
		s.count -= n
		s.mu.Unlock()
		return nil
	}
	w := s.push(n)
	s.mu.Unlock()
	done := ctx.Done()
	if done == nil {
		<-w.wake
		fifoWaiters.Put(w)
		return nil
	}
	select {
	case <-w.wake:
		fifoWaiters.Put(w)
		return nil
	case <-done:
	}
	s.mu.Lock()
	if w.grant { // handed its units as ctx ended: the grant stands
		s.mu.Unlock()
		<-w.wake
		fifoWaiters.Put(w)
		return nil
	}
	s.unlink(w)
	wake := s.serve() // a head that gave up may have held up the next ones
	s.mu.Unlock()
	fifoWaiters.Put(w)
	wakeAll(wake)
	return ctx.Err()
}

// TryAcquire takes n units if they are free and nobody waits.
func (s *fifoSemaphore) TryAcquire(n uint64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.head != nil || s.count < n {
		return false
	}
	s.count -= n
	return true
}

// Release gives back n units and hands them to the waiters at the head
// of the list that they cover. It panics past the limit.
func (s *fifoSemaphore) Release(n uint64) {
	s.mu.Lock()
	if n > s.limit-s.count {
		s.mu.Unlock()
		panic("anchor: fifo semaphore released more than it holds")
	}
	s.count += n
	wake := s.serve()
	s.mu.Unlock()
	wakeAll(wake)
}

// Close does nothing: the semaphore holds no resources.
func (s *fifoSemaphore) Close() error { return nil }

// push queues a waiter for n units. Only with mu held.
func (s *fifoSemaphore) push(n uint64) *fifoWaiter {
	w := fifoWaiters.Get().(*fifoWaiter)
	w.need, w.grant, w.next, w.prev = n, false, nil, s.tail
	if s.tail == nil {
		s.head = w
	} else {
		s.tail.next = w
	}
	s.tail = w
	return w
}

// unlink takes w off the list. Only with mu held.
func (s *fifoSemaphore) unlink(w *fifoWaiter) {
	if w.prev == nil {
		s.head = w.next
	} else {
		w.prev.next = w.next
	}
	if w.next == nil {
		s.tail = w.prev
	} else {
		w.next.prev = w.prev
	}
	w.next, w.prev = nil, nil
}

// serve grants the head waiters the count covers and returns them, linked
// by next, to be woken after the unlock. Only with mu held.
func (s *fifoSemaphore) serve() *fifoWaiter {
	var wake *fifoWaiter
	for w := s.head; w != nil && w.need <= s.count; w = s.head {
		s.count -= w.need
		s.unlink(w)
		w.grant, w.next, wake = true, wake, w
	}
	return wake
}

// wakeAll sends each granted waiter its token. It reads next before the
// send, after which the waiter may be reused.
func wakeAll(w *fifoWaiter) {
	for w != nil {
		next := w.next
		w.wake <- struct{}{}
		w = next
	}
}
