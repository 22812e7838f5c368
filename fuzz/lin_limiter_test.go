package fuzz_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/evsync/evsync/internal/evserr"
	"github.com/evsync/evsync/internal/testsupport/lincheck"
	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/model"
	"github.com/evsync/evsync/semaphore"
)

// TestLimiterLinearizable checks concurrent histories of Acquire,
// AcquirePermit, AcquireUpTo and AcquirePermitUpTo (with contexts that
// never end, end mid-wait or have ended), TryAcquire, TryAcquirePermit,
// TryAcquireUpTo, TryAcquirePermitUpTo, Release of units held and stray
// ones, a permit's Release, SetLimit raises and cuts, Drain (with contexts
// that end) and one Close against limModel.
//
// A permit's Split, Merge and Forget are left out: they move units
// between permits or drop them without touching the limiter, so they are
// no call of its history; FuzzLimiter checks them.
//
// "with units free" marks an acquire that failed after Close although a
// Stats snapshot taken before it showed the limiter closed with its units
// free. Nothing takes units once the limiter is closed, so they were free
// when it failed too: the model must let Close refuse such acquires.
func TestLimiterLinearizable(t *testing.T) {
	checkLinearizable(t, "limiter", limWorkload(false), limLinWant)
}

// TestLimiterEventualLinearizable is TestLimiterLinearizable on a
// Limiter made with WithEventualFairness, the bound drawn for each
// history from limLinBounds. The model is the same: a grant takes free
// units, and nothing else changes the count. Only the marks of
// contention are wider (markedByEventual).
func TestLimiterEventualLinearizable(t *testing.T) {
	checkLinearizable(t, "eventual limiter", limWorkload(true), limLinWant)
}

// limLinWant are the outcomes both limiter workloads must reach.
var limLinWant = []string{
	"Acquire/ok", "Acquire/Canceled", "Acquire/ErrClosed", "Acquire/ErrInvalid",
	"Acquire/ErrClosed with units free",
	"AcquirePermit/ok", "AcquirePermit/Canceled", "AcquirePermit/ErrClosed",
	"AcquirePermit/ErrClosed with units free",
	"TryAcquire/1", "TryAcquire/0", "TryAcquire/0 with units free",
	"TryAcquirePermit/1", "TryAcquirePermit/0",
	"Release/ok", "Release/ErrOverRelease", "Release/ErrInvalid",
	"PermitRelease/1", "PermitRelease/0",
	"SetLimit/ok", "SetLimit/ErrInvalid", "SetLimit/ErrClosed",
	"Drain/ok", "Drain/Canceled",
	"AcquireUpTo/ok", "AcquireUpTo/Canceled", "AcquireUpTo/ErrClosed", "AcquireUpTo/ErrInvalid",
	"AcquireUpTo/ErrClosed with units free",
	"AcquirePermitUpTo/ok", "AcquirePermitUpTo/Canceled", "AcquirePermitUpTo/ErrClosed",
	"TryAcquireUpTo/some", "TryAcquireUpTo/none", "TryAcquireUpTo/none with units free",
	"TryAcquirePermitUpTo/some", "TryAcquirePermitUpTo/none",
}

type limOp uint8

const (
	limAcquire limOp = iota
	limTryAcquire
	limRelease
	limPermitRelease
	limSetLimit
	limDrain
	limAcquireUpTo
	limTryAcquireUpTo
)

var limOpNames = [...]string{"Acquire", "TryAcquire", "Release", "PermitRelease", "SetLimit", "Drain",
	"AcquireUpTo", "TryAcquireUpTo"}

// limPermitNames name the permit forms, for the ops that have one.
var limPermitNames = [...]string{limAcquire: "AcquirePermit", limTryAcquire: "TryAcquirePermit",
	limAcquireUpTo: "AcquirePermitUpTo", limTryAcquireUpTo: "TryAcquirePermitUpTo"}

// limCall is the input of a limiter call. contended is set after the
// history is recorded, from the calls that overlapped this one (see
// markedBy).
type limCall struct {
	op        limOp
	n         int    // units; SetLimit's limit; a permit's units; the up-to calls' max
	ctx       ctxUse // Acquire, AcquireUpTo, Drain
	permit    bool   // the acquires: the Permit form
	id        int    // PermitRelease: which permit of the history
	freeShut  bool   // the acquires: a snapshot before it saw the limiter closed with n units free (one for up-to)
	contended bool
}

