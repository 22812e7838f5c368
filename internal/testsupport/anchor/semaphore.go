package anchor

import (
	"context"
	"math"
	"sync"

	"github.com/evsync/evsync/semaphore"
	xsem "golang.org/x/sync/semaphore"
)

// evsyncSemaphore adapts evsync's semaphore, whose Release reports errors.
type evsyncSemaphore struct{ s *semaphore.Semaphore }

// NewEvsyncSemaphore returns evsync's semaphore with count and limit both
// set to limit (1 ≤ limit ≤ semaphore.Max).
func NewEvsyncSemaphore(limit uint64) (Semaphore, error) {
	if limit == 0 || limit > semaphore.Max {
		return nil, errLimit("evsync", limit)
	}
	return evsyncSemaphore{semaphore.New(limit, semaphore.WithLimit(limit))}, nil
}

// Acquire takes n units with evsync's Acquire.
func (a evsyncSemaphore) Acquire(ctx context.Context, n uint64) error { return a.s.Acquire(ctx, n) }

// TryAcquire takes n units with evsync's TryAcquire.
func (a evsyncSemaphore) TryAcquire(n uint64) bool { return a.s.TryAcquire(n) }

// Close closes evsync's semaphore; it always returns nil.
func (a evsyncSemaphore) Close() error { a.s.Close(); return nil }

// Release gives back n units with evsync's Release and panics on the
// error it reports for units that are not held.
func (a evsyncSemaphore) Release(n uint64) {
	if err := a.s.Release(n); err != nil {
		panic("anchor: evsync release: " + err.Error())
	}
}

// xsyncSemaphore adapts golang.org/x/sync/semaphore.Weighted, which counts
// units in use (0 at first) against a size.
type xsyncSemaphore struct{ w *xsem.Weighted }

// NewXSyncSemaphore returns x/sync's Weighted of size limit
// (1 ≤ limit ≤ math.MaxInt64).
func NewXSyncSemaphore(limit uint64) (Semaphore, error) {
	if limit == 0 || limit > math.MaxInt64 {
		return nil, errLimit("xsync", limit)
	}
	return xsyncSemaphore{xsem.NewWeighted(int64(limit))}, nil
}

// Acquire takes n units with x/sync's Acquire.
func (a xsyncSemaphore) Acquire(ctx context.Context, n uint64) error {
	return a.w.Acquire(ctx, clampInt64(n))
}

// TryAcquire takes n units with x/sync's TryAcquire.
func (a xsyncSemaphore) TryAcquire(n uint64) bool { return a.w.TryAcquire(clampInt64(n)) }

// Release gives back n units with x/sync's Release, which panics when
// more are released than are held.
func (a xsyncSemaphore) Release(n uint64) { a.w.Release(clampInt64(n)) }

// Close does nothing: a Weighted holds no resources.
func (a xsyncSemaphore) Close() error { return nil }

// clampInt64 maps requests beyond int64 to MaxInt64, which is above any
// size too and so keeps x/sync's behaviour for requests above the size.
func clampInt64(n uint64) int64 {
	if n > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(n)
}

// chanSemaphore is the buffered-channel semaphore: a unit is a slot in the
// buffer, Acquire fills one and Release empties one. A multi-unit Acquire
// takes its units one at a time, so two of them can deadlock each other
// when both hold part of what they need; the benchmarks use n = 1.
type chanSemaphore chan struct{}

// NewChanSemaphore returns a channel semaphore with a buffer of limit slots
// (1 ≤ limit ≤ math.MaxInt; the elements take no memory).
func NewChanSemaphore(limit uint64) (Semaphore, error) {
	if limit == 0 || limit > math.MaxInt {
		return nil, errLimit("chan", limit)
	}
	return make(chanSemaphore, int(limit)), nil
}

// Acquire sends n tokens into the buffer, one at a time, and takes them
// back out if ctx ends first.
func (c chanSemaphore) Acquire(ctx context.Context, n uint64) error {
	done := ctx.Done()
	if n > uint64(cap(c)) {
		<-done // never fits: wait for the context, as x/sync does
		return ctx.Err()
	}
	for i := range n {
		if done == nil { // a plain send is cheaper than a select
			c <- struct{}{}
			continue
		}
		select {
		case c <- struct{}{}:
		case <-done:
			c.Release(i)
			return ctx.Err()
		}
	}
	return nil
}

