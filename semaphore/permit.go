package semaphore

import "context"

// A Permit is a number of units held from a Limiter, to be given back
// with Release exactly once. Unlike a bare Release(n), a permit cannot
// give back more than it holds or give back twice. These Releases report
// false and change nothing:
//   - a second Release
//   - a Release after Forget, or after Merge into another permit
//   - a Release of the zero Permit that a failed AcquirePermit returns
//
// So a cleanup path that releases twice never inflates the count or
// panics. Such a path is a deferred Release after an explicit one, or a
// Release after an ignored Acquire error. This was chosen over a panic.
// The double release x/sync users hit comes from error paths, where a
// panic turns a harmless repeat into a crash.
//
// A Permit is a value that owns its units, like an open file. Keep it in
// one variable and call its methods through that variable. A deferred
// p.Release() works. A Permit must not be copied, because a copy would
// hold the same units. The copylocks check of go vet reports copies. Hand
// a permit on with a pointer, or move its units into a new permit with
// Move.
//
// To keep a permit in a struct, such as a job that holds its unit until
// it ends, do one of these:
//   - Assign the result of AcquirePermit to the field at once:
//     j.p, err = lim.AcquirePermit(ctx, 1).
//   - Move a permit in: &Job{p: p.Move()}. Move leaves p empty, so a
//     deferred p.Release() then does nothing.
//
// Both are clean under go vet, which reports &Job{p: p} as a copy. Use
// the struct through a pointer, and give its methods pointer receivers.
// The example of Permit shows the pattern.
//
// A Permit's methods are not safe for concurrent use. A goroutine that
// gives a permit to another hands it over, as it would any value. Getting
// and releasing a permit allocates nothing. It costs what Acquire and
// Release cost, since the units are taken and given back as they take and
// give them.
//
// The zero Permit holds nothing.
type Permit struct {
	_ noCopy
	l *Limiter
	n int // the units it still holds
}

// noCopy makes go vet's copylocks check report a copied Permit.
type noCopy struct{}

// Lock and Unlock do nothing. They make noCopy a sync.Locker, which is
// what go vet's copylocks check looks for.
func (*noCopy) Lock() {}

// Unlock does nothing (see Lock).
func (*noCopy) Unlock() {}

// AcquirePermit is Acquire returning a permit for the n units, which
// Release gives back. On error it returns the zero Permit and the error.
// The zero Permit holds nothing, so a deferred Release of it reports
// false.
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

// AcquirePermitUpTo is AcquireUpTo returning a permit for the units it
// took, which N tells and Release gives back. On error it returns the
// zero Permit and the error.
func (l *Limiter) AcquirePermitUpTo(ctx context.Context, max int) (Permit, error) {
	n, err := l.AcquireUpTo(ctx, max)
	if err != nil {
		return Permit{}, err
	}
	return Permit{l: l, n: n}, nil
}

// TryAcquirePermitUpTo is TryAcquireUpTo returning a permit for the units
// it took, which N tells. If it took none, the permit holds nothing and
// its Release reports false. Split(1) hands one unit on to each job.
func (l *Limiter) TryAcquirePermitUpTo(max int) Permit {
	return Permit{l: l, n: l.TryAcquireUpTo(max)}
}

// N returns the number of units the permit still holds.
func (p *Permit) N() int { return p.n }

// Release gives the permit's units back to its limiter and reports
// whether it did. It returns false if the permit holds nothing, because
// it was released, forgotten or merged before, or is the zero Permit. If
// the limiter cannot take the units back, the permit keeps them and
// Release returns false. That is an ErrOverRelease, which only another
// caller's stray Release can cause.
func (p *Permit) Release() bool {
	n := p.n
	if n == 0 {
		return false
	}
	if p.l.Release(n) != nil {
		return false // not taken back, so still held
	}
	p.n = 0
	return true
}

// Move moves every unit of the permit into a new permit and returns it.
// Afterwards p holds nothing, so its Release reports false. Move of an
// empty permit returns the zero Permit. It is how a permit is handed on
// by value, such as into a struct field, without a copy that go vet
// reports (see Permit). It allocates nothing.
func (p *Permit) Move() Permit {
	if p.n == 0 {
		return Permit{}
	}
	n := p.n
	p.n = 0
	return Permit{l: p.l, n: n}
}

// Split moves k of the permit's units into a new permit and returns it.
// Both are released separately. It returns the zero Permit and
// ErrInvalid, changing nothing, if the permit holds fewer than k units or
// k is not positive. To move all of them, use Move, which never fails.
func (p *Permit) Split(k int) (Permit, error) {
	if k <= 0 || p.n < k {
		return Permit{}, invalid("split %d units from a permit of %d", k, p.n)
	}
	p.n -= k
	return Permit{l: p.l, n: k}, nil
}

// Merge moves every unit of q into p, so that one Release gives back
// both. Afterwards q holds nothing. Merging into the zero Permit makes it
// a permit of q's limiter. It returns ErrInvalid, changing nothing, if q
// is p or comes from another limiter than p's units.
func (p *Permit) Merge(q *Permit) error {
	switch {
	case q == p:
		return invalid("merge a permit into itself")
	case q.n == 0:
		return nil
	case p.n == 0:
		p.l = q.l
	case q.l != p.l:
		return invalid("merge a permit of another limiter")
	}
	p.n += q.n
	q.n = 0
	return nil
}

// Forget drops the permit's units without giving them back. They leave
// circulation for good, and the limiter's capacity shrinks by them, as
// tokio's forget does. Drain, which waits for every unit, then no longer
// returns. Forget returns how many units it dropped.
func (p *Permit) Forget() int {
	n := p.n
	p.n = 0
	return n
}