// name is the call's name, for the tally and the visualisation.
func (c limCall) name() string {
	if c.permit {
		return limPermitNames[c.op]
	}
	return limOpNames[c.op]
}

func (c limCall) String() string {
	flags := ""
	if c.freeShut {
		flags += ", closed with units free"
	}
	if c.contended {
		flags += ", contended"
	}
	switch c.op {
	case limDrain:
		return fmt.Sprintf("Drain(ctx %v%s)", c.ctx, flags)
	case limPermitRelease:
		return fmt.Sprintf("permit #%d (of %d) Release(%s)", c.id, c.n, flags)
	case limAcquire, limAcquireUpTo:
		return fmt.Sprintf("%s(%d, ctx %v%s)", c.name(), c.n, c.ctx, flags)
	}
	return fmt.Sprintf("%s(%d%s)", c.name(), c.n, flags)
}

// limState is the state of the limiter model: comparable, so that
// porcupine's default equality works, and copied by value, so that Step
// is pure. The units in use are limit + debt - free.
type limState struct {
	free, limit, debt int
	closed            bool
	given             uint64 // bit i: permit i has given its units back
}

func (s limState) String() string {
	closed := ""
	if s.closed {
		closed = " closed"
	}
	return fmt.Sprintf("free=%d limit=%d debt=%d in-use=%d given=%#x%s", s.free, s.limit, s.debt, s.inUse(), s.given, closed)
}

func (s limState) inUse() int { return s.limit + s.debt - s.free }

// Permit ids are bits of limState.given: a history holds fewer permits
// than it makes calls.
var _ [64 - linWorkers*linCalls]struct{}

// limModel is the sequential model of a limiter of n units, all free.
func limModel(n int) porcupine.Model {
	return porcupine.Model{
		Init: func() any { return limState{free: n, limit: n} },
		Step: func(state, in, out any) (bool, any) {
			s := state.(limState)
			if in == closeCall {
				s.closed = true
				return true, s
			}
			return limStep(s, in.(limCall), out.(output))
		},
		Hash: func(state any) uint64 {
			s := state.(limState)
			h := (uint64(s.free)*0x9e3779b97f4a7c15 ^ uint64(s.limit)) * 0xbf58476d1ce4e5b9
			h ^= uint64(s.debt)*0x94d049bb133111eb ^ s.given
			if s.closed {
				h ^= 1
			}
			return h
		},
		DescribeOperation: describeOp,
		DescribeState:     func(state any) string { return state.(limState).String() },
	}
}

func limStep(s limState, c limCall, o output) (bool, limState) {
	switch c.op {
	case limAcquire:
		return limAcquireStep(s, c, o)
	case limTryAcquire:
		if o.v == 1 {
			return s.take(c.n)
		}
		return s.closed || c.n < 0 || c.n > s.limit || c.n != 0 && (c.n > s.free || c.contended), s
	case limRelease:
		return limReleaseStep(s, c.n, o.err)
	case limPermitRelease:
		return limPermitReleaseStep(s, c, o)
	case limSetLimit:
		return limSetLimitStep(s, c, o)
	case limDrain:
		if decided, legal := ctxStep(c.ctx, true, o.err); decided {
			return legal, s
		}
		return o.err == nil && s.free == s.limit, s
	case limAcquireUpTo:
		return limUpToStep(s, c, o)
	case limTryAcquireUpTo:
		if o.v != 0 {
			return s.upTo(c.n, int(o.v))
		}
		return s.closed || c.n <= 0 || s.free == 0 || c.contended, s
	}
	return false, s
}

// upTo is a take of v units by a call for up to max: legal while the
// limiter is open, max is above 0, and v is what is free, at most max.
func (s limState) upTo(max, v int) (bool, limState) {
	if s.closed || max <= 0 || s.free == 0 || v != min(s.free, max) {
		return false, s
	}
	s.free -= v
	return true, s
}

// limUpToStep: AcquireUpTo takes min(free, max) at a moment when units
// are free; max 0 takes nothing; once closed, every valid call is refused,
// whatever is free, and a negative max is a bad argument.
func limUpToStep(s limState, c limCall, o output) (bool, limState) {
	valid := c.n >= 0
	if decided, legal := ctxStep(c.ctx, valid, o.err); decided {
		return legal, s
	}
	switch sentinel(o.err) {
	case nil:
		if c.n == 0 {
			return !s.closed && o.v == 0, s
		}
		return s.upTo(c.n, int(o.v))
	case evserr.ErrClosed:
		return s.closed && valid, s
	case evserr.ErrInvalid:
		return !valid, s
	}
	return false, s
}

