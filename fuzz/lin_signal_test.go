package fuzz_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/evsync/evsync/internal/evserr"
	"github.com/evsync/evsync/internal/testsupport/lincheck"
	"github.com/evsync/evsync/signal"
)

// TestSignalLinearizable checks concurrent histories of Add, AddWait,
// Take, Wait (with contexts that never end, end mid-wait or have ended),
// Count and one Close against sigModel.
func TestSignalLinearizable(t *testing.T) {
	checkLinearizable(t, "signal", sigWorkload(nil), sigWant)
}

// TestSignalWakeDelayLinearizable is TestSignalLinearizable for Signals
// whose blocked readers are woken through the coalescer, up to 50µs after
// an Add (real time), alone and with WithMaxBatch, WithAdaptive and
// WithMaxWait (up to 200µs then): the delay must not change what any call
// returns.
func TestSignalWakeDelayLinearizable(t *testing.T) {
	const delay = 50 * time.Microsecond
	for _, c := range []struct {
		name string
		opts []signal.Option
	}{
		{"WithWakeDelay", []signal.Option{signal.WithWakeDelay(delay)}},
		{"WithMaxBatch", []signal.Option{signal.WithWakeDelay(delay, signal.WithMaxBatch(3))}},
		{"WithAdaptive", []signal.Option{signal.WithWakeDelay(delay, signal.WithAdaptive())}},
		{"WithMaxWait", []signal.Option{signal.WithWakeDelay(delay, signal.WithMaxWait(4*delay))}},
	} {
		t.Run(c.name, func(t *testing.T) {
			checkLinearizable(t, "signal with "+c.name, sigWorkload(c.opts), sigWant)
		})
	}
}

var sigWant = []string{
	"Add/ok", "Add/ErrWouldBlock", "Add/ErrClosed", "Add/ErrInvalid",
	"AddWait/ok", "AddWait/Canceled", "AddWait/ErrClosed",
	"Wait/Canceled", "Wait/ErrClosed", "Wait/value",
	"Take/value", "Take/0",
}

type sigOp uint8

const (
	sigAdd sigOp = iota
	sigAddWait
	sigTake
	sigWait
	sigCount
)

var sigOpNames = [...]string{"Add", "AddWait", "Take", "Wait", "Count"}

type sigCall struct {
	op  sigOp
	n   uint64
	ctx ctxUse // AddWait, Wait
}

func (c sigCall) String() string {
	switch c.op {
	case sigAdd:
		return fmt.Sprintf("%s(%d)", sigOpNames[c.op], c.n)
	case sigAddWait:
		return fmt.Sprintf("%s(%d, ctx %v)", sigOpNames[c.op], c.n, c.ctx)
	case sigWait:
		return fmt.Sprintf("%s(ctx %v)", sigOpNames[c.op], c.ctx)
	}
	return sigOpNames[c.op] + "()"
}

// sigModel is the sequential model of a signal with the given initial
// count: Take returns the whole count and empties it (0 if empty), Wait
// returns a non-zero whole count, or ErrClosed once closed and empty.
func sigModel(initial uint64) porcupine.Model {
	return porcupine.Model{
		Init: func() any { return counterState{count: initial} },
		Step: func(state, in, out any) (bool, any) {
			s := state.(counterState)
			if in == closeCall {
				return true, counterState{s.count, true}
			}
			return sigStep(s, in.(sigCall), out.(output))
		},
		Hash:              hashState,
		DescribeOperation: describeOp,
		DescribeState:     describeState,
	}
}

func sigStep(s counterState, c sigCall, o output) (bool, any) {
	switch c.op {
	case sigAdd:
		return write(s, c.n, signal.Max, ctxNone, o.err, false)
	case sigAddWait:
		return write(s, c.n, signal.Max, c.ctx, o.err, false)
	case sigTake:
		return o.v == s.count, counterState{0, s.closed}
	case sigWait:
		if decided, legal := ctxStep(c.ctx, true, o.err); decided {
			return legal && o.v == 0, s
		}
		switch sentinel(o.err) {
		case nil:
			return o.v != 0 && o.v == s.count, counterState{0, s.closed}
		case evserr.ErrClosed:
			return o.v == 0 && s.closed && s.count == 0, s
		}
	case sigCount:
		return o.v == s.count, s
	}
	return false, s
}

// sigInitials start empty, with a little, or close to Max, where adds
// overflow.
var sigInitials = []uint64{0, 2, signal.Max - 3}

// sigWorkload returns the workload of a Signal made with opts.
func sigWorkload(opts []signal.Option) workload {
	return func(rng *rand.Rand, tl tally) (porcupine.Model, []porcupine.Operation) {
		initial := sigInitials[rng.IntN(len(sigInitials))]
		s := signal.New(initial, opts...)
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
				sigRandomCall(c, s, r)
				maybeYield(r)
			}
		})
		ops := rec.Operations()
		for _, op := range ops {
			if c, ok := op.Input.(sigCall); ok {
				tl.hit(sigOpNames[c.op], sigOutcome(c, op.Output.(output)))
			}
		}
		return sigModel(initial), ops
	}
}

func sigOutcome(c sigCall, o output) string {
	switch {
	case o.err != nil:
		return errName(o.err)
	case c.op == sigAdd || c.op == sigAddWait:
		return "ok"
	case o.v == 0:
		return "0"
	}
	return "value"
}

// sigAmount draws an Add: mostly 1…3, sometimes 0, Max (which fits only
// an empty count) or 1<<64-1 (invalid).
func sigAmount(r *rand.Rand) uint64 {
	switch r.IntN(12) {
	case 0:
		return 0
	case 1:
		return signal.Max
	case 2:
		return signal.Max + 1
	}
	return 1 + r.Uint64N(3)
}

func sigRandomCall(c *lincheck.Client, s *signal.Signal, r *rand.Rand) {
	switch k := r.IntN(20); {
	case k < 7:
		n := sigAmount(r)
		lincheck.Record(c, sigCall{op: sigAdd, n: n}, func() output { return output{err: s.Add(n)} })
	case k < 9:
		n := sigAmount(r)
		ctx, u, stop := linCtx(r)
		lincheck.Record(c, sigCall{op: sigAddWait, n: n, ctx: u}, func() output { return output{err: s.AddWait(ctx, n)} })
		stop()
	case k < 12:
		lincheck.Record(c, sigCall{op: sigTake}, func() output { return output{v: s.Take()} })
	case k < 17:
		ctx, u, stop := linCtx(r)
		lincheck.Record(c, sigCall{op: sigWait, ctx: u}, func() output {
			v, err := s.Wait(ctx)
			return output{v, err}
		})
		stop()
	default:
		lincheck.Record(c, sigCall{op: sigCount}, func() output { return output{v: s.Count()} })
	}
}
