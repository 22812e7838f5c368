package fuzz_test

import (
	"fmt"

	"github.com/evsync/evsync/semaphore"
)

// The permit operations of FuzzSemaphore. The model has no permits: a
// permit is the units it holds, kept next to it in the run, and its
// Release is the model's Write of them.

// semPermit is a permit and the units the model says it holds.
type semPermit struct {
	p *semaphore.Permit
	n uint64
}

// keepPermit checks a permit just returned for n units and keeps it, up
// to maxKept permits; later ones are held untracked (as if forgotten).
func (r *semRun) keepPermit(what string, p *semaphore.Permit, n uint64) {
	if got := p.N(); got != n {
		r.fail("%s: permit N() = %d, want %d", what, got, n)
	}
	if len(r.permits) < maxKept {
		r.permits = append(r.permits, &semPermit{p, n})
	}
}

// checkPermits compares each kept permit's N with the model's.
func (r *semRun) checkPermits(desc string) {
	for i, pm := range r.permits {
		if got := pm.p.N(); got != pm.n {
			r.fail("after %s: permit #%d N() = %d, model %d", desc, i, got, pm.n)
		}
	}
}

// pickPermit decodes the index of a kept permit; with none kept it reads
// the byte and returns nil.
func (r *semRun) pickPermit(d *decoder) (*semPermit, int) {
	if len(r.permits) == 0 {
		d.byte()
		return nil, -1
	}
	i := d.choice(len(r.permits))
	return r.permits[i], i
}

func (r *semRun) acquirePermit(d *decoder) string {
	k := d.ctx()
	n := r.amount(d)
	desc := fmt.Sprintf("AcquirePermit(%v, %d)", k, n)
	switch {
	case k == ctxNil:
		p, err := r.s.AcquirePermit(nilCtx, n)
		r.tl.err("AcquirePermit", semaphore.ErrInvalid)
		r.sameErr("AcquirePermit(nil)", err, semaphore.ErrInvalid)
		r.sameN("AcquirePermit(nil): the permit's N()", p.N(), 0)
	case k == ctxLive && r.wouldWait(n) && len(r.parked) < maxParked:
		r.park(parkPermit, n)
		desc += " parked"
	default:
		if k == ctxLive && r.wouldWait(n) {
			k = ctxCancelled // too many parked already
		}
		want := cancelledErr(r.m.Acquire(k.model(), n))
		p := new(semaphore.Permit)
		var err error
		*p, err = r.s.AcquirePermit(k.context(), n)
		r.tl.err("AcquirePermit", want)
		r.sameErr(desc, err, want)
		if err == nil {
			r.keepPermit(desc, p, n)
		} else {
			r.sameN(desc+": the permit's N()", p.N(), 0)
		}
	}
	return desc
}

func (r *semRun) tryAcquirePermit(d *decoder) string {
	n := r.amount(d)
	desc := fmt.Sprintf("TryAcquirePermit(%d)", n)
	p := new(semaphore.Permit)
	var ok bool
	*p, ok = r.s.TryAcquirePermit(n)
	want := r.m.TryAcquire(n)
	r.tl.hit("TryAcquirePermit", fmt.Sprint(want))
	r.same(desc, ok, want)
	if ok {
		r.keepPermit(desc, p, n)
	} else {
		r.sameN(desc+": the permit's N()", p.N(), 0)
	}
	return desc
}

// modelRelease is Permit.Release in the model: false, changing nothing,
// for a permit that holds nothing or whose units the count cannot take
// back (the permit keeps them); otherwise the units go back.
func (r *semRun) modelRelease(pm *semPermit) bool {
	if pm.n == 0 || r.m.Write(pm.n) != nil {
		return false
	}
	pm.n = 0
	return true
}

// releaseOutcome names a permit Release for the tally, before it is made.
func (r *semRun) releaseOutcome(pm *semPermit, want bool) string {
	switch {
	case want:
		return "true"
	case pm.n == 0:
		return "false, nothing held"
	}
	return "false, no room"
}

