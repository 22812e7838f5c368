package fuzz_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/evsync/evsync/internal/evserr"
	"github.com/evsync/evsync/internal/testsupport/lincheck"
	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/model"
	"github.com/evsync/evsync/semaphore"
)

// TestSemaphoreLinearizable checks concurrent histories of Acquire (with
// contexts that never end, end mid-wait or have ended), TryAcquire,
// Release, ReleaseWait, AcquireUpTo, TakeAll, SetLimit, Drain (with
// contexts that end), Writable, Count and one Close against semModel.
// Permits belong to a Limiter: TestLimiterLinearizable checks them.
//
// Writable is the poll it makes: whether the channel it returns is closed
// at once (there is room, or the semaphore is closed). When a channel
// armed at the limit fires later is no single call, and FuzzSemaphore
// checks that.
func TestSemaphoreLinearizable(t *testing.T) {
	checkLinearizable(t, "semaphore", semWorkload(false), semLinWant)
}

// TestSemaphoreEventualLinearizable is TestSemaphoreLinearizable on a
// Semaphore made with WithEventualFairness, the bound drawn for each
// history from limLinBounds. The marks are the strict mode's. A call that
// barges takes units that are there, which the model allows, and a
// TryAcquire or TakeAll that finds them gone overlapped an acquirer,
// which its mark allows.
func TestSemaphoreEventualLinearizable(t *testing.T) {
	checkLinearizable(t, "eventual semaphore", semWorkload(true), semLinWant)
}

// semLinWant are the outcomes a run of the semaphore's check must reach.
var semLinWant = []string{
	"Acquire/ok", "Acquire/Canceled", "Acquire/ErrClosed", "Acquire/ErrInvalid",
	"TryAcquire/1", "TryAcquire/0",
	"Release/ok", "Release/ErrWouldBlock", "Release/ErrInvalid",
	"ReleaseWait/ok", "ReleaseWait/Canceled", "ReleaseWait/ErrClosed",
	"AcquireUpTo/ok", "AcquireUpTo/Canceled", "AcquireUpTo/ErrClosed",
	"TakeAll/some", "TakeAll/none",
	"SetLimit/ok", "SetLimit/ErrInvalid", "SetLimit/ErrClosed",
	"Drain/ok", "Drain/Canceled", "Writable/1", "Writable/0",
}

type semOp uint8

const (
	semAcquire semOp = iota
	semTryAcquire
	semRelease
	semReleaseWait
	semCount
	semAcquireUpTo
	semTakeAll
	semSetLimit
	semDrain
	semWritable
)

var semOpNames = [...]string{"Acquire", "TryAcquire", "Release", "ReleaseWait", "Count",
	"AcquireUpTo", "TakeAll", "SetLimit", "Drain", "Writable"}

// semCall is the input of a semaphore call. contended is set
// after the history is recorded, from the calls that overlapped this one
// (see markedBy).
type semCall struct {
	op        semOp
	n         uint64 // units; AcquireUpTo's max; SetLimit's limit
	ctx       ctxUse // Acquire, ReleaseWait, AcquireUpTo, Drain
	contended bool
}

// name is the call's name, for the tally and the visualisation.
func (c semCall) name() string { return semOpNames[c.op] }

func (c semCall) String() string {
	flags := ""
	if c.contended {
		flags += ", contended"
	}
	switch c.op {
	case semCount, semTakeAll, semWritable:
		return fmt.Sprintf("%s(%s)", c.name(), flags)
	case semDrain:
		return fmt.Sprintf("Drain(ctx %v%s)", c.ctx, flags)
	case semAcquire, semReleaseWait, semAcquireUpTo:
		return fmt.Sprintf("%s(%d, ctx %v%s)", c.name(), c.n, c.ctx, flags)
	}
	return fmt.Sprintf("%s(%d%s)", c.name(), c.n, flags)
}

// semState is the state of the semaphore model: comparable, so that
// porcupine's default equality works, and copied by value, so that Step
// is pure.
type semState struct {
	count, limit, debt uint64
	closed             bool
}

func (s semState) String() string {
	closed := ""
	if s.closed {
		closed = " closed"
	}
	return fmt.Sprintf("count=%d limit=%d debt=%d%s", s.count, s.limit, s.debt, closed)
}