// take is a grant of n units: legal while the limiter is open, n is
// within the limit and the units are free.
func (s limState) take(n int) (bool, limState) {
	if s.closed || n < 0 || n > s.limit || n > s.free {
		return false, s
	}
	s.free -= n
	return true, s
}

// limAcquireStep: once closed, every valid acquire is refused, whatever
// is free (the Semaphore's model refuses only what does not fit).
func limAcquireStep(s limState, c limCall, o output) (bool, limState) {
	valid := 0 <= c.n && c.n <= s.limit
	if decided, legal := ctxStep(c.ctx, valid, o.err); decided {
		return legal, s
	}
	switch sentinel(o.err) {
	case nil:
		return s.take(c.n)
	case evserr.ErrClosed:
		return s.closed && valid, s
	case evserr.ErrInvalid:
		return !valid, s
	}
	return false, s
}

// limReleaseStep: a Release of units held pays the debt first and frees
// the rest; one of more than is held is refused, changing nothing. It
// works after Close too.
func limReleaseStep(s limState, n int, err error) (bool, limState) {
	switch {
	case n < 0:
		return errors.Is(err, evserr.ErrInvalid), s
	case n > s.inUse():
		return err == evserr.ErrOverRelease, s
	case err != nil:
		return false, s
	}
	pay := min(n, s.debt)
	s.debt -= pay
	s.free += n - pay
	return true, s
}

// limPermitReleaseStep: a permit's Release is a Release of its units that
// returns true at most once. It returns false, changing nothing, once the
// units are back, or where a Release of them is an over-release (a stray
// Release gave back units the permit holds).
func limPermitReleaseStep(s limState, c limCall, o output) (bool, limState) {
	bit := uint64(1) << c.id
	ok, next := limReleaseStep(s, c.n, nil)
	switch {
	case o.v == 0:
		return s.given&bit != 0 || !ok, s
	case s.given&bit != 0 || !ok:
		return false, s
	}
	next.given |= bit
	return true, next
}

// limSetLimitStep: a limit below 1 is refused, and so may be one below an
// overlapping acquirer (which may have been queued); after Close a valid
// limit gets ErrClosed; otherwise a raise pays the debt and frees the
// rest, and a cut takes free units and owes what they do not cover.
func limSetLimitStep(s limState, c limCall, o output) (bool, limState) {
	valid := c.n >= 1
	switch sentinel(o.err) {
	case evserr.ErrInvalid:
		return !valid || c.contended && !s.closed, s
	case evserr.ErrClosed:
		return valid && s.closed, s
	case nil:
		if !valid || s.closed {
			return false, s
		}
		free, debt := model.Resize(uint64(s.free), uint64(s.limit), uint64(s.debt), uint64(c.n))
		s.free, s.debt, s.limit = int(free), int(debt), c.n
		return true, s
	}
	return false, s
}

var limLinLimits = []int{1, 2, 3, 5, 8}

// limLinBounds are the bounds of the eventual workload's limiters, read
// on the wall clock: from one where most heads soon wait too long and
// units go to them in order, to one that a history's waits seldom pass.
var limLinBounds = []time.Duration{time.Microsecond, 20 * time.Microsecond, time.Millisecond}

// limWorkload returns the workload that records one history of a
// limiter with a drawn limit, strict or eventually fair.
func limWorkload(eventual bool) workload {
	return func(rng *rand.Rand, tl tally) (porcupine.Model, []porcupine.Operation) {
		limit := limLinLimits[rng.IntN(len(limLinLimits))]
		l := semaphore.NewLimiter(limit)
		mark := limCall.markedBy
		if eventual {
			l = semaphore.NewLimiter(limit, semaphore.WithEventualFairness(limLinBounds[rng.IntN(len(limLinBounds))]))
			mark = limCall.markedByEventual
		}
		ops := limHistory(rng, l, limit)
		markLimOverlaps(ops, mark)
		for _, op := range ops {
			if c, ok := op.Input.(limCall); ok {
				tl.hit(c.name(), limOutcome(c, op.Output.(output)))
			}
		}
		return limModel(limit), ops
	}
}

