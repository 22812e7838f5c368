package semaphore

import "context"

// A Permit is a number of units held from a Limiter, to be given back
// with Release exactly once. Unlike a bare Release(n), a permit cannot
// give back more than it holds or give back twice: a second Release, or a
// Release after Forget, after Merge into another permit, or of the zero
// Permit that a failed AcquirePermit returns, reports false and changes
// nothing. So a cleanup path that releases twice (a deferred Release after
// an explicit one, a Release after an ignored Acquire error) never
// inflates the count or panics. Chosen over a panic: the double release
// x/sync users hit comes from error paths, where a panic turns a harmless
// repeat into a crash.
//
// A Permit is a value that owns its units, like an open file: keep it in
// one variable and call its methods through that variable (defer
// p.Release() works). It must not be copied: a copy would hold the same
// units, and go vet's copylocks check reports copies. Hand it on with a
// pointer, or move its units into a new permit with Split(p.N()). Its
// methods are not safe for concurrent use; a goroutine that gives a
// permit to another hands it over, as it would any value. Getting and
// releasing a permit allocates nothing and costs what Acquire and Release
// cost: the units are taken and given back as they take and give them.
//
// The zero Permit holds nothing.
type Permit struct {
	_ noCopy
	l *Limiter
	n int // the units it still holds
}

// noCopy makes go vet's copylocks check report a copied Permit.
type noCopy struct{}

// Lock and Unlock do nothing: they make noCopy a sync.Locker, which is
// what go vet's copylocks check looks for.
func (*noCopy) Lock() {}

// Unlock does nothing (see Lock).
func (*noCopy) Unlock() {}

// AcquirePermit is Acquire returning a permit for the n units, which
// Release gives back. On error it returns the zero Permit (holding
// nothing, so that a deferred Release of it reports false) and the error.
func (l *Limiter) AcquirePermit(ctx context.Context, n int) (Permit, error) {
	if err := l.Acquire(ctx, n); err != nil {
		return Permit{}, err
	}
	return Permit{l: l, n: n}, nil
}

// TryAcquirePermit is TryAcquire returning a permit for the n units, or
// the zero Permit and false.
func (l *Limiter) TryAcquirePermit(n int) (Permit, bool) {
	if !l.TryAcquire(n) {
		return Permit{}, false
	}
	return Permit{l: l, n: n}, true
}

// N returns the number of units the permit still holds.
func (p *Permit) N() int { return p.n }

// Release gives the permit's units back to its limiter and reports
// whether it did: false if it holds nothing (released, forgotten or
// merged before, or the zero Permit). If the limiter cannot take them
// back (ErrOverRelease, which only another caller's stray Release can
// cause) the permit keeps them and Release returns false.
func (p *Permit) Release() bool {
	n := p.n
	if n == 0 {
		return false
	}
	if p.l.Release(n) != nil {
		return false // not taken back: still held
	}
	p.n = 0
	return true
}

// Split moves k of the permit's units into a new permit and returns it;
// both are released separately. It returns the zero Permit and
// ErrInvalid, changing nothing, if the permit holds fewer than k units or
// k is not positive. Split(p.N()) moves all of them: a way to hand a permit on.
func (p *Permit) Split(k int) (Permit, error) {
	if k <= 0 || p.n < k {
		return Permit{}, ErrInvalid
	}
	p.n -= k
	return Permit{l: p.l, n: k}, nil
}

// Merge moves every unit of q into p, so that one Release gives back
// both; q holds nothing afterwards. Merging into the zero Permit makes it
// a permit of q's limiter. It returns ErrInvalid, changing nothing, if
// q is p or comes from another limiter than p's units.
func (p *Permit) Merge(q *Permit) error {
	switch {
	case q == p:
		return ErrInvalid
	case q.n == 0:
		return nil
	case p.n == 0:
		p.l = q.l
	case q.l != p.l:
		return ErrInvalid
	}
	p.n += q.n
	q.n = 0
	return nil
}

// Forget drops the permit's units without giving them back: they leave
// circulation for good (the limiter's capacity shrinks by them, as
// tokio's forget does), and Drain, which waits for every unit, no longer
// returns. It returns how many units it dropped.
func (p *Permit) Forget() int {
	n := p.n
	p.n = 0
	return n
}