// semModel is the sequential model of a semaphore with the given limit
// and initial count.
func semModel(limit, initial uint64) porcupine.Model {
	return porcupine.Model{
		Init: func() any { return semState{count: initial, limit: limit} },
		Step: func(state, in, out any) (bool, any) {
			s := state.(semState)
			if in == closeCall {
				s.closed = true
				return true, s
			}
			return semStep(s, in.(semCall), out.(output))
		},
		Hash: func(state any) uint64 {
			s := state.(semState)
			h := (s.count*0x9e3779b97f4a7c15 ^ s.limit) * 0xbf58476d1ce4e5b9
			h ^= s.debt * 0x94d049bb133111eb
			if s.closed {
				h ^= 1
			}
			return h
		},
		DescribeOperation: describeOp,
		DescribeState:     func(state any) string { return state.(semState).String() },
	}
}

func semStep(s semState, c semCall, o output) (bool, semState) {
	switch c.op {
	case semAcquire:
		return semAcquireStep(s, c, o)
	case semTryAcquire:
		if o.v == 1 {
			return s.take(c.n)
		}
		return c.n > s.limit || c.n != 0 && (c.n > s.count || c.contended), s
	case semRelease:
		return s.write(c.n, ctxNone, o.err)
	case semReleaseWait:
		return s.write(c.n, c.ctx, o.err)
	case semCount:
		return o.v == s.count, s
	case semAcquireUpTo:
		return semUpToStep(s, c, o)
	case semTakeAll:
		if o.v == s.count {
			s.count = 0
			return true, s
		}
		return o.v == 0 && c.contended, s // it never takes what a queued acquirer is owed
	case semSetLimit:
		return semSetLimitStep(s, c, o)
	case semDrain:
		if decided, legal := ctxStep(c.ctx, true, o.err); decided {
			return legal, s
		}
		return o.err == nil && s.count == s.limit, s
	case semWritable:
		if o.v == 1 {
			return s.closed || s.count < s.limit, s
		}
		return !s.closed && s.count == s.limit, s
	}
	return false, s
}

// take is a grant of n units: legal if n is within the limit and the
// units are there.
func (s semState) take(n uint64) (bool, semState) {
	if n > s.limit || n > s.count {
		return false, s
	}
	s.count -= n
	return true, s
}

func semAcquireStep(s semState, c semCall, o output) (bool, semState) {
	n := c.n
	if decided, legal := ctxStep(c.ctx, n <= s.limit, o.err); decided {
		return legal, s
	}
	switch sentinel(o.err) {
	case nil: // granted: n units were there at that moment
		return s.take(n)
	case evserr.ErrClosed: // refused: closed, and too few units left
		return s.closed && n > s.count && n <= s.limit, s
	case evserr.ErrInvalid:
		return n > s.limit, s
	}
	return false, s
}

// semUpToStep: AcquireUpTo takes min(count, max) at a moment when the
// count is not 0, and is refused once closed and empty.
func semUpToStep(s semState, c semCall, o output) (bool, semState) {
	if decided, legal := ctxStep(c.ctx, true, o.err); decided {
		return legal, s
	}
	switch {
	case c.n == 0:
		return o.err == nil && o.v == 0, s
	case o.err == nil:
		if s.count == 0 || o.v != min(s.count, c.n) {
			return false, s
		}
		s.count -= o.v
		return true, s
	case o.err == evserr.ErrClosed:
		return s.closed && s.count == 0, s
	}
	return false, s
}

// write is the step of Release (u is ctxNone) and ReleaseWait: a write
// pays the debt first and adds the rest, up to the limit; up to
// limit+debt is valid. A semaphore takes units back after Close.
func (s semState) write(n uint64, u ctxUse, err error) (bool, semState) {
	valid := n <= s.limit+s.debt
	if decided, legal := ctxStep(u, valid, err); decided {
		return legal, s
	}
	pay := min(n, s.debt)
	fits := valid && n-pay <= s.limit-s.count
	switch sentinel(err) {
	case nil:
		if !fits {
			return false, s
		}
		s.debt -= pay
		s.count += n - pay
		return true, s
	case evserr.ErrWouldBlock: // Release only: no room
		return u == ctxNone && valid && !fits, s
	case evserr.ErrClosed: // ReleaseWait only: no room after Close, or queued at Close
		return s.closed && valid && u != ctxNone, s
	case evserr.ErrInvalid:
		return !valid, s
	}
	return false, s
}