func (r *semRun) permitRelease(d *decoder) string {
	pm, i := r.pickPermit(d)
	if pm == nil {
		return "permit Release (no permit)"
	}
	held := pm.n
	got, want := pm.p.Release(), r.modelRelease(pm)
	r.tl.hit("PermitRelease", r.releaseOutcome(&semPermit{n: held}, want))
	r.same(fmt.Sprintf("Release() of permit #%d holding %d", i, held), got, want)
	return fmt.Sprintf("permit #%d Release() (held %d)", i, held)
}

// permitReleaseTwice releases one permit twice in a row, the cleanup
// path of a deferred Release after an explicit one: where the model says
// a Release gives the units back, the first must and the second must
// not; else neither.
func (r *semRun) permitReleaseTwice(d *decoder) string {
	pm, i := r.pickPermit(d)
	if pm == nil {
		return "two permit Releases (no permit)"
	}
	held := pm.n
	a, b := pm.p.Release(), pm.p.Release()
	want := r.modelRelease(pm)
	r.tl.hit("PermitReleaseTwice", r.releaseOutcome(&semPermit{n: held}, want))
	if b || a != want {
		r.fail("two Releases of permit #%d holding %d = %v, %v; model: the first gives back = %v", i, held, a, b, want)
	}
	return fmt.Sprintf("permit #%d Release() twice (held %d)", i, held)
}

func (r *semRun) permitSplit(d *decoder) string {
	pm, i := r.pickPermit(d)
	if pm == nil {
		d.byte()
		return "permit Split (no permit)"
	}
	k := d.amount(pm.n, pm.n, 1)
	desc := fmt.Sprintf("permit #%d (holding %d) Split(%d)", i, pm.n, k)
	q := new(semaphore.Permit)
	var err error
	*q, err = pm.p.Split(k)
	var want error
	if k == 0 || k > pm.n {
		want = semaphore.ErrInvalid
	}
	r.tl.err("Split", want)
	r.sameErr(desc, err, want)
	if err == nil {
		pm.n -= k
		r.keepPermit(desc, q, k)
	} else {
		r.sameN(desc+": the new permit's N()", q.N(), 0)
	}
	return desc
}

func (r *semRun) permitMerge(d *decoder) string {
	pm, i := r.pickPermit(d)
	if pm == nil {
		d.byte()
		return "permit Merge (no permit)"
	}
	j := d.choice(len(r.permits) + 1)
	if j == len(r.permits) {
		return r.mergeForeign(pm, i)
	}
	qm := r.permits[j]
	desc := fmt.Sprintf("permit #%d (holding %d) Merge(permit #%d holding %d)", i, pm.n, j, qm.n)
	err := pm.p.Merge(qm.p)
	var want error
	if i == j {
		want = semaphore.ErrInvalid
	} else {
		pm.n, qm.n = pm.n+qm.n, 0
	}
	r.tl.err("Merge", want)
	r.sameErr(desc, err, want)
	return desc
}

// mergeForeign merges into permit i a permit of another semaphore. Merge
// must refuse it, leaving both as they were, while permit i holds units;
// a permit that holds nothing takes the other's units (and semaphore),
// which its Release then gives back there.
func (r *semRun) mergeForeign(pm *semPermit, i int) string {
	other := semaphore.New(1)
	q, _ := other.TryAcquirePermit(1)
	desc := fmt.Sprintf("permit #%d (holding %d) Merge(a permit of another semaphore)", i, pm.n)
	err := pm.p.Merge(&q)
	r.tl.err("Merge", err)
	if pm.n != 0 {
		r.sameErr(desc, err, semaphore.ErrInvalid)
		r.sameN(desc+": the other permit's N()", q.N(), 1)
		return desc
	}
	r.sameErr(desc, err, nil)
	r.sameN(desc+": the other permit's N()", q.N(), 0)
	r.same(desc+": its Release of the other's unit", pm.p.Release(), true)
	r.sameN(desc+": the other semaphore's count", other.Count(), 1)
	return desc
}

func (r *semRun) permitForget(d *decoder) string {
	pm, i := r.pickPermit(d)
	if pm == nil {
		return "permit Forget (no permit)"
	}
	got, want := pm.p.Forget(), pm.n
	pm.n = 0
	r.tl.hit("Forget", fmt.Sprint(want != 0))
	r.sameN(fmt.Sprintf("permit #%d Forget()", i), got, want)
	return fmt.Sprintf("permit #%d Forget() (held %d)", i, want)
}
