package fuzz_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/model"
	"github.com/evsync/evsync/semaphore"
)

// FuzzLimiter makes the decoded operations on a Limiter and on the model,
// one at a time, inside a synctest bubble, and compares every result,
// Stats, String, each parked call and each permit's N after every step.
//
// model.Limiter has no queue, since sequential callers never leave a
// call parked. The run keeps the parked acquirers next to it in FIFO
// order (limRun.queue). It serves them from the model's free units after
// each step, as the Limiter does.
//
// FuzzLimiterEventual makes the same operations on a Limiter made with
// WithEventualFairness(limFuzzBound). The run's queue then follows
// model.Limiter's Barging rules, with the parked acquirers as the
// waiters: a call takes free units ahead of them while the head has
// waited at most the bound (barges). The real Limiter does not hand a
// release's units to a parked acquirer: it wakes the oldest to take them
// itself, and that one wakes the next. After synctest.Wait each woken
// acquirer has run, so the run serves its queue as in the strict mode.
// The bubble's clock is the wall clock that the Limiter reads, and only
// Z moves it, by as much as it moves the model's.
//
// Input: a construction byte (NewLimiter(limLimits[i])), then operations,
// each a letter of limCodes with its operands. An amount is decoded as
// for a counter of the free units with the limit (decode_test.go). Its
// top edges ('g' 'h' 'i' 'r') are negative ints. 'f' (limit+1) and 'n'
// (one more than is in use, if there is no debt) are over-releases.
//
//	A ctx n   Acquire(ctx, n); a live context parks the call in a
//	          goroutine when the run says it would wait
//	T n       TryAcquire(n)
//	R n       Release(n)
//	K i       cancel the context of parked call i (of any kind)
//	L i n     cancel the context of parked acquirer i and Release(n) at
//	          once: the units must go past it, to those behind it
//	          (cancelThenRelease has two exceptions)
//	S i       SetLimit(limit i of newLimit's table: -1, 0, 1, 2,
//	          limit-1, limit, limit+1, limit+3, limit-free-1, 1<<31-1)
//	D ctx     Drain(ctx); a live context parks the call where the model
//	          says it would wait
//	C         Close
//	P ctx n   AcquirePermit(ctx, n), parked like A; a permit it returns
//	          is kept (up to maxKept, later ones are held untracked)
//	Q n       TryAcquirePermit(n)
//	G i       Release of permit i
//	B i       two Releases of permit i in a row (a deferred Release
//	          after an explicit one): the second never gives back
//	H i k     Split(k) of permit i; k is an amount for a count and a
//	          limit equal to what the permit holds ('e' all of it, 'f'
//	          one more, 'i' -1)
//	J i j     Merge of permit j into permit i; j one past the last is a
//	          permit of another limiter, which Merge refuses unless
//	          permit i holds nothing
//	F i       Forget of permit i
//	U ctx n   AcquireUpTo(ctx, n); a live context parks the call where
//	          the run says it would wait: n above 0, the limiter open,
//	          and acquirers queued or no unit free. The run serves it
//	          when it is at the head and a unit is free, with what is
//	          free, at most n
//	E n       TryAcquireUpTo(n)
//	M ctx n   AcquirePermitUpTo(ctx, n), parked like U; a permit it
//	          returns is kept as P's are
//	N n       TryAcquirePermitUpTo(n)
//	Z i       sleep in the bubble (limSleep: 0, 1ns, the bound, one past
//	          it, what brings the head's age to the bound, one past that)
//
// A byte that is no letter is one of the first fifteen operations (its
// value modulo 15), as before the up-to letters came. An index is '0'
// for the first, modulo the number there are; with none the operation
// reads its bytes and does nothing.
func FuzzLimiter(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) { runLimiter(t, data, nil, 0) })
}

// FuzzLimiterEventual is FuzzLimiter in the eventual mode. Its seeds are
// its own corpus and FuzzLimiter's, which it runs in this mode too.
func FuzzLimiterEventual(f *testing.F) {
	addCorpus(f, "FuzzLimiter")
	f.Fuzz(func(t *testing.T, data []byte) { runLimiter(t, data, nil, limFuzzBound) })
}

// limFuzzBound is FuzzLimiterEventual's bound.
const limFuzzBound = time.Millisecond

// runStrictLimiter and runEventualLimiter are the runs of the two
// targets, for the corpus tests.
func runStrictLimiter(t *testing.T, data []byte, tl tally) { runLimiter(t, data, tl, 0) }

