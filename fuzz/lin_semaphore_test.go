package fuzz_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/evsync/evsync/internal/lincheck"
	"github.com/evsync/evsync/internal/spin"
	"github.com/evsync/evsync/semaphore"
)

// TestSemaphoreLinearizable checks concurrent histories of Acquire (with
// contexts that never end, end mid-wait or have ended), TryAcquire,
// Release, ReleaseWait, Count and one Close against semModel.
func TestSemaphoreLinearizable(t *testing.T) {
	checkLinearizable(t, "semaphore", semWorkload, []string{
		"Acquire/ok", "Acquire/Canceled", "Acquire/ErrClosed", "Acquire/ErrInvalid",
		"TryAcquire/1", "TryAcquire/0",
		"Release/ok", "Release/ErrWouldBlock", "Release/ErrInvalid",
		"ReleaseWait/ok", "ReleaseWait/Canceled", "ReleaseWait/ErrClosed",
	})
}

type semOp uint8

const (
	semAcquire semOp = iota
	semTryAcquire
	semRelease
	semReleaseWait
	semCount
)

var semOpNames = [...]string{"Acquire", "TryAcquire", "Release", "ReleaseWait", "Count"}

// semCall is the input of a semaphore call. contended is set, after the
// history is recorded, on a TryAcquire that some Acquire overlapped: only
// such a TryAcquire may fail although the units are there (it does not
// jump the queue).
type semCall struct {
	op        semOp
	n         uint64
	ctx       ctxUse // Acquire, ReleaseWait
	contended bool
}

func (c semCall) String() string {
	switch c.op {
	case semCount:
		return "Count()"
	case semTryAcquire:
		if c.contended {
			return fmt.Sprintf("TryAcquire(%d, contended)", c.n)
		}
	}
	if c.op == semAcquire || c.op == semReleaseWait {
		return fmt.Sprintf("%s(%d, ctx %v)", semOpNames[c.op], c.n, c.ctx)
	}
	return fmt.Sprintf("%s(%d)", semOpNames[c.op], c.n)
}

// semModel is the sequential model of a semaphore with the given limit
// and initial count.
func semModel(limit, initial uint64) porcupine.Model {
	return porcupine.Model{
		Init: func() any { return counterState{count: initial} },
		Step: func(state, in, out any) (bool, any) {
			s := state.(counterState)
			if in == closeCall {
				return true, counterState{s.count, true}
			}
			return semStep(s, in.(semCall), out.(output), limit)
		},
		Hash:              hashState,
		DescribeOperation: describeOp,
		DescribeState:     describeState,
	}
}

func semStep(s counterState, c semCall, o output, limit uint64) (bool, any) {
	n := c.n
	switch c.op {
	case semAcquire:
		if decided, legal := ctxStep(c.ctx, n <= limit, o.err); decided {
			return legal, s
		}
		switch o.err {
		case nil: // granted: n units were there at that moment
			if n == 0 {
				return true, s
			}
			return n <= limit && n <= s.count, counterState{s.count - min(n, s.count), s.closed}
		case spin.ErrClosed: // refused: closed, and too few units left
			return s.closed && n <= limit && n > s.count, s
		case spin.ErrInvalid:
			return n > limit, s
		}
	case semTryAcquire:
		if o.v == 1 {
			if n == 0 {
				return true, s
			}
			return n <= limit && n <= s.count, counterState{s.count - min(n, s.count), s.closed}
		}
		return n > limit || n != 0 && (n > s.count || c.contended), s
	case semRelease:
		return write(s, n, limit, ctxNone, o.err, true)
	case semReleaseWait:
		return write(s, n, limit, c.ctx, o.err, true)
	case semCount:
		return o.v == s.count, s
	}
	return false, s
}

var semLinLimits = []uint64{1, 2, 3, 5, semaphore.Max}

// semWorkload records one history of a semaphore with a drawn limit and
// initial count.
func semWorkload(rng *rand.Rand, tl tally) (porcupine.Model, []porcupine.Operation) {
	limit := semLinLimits[rng.IntN(len(semLinLimits))]
	initial := rng.Uint64N(min(limit, 3) + 1)
	s := semaphore.New(initial, semaphore.WithLimit(limit))
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
		r := rand.New(rand.NewPCG(seeds[i], uint64(i)))
		for range linCalls {
			semRandomCall(c, s, r, limit)
			maybeYield(r)
		}
	})
	ops := rec.Operations()
	markContended(ops)
	for _, op := range ops {
		if c, ok := op.Input.(semCall); ok {
			tl.hit(semOpNames[c.op], semOutcome(c, op.Output.(output)))
		}
	}
	return semModel(limit, initial), ops
}

func semRandomCall(c *lincheck.Client, s *semaphore.Semaphore, r *rand.Rand, limit uint64) {
	n := linAmount(r, limit)
	switch k := r.IntN(20); {
	case k < 6:
		ctx, u, stop := linCtx(r)
		lincheck.Record(c, semCall{op: semAcquire, n: n, ctx: u}, func() output { return output{err: s.Acquire(ctx, n)} })
		stop()
	case k < 9:
		lincheck.Record(c, semCall{op: semTryAcquire, n: n}, func() output {
			if s.TryAcquire(n) {
				return output{v: 1}
			}
			return output{}
		})
	case k < 14:
		lincheck.Record(c, semCall{op: semRelease, n: n}, func() output { return output{err: s.Release(n)} })
	case k < 17:
		ctx, u, stop := linCtx(r)
		lincheck.Record(c, semCall{op: semReleaseWait, n: n, ctx: u}, func() output { return output{err: s.ReleaseWait(ctx, n)} })
		stop()
	default:
		lincheck.Record(c, semCall{op: semCount}, func() output { return output{v: s.Count()} })
	}
}

// markContended marks each TryAcquire that an Acquire overlapped.
func markContended(ops []porcupine.Operation) {
	for i, op := range ops {
		c, ok := op.Input.(semCall)
		if !ok || c.op != semTryAcquire {
			continue
		}
		for _, other := range ops {
			if o, ok := other.Input.(semCall); ok && o.op == semAcquire && lincheck.Overlap(op, other) {
				c.contended = true
				ops[i].Input = c
				break
			}
		}
	}
}

func semOutcome(c semCall, o output) string {
	switch c.op {
	case semTryAcquire:
		return fmt.Sprint(o.v)
	case semCount:
		return "read"
	}
	return errName(o.err)
}