// limHistory records one history of l, whose limit is limit.
func limHistory(rng *rand.Rand, l *semaphore.Limiter, limit int) []porcupine.Operation {
	seeds := make([]uint64, linWorkers)
	for i := range seeds {
		seeds[i] = rng.Uint64()
	}
	yields := rng.IntN(100)
	var rec lincheck.Recorder
	permits := new(linPermits)
	rec.Run(linWorkers+1, func(c *lincheck.Client, i int) {
		if i == linWorkers {
			closer(c, yields, l.Close)
			return
		}
		w := &limWorker{c: c, l: l, r: rand.New(rand.NewPCG(seeds[i], uint64(i))), limit: limit, permits: permits, id: i}
		for range linCalls {
			w.call()
			maybeYield(w.r)
		}
	})
	return rec.Operations()
}

// A limWorker is one client of a limiter history.
type limWorker struct {
	c       *lincheck.Client
	l       *semaphore.Limiter
	r       *rand.Rand
	limit   int // the limit the limiter was made with
	held    int // units its bare Acquires and TryAcquires took
	permits *linPermits
	id      int // the worker's index: it releases only the permits it got
}

// limCalls are the workload's calls, each with its weight.
var limCalls = []struct {
	weight int
	call   func(*limWorker)
}{
	{4, (*limWorker).acquire}, {3, (*limWorker).acquirePermit},
	{2, (*limWorker).tryAcquire}, {2, (*limWorker).tryAcquirePermit},
	{3, (*limWorker).release}, {4, (*limWorker).permitRelease},
	{2, (*limWorker).setLimit}, {1, (*limWorker).drain},
	{3, (*limWorker).acquireUpTo}, {3, (*limWorker).tryAcquireUpTo},
}

var limCallsWeight = func() (sum int) {
	for _, c := range limCalls {
		sum += c.weight
	}
	return sum
}()

// call makes one random call.
func (w *limWorker) call() {
	k := w.r.IntN(limCallsWeight)
	for _, c := range limCalls {
		if k < c.weight {
			c.call(w)
			return
		}
		k -= c.weight
	}
}

// amount draws a request: mostly 0…3, sometimes the limit, one more
// (invalid) or one less, now and then -1.
func (w *limWorker) amount() int {
	if w.r.IntN(16) == 0 {
		return -1
	}
	return int(linAmount(w.r, uint64(w.limit)))
}

// freeShut reports whether a Stats snapshot shows the limiter closed with
// n units free: after Close nothing takes units, so they stay free.
func (w *limWorker) freeShut(n int) bool {
	st := w.l.Stats()
	return st.Closed && 0 <= n && n <= st.Free
}

func (w *limWorker) acquire() {
	n := w.amount()
	ctx, u, stop := linCtx(w.r)
	in := limCall{op: limAcquire, n: n, ctx: u, freeShut: w.freeShut(n)}
	o := lincheck.Record(w.c, in, func() output { return output{err: w.l.Acquire(ctx, n)} })
	stop()
	if o.err == nil {
		w.held += n
	}
}

func (w *limWorker) acquirePermit() {
	n := w.amount()
	ctx, u, stop := linCtx(w.r)
	p := new(semaphore.Permit)
	in := limCall{op: limAcquire, n: n, ctx: u, permit: true, freeShut: w.freeShut(n)}
	lincheck.Record(w.c, in, func() (o output) {
		*p, o.err = w.l.AcquirePermit(ctx, n)
		return o
	})
	stop()
	w.permits.add(p, w.id)
}

func (w *limWorker) tryAcquire() {
	n := w.amount()
	in := limCall{op: limTryAcquire, n: n, freeShut: w.freeShut(n)}
	if o := lincheck.Record(w.c, in, func() output { return boolOutput(w.l.TryAcquire(n)) }); o.v == 1 {
		w.held += n
	}
}

func (w *limWorker) tryAcquirePermit() {
	n := w.amount()
	p := new(semaphore.Permit)
	in := limCall{op: limTryAcquire, n: n, permit: true, freeShut: w.freeShut(n)}
	lincheck.Record(w.c, in, func() output {
		var ok bool
		*p, ok = w.l.TryAcquirePermit(n)
		return boolOutput(ok)
	})
	w.permits.add(p, w.id)
}

// acquireUpTo is AcquireUpTo or, one time in two, AcquirePermitUpTo.
func (w *limWorker) acquireUpTo() {
	max := w.amount()
	ctx, u, stop := linCtx(w.r)
	permit := w.r.IntN(2) == 0
	p := new(semaphore.Permit)
	in := limCall{op: limAcquireUpTo, n: max, ctx: u, permit: permit, freeShut: w.freeShut(min(max, 1))}
	o := lincheck.Record(w.c, in, func() (o output) {
		var n int
		if permit {
			*p, o.err = w.l.AcquirePermitUpTo(ctx, max)
			n = p.N()
		} else {
			n, o.err = w.l.AcquireUpTo(ctx, max)
		}
		o.v = uint64(n)
		return o
	})
	stop()
	if permit {
		w.permits.add(p, w.id)
	} else {
		w.held += int(o.v)
	}
}