func runEventualLimiter(t *testing.T, data []byte, tl tally) { runLimiter(t, data, tl, limFuzzBound) }

// limCodes names the operations, in the order of limSteps. The first
// limFirstCodes letters are the original grammar; a byte that is no
// letter picks one of those, so that an input written before the others
// came decodes as it did. New letters go at the end.
const (
	limCodes      = "ATRKLSDCPQGBHJF" + "UEMN" + "Z"
	limFirstCodes = 15
)

var limSteps = [...]func(*limRun, *decoder) string{
	(*limRun).acquireStep, (*limRun).tryAcquire, (*limRun).release, (*limRun).cancelParked,
	(*limRun).cancelThenRelease, (*limRun).setLimit, (*limRun).drain, (*limRun).closeStep,
	(*limRun).acquirePermit, (*limRun).tryAcquirePermit, (*limRun).permitRelease,
	(*limRun).permitReleaseTwice, (*limRun).permitSplit, (*limRun).permitMerge, (*limRun).permitForget,
	(*limRun).acquireUpToStep, (*limRun).tryAcquireUpTo, (*limRun).acquirePermitUpToStep, (*limRun).tryAcquirePermitUpTo,
	(*limRun).sleep,
}

// One step per letter: a compile-time check.
var _ = [1]struct{}{}[len(limSteps)-len(limCodes)]

// limLimits are the limits a run starts with; 1<<36 does not fit the
// counter's word, whose count then lives under the lock.
var limLimits = []int{1, 2, 3, 4, 5, 8, 1 << 36}

// limRun is one decoded run.
type limRun struct {
	trail
	tl       tally
	l        *semaphore.Limiter
	m        *model.Limiter
	queue    []*limParked // the parked acquirers still waiting, oldest first
	parked   []*limParked // every parked call
	permits  []*limPermit
	bound    time.Duration // the eventual-fairness bound, or 0 for strict FIFO
	starving bool          // in the eventual mode, a step found the head older than the bound (endFair)
	noticed  bool          // the step added units or parked a call: endFair looks at the head
	atLimit  bool          // in the eventual mode, the step brought every unit back before the queue was served (serve)
}

// limParked is a call blocked in a goroutine of the bubble: an acquirer
// (Acquire or AcquirePermit) of n units, one (AcquireUpTo or
// AcquirePermitUpTo) of up to n units, or a Drain.
type limParked struct {
	kind   parkKind // parkAcquire, parkPermit, parkUpTo, parkPermitUpTo or parkDrain
	n      int
	state  waitState     // an acquirer's, in the run's model
	took   int           // what the run's model granted it
	start  time.Duration // when it parked, on the model's clock
	cancel context.CancelFunc
	res    chan result
	permit *semaphore.Permit // what AcquirePermit returned; written before res
	done   bool              // returned, and checked
}

// upTo reports whether p waits for up to n units, not for n.
func (p *limParked) upTo() bool { return p.kind == parkUpTo || p.kind == parkPermitUpTo }

// need is the number of free units that lets p be served at the head:
// one for a call for up to n units.
func (p *limParked) need() int {
	if p.upTo() {
		return 1
	}
	return p.n
}

// waitState is what the run's model says of a parked acquirer.
type waitState uint8

const (
	limWaiting waitState = iota
	limGranted
	limRefused // by Close
	limCancelled
)

// parkPermit is a parked AcquirePermit, and parkPermitUpTo a parked
// AcquirePermitUpTo (kinds the Semaphore has not).
const (
	parkPermit parkKind = parkDrain + 1 + iota
	parkPermitUpTo
)

// kindName names a parked call's kind.
func kindName(k parkKind) string {
	switch k {
	case parkPermit:
		return "AcquirePermit"
	case parkPermitUpTo:
		return "AcquirePermitUpTo"
	}
	return k.String()
}

// runLimiter makes the run of data on a Limiter with the
// eventual-fairness bound, or a strict one for 0.
func runLimiter(t *testing.T, data []byte, tl tally, bound time.Duration) {
	synctest.Test(t, func(t *testing.T) {
		d := &decoder{data: data}
		r := &limRun{trail: trail{t: t}, tl: tl, bound: bound}
		r.construct(d)
		defer r.stop()
		for d.more() {
			r.atLimit = false
			desc := limSteps[d.opFirst(limCodes, limFirstCodes)](r, d)
			r.endFair()
			synctest.Wait() // parked calls settle
			r.check(desc)
			r.add(desc)
		}
	})
}