// semSetLimitStep: a limit out of range is refused, and so may be one
// below an overlapping acquirer or writer (which may have been queued);
// after Close a valid limit gets ErrClosed; otherwise the limit changes,
// a raise paying the debt and freeing the rest, a cut taking free units
// and owing what they do not cover.
func semSetLimitStep(s semState, c semCall, o output) (bool, semState) {
	l := c.n
	valid := l != 0 && l <= semaphore.Max
	switch sentinel(o.err) {
	case evserr.ErrInvalid:
		return !valid || c.contended && !s.closed, s
	case evserr.ErrClosed:
		return valid && s.closed, s
	case nil:
		if !valid || s.closed {
			return false, s
		}
		return true, s.resize(l)
	}
	return false, s
}

func (s semState) resize(l uint64) semState {
	s.count, s.debt = model.Resize(s.count, s.limit, s.debt, l)
	s.limit = l
	return s
}

var semLinLimits = []uint64{1, 2, 3, 5, semaphore.Max}

// semWorkload returns the workload that records one history of a
// semaphore with a drawn limit and initial count, strict or eventually
// fair.
func semWorkload(eventual bool) workload {
	return func(rng *rand.Rand, tl tally) (porcupine.Model, []porcupine.Operation) {
		limit := semLinLimits[rng.IntN(len(semLinLimits))]
		initial := rng.Uint64N(min(limit, 3) + 1)
		opts := []semaphore.Option{semaphore.WithLimit(limit)}
		if eventual {
			opts = append(opts, semaphore.WithEventualFairness(limLinBounds[rng.IntN(len(limLinBounds))]))
		}
		return semHistory(rng, tl, semaphore.New(initial, opts...), limit, initial)
	}
}

// semHistory records one history of s, made with limit and initial.
func semHistory(rng *rand.Rand, tl tally, s *semaphore.Semaphore, limit, initial uint64) (porcupine.Model, []porcupine.Operation) {
	seeds := make([]uint64, linWorkers)
	for i := range seeds {
		seeds[i] = rng.Uint64()
	}
	yields := rng.IntN(100)
	var rec lincheck.Recorder
	rec.Run(linWorkers+1, func(c *lincheck.Client, i int) {
		if i == linWorkers {
			closer(c, yields, s.Close)
			return
		}
		w := &semWorker{c: c, s: s, r: rand.New(rand.NewPCG(seeds[i], uint64(i))), limit: limit}
		for range linCalls {
			w.call()
			maybeYield(w.r)
		}
	})
	ops := rec.Operations()
	markSemOverlaps(ops)
	for _, op := range ops {
		if c, ok := op.Input.(semCall); ok {
			tl.hit(c.name(), semOutcome(c, op.Output.(output)))
		}
	}
	return semModel(limit, initial), ops
}

// A semWorker is one client of a semaphore history.
type semWorker struct {
	c     *lincheck.Client
	s     *semaphore.Semaphore
	r     *rand.Rand
	limit uint64 // the limit the semaphore was made with
}

// semCalls are the workload's calls, each with its weight.
var semCalls = []struct {
	weight int
	call   func(*semWorker)
}{
	{5, (*semWorker).acquire}, {2, (*semWorker).tryAcquire},
	{4, (*semWorker).release}, {2, (*semWorker).releaseWait},
	{2, (*semWorker).acquireUpTo}, {1, (*semWorker).takeAll}, {2, (*semWorker).setLimit},
	{1, (*semWorker).drain}, {1, (*semWorker).writable}, {2, (*semWorker).count},
}

var semCallsWeight = func() (sum int) {
	for _, c := range semCalls {
		sum += c.weight
	}
	return sum
}()

// call makes one random call.
func (w *semWorker) call() {
	k := w.r.IntN(semCallsWeight)
	for _, c := range semCalls {
		if k < c.weight {
			c.call(w)
			return
		}
		k -= c.weight
	}
}

func (w *semWorker) acquire() {
	n := linAmount(w.r, w.limit)
	ctx, u, stop := linCtx(w.r)
	lincheck.Record(w.c, semCall{op: semAcquire, n: n, ctx: u}, func() output { return output{err: w.s.Acquire(ctx, n)} })
	stop()
}

func (w *semWorker) tryAcquire() {
	n := linAmount(w.r, w.limit)
	lincheck.Record(w.c, semCall{op: semTryAcquire, n: n}, func() output { return boolOutput(w.s.TryAcquire(n)) })
}

func (w *semWorker) release() {
	n := linAmount(w.r, w.limit)
	lincheck.Record(w.c, semCall{op: semRelease, n: n}, func() output { return output{err: w.s.Release(n)} })
}

func (w *semWorker) releaseWait() {
	n := linAmount(w.r, w.limit)
	ctx, u, stop := linCtx(w.r)
	lincheck.Record(w.c, semCall{op: semReleaseWait, n: n, ctx: u}, func() output { return output{err: w.s.ReleaseWait(ctx, n)} })
	stop()
}