// tryAcquireUpTo is TryAcquireUpTo or, one time in two,
// TryAcquirePermitUpTo.
func (w *limWorker) tryAcquireUpTo() {
	max := w.amount()
	permit := w.r.IntN(2) == 0
	p := new(semaphore.Permit)
	in := limCall{op: limTryAcquireUpTo, n: max, permit: permit, freeShut: w.freeShut(min(max, 1))}
	o := lincheck.Record(w.c, in, func() output {
		if permit {
			*p = w.l.TryAcquirePermitUpTo(max)
			return output{v: uint64(p.N())}
		}
		return output{v: uint64(w.l.TryAcquireUpTo(max))}
	})
	if permit {
		w.permits.add(p, w.id)
	} else {
		w.held += int(o.v)
	}
}

// release gives back what the worker's bare acquires took, or one time
// in three a stray amount, which is mostly more than is held.
func (w *limWorker) release() {
	n := w.held
	if stray := w.r.IntN(3) == 0 || n == 0; stray {
		n = w.amount() + w.r.IntN(2)*w.limit
	}
	o := lincheck.Record(w.c, limCall{op: limRelease, n: n}, func() output { return output{err: w.l.Release(n)} })
	if o.err == nil {
		w.held = max(0, w.held-n)
	}
}

// permitRelease releases one of the worker's permits, which it may have
// released before (a Permit is a value its owner releases, not safe for
// concurrent use); with none yet it gets one.
func (w *limWorker) permitRelease() {
	lp, ok := w.permits.pick(w.r, w.id)
	if !ok {
		w.tryAcquirePermit()
		return
	}
	in := limCall{op: limPermitRelease, n: lp.n, id: lp.id}
	lincheck.Record(w.c, in, func() output { return boolOutput(lp.p.Release()) })
}

// setLimit draws a limit among the small ones of the workload (raises
// and cuts), the first one, or one out of range.
func (w *limWorker) setLimit() {
	limits := [...]int{-1, 0, 1, 2, 3, 4, 5, w.limit}
	n := limits[w.r.IntN(len(limits))]
	lincheck.Record(w.c, limCall{op: limSetLimit, n: n}, func() output { return output{err: w.l.SetLimit(n)} })
}

// drain waits with a context that ends soon or has ended: the workers
// keep units, so a Drain with one that never ends might never return
// (Close does not end it).
func (w *limWorker) drain() {
	ctx, u, stop := cancelled, ctxEnded, func() {}
	if w.r.IntN(3) != 0 {
		ctx, stop = testkit.CancelSoon(w.r)
		u = ctxEnds
	}
	lincheck.Record(w.c, limCall{op: limDrain, ctx: u}, func() output { return output{err: w.l.Drain(ctx)} })
	stop()
}

// linPermits are the permits of one history, each released only by the
// worker that got it. A permit's id is its bit in limState.given.
type linPermits struct {
	mu   sync.Mutex
	held []linPermit
}

type linPermit struct {
	p     *semaphore.Permit
	n     int // the units it was acquired with (it never splits)
	id    int
	owner int // the worker that got it
}

// add keeps p for worker owner, if it holds units.
func (lp *linPermits) add(p *semaphore.Permit, owner int) {
	if p.N() == 0 {
		return
	}
	lp.mu.Lock()
	defer lp.mu.Unlock()
	lp.held = append(lp.held, linPermit{p, p.N(), len(lp.held), owner})
}

// pick returns one of owner's permits, if it has one.
func (lp *linPermits) pick(r *rand.Rand, owner int) (linPermit, bool) {
	lp.mu.Lock()
	defer lp.mu.Unlock()
	var mine []linPermit
	for _, p := range lp.held {
		if p.owner == owner {
			mine = append(mine, p)
		}
	}
	if len(mine) == 0 {
		return linPermit{}, false
	}
	return mine[r.IntN(len(mine))], true
}

