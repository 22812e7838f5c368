package fuzz_test

import (
	"fmt"

	"github.com/evsync/evsync/semaphore"
)

// The permit operations of FuzzLimiter. The model has no permits: a
// permit is the units it holds, kept next to it in the run, and its
// Release is the model's Release of them.

// limPermit is a permit and the units the model says it holds.
type limPermit struct {
	p *semaphore.Permit
	n int
}

// keepPermit checks a permit just returned for n units and keeps it, up
// to maxKept permits; later ones are held untracked (as if forgotten).
func (r *limRun) keepPermit(what string, p *semaphore.Permit, n int) {
	if got := p.N(); got != n {
		r.fail("%s: permit N() = %d, want %d", what, got, n)
	}
	if len(r.permits) < maxKept {
		r.permits = append(r.permits, &limPermit{p, n})
	}
}

// checkPermits compares each kept permit's N with the model's.
func (r *limRun) checkPermits(desc string) {
	for i, pm := range r.permits {
		if got := pm.p.N(); got != pm.n {
			r.fail("after %s: permit #%d N() = %d, model %d", desc, i, got, pm.n)
		}
	}
}

// pickPermit decodes the index of a kept permit; with none kept it reads
// the byte and returns nil.
func (r *limRun) pickPermit(d *decoder) (*limPermit, int) {
	if len(r.permits) == 0 {
		d.byte()
		return nil, -1
	}
	i := d.choice(len(r.permits))
	return r.permits[i], i
}

func (r *limRun) acquirePermit(d *decoder) string {
	k := d.ctx()
	return r.acquire(k, r.amount(d), parkPermit)
}

// acquirePermitNow makes an AcquirePermit that does not wait, whose model
// result is want, and keeps the permit it returns.
func (r *limRun) acquirePermitNow(desc string, k ctxKind, n int, want error) {
	p := new(semaphore.Permit)
	var err error
	*p, err = r.l.AcquirePermit(k.context(), n)
	r.sameErr(desc, err, want)
	if err == nil {
		r.keepPermit(desc, p, n)
	} else {
		r.sameN(desc+": the permit's N()", p.N(), 0)
	}
}

func (r *limRun) tryAcquirePermit(d *decoder) string {
	n := r.amount(d)
	desc := fmt.Sprintf("TryAcquirePermit(%d)", n)
	p := new(semaphore.Permit)
	var ok bool
	*p, ok = r.l.TryAcquirePermit(n)
	want, _ := r.modelTry(n)
	r.tl.hit("TryAcquirePermit", r.bargeOutcome(fmt.Sprint(want), want && n > 0))
	r.same(desc, ok, want)
	if ok {
		r.keepPermit(desc, p, n)
	} else {
		r.sameN(desc+": the permit's N()", p.N(), 0)
	}
	return desc
}

// modelRelease is Permit.Release in the model: false, changing nothing,
// for a permit that holds nothing or whose units the limiter refuses as
// an over-release (a stray Release gave them back first: the permit
// keeps them); otherwise the units go back.
func (r *limRun) modelRelease(pm *limPermit) bool {
	if pm.n == 0 || r.m.Release(pm.n) != nil {
		return false
	}
	r.noticed = true
	r.serve()
	pm.n = 0
	return true
}

// releaseOutcome names a permit Release of held units for the tally.
func releaseOutcome(held int, want bool) string {
	switch {
	case want:
		return "true"
	case held == 0:
		return "false, nothing held"
	}
	return "false, over-release"
}

func (r *limRun) permitRelease(d *decoder) string {
	pm, i := r.pickPermit(d)
	if pm == nil {
		return "permit Release (no permit)"
	}
	held := pm.n
	want := r.modelRelease(pm)
	r.tl.hit("PermitRelease", releaseOutcome(held, want))
	r.same(fmt.Sprintf("Release() of permit #%d holding %d", i, held), pm.p.Release(), want)
	return fmt.Sprintf("permit #%d Release() (held %d)", i, held)
}

// permitReleaseTwice releases one permit twice in a row, the cleanup
// path of a deferred Release after an explicit one: where the model says
// a Release gives the units back, the first must and the second must
// not; else neither.
func (r *limRun) permitReleaseTwice(d *decoder) string {
	pm, i := r.pickPermit(d)
	if pm == nil {
		return "two permit Releases (no permit)"
	}
	held := pm.n
	want := r.modelRelease(pm)
	a, b := pm.p.Release(), pm.p.Release()
	r.tl.hit("PermitReleaseTwice", releaseOutcome(held, want))
	if b || a != want {
		r.fail("two Releases of permit #%d holding %d = %v, %v; model: the first gives back = %v", i, held, a, b, want)
	}
	return fmt.Sprintf("permit #%d Release() twice (held %d)", i, held)
}

func (r *limRun) permitSplit(d *decoder) string {
	pm, i := r.pickPermit(d)
	if pm == nil {
		d.byte()
		return "permit Split (no permit)"
	}
	k := int(d.amount(uint64(pm.n), uint64(pm.n), 1))
	desc := fmt.Sprintf("permit #%d (holding %d) Split(%d)", i, pm.n, k)
	q := new(semaphore.Permit)
	var err error
	*q, err = pm.p.Split(k)
	var want error
	if k <= 0 || k > pm.n {
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

func (r *limRun) permitMerge(d *decoder) string {
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

// mergeForeign merges into permit i a permit of another limiter. Merge
// must refuse it, leaving both as they were, while permit i holds units.
// A permit that holds nothing takes the other's units (and limiter),
// which its Release then gives back there.
func (r *limRun) mergeForeign(pm *limPermit, i int) string {
	other := semaphore.NewLimiter(1)
	q, _ := other.TryAcquirePermit(1)
	desc := fmt.Sprintf("permit #%d (holding %d) Merge(a permit of another limiter)", i, pm.n)
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
	r.sameN(desc+": the other limiter's free units", other.Stats().Free, 1)
	return desc
}

func (r *limRun) permitForget(d *decoder) string {
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