// stop frees every parked goroutine, so that the bubble can end even
// after a failure.
func (r *limRun) stop() {
	r.l.Close()
	for _, p := range r.parked {
		p.cancel()
	}
}

func (r *limRun) construct(d *decoder) {
	n := limLimits[d.choice(len(limLimits))]
	if r.bound > 0 {
		r.l, r.m = semaphore.NewLimiter(n, semaphore.WithEventualFairness(r.bound)), model.NewEventualLimiter(n, r.bound)
	} else {
		r.l, r.m = semaphore.NewLimiter(n), model.NewLimiter(n)
	}
	if n > 1<<35 {
		r.tl.hit("New", "big")
	} else {
		r.tl.hit("New", "small")
	}
}

// amount decodes an amount for the limiter's free units and limit; head
// is the need of the first queued acquirer.
func (r *limRun) amount(d *decoder) int {
	head := uint64(1)
	if len(r.queue) != 0 {
		head = uint64(r.queue[0].n)
	}
	return int(d.amount(uint64(r.m.Free()), uint64(r.m.Limit()), head))
}

// wouldWait reports whether Acquire(n) with a live context would wait:
// n is valid and not 0, and the limiter is open with fewer than n units
// free or others queued that it may not barge past.
func (r *limRun) wouldWait(n int) bool {
	return 0 < n && n <= r.m.Limit() && !r.m.Closed() && (!r.barges() || n > r.m.Free())
}

// barges reports whether a call may take free units ahead of the parked
// acquirers: with none queued, or in the eventual mode while the limiter
// does not starve (model.Limiter's Barging rules, with the parked
// acquirers as the waiters).
func (r *limRun) barges() bool {
	return len(r.queue) == 0 || r.bound > 0 && !r.starving
}

// endFair ends a step as model.Limiter ends a call: it looks at the
// head's age if the limiter starves or the step noticed (a Release or a
// raise that added units, or a call that parked). The limiter then
// starves if the head is older than the bound, and stops otherwise. With
// nobody queued it never starves.
func (r *limRun) endFair() {
	look := r.starving || r.noticed
	r.noticed = false
	switch {
	case len(r.queue) == 0:
		r.starving = false
	case look && r.bound > 0:
		r.starving = r.m.Now()-r.queue[0].start > r.bound
	}
}

// bargeOutcome is a call's outcome for the tally, with ", barged" added
// if it took units ahead of a parked acquirer.
func (r *limRun) bargeOutcome(outcome string, took bool) string {
	if took && len(r.queue) != 0 {
		return outcome + ", barged"
	}
	return outcome
}

// serve grants the queued acquirers, oldest first, while the head's
// units are free, as the Limiter does after each change. An up-to call
// at the head takes what is free, at most its n.
//
// In the eventual mode the Limiter may wake them to take their units
// instead. Until they run, the units are free: if that is all of them, a
// parked Drain may see every unit back, and return. So serve notes that
// case (atLimit), where checkParked lets a Drain return or not.
func (r *limRun) serve() {
	if r.bound > 0 && len(r.queue) != 0 && r.m.Free() == r.m.Limit() {
		r.atLimit = true
	}
	for len(r.queue) != 0 && r.queue[0].need() <= r.m.Free() {
		p := r.queue[0]
		var err error
		if p.upTo() {
			p.took, err = r.m.AcquireUpTo(model.Live, p.n)
		} else {
			p.took, err = p.n, r.m.Acquire(model.Live, p.n)
		}
		if err != nil {
			r.fail("model acquire of %d for a queued %v = %v", p.n, kindName(p.kind), err)
		}
		p.state, r.queue = limGranted, r.queue[1:]
	}
}

// leave takes a cancelled acquirer out of the queue, and serves those
// behind it.
func (r *limRun) leave(p *limParked) {
	if i := slices.Index(r.queue, p); i >= 0 {
		r.queue = slices.Delete(r.queue, i, i+1)
	}
	p.state = limCancelled
	r.serve()
}

func (r *limRun) acquireStep(d *decoder) string {
	k := d.ctx()
	return r.acquire(k, r.amount(d), parkAcquire)
}

