package fuzz_test

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"

	"github.com/evsync/evsync/internal/model"
	"github.com/evsync/evsync/internal/testkit"
	"github.com/evsync/evsync/semaphore"
)

// FuzzSemaphore makes the decoded operations on a Semaphore and on the
// model, one at a time, inside a synctest bubble, and compares every
// result, Count, Stats, String, each Reservation's Done and Err, each
// Ready channel and each parked Acquire after every step.
//
// Input: a construction byte ('0' the zero value, '1' New with the
// default limit, '2'… New with WithLimit of semLimits[i-2]), an amount
// for the initial count (capped at the limit), then operations, each a
// letter of semCodes with its operands:
//
//	A ctx n   Acquire(ctx, n); a live context parks the call in a
//	          goroutine when the model says it would wait (the model
//	          then holds it as a queued reservation)
//	T n       TryAcquire(n)
//	R n       Release(n)
//	W ctx n   ReleaseWait(ctx, n); a live context is used only where
//	          the model says it completes at once (else cancelled)
//	V n       Reserve(n)
//	X i       Cancel of reservation i
//	K i       cancel the context of parked Acquire i
//	Y         Ready
//	C         Close
//	L i n     cancel the context of parked Acquire i and Release(n) at
//	          once, before that goroutine has necessarily run: the units
//	          must go past it, to those behind it (a granter never hands
//	          units to a waiter whose context is done)
func FuzzSemaphore(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) { runSemaphore(t, data, nil) })
}

const semCodes = "ATRWVXKYCL"

var semLimits = []uint64{1, 2, 3, 5, 8, 1 << 32, semaphore.Max - 1, 1 << 63, semaphore.Max}

// semRun is one decoded run.
type semRun struct {
	trail
	tl     tally
	s      *semaphore.Semaphore
	m      *model.Counter
	resv   []semResv
	parked []*semParked
	ready  readyList
}

type semResv struct {
	r *semaphore.Reservation
	m *model.Reservation
}

// semParked is an Acquire blocked in a goroutine of the bubble, and the
// queued reservation that stands for it in the model.
type semParked struct {
	m      *model.Reservation
	cancel context.CancelFunc
	res    chan result
	done   bool // returned, and checked
}

func runSemaphore(t *testing.T, data []byte, tl tally) {
	synctest.Test(t, func(t *testing.T) {
		d := &decoder{data: data}
		r := &semRun{trail: trail{t: t}, tl: tl}
		r.construct(d)
		defer r.stop()
		for d.more() {
			desc := r.step(d)
			synctest.Wait() // parked calls settle
			r.check(desc)
			r.add(desc)
		}
	})
}

// stop frees every parked goroutine, so that the bubble can end even
// after a failure.
func (r *semRun) stop() {
	r.s.Close()
	for _, p := range r.parked {
		p.cancel()
	}
}

func (r *semRun) construct(d *decoder) {
	c := d.choice(2 + len(semLimits))
	initial := d.amount(0, semaphore.Max, 1)
	switch c {
	case 0:
		r.s, r.m = new(semaphore.Semaphore), model.NewSemaphore(0, semaphore.Max)
		r.tl.hit("New", "zero value")
	case 1:
		initial = min(initial, semaphore.Max)
		r.s, r.m = semaphore.New(initial), model.NewSemaphore(initial, semaphore.Max)
		r.tl.hit("New", "default limit")
	default:
		limit := semLimits[c-2]
		initial = min(initial, limit)
		r.s = semaphore.New(initial, semaphore.WithLimit(limit))
		r.m = model.NewSemaphore(initial, limit)
		r.tl.hit("New", "WithLimit")
	}
}

// head is the need of the first queued acquirer, 1 if there is none.
func (r *semRun) head() uint64 {
	if q := r.m.Queue(); len(q) != 0 {
		return q[0]
	}
	return 1
}

func (r *semRun) amount(d *decoder) uint64 { return d.amount(r.m.Count(), r.m.Limit(), r.head()) }

// step decodes and makes one operation; it returns its description for
// failure reports.
func (r *semRun) step(d *decoder) string {
	switch d.op(semCodes) {
	case 0:
		k := d.ctx()
		n := r.amount(d)
		return r.acquire(k, n)
	case 1:
		n := r.amount(d)
		got, want := r.s.TryAcquire(n), r.m.TryAcquire(n)
		r.tl.hit("TryAcquire", fmt.Sprint(want))
		r.same("TryAcquire", got, want)
		return fmt.Sprintf("TryAcquire(%d)", n)
	case 2:
		n := r.amount(d)
		err, want := r.s.Release(n), r.m.Write(n)
		r.tl.err("Release", want)
		r.sameErr("Release", err, want)
		return fmt.Sprintf("Release(%d)", n)
	case 3:
		k := d.ctx()
		n := r.amount(d)
		return r.releaseWait(k, n)
	case 4:
		return r.reserve(r.amount(d))
	case 5:
		return r.cancelReservation(d)
	case 6:
		return r.cancelParked(d)
	case 7:
		r.tl.hit("Ready", r.ready.add(&r.trail, r.m, r.s.Ready()))
		return "Ready()"
	case 9:
		return r.cancelThenRelease(d)
	}
	r.s.Close()
	r.m.Close()
	r.tl.hit("Close", "ok")
	return "Close()"
}