// markLimOverlaps sets each call's contended flag from the calls that
// overlapped it in time, with mark (markedBy or markedByEventual).
func markLimOverlaps(ops []porcupine.Operation, mark func(c, o limCall) limCall) {
	for i, op := range ops {
		c, ok := op.Input.(limCall)
		if !ok {
			continue
		}
		for j, other := range ops {
			if o, ok := other.Input.(limCall); ok && i != j && lincheck.Overlap(op, other) {
				c = mark(c, o)
			}
		}
		ops[i].Input = c
	}
}

// markedBy returns c marked for an overlapping call o. contended is what
// the queue explains: a TryAcquire or TryAcquireUpTo that an Acquire
// overlapped may find it queued (they do not jump the queue); a SetLimit
// that an Acquire for more overlapped may be refused (it may be queued).
// An AcquireUpTo marks neither. It is served whenever a unit is free, so
// a queued one never holds up a take of units that are free, and it asks
// for no fixed number that a cut could go below.
func (c limCall) markedBy(o limCall) limCall {
	switch c.op {
	case limTryAcquire, limTryAcquireUpTo:
		c.contended = c.contended || o.op == limAcquire
	case limSetLimit:
		c.contended = c.contended || o.op == limAcquire && o.n > c.n
	}
	return c
}

// markedByEventual is markedBy for an eventually fair limiter. It adds
// one mark: a TryAcquire or TryAcquireUpTo that an AcquireUpTo overlapped
// is contended too. Once the oldest waiter has waited longer than the
// bound, nobody takes units ahead of it, and that waiter may be an
// AcquireUpTo. Until it runs, units it has not yet taken stay free: a
// release wakes it to take them itself, as it does any waiter. So a try
// may fail with units free while an AcquireUpTo waits, where the strict
// limiter would have handed them over at the release.
//
// The mark is sound. It lets a try fail, which changes nothing, and only
// while a call overlaps it that could have been queued then. It never
// lets a call take units that were not free, nor makes or drops a unit:
// every grant and every release still has to fit the count. SetLimit's
// mark is markedBy's: the one it may not cut below is the need of a
// queued Acquire, or of a woken one (which has one too), and an
// AcquireUpTo has no need.
func (c limCall) markedByEventual(o limCall) limCall {
	c = c.markedBy(o)
	if c.op == limTryAcquire || c.op == limTryAcquireUpTo {
		c.contended = c.contended || o.op == limAcquireUpTo
	}
	return c
}

func limOutcome(c limCall, o output) string {
	switch {
	case c.op == limTryAcquireUpTo && o.v != 0:
		return "some"
	case c.op == limTryAcquireUpTo && c.freeShut && !c.permit:
		return "none with units free"
	case c.op == limTryAcquireUpTo:
		return "none"
	case c.op == limAcquireUpTo && o.err == evserr.ErrClosed && c.freeShut && !c.permit:
		return "ErrClosed with units free"
	case c.op == limTryAcquire && o.v == 0 && c.freeShut && !c.permit:
		return "0 with units free"
	case c.op == limTryAcquire || c.op == limPermitRelease:
		return fmt.Sprint(o.v)
	case c.op == limAcquire && o.err == evserr.ErrClosed && c.freeShut:
		return "ErrClosed with units free"
	case c.op == limSetLimit && o.err == nil:
		return "ok"
	}
	return errName(o.err)
}