// acquire makes an Acquire or an AcquirePermit (kind) of n units.
func (r *limRun) acquire(k ctxKind, n int, kind parkKind) string {
	op := kindName(kind)
	desc := fmt.Sprintf("%s(%v, %d)", op, k, n)
	switch {
	case k == ctxLive && r.wouldWait(n) && len(r.parked) < maxParked:
		r.park(kind, n)
		return desc + " parked"
	case k == ctxLive && r.wouldWait(n):
		k = ctxCancelled // too many parked already
	}
	want := semaphore.ErrInvalid
	if k != ctxNil {
		want = cancelledErr(r.m.Acquire(k.model(), n))
	}
	outcome := errName(want)
	if want == semaphore.ErrClosed && n <= r.m.Free() {
		outcome = "ErrClosed with units free"
	}
	r.tl.hit(op, r.bargeOutcome(outcome, want == nil && n > 0))
	if kind == parkPermit {
		r.acquirePermitNow(desc, k, n, want)
		return desc
	}
	r.sameErr(desc, r.l.Acquire(k.context(), n), want)
	return desc
}

// park starts an acquirer or a Drain in a goroutine with a context that
// cancelParked can end; an acquirer joins the run's queue.
func (r *limRun) park(kind parkKind, n int) {
	p := &limParked{kind: kind, n: n, res: make(chan result, 1), start: r.m.Now()}
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	go func() { p.res <- r.parkedCall(ctx, p) }()
	r.parked = append(r.parked, p)
	if kind != parkDrain {
		r.queue = append(r.queue, p)
		r.noticed = true // its section looks at the head (endFair)
	}
	r.tl.hit(kindName(kind), "parked")
}

// parkedCall is the call a parked goroutine makes.
func (r *limRun) parkedCall(ctx context.Context, p *limParked) result {
	pm := new(semaphore.Permit)
	var err error
	switch p.kind {
	case parkPermit:
		*pm, err = r.l.AcquirePermit(ctx, p.n)
	case parkPermitUpTo:
		*pm, err = r.l.AcquirePermitUpTo(ctx, p.n)
	case parkUpTo:
		n, err := r.l.AcquireUpTo(ctx, p.n)
		return result{uint64(n), err}
	case parkDrain:
		return result{err: r.l.Drain(ctx)}
	default:
		return result{err: r.l.Acquire(ctx, p.n)}
	}
	p.permit = pm // read once res is received
	return result{uint64(pm.N()), err}
}

func (r *limRun) tryAcquire(d *decoder) string {
	n := r.amount(d)
	want, outcome := r.modelTry(n)
	r.tl.hit("TryAcquire", outcome)
	r.same(fmt.Sprintf("TryAcquire(%d)", n), r.l.TryAcquire(n), want)
	return fmt.Sprintf("TryAcquire(%d)", n)
}

// modelTry is TryAcquire(n) in the run's model, and its outcome for the
// tally: it never takes units ahead of acquirers it may not barge past.
func (r *limRun) modelTry(n int) (bool, string) {
	switch {
	case n > 0 && !r.barges():
		return false, "false, queued"
	case r.m.Closed() && 0 <= n && n <= r.m.Free() && r.m.Free() != 0:
		return r.m.TryAcquire(n), "false, closed with units free"
	}
	ok := r.m.TryAcquire(n)
	return ok, r.bargeOutcome(fmt.Sprint(ok), ok && n > 0)
}

func (r *limRun) release(d *decoder) string {
	n := r.amount(d)
	want := r.m.Release(n)
	r.noticed = want == nil && n > 0
	r.serve()
	r.tl.err("Release", want)
	r.sameErr(fmt.Sprintf("Release(%d)", n), r.l.Release(n), want)
	return fmt.Sprintf("Release(%d)", n)
}

// cancelParked cancels the context of a parked call. One still waiting
// must return context.Canceled (an acquirer leaves the queue); one that
// has returned is not affected.
func (r *limRun) cancelParked(d *decoder) string {
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
	if p.kind != parkDrain {
		r.leave(p)
	}
	r.cancelledResult(p, "after cancel")
	return fmt.Sprintf("cancel parked #%d", i)
}

