package semaphore

import (
	"context"
	"sync/atomic"
)

// A Permit is a number of units held from a semaphore, to be given back
// with Release exactly once. Unlike a bare Release(n), a permit cannot
// give back more than it holds or give back twice: a second Release, or a
// Release after Forget or Merge, returns false and changes nothing, so a
// cleanup path that releases twice (a deferred Release after an explicit
// one, an ignored Acquire error) never inflates the count or panics.
// Chosen over a panic: the double release x/sync users hit comes from
// error paths, where a panic turns a harmless repeat into a crash.
//
// A Permit is used through its pointer; the zero value holds nothing.
// Its methods are safe for concurrent use: of two concurrent Releases
// exactly one gives the units back. Getting a permit allocates it (one
// small object); the units themselves are taken as Acquire takes them.
type Permit struct {
	s *Semaphore
	n atomic.Uint64 // the units it still holds
}

// AcquirePermit is Acquire returning a permit for the n units, which
// Release gives back. On error it returns nil and holds nothing.
func (s *Semaphore) AcquirePermit(ctx context.Context, n uint64) (*Permit, error) {
	if err := s.Acquire(ctx, n); err != nil {
		return nil, err
	}
	return s.permit(n), nil
}

// TryAcquirePermit is TryAcquire returning a permit for the n units, or
// nil and false.
func (s *Semaphore) TryAcquirePermit(n uint64) (*Permit, bool) {
	if !s.TryAcquire(n) {
		return nil, false
	}
	return s.permit(n), true
}

func (s *Semaphore) permit(n uint64) *Permit {
	p := &Permit{s: s}
	p.n.Store(n)
	return p
}

// N returns the number of units the permit still holds.
func (p *Permit) N() uint64 { return p.n.Load() }

// Release gives the permit's units back to its semaphore and reports
// whether it did: false if it holds nothing (released, forgotten or
// merged before). If the semaphore cannot take them back (it would pass
// its limit, which only another caller's stray Release can cause) the
// permit keeps them and Release returns false; call it again once there
// is room.
func (p *Permit) Release() bool {
	n := p.n.Swap(0)
	if n == 0 {
		return false
	}
	if p.s.Release(n) != nil {
		p.n.Add(n) // not taken back: still held
		return false
	}
	return true
}

// Split moves k of the permit's units into a new permit and returns it;
// both are released separately. It returns nil and ErrInvalid, changing
// nothing, if the permit holds fewer than k units or k is 0.
func (p *Permit) Split(k uint64) (*Permit, error) {
	for {
		n := p.n.Load()
		if k == 0 || n < k {
			return nil, ErrInvalid
		}
		if p.n.CompareAndSwap(n, n-k) {
			return p.s.permit(k), nil
		}
	}
}

// Merge moves every unit of q into p, so that one Release gives back
// both; q holds nothing afterwards. It returns ErrInvalid, changing
// nothing, if q is p or comes from another semaphore.
func (p *Permit) Merge(q *Permit) error {
	if q == p || q.s != p.s {
		return ErrInvalid
	}
	p.n.Add(q.n.Swap(0))
	return nil
}

// Forget drops the permit's units without giving them back: they leave
// circulation for good (the semaphore's capacity shrinks by them, as
// tokio's forget does), and Drain, which waits for the count to reach the
// limit, no longer returns. It returns how many units it dropped.
func (p *Permit) Forget() uint64 { return p.n.Swap(0) }