// TryAcquire sends n tokens without blocking, taking back what it sent
// if the buffer fills first.
func (c chanSemaphore) TryAcquire(n uint64) bool {
	for i := range n {
		select {
		case c <- struct{}{}:
		default:
			c.Release(i)
			return false
		}
	}
	return true
}

// Release receives n tokens from the buffer and panics if it runs dry.
func (c chanSemaphore) Release(n uint64) {
	for range n {
		select {
		case <-c:
		default:
			panic("anchor: chan semaphore released more than it holds")
		}
	}
}

// Close does nothing: the channel needs no closing.
func (c chanSemaphore) Close() error { return nil }

// condSemaphore is the mutex-and-condition-variable semaphore. It is not
// FIFO: a caller that finds units free takes them even while others wait.
// Release signals one waiter per unit while every waiter wants one unit,
// and broadcasts otherwise (a single wakeup could go to a waiter that
// cannot be served while one that could sleeps on).
type condSemaphore struct {
	mu      sync.Mutex
	cond    sync.Cond
	count   uint64 // units available; only with mu held
	limit   uint64
	waiters uint64 // callers blocked in Acquire; only with mu held
	big     uint64 // waiters that want more than one unit; only with mu held
}

// NewCondSemaphore returns a sync.Cond semaphore holding limit units
// (limit ≥ 1).
func NewCondSemaphore(limit uint64) (Semaphore, error) {
	if limit == 0 {
		return nil, errLimit("cond", limit)
	}
	s := &condSemaphore{count: limit, limit: limit}
	s.cond.L = &s.mu
	return s, nil
}

// Acquire takes n units under mu, waiting on cond while too few are
// free; a request above the limit waits for ctx to end.
func (s *condSemaphore) Acquire(ctx context.Context, n uint64) error {
	if n > s.limit {
		<-ctx.Done() // never fits: wait for the context, as x/sync does
		return ctx.Err()
	}
	s.mu.Lock()
	if s.count >= n {
		s.count -= n
		s.mu.Unlock()
		return nil
	}
	return s.acquireSlow(ctx, n)
}

// acquireSlow waits with mu held. A cancellable context broadcasts when it
// ends, so that its waiter wakes and notices; the broadcast takes mu, so
// it cannot fall between the waiter's check of ctx and its Wait.
func (s *condSemaphore) acquireSlow(ctx context.Context, n uint64) error {
	if ctx.Done() != nil {
		defer context.AfterFunc(ctx, s.wakeAll)()
	}
	s.waiting(n, true)
	for s.count < n && ctx.Err() == nil {
		s.cond.Wait()
	}
	s.waiting(n, false)
	if s.count < n {
		s.wake(1) // pass on a wakeup we may have been given
		s.mu.Unlock()
		return ctx.Err()
	}
	s.count -= n
	s.mu.Unlock()
	return nil
}

// waiting counts a caller that starts (in) or stops waiting for n units.
func (s *condSemaphore) waiting(n uint64, in bool) {
	d := uint64(1)
	if !in {
		d = ^uint64(0) // adds -1
	}
	s.waiters += d
	if n > 1 {
		s.big += d
	}
}

func (s *condSemaphore) wakeAll() {
	s.mu.Lock()
	s.cond.Broadcast()
	s.mu.Unlock()
}

// wake wakes waiters for k newly available units: one each while every
// waiter wants a single unit, all of them otherwise. Only with mu held.
func (s *condSemaphore) wake(k uint64) {
	switch {
	case s.waiters == 0 || s.count == 0:
	case s.big != 0:
		s.cond.Broadcast()
	default:
		for i := uint64(0); i < k && i < s.waiters; i++ {
			s.cond.Signal()
		}
	}
}

// TryAcquire takes n units under mu if that many are free.
func (s *condSemaphore) TryAcquire(n uint64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.count < n {
		return false
	}
	s.count -= n
	return true
}

// Release gives back n units under mu and wakes waiters for them; it
// panics past the limit.
func (s *condSemaphore) Release(n uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n > s.limit-s.count {
		panic("anchor: cond semaphore released more than it holds")
	}
	s.count += n
	s.wake(n)
}

// Close does nothing: a sync.Cond holds no resources.
func (s *condSemaphore) Close() error { return nil }