func (w *semWorker) acquireUpTo() {
	max := linAmount(w.r, w.limit)
	ctx, u, stop := linCtx(w.r)
	lincheck.Record(w.c, semCall{op: semAcquireUpTo, n: max, ctx: u}, func() (o output) {
		o.v, o.err = w.s.AcquireUpTo(ctx, max)
		return o
	})
	stop()
}

func (w *semWorker) takeAll() {
	lincheck.Record(w.c, semCall{op: semTakeAll}, func() output { return output{v: w.s.TakeAll()} })
}

// setLimit draws a limit near the small ones of the workload, and now and
// then Max or one out of range.
func (w *semWorker) setLimit() {
	limits := [...]uint64{0, 1, 2, 3, 4, 5, w.limit, semaphore.Max, 1<<64 - 1}
	l := limits[w.r.IntN(len(limits))]
	lincheck.Record(w.c, semCall{op: semSetLimit, n: l}, func() output { return output{err: w.s.SetLimit(l)} })
}

// drain waits with a context that ends soon or has ended: the workers
// keep units, so a Drain with one that never ends might never return
// (Close does not end it).
func (w *semWorker) drain() {
	ctx, u, stop := cancelled, ctxEnded, func() {}
	if w.r.IntN(3) != 0 {
		ctx, stop = testkit.CancelSoon(w.r)
		u = ctxEnds
	}
	lincheck.Record(w.c, semCall{op: semDrain, ctx: u}, func() output { return output{err: w.s.Drain(ctx)} })
	stop()
}

func (w *semWorker) writable() {
	lincheck.Record(w.c, semCall{op: semWritable}, func() output { return boolOutput(testkit.IsClosed(w.s.Writable())) })
}

func (w *semWorker) count() {
	lincheck.Record(w.c, semCall{op: semCount}, func() output { return output{v: w.s.Count()} })
}

// boolOutput is the output of a call that reports a bool: 1 or 0.
func boolOutput(ok bool) output {
	if ok {
		return output{v: 1}
	}
	return output{}
}

// markSemOverlaps sets each call's contended flag from the
// calls that overlapped it in time.
func markSemOverlaps(ops []porcupine.Operation) {
	for i, op := range ops {
		c, ok := op.Input.(semCall)
		if !ok {
			continue
		}
		for j, other := range ops {
			if o, ok := other.Input.(semCall); ok && i != j && lincheck.Overlap(op, other) {
				c = c.markedBy(o)
			}
		}
		ops[i].Input = c
	}
}

// markedBy returns c marked for an overlapping call o. contended is what
// the queue explains: a TryAcquire or TakeAll that an acquirer overlapped
// may find it queued (they do not jump the queue); a SetLimit that an
// Acquire or ReleaseWait for more overlapped may be refused (they may be
// queued).
func (c semCall) markedBy(o semCall) semCall {
	switch c.op {
	case semTryAcquire, semTakeAll:
		c.contended = c.contended || o.op == semAcquire || o.op == semAcquireUpTo
	case semSetLimit:
		c.contended = c.contended || (o.op == semAcquire || o.op == semReleaseWait) && o.n > c.n
	}
	return c
}

func semOutcome(c semCall, o output) string {
	switch c.op {
	case semTryAcquire, semWritable:
		return fmt.Sprint(o.v)
	case semCount:
		return "read"
	case semTakeAll:
		if o.v == 0 {
			return "none"
		}
		return "some"
	}
	return errName(o.err)
}