// wouldWait reports, without changing the model, whether Acquire(n) would
// wait: n is within the limit and not 0, and the counter is open with
// others queued or fewer than n units.
func (r *semRun) wouldWait(n uint64) bool {
	m := r.m
	return n <= m.Limit() && n != 0 && !m.Closed() && (m.Waiting() != 0 || n > m.Count())
}

func (r *semRun) acquire(k ctxKind, n uint64) string {
	desc := fmt.Sprintf("Acquire(%v, %d)", k, n)
	switch {
	case k == ctxNil:
		r.tl.err("Acquire", semaphore.ErrInvalid)
		r.sameErr("Acquire(nil)", r.s.Acquire(nilCtx, n), semaphore.ErrInvalid)
	case k == ctxLive && r.wouldWait(n) && len(r.parked) < maxParked:
		r.park(n)
		desc += " parked"
	default:
		if k == ctxLive && r.wouldWait(n) {
			k = ctxCancelled // too many parked already
		}
		want := cancelledErr(r.m.Acquire(k.model(), n))
		r.tl.err("Acquire", want)
		r.sameErr("Acquire", r.s.Acquire(k.context(), n), want)
	}
	return desc
}

// park starts Acquire(ctx, n) in a goroutine with a context that
// cancelParked can end; the model queues a reservation for it.
func (r *semRun) park(n uint64) {
	mr, err := r.m.Reserve(n)
	if err != nil || mr.Done() {
		r.fail("model Reserve(%d) = %v, %v for a call that waits", n, mr, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &semParked{m: mr, cancel: cancel, res: make(chan result, 1)}
	go func() { p.res <- result{err: r.s.Acquire(ctx, n)} }()
	r.parked = append(r.parked, p)
	r.tl.hit("Acquire", "parked")
}

// cancelParked cancels the context of a parked Acquire. One still waiting
// must return context.Canceled and leave the queue; one that has returned
// is not affected.
func (r *semRun) cancelParked(d *decoder) string {
	if len(r.parked) == 0 {
		d.byte()
		return "cancel parked (none)"
	}
	i := d.choice(len(r.parked))
	p := r.parked[i]
	p.cancel()
	synctest.Wait()
	if p.done {
		r.tl.hit("CancelParked", "after return")
		return fmt.Sprintf("cancel parked #%d (returned)", i)
	}
	res, ok := settled(p.res)
	if !ok {
		r.fail("Acquire still waiting after its context was cancelled")
	}
	if !p.m.Cancel() {
		r.fail("model Cancel of a pending reservation failed")
	}
	p.done = true
	r.tl.err("Parked Acquire", res.err)
	r.sameErr("parked Acquire after cancel", res.err, context.Canceled)
	return fmt.Sprintf("cancel parked #%d", i)
}

// cancelThenRelease cancels a parked Acquire that is still waiting and
// releases n units straight away.
func (r *semRun) cancelThenRelease(d *decoder) string {
	var waiting []*semParked
	for _, p := range r.parked {
		if !p.done {
			waiting = append(waiting, p)
		}
	}
	var p *semParked
	if len(waiting) != 0 {
		p = waiting[d.choice(len(waiting))]
	} else {
		d.byte()
	}
	n := r.amount(d)
	if p != nil {
		p.cancel()
		if !p.m.Cancel() {
			r.fail("model Cancel of a pending reservation failed")
		}
	}
	err, want := r.s.Release(n), r.m.Write(n)
	r.tl.err("CancelThenRelease", want)
	r.sameErr(fmt.Sprintf("Release(%d) right after a cancel", n), err, want)
	if p == nil {
		return fmt.Sprintf("Release(%d) (nothing to cancel)", n)
	}
	synctest.Wait()
	res, ok := settled(p.res)
	if !ok {
		r.fail("Acquire still waiting after its context was cancelled")
	}
	p.done = true
	r.tl.err("Parked Acquire", res.err)
	r.sameErr("parked Acquire cancelled before a Release", res.err, context.Canceled)
	return fmt.Sprintf("cancel a parked Acquire (for %d), then Release(%d)", p.m.Need(), n)
}

func (r *semRun) releaseWait(k ctxKind, n uint64) string {
	desc := fmt.Sprintf("ReleaseWait(%v, %d)", k, n)
	if k == ctxNil {
		r.tl.err("ReleaseWait", semaphore.ErrInvalid)
		r.sameErr("ReleaseWait(nil)", r.s.ReleaseWait(nilCtx, n), semaphore.ErrInvalid)
		return desc
	}
	want := r.m.WriteWait(k.model(), n)
	if want == semaphore.ErrWouldBlock {
		k = ctxCancelled // a parked writer is not modelled
	}
	want = cancelledErr(want)
	r.tl.err("ReleaseWait", want)
	r.sameErr("ReleaseWait", r.s.ReleaseWait(k.context(), n), want)
	return desc
}

func (r *semRun) reserve(n uint64) string {
	rv, err := r.s.Reserve(n)
	mr, want := r.m.Reserve(n)
	outcome := errName(want)
	if mr != nil && !mr.Done() {
		outcome = "pending"
	}
	r.tl.hit("Reserve", outcome)
	r.sameErr("Reserve", err, want)
	if (rv == nil) != (mr == nil) {
		r.fail("Reserve(%d) returned a reservation: %v, model %v", n, rv != nil, mr != nil)
	}
	if rv != nil && len(r.resv) < maxKept {
		r.resv = append(r.resv, semResv{rv, mr})
	} else if rv != nil {
		// Too many kept: give this one up at once, checking the answer.
		r.same("Cancel of an unkept reservation", rv.Cancel(), mr.Cancel())
	}
	return fmt.Sprintf("Reserve(%d)", n)
}

func (r *semRun) cancelReservation(d *decoder) string {
	if len(r.resv) == 0 {
		d.byte()
		return "Cancel (no reservation)"
	}
	i := d.choice(len(r.resv))
	p := r.resv[i]
	got, want := p.r.Cancel(), p.m.Cancel()
	r.tl.hit("Cancel", fmt.Sprint(want))
	r.same(fmt.Sprintf("Cancel() of reservation #%d for %d", i, p.m.Need()), got, want)
	return fmt.Sprintf("reservation #%d Cancel()", i)
}

// check compares everything observable with the model after a step.
func (r *semRun) check(desc string) {
	m := r.m
	validate(&r.trail, m)
	if got := r.s.Count(); got != m.Count() {
		r.fail("after %s: Count() = %d, model %d", desc, got, m.Count())
	}
	want := semaphore.Stats{Count: m.Count(), Limit: m.Limit(), Waiting: m.Waiting(), Closed: m.Closed()}
	if st := r.s.Stats(); st != want {
		r.fail("after %s: Stats() = %+v, model %+v", desc, st, want)
	}
	if s := r.s.String(); s != want.String() {
		r.fail("after %s: String() = %q, want %q", desc, s, want.String())
	}
	for i, p := range r.resv {
		if got, want := testkit.IsClosed(p.r.Done()), p.m.Done(); got != want {
			r.fail("after %s: reservation #%d Done() closed = %v, model %v", desc, i, got, want)
		}
		if got, want := p.r.Err(), p.m.Err(); got != want {
			r.fail("after %s: reservation #%d Err() = %v, model %v", desc, i, got, want)
		}
	}
	r.checkParked(desc)
	r.ready.check(&r.trail, m)
}

// checkParked checks each parked Acquire: it has returned exactly when the
// model's reservation for it is settled, with nil if granted and ErrClosed
// if refused.
func (r *semRun) checkParked(desc string) {
	for i, p := range r.parked {
		if p.done {
			continue
		}
		res, ok := settled(p.res)
		if ok != p.m.Done() {
			r.fail("after %s: parked Acquire #%d (for %d) returned = %v (%v), model settled = %v",
				desc, i, p.m.Need(), ok, res.err, p.m.Done())
		}
		if ok {
			p.done = true
			r.tl.err("Parked Acquire", res.err)
			r.sameErr(fmt.Sprintf("after %s: parked Acquire #%d", desc, i), res.err, p.m.Err())
		}
	}
}

func (r *semRun) sameErr(what string, got, want error) {
	if got != want {
		r.fail("%s = %v, model %v", what, got, want)
	}
}

func (r *semRun) same(what string, got, want bool) {
	if got != want {
		r.fail("%s = %v, model %v", what, got, want)
	}
}

// String names a context choice in failure reports.
func (k ctxKind) String() string {
	switch k {
	case ctxLive:
		return "live"
	case ctxCancelled:
		return "cancelled"
	}
	return "nil"
}