// limBrokenHistories are hand-made histories of a limiter, for
// TestModelsRejectBrokenHistories: each wrong one next to a right one
// that differs in one outcome or one mark.
func limBrokenHistories() []brokenHistory {
	acq := func(n int) limCall { return limCall{op: limAcquire, n: n, ctx: ctxNever} }
	try := func(n int) limCall { return limCall{op: limTryAcquire, n: n} }
	rel := func(n int) limCall { return limCall{op: limRelease, n: n} }
	give := func(id, n int) limCall { return limCall{op: limPermitRelease, n: n, id: id} }
	set := func(n int) limCall { return limCall{op: limSetLimit, n: n} }
	upTo := func(max int) limCall { return limCall{op: limAcquireUpTo, n: max, ctx: ctxNever} }
	tryUpTo := func(max int) limCall { return limCall{op: limTryAcquireUpTo, n: max} }
	n := func(v uint64) output { return output{v: v} }
	ok, yes, no := output{}, output{v: 1}, output{v: 0}
	closed, over := output{err: evserr.ErrClosed}, output{err: evserr.ErrOverRelease}
	drain := limCall{op: limDrain, ctx: ctxEnds}
	return []brokenHistory{
		{"an Acquire granted after Close with units free", limModel(2), []porcupine.Operation{
			call(0, closeCall, ok, 1, 2),
			call(1, acq(1), ok, 3, 4),
		}, false},
		{"an Acquire refused after Close with units free", limModel(2), []porcupine.Operation{
			call(0, closeCall, ok, 1, 2),
			call(1, acq(1), closed, 3, 4),
			call(1, acq(0), closed, 5, 6),
		}, true},
		{"Acquire(0) granted after Close", limModel(2), []porcupine.Operation{
			call(0, closeCall, ok, 1, 2),
			call(1, acq(0), ok, 3, 4),
		}, false},
		{"TryAcquire(0) true after Close", limModel(2), []porcupine.Operation{
			call(0, closeCall, ok, 1, 2),
			call(1, try(0), yes, 3, 4),
		}, false},
		{"an Acquire refused by a Close that overlaps it", limModel(2), []porcupine.Operation{
			call(0, closeCall, ok, 2, 3),
			call(1, acq(1), closed, 1, 4),
		}, true},
		{"a Release of more than is held accepted", limModel(2), []porcupine.Operation{
			call(0, acq(1), ok, 1, 2),
			call(0, rel(2), ok, 3, 4),
		}, false},
		{"a Release of more than is held refused, then one of what is", limModel(2), []porcupine.Operation{
			call(0, acq(1), ok, 1, 2),
			call(0, rel(2), over, 3, 4),
			call(0, rel(1), ok, 5, 6),
			call(0, try(2), yes, 7, 8),
		}, true},
		{"an over-release refused with units held", limModel(2), []porcupine.Operation{
			call(0, acq(2), ok, 1, 2),
			call(0, rel(2), over, 3, 4),
		}, false},
		{"a holder's Release after Close, then Drain", limModel(2), []porcupine.Operation{
			call(0, acq(1), ok, 1, 2),
			call(1, closeCall, ok, 3, 4),
			call(0, rel(1), ok, 5, 6),
			call(0, drain, ok, 7, 8),
		}, true},
		{"Drain returns with a unit held", limModel(2), []porcupine.Operation{
			call(0, acq(1), ok, 1, 2),
			call(0, drain, ok, 3, 4),
		}, false},
		{"a permit given back twice", limModel(2), []porcupine.Operation{
			call(0, limCall{op: limAcquire, n: 2, ctx: ctxNever, permit: true}, ok, 1, 2),
			call(0, give(0, 2), yes, 3, 4),
			call(0, give(0, 2), yes, 5, 6),
		}, false},
		{"a permit given back once, then refused", limModel(2), []porcupine.Operation{
			call(0, limCall{op: limAcquire, n: 2, ctx: ctxNever, permit: true}, ok, 1, 2),
			call(0, give(0, 2), yes, 3, 4),
			call(0, give(0, 2), no, 5, 6),
			call(0, try(2), yes, 7, 8),
		}, true},
		{"a permit's Release refused with its units held", limModel(2), []porcupine.Operation{
			call(0, acq(2), ok, 1, 2),
			call(0, give(0, 2), no, 3, 4),
		}, false},
		{"a permit's Release refused after a stray Release took its units back", limModel(2), []porcupine.Operation{
			call(0, acq(2), ok, 1, 2),
			call(1, rel(2), ok, 3, 4),
			call(0, give(0, 2), no, 5, 6),
		}, true},
		{"a cut below what is held, paid by a Release", limModel(4), []porcupine.Operation{
			call(0, acq(4), ok, 1, 2),
			call(0, set(2), ok, 3, 4), // a debt of 2
			call(0, rel(3), ok, 5, 6), // pays 2, frees 1
			call(0, try(2), no, 7, 8),
			call(0, try(1), yes, 9, 10),
		}, true},
		{"a Release in debt frees units", limModel(4), []porcupine.Operation{
			call(0, acq(4), ok, 1, 2),
			call(0, set(2), ok, 3, 4),
			call(0, rel(1), ok, 5, 6),
			call(0, try(1), yes, 7, 8),
		}, false},
		{"SetLimit refused below an overlapping Acquire", limModel(3), []porcupine.Operation{
			call(0, acq(2), ok, 1, 2),
			call(0, limCall{op: limSetLimit, n: 2, contended: true}, output{err: evserr.ErrInvalid}, 4, 5),
			call(1, limCall{op: limAcquire, n: 3, ctx: ctxEnds}, output{err: context.Canceled}, 3, 6),
		}, true},
		{"SetLimit refused with nobody queued", limModel(2), []porcupine.Operation{
			call(0, set(1), output{err: evserr.ErrInvalid}, 1, 2),
		}, false},
		{"TryAcquireUpTo takes fewer than are free", limModel(3), []porcupine.Operation{
			call(0, tryUpTo(5), n(2), 1, 2),
		}, false},
		{"TryAcquireUpTo takes what is free, at most max", limModel(3), []porcupine.Operation{
			call(0, tryUpTo(2), n(2), 1, 2),
			call(0, tryUpTo(5), n(1), 3, 4),
			call(0, tryUpTo(5), n(0), 5, 6),
		}, true},
		{"TryAcquireUpTo takes nothing with units free", limModel(3), []porcupine.Operation{
			call(0, tryUpTo(1), n(0), 1, 2),
		}, false},
		{"TryAcquireUpTo takes nothing behind an overlapping Acquire", limModel(3), []porcupine.Operation{
			call(0, acq(2), ok, 1, 2),
			call(1, limCall{op: limAcquire, n: 3, ctx: ctxEnds}, output{err: context.Canceled}, 3, 6),
			call(0, limCall{op: limTryAcquireUpTo, n: 1, contended: true}, n(0), 4, 5),
		}, true},
		{"an AcquireUpTo granted after Close with units free", limModel(2), []porcupine.Operation{
			call(0, closeCall, ok, 1, 2),
			call(1, upTo(1), n(1), 3, 4),
		}, false},
		{"AcquireUpTo(0) refused after Close", limModel(2), []porcupine.Operation{
			call(0, closeCall, ok, 1, 2),
			call(1, upTo(0), closed, 3, 4),
			call(1, tryUpTo(2), n(0), 5, 6),
		}, true},
		{"AcquireUpTo(0) granted after Close", limModel(2), []porcupine.Operation{
			call(0, closeCall, ok, 1, 2),
			call(1, upTo(0), ok, 3, 4),
		}, false},
		{"SetLimit after Close", limModel(2), []porcupine.Operation{
			call(0, closeCall, ok, 1, 2),
			call(1, set(3), ok, 3, 4),
		}, false},
	}
}

