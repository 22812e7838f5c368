package fuzz_test

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/model"
	"github.com/evsync/evsync/semaphore"
)

// FuzzSemaphore makes the decoded operations on a Semaphore and on the
// model, one at a time, inside a synctest bubble, and compares every
// result, Count, Stats (with Debt), String, each Reservation's Done and
// Err, each Ready and Writable channel and each parked call after every
// step. Permits belong to a Limiter now: FuzzLimiter checks them.
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
//	K i       cancel the context of parked call i (of any kind)
//	Y         Ready
//	C         Close
//	L i n     cancel the context of parked Acquire i and Release(n) at
//	          once, before that goroutine has necessarily run: the units
//	          must go past it, to those behind it (a granter never hands
//	          units to a waiter whose context is done); i counts the
//	          parked acquirers still waiting, not the parked Drains
//	S i       SetLimit(limit i of semNewLimits: 0, 1, 2, limit-1, limit,
//	          limit+1, limit+3, limit-count-1, Max, 1<<64-1)
//	E         TakeAll
//	U ctx n   AcquireUpTo(ctx, n); with a live context it parks where
//	          the model says it would wait and n is 1 (the model holds
//	          it as a reservation for one unit, which is what it waits
//	          for); a waiter for up to n > 1 units is not modelled (a
//	          reservation has a fixed need), so it is made with a
//	          cancelled context instead
//	D ctx     Drain(ctx); a live context parks the call where the model
//	          says it would wait: it must return nil exactly once the
//	          model's count is at its limit after a step
//	O         Writable
//	Z i       sleep in the bubble (limSleep's choices), which only
//	          FuzzSemaphoreEventual's semaphore reads
//
// A byte that is no letter is one of the first ten operations (its value
// modulo 10), as in the original grammar. The permit letters (P Q G B H J
// F) left with the permits: they now read as such bytes.
func FuzzSemaphore(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) { runSemaphore(t, data, nil) })
}

// FuzzSemaphoreEventual is FuzzSemaphore on a Semaphore made with
// WithEventualFairness(limFuzzBound), against model.NewEventualSemaphore.
// The zero value, which is strict, is New with the default limit here.
// Its seeds are its own corpus and FuzzSemaphore's. The model's queue
// holds the parked acquirers as reservations, so its Barging rules are
// theirs too. After synctest.Wait a waiter woken to take its units has
// run, so the model's hand-off stands for it.
func FuzzSemaphoreEventual(f *testing.F) {
	addCorpus(f, "FuzzSemaphore")
	f.Fuzz(func(t *testing.T, data []byte) { runSemaphoreMode(t, data, nil, limFuzzBound) })
}

// runEventualSemaphore is FuzzSemaphoreEventual's run, for the corpus
// tests.
func runEventualSemaphore(t *testing.T, data []byte, tl tally) {
	runSemaphoreMode(t, data, tl, limFuzzBound)
}

// semCodes names the operations, in the order of semSteps. The first
// semFirstCodes letters are the original grammar; a byte that is no
// letter picks one of those, as it did before the others were added, so
// that the committed corpus decodes as it did. New letters go at the end.
const (
	semCodes      = "ATRWVXKYCL" + "SEUDO" + "Z"
	semFirstCodes = 10
)

// semSteps makes the operation of each letter of semCodes.
var semSteps = [...]func(*semRun, *decoder) string{
	(*semRun).acquireStep, (*semRun).tryAcquire, (*semRun).release, (*semRun).releaseWaitStep,
	(*semRun).reserveStep, (*semRun).cancelReservation, (*semRun).cancelParked, (*semRun).readyStep,
	(*semRun).closeStep, (*semRun).cancelThenRelease,
	(*semRun).setLimit, (*semRun).takeAll, (*semRun).acquireUpTo, (*semRun).drain, (*semRun).writableStep,
	(*semRun).sleep,
}

// One step per letter: a compile-time check.
var _ = [1]struct{}{}[len(semSteps)-len(semCodes)]