// cancelledResult checks that the parked call p, whose context was
// cancelled while it waited, has returned context.Canceled (and no
// permit).
func (r *limRun) cancelledResult(p *limParked, when string) {
	res, ok := settled(p.res)
	if !ok {
		r.fail("parked %v still waiting after its context was cancelled", kindName(p.kind))
	}
	p.done = true
	r.tl.err("Parked "+kindName(p.kind), res.err)
	r.sameErr(fmt.Sprintf("parked %v %s", kindName(p.kind), when), res.err, context.Canceled)
	if res.v != 0 || p.permit != nil && p.permit.N() != 0 {
		r.fail("a cancelled %v took %d", kindName(p.kind), max(res.v, uint64(p.permit.N())))
	}
}

// cancelThenRelease cancels a parked acquirer that is still waiting and
// releases n units straight away. A Release that has no room until those
// behind the cancelled one are served serves them first, in the strict
// mode: the cancelled acquirer does not hold it up.
//
// Two cases do not follow from one order of the calls.
//   - A Release that fits at once, with an up-to acquirer queued: the
//     cancelled call's own section may serve the queue before the
//     Release or after it, and an up-to acquirer served after it takes
//     more. So the cancelled call ends first (synctest.Wait).
//   - In the eventual mode, a Release that has no room until those behind
//     are served: the Limiter may wake them to take their units, which
//     stay free until they run (then the Release is an over-release), or
//     hand the units over in order, as it does once the head is older
//     than the bound. The run takes what the Limiter did.
func (r *limRun) cancelThenRelease(d *decoder) string {
	var p *limParked
	if len(r.queue) != 0 {
		p = r.queue[d.choice(len(r.queue))]
	} else {
		d.byte()
	}
	n := r.amount(d)
	if p == nil {
		want := r.m.Release(n)
		r.noticed = want == nil && n > 0
		r.serve()
		r.tl.err("CancelThenRelease", want)
		r.sameErr(fmt.Sprintf("Release(%d) with nothing to cancel", n), r.l.Release(n), want)
		return fmt.Sprintf("Release(%d) (nothing to cancel)", n)
	}
	p.cancel()
	fits := 0 <= n && n <= r.m.InUse() // before those behind p are served
	if fits && slices.ContainsFunc(r.queue, (*limParked).upTo) {
		synctest.Wait()
	}
	r.leave(p)
	desc := fmt.Sprintf("Release(%d) right after a cancel", n)
	got := r.l.Release(n)
	if r.bound > 0 && !fits && 0 <= n && n <= r.m.InUse() && errors.Is(got, semaphore.ErrOverRelease) {
		r.tl.hit("CancelThenRelease", "ErrOverRelease before those behind were served")
	} else {
		want := r.m.Release(n)
		r.noticed = want == nil && n > 0
		r.serve()
		r.tl.err("CancelThenRelease", want)
		r.sameErr(desc, got, want)
	}
	synctest.Wait()
	r.cancelledResult(p, "cancelled before a Release")
	return fmt.Sprintf("cancel a parked %v (for %d), then Release(%d)", kindName(p.kind), p.n, n)
}

// newLimit decodes SetLimit's operand: -1 and 0 are out of range,
// limit-1 is 0 at a limit of 1, limit-free-1 is a cut one unit past what
// is free (a debt of one), and 1 or 2 may be below a parked acquirer.
func (r *limRun) newLimit(d *decoder) int {
	l, f := r.m.Limit(), r.m.Free()
	table := [...]int{-1, 0, 1, 2, l - 1, l, l + 1, l + 3, l - f - 1, 1<<31 - 1}
	return table[d.choice(len(table))]
}

func (r *limRun) setLimit(d *decoder) string {
	n := r.newLimit(d)
	desc := fmt.Sprintf("SetLimit(%d)", n)
	if r.belowQueued(n) {
		r.tl.hit("SetLimit", "ErrInvalid below a parked acquirer")
		r.sameErr(desc, r.l.SetLimit(n), semaphore.ErrInvalid)
		return desc
	}
	old := r.m.Limit()
	want := r.m.SetLimit(n)
	r.noticed = want == nil && n > old
	r.serve()
	outcome := errName(want)
	switch {
	case want != nil:
	case n < old && r.m.InUse() > n:
		outcome = "cut into debt"
	case n > old:
		outcome = "raise"
	case n < old:
		outcome = "cut"
	default:
		outcome = "same"
	}
	r.tl.hit("SetLimit", outcome)
	r.sameErr(desc, r.l.SetLimit(n), want)
	return desc
}