// TestLimiterMarks pins which overlapping calls mark a limiter call
// contended, in each mode: markedByEventual adds an AcquireUpTo as a
// reason for a try to fail, and nothing else.
func TestLimiterMarks(t *testing.T) {
	try := limCall{op: limTryAcquire, n: 1}
	tryUpTo := limCall{op: limTryAcquireUpTo, n: 1}
	set := limCall{op: limSetLimit, n: 1}
	acq := limCall{op: limAcquire, n: 2, ctx: ctxEnds}
	upTo := limCall{op: limAcquireUpTo, n: 2, ctx: ctxEnds}
	others := []limCall{
		{op: limRelease, n: 1}, {op: limPermitRelease, n: 1}, {op: limSetLimit, n: 3},
		{op: limDrain, ctx: ctxEnds}, try, tryUpTo,
	}
	type markCase struct {
		c, by            limCall
		strict, eventual bool // whether c is contended in each mode
	}
	cases := []markCase{
		{try, acq, true, true}, {tryUpTo, acq, true, true},
		{try, upTo, false, true}, {tryUpTo, upTo, false, true},
		{set, acq, true, true}, {set, upTo, false, false},
		{set, limCall{op: limAcquire, n: 1}, false, false},
	}
	for _, o := range others {
		cases = append(cases, markCase{try, o, false, false}, markCase{tryUpTo, o, false, false})
	}
	for _, c := range cases {
		for _, m := range []struct {
			name string
			mark func(c, o limCall) limCall
			want bool
		}{{"strict", limCall.markedBy, c.strict}, {"eventual", limCall.markedByEventual, c.eventual}} {
			ops := []porcupine.Operation{call(0, c.c, output{}, 2, 3), call(1, c.by, output{}, 1, 4)}
			markLimOverlaps(ops, m.mark)
			if got := ops[0].Input.(limCall).contended; got != m.want {
				t.Errorf("%s: %v overlapped by %v: contended = %v, want %v", m.name, c.c, c.by, got, m.want)
			}
			ops = []porcupine.Operation{call(0, c.c, output{}, 1, 2), call(1, c.by, output{}, 3, 4)}
			markLimOverlaps(ops, m.mark)
			if ops[0].Input.(limCall).contended {
				t.Errorf("%s: %v after %v, not overlapping: contended", m.name, c.c, c.by)
			}
		}
	}
}