var semLimits = []uint64{1, 2, 3, 5, 8, 1 << 32, semaphore.Max - 1, 1 << 63, semaphore.Max}

// semRun is one decoded run.
type semRun struct {
	trail
	tl       tally
	s        *semaphore.Semaphore
	m        *model.Counter
	resv     []semResv
	parked   []*semParked
	ready    readyList
	writable readyList
	bound    time.Duration // the eventual-fairness bound, or 0 for strict FIFO
	// servedParked: in this step a parked acquirer returned with its
	// units. In the eventual mode the write that freed them woke it to
	// take them, and they were in the count meanwhile: a Ready channel
	// may have fired where the model, which hands them over, says not.
	servedParked bool
}

type semResv struct {
	r *semaphore.Reservation
	m *model.Reservation
}

// parkKind is the call a parked goroutine makes.
type parkKind uint8

const (
	parkAcquire parkKind = iota
	parkUpTo             // AcquireUpTo(ctx, 1)
	parkDrain
)

func (k parkKind) String() string {
	return [...]string{"Acquire", "AcquireUpTo", "Drain"}[k]
}

// semParked is a call blocked in a goroutine of the bubble. An acquirer
// has the queued reservation that stands for it in the model; a Drain has
// none, since it changes nothing: the model's Drain says when it is done.
type semParked struct {
	kind   parkKind
	m      *model.Reservation // nil for a Drain
	cancel context.CancelFunc
	res    chan result
	done   bool // returned, and checked
}

func runSemaphore(t *testing.T, data []byte, tl tally) { runSemaphoreMode(t, data, tl, 0) }