// semBrokenHistories are hand-made histories of the calls the semaphore
// model gained with SetLimit, AcquireUpTo, TakeAll, Drain and Writable,
// for TestModelsRejectBrokenHistories: each wrong one next to a
// right one that differs in one outcome or one mark.
func semBrokenHistories() []brokenHistory {
	sem := func(op semOp, n uint64) semCall { return semCall{op: op, n: n, ctx: ctxNever} }
	ok, yes, no := output{}, output{v: 1}, output{v: 0}
	n := func(v uint64) output { return output{v: v} }
	invalid := output{err: evserr.ErrInvalid}
	return []brokenHistory{
		{"TakeAll leaves units", semModel(semaphore.Max, 3), []porcupine.Operation{
			call(0, sem(semTakeAll, 0), n(2), 1, 2),
		}, false},
		{"TakeAll behind an overlapping acquirer", semModel(semaphore.Max, 3), []porcupine.Operation{
			call(0, semCall{op: semTakeAll, contended: true}, n(0), 2, 3),
			call(1, semCall{op: semAcquire, n: 5, ctx: ctxEnds}, output{err: context.Canceled}, 1, 4),
		}, true},
		{"TakeAll takes nothing from units nobody waits for", semModel(semaphore.Max, 3), []porcupine.Operation{
			call(0, sem(semTakeAll, 0), n(0), 1, 2),
		}, false},
		{"AcquireUpTo takes fewer than there are", semModel(semaphore.Max, 3), []porcupine.Operation{
			call(0, sem(semAcquireUpTo, 5), n(2), 1, 2),
		}, false},
		{"AcquireUpTo takes what there is", semModel(semaphore.Max, 3), []porcupine.Operation{
			call(0, sem(semAcquireUpTo, 5), n(3), 1, 2),
			call(0, sem(semCount, 0), n(0), 3, 4),
		}, true},
		{"a cut below what is held, paid by a Release", semModel(4, 0), []porcupine.Operation{
			call(0, sem(semSetLimit, 2), ok, 1, 2), // debt 2
			call(0, sem(semRelease, 1), ok, 3, 4),
			call(0, sem(semCount, 0), n(0), 5, 6),
			call(0, sem(semRelease, 2), ok, 7, 8), // pays the last 1, frees 1
			call(0, sem(semCount, 0), n(1), 9, 10),
		}, true},
		{"a Release in debt adds to the count", semModel(4, 0), []porcupine.Operation{
			call(0, sem(semSetLimit, 2), ok, 1, 2),
			call(0, sem(semRelease, 2), ok, 3, 4),
			call(0, sem(semCount, 0), n(2), 5, 6),
		}, false},
		{"a raise in debt frees units", semModel(4, 0), []porcupine.Operation{
			call(0, sem(semSetLimit, 1), ok, 1, 2), // debt 3
			call(0, sem(semSetLimit, 3), ok, 3, 4), // pays 2 of it
			call(0, sem(semCount, 0), n(2), 5, 6),
		}, false},
		{"a Release up to limit+debt", semModel(4, 0), []porcupine.Operation{
			call(0, sem(semSetLimit, 1), ok, 1, 2),
			call(0, sem(semRelease, 4), ok, 3, 4),
			call(0, sem(semRelease, 1), output{err: evserr.ErrWouldBlock}, 5, 6),
			call(0, sem(semRelease, 2), invalid, 7, 8),
		}, true},
		{"SetLimit refused with nobody queued", semModel(5, 5), []porcupine.Operation{
			call(0, sem(semSetLimit, 3), invalid, 1, 2),
		}, false},
		{"SetLimit refused below an overlapping Acquire", semModel(5, 0), []porcupine.Operation{
			call(0, semCall{op: semSetLimit, n: 3, contended: true}, invalid, 2, 3),
			call(1, semCall{op: semAcquire, n: 4, ctx: ctxEnds}, output{err: context.Canceled}, 1, 4),
		}, true},
		{"SetLimit after Close", semModel(5, 0), []porcupine.Operation{
			call(0, closeCall, ok, 1, 2),
			call(1, sem(semSetLimit, 3), ok, 3, 4),
		}, false},
		{"Drain returns with a unit out", semModel(2, 1), []porcupine.Operation{
			call(0, semCall{op: semDrain, ctx: ctxEnds}, ok, 1, 2),
		}, false},
		{"Drain returns once the unit is back", semModel(2, 1), []porcupine.Operation{
			call(0, semCall{op: semDrain, ctx: ctxEnds}, ok, 1, 4),
			call(1, sem(semRelease, 1), ok, 2, 3),
		}, true},
		{"Writable not ready below the limit", semModel(2, 1), []porcupine.Operation{
			call(0, sem(semWritable, 0), no, 1, 2),
		}, false},
		{"Writable ready after Close at the limit", semModel(2, 2), []porcupine.Operation{
			call(0, sem(semWritable, 0), no, 1, 2),
			call(0, closeCall, ok, 3, 4),
			call(0, sem(semWritable, 0), yes, 5, 6),
		}, true},
		{"Acquire refused by Close for more than the limit", semModel(2, 0), []porcupine.Operation{
			call(0, sem(semSetLimit, 1), ok, 1, 2),
			call(0, closeCall, ok, 3, 4),
			call(1, sem(semAcquire, 2), output{err: evserr.ErrClosed}, 5, 6),
		}, false},
	}
}