// belowQueued reports whether SetLimit(n) is refused below a queued
// acquirer, which model.Limiter cannot know: n is valid, the limiter is
// open, and a queued acquirer asks for more.
func (r *limRun) belowQueued(n int) bool {
	if n < 1 || r.m.Closed() {
		return false
	}
	return slices.ContainsFunc(r.queue, func(p *limParked) bool { return !p.upTo() && p.n > n })
}

func (r *limRun) drain(d *decoder) string {
	k := d.ctx()
	desc := fmt.Sprintf("Drain(%v)", k)
	waits := r.m.Drain(model.Live) == semaphore.ErrWouldBlock
	switch {
	case k == ctxNil:
		r.tl.err("Drain", semaphore.ErrInvalid)
		r.sameErr("Drain(nil)", r.l.Drain(nilCtx), semaphore.ErrInvalid)
	case k == ctxLive && waits && len(r.parked) < maxParked:
		r.park(parkDrain, 0)
		desc += " parked"
	default:
		if k == ctxLive && waits {
			k = ctxCancelled // too many parked already
		}
		want := cancelledErr(r.m.Drain(k.model()))
		r.tl.err("Drain", want)
		r.sameErr("Drain", r.l.Drain(k.context()), want)
	}
	return desc
}

// closeStep closes the limiter: every queued acquirer is refused, even
// one whose units are free (behind a head that did not fit).
func (r *limRun) closeStep(*decoder) string {
	outcome := "ok"
	for _, p := range r.queue {
		if p.need() <= r.m.Free() {
			outcome = "refused a waiter with units free"
		}
		p.state = limRefused
	}
	r.queue = nil
	r.l.Close()
	r.m.Close()
	r.tl.hit("Close", outcome)
	return "Close()"
}

// check compares everything observable with the model after a step.
func (r *limRun) check(desc string) {
	want := semaphore.LimiterStats{
		Limit: r.m.Limit(), InUse: r.m.InUse(), Free: r.m.Free(),
		Waiting: len(r.queue), Closed: r.m.Closed(),
	}
	if st := r.l.Stats(); st != want {
		r.fail("after %s: Stats() = %+v, model %+v", desc, st, want)
	}
	if s := r.l.String(); s != want.String() {
		r.fail("after %s: String() = %q, want %q", desc, s, want.String())
	}
	r.checkParked(desc)
	r.checkPermits(desc)
}

// checkParked checks each parked call: an acquirer has returned exactly
// when the run's model has settled it, with nil if granted and ErrClosed
// if refused; a Drain exactly when the model's Drain would return nil at
// once, with nil.
func (r *limRun) checkParked(desc string) {
	for i, p := range r.parked {
		if p.done {
			continue
		}
		res, ok := settled(p.res)
		what := fmt.Sprintf("after %s: parked %v #%d", desc, kindName(p.kind), i)
		switch want := r.parkedSettled(p); {
		case ok && !want && p.kind == parkDrain && r.atLimit: // every unit back before the woken took theirs
			p.done = true
			r.tl.hit("Parked Drain", "ok before the woken took their units")
			r.sameErr(what, res.err, nil)
		case ok != want:
			r.fail("%s returned = %v (%v), model settled = %v", what, ok, res.err, want)
		case ok:
			p.done = true
			r.tl.err("Parked "+kindName(p.kind), res.err)
			r.checkReturned(what, p, res)
		}
	}
}

func (r *limRun) parkedSettled(p *limParked) bool {
	if p.kind == parkDrain {
		return r.m.Drain(model.Live) == nil
	}
	return p.state != limWaiting
}

// checkReturned checks what a parked call returned once the run's model
// settled it: nil and what the model granted, or ErrClosed and nothing;
// a permit a parked AcquirePermit or AcquirePermitUpTo got is kept.
func (r *limRun) checkReturned(what string, p *limParked, res result) {
	want := error(nil)
	if p.state == limRefused {
		want = semaphore.ErrClosed
	}
	r.sameErr(what, res.err, want)
	switch {
	case p.kind == parkDrain || p.kind == parkAcquire:
	case res.err != nil && res.v != 0:
		r.fail("%s took %d with %v", what, res.v, res.err)
	case res.err == nil:
		r.sameN(what+": the units it took", int(res.v), p.took)
		if p.permit != nil {
			r.keepPermit(what, p.permit, p.took)
		}
	}
}

func (r *limRun) sameN(what string, got, want int) {
	if got != want {
		r.fail("%s = %d, model %d", what, got, want)
	}
}