// runSemaphoreMode makes the run of data on a Semaphore with the
// eventual-fairness bound, or a strict one for 0.
func runSemaphoreMode(t *testing.T, data []byte, tl tally, bound time.Duration) {
	synctest.Test(t, func(t *testing.T) {
		d := &decoder{data: data}
		r := &semRun{trail: trail{t: t}, tl: tl, writable: readyList{out: true}, bound: bound}
		r.construct(d)
		defer r.stop()
		for d.more() {
			r.servedParked = false
			desc := semSteps[d.opFirst(semCodes, semFirstCodes)](r, d)
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
	switch {
	case c == 0 && r.bound == 0:
		r.s, r.m = new(semaphore.Semaphore), model.NewSemaphore(0, semaphore.Max)
		r.tl.hit("New", "zero value")
	case c <= 1:
		initial = min(initial, semaphore.Max)
		if c == 0 {
			initial = 0
		}
		r.s, r.m = semaphore.New(initial, r.opts()...), r.model(initial, semaphore.Max)
		r.tl.hit("New", "default limit")
	default:
		limit := semLimits[c-2]
		initial = min(initial, limit)
		r.s = semaphore.New(initial, append(r.opts(), semaphore.WithLimit(limit))...)
		r.m = r.model(initial, limit)
		r.tl.hit("New", "WithLimit")
	}
}

// opts are the run's options of New: the eventual mode's, or none.
func (r *semRun) opts() []semaphore.Option {
	if r.bound == 0 {
		return nil
	}
	return []semaphore.Option{semaphore.WithEventualFairness(r.bound)}
}

// model is the run's model of New(initial) with limit, in its mode.
func (r *semRun) model(initial, limit uint64) *model.Counter {
	if r.bound == 0 {
		return model.NewSemaphore(initial, limit)
	}
	return model.NewEventualSemaphore(initial, limit, r.bound)
}

// sleep is Z: the bubble's clock and the model's move on by one of
// limSleep's choices. It serves nobody.
func (r *semRun) sleep(d *decoder) string {
	toBound := time.Duration(0)
	if ages := r.m.Ages(); len(ages) != 0 {
		toBound = max(0, limFuzzBound-ages[0])
	}
	table := [limSleeps]time.Duration{0, 1, limFuzzBound, limFuzzBound + 1, toBound, toBound + 1}
	dur := table[d.choice(limSleeps)]
	time.Sleep(dur)
	synctest.Wait()
	r.m.Advance(dur)
	outcome := "nobody queued"
	if ages := r.m.Ages(); len(ages) != 0 && ages[0] > limFuzzBound {
		outcome = "head past the bound"
	} else if len(ages) != 0 {
		outcome = "head within the bound"
	}
	r.tl.hit("Sleep", outcome)
	return fmt.Sprintf("sleep(%v)", dur)
}

// head is the need of the first queued acquirer, 1 if there is none.
func (r *semRun) head() uint64 {
	if q := r.m.Queue(); len(q) != 0 {
		return q[0]
	}
	return 1
}

func (r *semRun) amount(d *decoder) uint64 { return d.amount(r.m.Count(), r.m.Limit(), r.head()) }

func (r *semRun) acquireStep(d *decoder) string {
	k := d.ctx()
	return r.acquire(k, r.amount(d))
}

func (r *semRun) tryAcquire(d *decoder) string {
	n := r.amount(d)
	got, want := r.s.TryAcquire(n), r.m.TryAcquire(n)
	r.tl.hit("TryAcquire", fmt.Sprint(want))
	r.same("TryAcquire", got, want)
	return fmt.Sprintf("TryAcquire(%d)", n)
}

func (r *semRun) release(d *decoder) string {
	n := r.amount(d)
	err, want := r.s.Release(n), r.m.Write(n)
	r.tl.err("Release", want)
	r.sameErr("Release", err, want)
	return fmt.Sprintf("Release(%d)", n)
}

func (r *semRun) releaseWaitStep(d *decoder) string {
	k := d.ctx()
	return r.releaseWait(k, r.amount(d))
}

func (r *semRun) reserveStep(d *decoder) string { return r.reserve(r.amount(d)) }

func (r *semRun) readyStep(*decoder) string {
	r.tl.hit("Ready", r.ready.add(&r.trail, r.m, r.s.Ready()))
	return "Ready()"
}

func (r *semRun) writableStep(*decoder) string {
	r.tl.hit("Writable", r.writable.add(&r.trail, r.m, r.s.Writable()))
	return "Writable()"
}

func (r *semRun) closeStep(*decoder) string {
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
	return n <= m.Limit() && n != 0 && !m.Closed() && (!m.Barges() || n > m.Count())
}

func (r *semRun) acquire(k ctxKind, n uint64) string {
	desc := fmt.Sprintf("Acquire(%v, %d)", k, n)
	switch {
	case k == ctxNil:
		r.tl.err("Acquire", semaphore.ErrInvalid)
		r.sameErr("Acquire(nil)", r.s.Acquire(nilCtx, n), semaphore.ErrInvalid)
	case k == ctxLive && r.wouldWait(n) && len(r.parked) < maxParked:
		r.park(parkAcquire, n)
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

// park starts a call of the given kind in a goroutine with a context
// that cancelParked can end; for an acquirer of n units the model queues
// a reservation of n.
func (r *semRun) park(kind parkKind, n uint64) {
	p := &semParked{kind: kind, res: make(chan result, 1)}
	if kind != parkDrain {
		mr, err := r.m.Reserve(n)
		if err != nil || mr.Done() {
			r.fail("model Reserve(%d) = %v, %v for a call that waits", n, mr, err)
		}
		p.m = mr
	}
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	go func() { p.res <- r.parkedCall(ctx, p, n) }()
	r.parked = append(r.parked, p)
	r.tl.hit(kind.String(), "parked")
}

// parkedCall is the call a parked goroutine makes.
func (r *semRun) parkedCall(ctx context.Context, p *semParked, n uint64) result {
	switch p.kind {
	case parkUpTo:
		v, err := r.s.AcquireUpTo(ctx, n)
		return result{v, err}
	case parkDrain:
		return result{err: r.s.Drain(ctx)}
	}
	return result{err: r.s.Acquire(ctx, n)}
}

// cancelParked cancels the context of a parked call. One still waiting
// must return context.Canceled (an acquirer leaves the queue); one that
// has returned is not affected.
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
	if p.m != nil && !p.m.Cancel() {
		r.fail("model Cancel of a pending reservation failed")
	}
	r.cancelledResult(p, "after cancel")
	return fmt.Sprintf("cancel parked #%d", i)
}

// cancelledResult checks that the parked call p, whose context was
// cancelled while it waited, has returned context.Canceled.
func (r *semRun) cancelledResult(p *semParked, when string) {
	res, ok := settled(p.res)
	if !ok {
		r.fail("parked %v still waiting after its context was cancelled", p.kind)
	}
	p.done = true
	r.tl.err("Parked "+p.kind.String(), res.err)
	r.sameErr(fmt.Sprintf("parked %v %s", p.kind, when), res.err, context.Canceled)
}

// cancelThenRelease cancels a parked acquirer that is still waiting and
// releases n units straight away.
func (r *semRun) cancelThenRelease(d *decoder) string {
	var waiting []*semParked
	for _, p := range r.parked {
		if !p.done && p.m != nil {
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
	r.cancelledResult(p, "cancelled before a Release")
	return fmt.Sprintf("cancel a parked %v (for %d), then Release(%d)", p.kind, p.m.Need(), n)
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

// newLimit decodes SetLimit's operand, an index into the limits around
// the current state: 0 and 1<<64-1 are out of range, limit-1 is 0 at a
// limit of 1, limit+1 is out of range at Max, limit-count-1 is a cut one
// unit past what is free (a debt of one), and 1 or 2 below a parked
// Acquire's need is refused.
func (r *semRun) newLimit(d *decoder) uint64 {
	l, c := r.m.Limit(), r.m.Count()
	table := [...]uint64{0, 1, 2, l - 1, l, l + 1, l + 3, l - c - 1, semaphore.Max, 1<<64 - 1}
	return table[d.choice(len(table))]
}

func (r *semRun) setLimit(d *decoder) string {
	limit := r.newLimit(d)
	old, debt := r.m.Limit(), r.m.Debt()
	err, want := r.s.SetLimit(limit), r.m.SetLimit(limit)
	r.sameErr(fmt.Sprintf("SetLimit(%d)", limit), err, want)
	outcome := errName(want)
	switch {
	case want != nil:
	case r.m.Debt() > debt:
		outcome = "cut into debt"
	case limit > old:
		outcome = "raise"
	case limit < old:
		outcome = "cut"
	default:
		outcome = "same"
	}
	r.tl.hit("SetLimit", outcome)
	return fmt.Sprintf("SetLimit(%d)", limit)
}

func (r *semRun) takeAll(*decoder) string {
	queued := r.m.Waiting() != 0
	got, want := r.s.TakeAll(), r.m.TakeAll()
	switch {
	case queued && want != 0:
		r.tl.hit("TakeAll", "some, barged")
	case queued:
		r.tl.hit("TakeAll", "queued")
	case want == 0:
		r.tl.hit("TakeAll", "none")
	default:
		r.tl.hit("TakeAll", "some")
	}
	if got != want {
		r.fail("TakeAll() = %d, model %d", got, want)
	}
	return "TakeAll()"
}

// upToWaits reports, without changing the model, whether
// AcquireUpTo(max) would wait: max is not 0 and the counter is open with
// others queued or no unit.
func (r *semRun) upToWaits(max uint64) bool {
	m := r.m
	return max != 0 && !m.Closed() && (!m.Barges() || m.Count() == 0)
}

func (r *semRun) acquireUpTo(d *decoder) string {
	k := d.ctx()
	max := r.amount(d)
	desc := fmt.Sprintf("AcquireUpTo(%v, %d)", k, max)
	if k == ctxNil {
		got, err := r.s.AcquireUpTo(nilCtx, max)
		r.tl.err("AcquireUpTo", semaphore.ErrInvalid)
		r.sameErr("AcquireUpTo(nil)", err, semaphore.ErrInvalid)
		r.sameN("AcquireUpTo(nil)", got, 0)
		return desc
	}
	if k == ctxLive && r.upToWaits(max) {
		if max == 1 && len(r.parked) < maxParked {
			r.park(parkUpTo, 1)
			return desc + " parked"
		}
		k = ctxCancelled // a waiter for up to more than one unit is not modelled
	}
	want, werr := r.m.AcquireUpTo(k.model(), max)
	if werr == semaphore.ErrWouldBlock {
		r.fail("model AcquireUpTo(%d) waits where upToWaits says it does not", max)
	}
	got, err := r.s.AcquireUpTo(k.context(), max)
	r.tl.err("AcquireUpTo", werr)
	r.sameErr("AcquireUpTo", err, werr)
	r.sameN("AcquireUpTo", got, want)
	return desc
}

func (r *semRun) drain(d *decoder) string {
	k := d.ctx()
	desc := fmt.Sprintf("Drain(%v)", k)
	waits := r.m.Drain(model.Live) == semaphore.ErrWouldBlock
	switch {
	case k == ctxNil:
		r.tl.err("Drain", semaphore.ErrInvalid)
		r.sameErr("Drain(nil)", r.s.Drain(nilCtx), semaphore.ErrInvalid)
	case k == ctxLive && waits && len(r.parked) < maxParked:
		r.park(parkDrain, 0)
		desc += " parked"
	default:
		if k == ctxLive && waits {
			k = ctxCancelled // too many parked already
		}
		want := cancelledErr(r.m.Drain(k.model()))
		r.tl.err("Drain", want)
		r.sameErr("Drain", r.s.Drain(k.context()), want)
	}
	return desc
}

// check compares everything observable with the model after a step.
func (r *semRun) check(desc string) {
	m := r.m
	validate(&r.trail, m)
	if got := r.s.Count(); got != m.Count() {
		r.fail("after %s: Count() = %d, model %d", desc, got, m.Count())
	}
	want := semaphore.Stats{Count: m.Count(), Limit: m.Limit(), Waiting: m.Waiting(), Closed: m.Closed(), Debt: m.Debt()}
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
	r.ready.checkEarly(&r.trail, m, r.bound > 0 && r.servedParked)
	r.writable.check(&r.trail, m)
}

// checkParked checks each parked call: an acquirer has returned exactly
// when the model's reservation for it is settled, with nil if granted and
// ErrClosed if refused; a Drain exactly when the model's Drain would
// return nil at once, with nil.
func (r *semRun) checkParked(desc string) {
	for i, p := range r.parked {
		if p.done {
			continue
		}
		res, ok := settled(p.res)
		if want := r.parkedSettled(p); ok != want {
			r.fail("after %s: parked %v #%d returned = %v (%v), model settled = %v",
				desc, p.kind, i, ok, res.err, want)
		}
		if ok {
			p.done = true
			r.servedParked = r.servedParked || p.kind != parkDrain && res.err == nil
			r.tl.err("Parked "+p.kind.String(), res.err)
			r.checkReturned(fmt.Sprintf("after %s: parked %v #%d", desc, p.kind, i), p, res)
		}
	}
}

// parkedSettled is whether the model says the parked call p has returned.
func (r *semRun) parkedSettled(p *semParked) bool {
	if p.kind == parkDrain {
		return r.m.Drain(model.Live) == nil
	}
	return p.m.Done()
}

// checkReturned checks what a parked call returned once the model settled
// it: an acquirer the model's answer, and AcquireUpTo the one unit it
// waited for.
func (r *semRun) checkReturned(what string, p *semParked, res result) {
	if p.kind == parkDrain {
		r.sameErr(what, res.err, nil)
		return
	}
	r.sameErr(what, res.err, p.m.Err())
	if p.kind == parkUpTo && res.err == nil && res.v != p.m.Need() {
		r.fail("%s took %d, model %d", what, res.v, p.m.Need())
	}
}

func (r *semRun) sameN(what string, got, want uint64) {
	if got != want {
		r.fail("%s = %d, model %d", what, got, want)
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
