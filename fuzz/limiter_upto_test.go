package fuzz_test

import (
	"fmt"

	"github.com/evsync/evsync/semaphore"
)

// The up-to operations of FuzzLimiter: AcquireUpTo, TryAcquireUpTo and
// their permit forms. A parked one is served by the run's serve, at the
// head of its queue, once a unit is free.

func (r *limRun) acquireUpToStep(d *decoder) string {
	k := d.ctx()
	return r.acquireUpTo(k, r.amount(d), parkUpTo)
}

func (r *limRun) acquirePermitUpToStep(d *decoder) string {
	k := d.ctx()
	return r.acquireUpTo(k, r.amount(d), parkPermitUpTo)
}

// upToWaits reports whether AcquireUpTo(max) with a live context would
// wait: max is above 0 and the limiter is open, with no unit free or
// acquirers queued that it may not barge past.
func (r *limRun) upToWaits(max int) bool {
	return max > 0 && !r.m.Closed() && (!r.barges() || r.m.Free() == 0)
}

// acquireUpTo makes an AcquireUpTo or an AcquirePermitUpTo (kind) of up
// to max units.
func (r *limRun) acquireUpTo(k ctxKind, max int, kind parkKind) string {
	op := kindName(kind)
	desc := fmt.Sprintf("%s(%v, %d)", op, k, max)
	switch {
	case k == ctxLive && r.upToWaits(max) && len(r.parked) < maxParked:
		r.park(kind, max)
		return desc + " parked"
	case k == ctxLive && r.upToWaits(max):
		k = ctxCancelled // too many parked already
	}
	want, werr := 0, semaphore.ErrInvalid
	if k != ctxNil {
		want, werr = r.m.AcquireUpTo(k.model(), max)
		werr = cancelledErr(werr)
	}
	outcome := errName(werr)
	if werr == semaphore.ErrClosed && r.m.Free() != 0 {
		outcome = "ErrClosed with units free"
	}
	r.tl.hit(op, r.bargeOutcome(outcome, want > 0))
	p := new(semaphore.Permit)
	var got int
	var err error
	if kind == parkPermitUpTo {
		*p, err = r.l.AcquirePermitUpTo(k.context(), max)
		got = p.N()
	} else {
		got, err = r.l.AcquireUpTo(k.context(), max)
	}
	r.sameErr(desc, err, werr)
	r.sameN(desc, got, want)
	if kind == parkPermitUpTo && err == nil {
		r.keepPermit(desc, p, want)
	}
	return desc
}

// modelTryUpTo is TryAcquireUpTo(max) in the run's model, and its outcome
// for the tally: it takes nothing ahead of acquirers it may not barge
// past.
func (r *limRun) modelTryUpTo(max int) (int, string) {
	switch {
	case max > 0 && !r.barges():
		return 0, "none, queued"
	case max > 0 && r.m.Closed() && r.m.Free() != 0:
		return r.m.TryAcquireUpTo(max), "none, closed with units free"
	}
	n := r.m.TryAcquireUpTo(max)
	if n == 0 {
		return 0, "none"
	}
	return n, r.bargeOutcome("some", true)
}

func (r *limRun) tryAcquireUpTo(d *decoder) string {
	max := r.amount(d)
	desc := fmt.Sprintf("TryAcquireUpTo(%d)", max)
	want, outcome := r.modelTryUpTo(max)
	r.tl.hit("TryAcquireUpTo", outcome)
	r.sameN(desc, r.l.TryAcquireUpTo(max), want)
	return desc
}

func (r *limRun) tryAcquirePermitUpTo(d *decoder) string {
	max := r.amount(d)
	desc := fmt.Sprintf("TryAcquirePermitUpTo(%d)", max)
	want, outcome := r.modelTryUpTo(max)
	r.tl.hit("TryAcquirePermitUpTo", outcome)
	p := new(semaphore.Permit)
	*p = r.l.TryAcquirePermitUpTo(max)
	r.sameN(desc+": the permit's N()", p.N(), want)
	if want != 0 {
		r.keepPermit(desc, p, want)
	}
	return desc
}
