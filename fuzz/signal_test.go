package fuzz_test

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"

	"github.com/evsync/evsync/model"
	"github.com/evsync/evsync/signal"
)

// FuzzSignal makes the decoded operations on a Signal and on the model,
// one at a time, inside a synctest bubble, and compares every result,
// Count, Stats, String, each Ready channel and each parked Wait after
// every step.
//
// Input: a construction byte ('0' the zero value, else New), an amount
// for the initial count (capped at Max), then operations, each a letter
// of sigCodes with its operands:
//
//	A n       Add(n)
//	W ctx n   AddWait(ctx, n); a live context is used only where the
//	          model says it completes at once (else cancelled); a
//	          cancelled one must return context.Canceled (or ErrInvalid)
//	          and add nothing
//	T         Take()
//	R ctx     Wait(ctx); a live context parks the call in a goroutine
//	          when the model says it would wait
//	K i       cancel the context of parked Wait i
//	Y         Ready
//	C         Close
//	L i n     cancel the context of parked Wait i and Add(n) at once,
//	          before that goroutine has necessarily run: the sum must go
//	          past it, to the next parked Wait or to the count
//
// The model has no readers queue, so the run keeps the parked Waits
// itself, oldest first: while any is parked the count is 0, and a
// successful write of n > 0 hands n to the oldest one and leaves the
// count (and Ready) as they were; Close refuses them all with ErrClosed.
func FuzzSignal(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) { runSignal(t, data, nil) })
}

const sigCodes = "AWTRKYCL"

type sigRun struct {
	trail
	tl       tally
	s        *signal.Signal
	m        *model.Counter
	parked   []*sigParked // still waiting, oldest first
	settling []settling   // settled by the current step, to check after it
	ready    readyList
}

// sigParked is a Wait blocked in a goroutine of the bubble.
type sigParked struct {
	cancel context.CancelFunc
	res    chan result
}

func runSignal(t *testing.T, data []byte, tl tally) {
	synctest.Test(t, func(t *testing.T) {
		d := &decoder{data: data}
		r := &sigRun{trail: trail{t: t}, tl: tl}
		r.construct(d)
		defer r.stop()
		for d.more() {
			desc := r.step(d)
			synctest.Wait()
			r.check(desc)
			r.add(desc)
		}
	})
}

func (r *sigRun) stop() {
	r.s.Close()
	for _, p := range r.parked {
		p.cancel()
	}
}

func (r *sigRun) construct(d *decoder) {
	zero := d.choice(2) == 0
	initial := min(d.amount(0, signal.Max, 1), signal.Max)
	if zero {
		r.s, r.m = new(signal.Signal), model.NewSignal(0)
		r.tl.hit("New", "zero value")
		return
	}
	r.s, r.m = signal.New(initial), model.NewSignal(initial)
	r.tl.hit("New", "initial")
}

func (r *sigRun) amount(d *decoder) uint64 { return d.amount(r.m.Count(), signal.Max, 1) }

func (r *sigRun) step(d *decoder) string {
	switch d.op(sigCodes) {
	case 0:
		n := r.amount(d)
		want := r.write(n, "Add")
		r.sameErr(fmt.Sprintf("Add(%d)", n), r.s.Add(n), want)
		return fmt.Sprintf("Add(%d)", n)
	case 1:
		k := d.ctx()
		n := r.amount(d)
		return r.addWait(k, n)
	case 2:
		got, want := r.s.Take(), r.m.Take()
		r.tl.hit("Take", zeroOrNot(want))
		if got != want {
			r.fail("Take() = %d, model %d", got, want)
		}
		return "Take()"
	case 3:
		return r.wait(d.ctx())
	case 4:
		return r.cancelParked(d)
	case 5:
		r.tl.hit("Ready", r.ready.add(&r.trail, r.m, r.s.Ready()))
		return "Ready()"
	case 7:
		desc := r.cancelParked(d)
		n := r.amount(d)
		want := r.write(n, "CancelThenAdd")
		r.sameErr(fmt.Sprintf("Add(%d) right after a cancel", n), r.s.Add(n), want)
		return fmt.Sprintf("%s, then Add(%d)", desc, n)
	}
	r.s.Close()
	r.m.Close()
	for _, p := range r.parked {
		p.expect(r, result{err: signal.ErrClosed})
	}
	r.parked = nil
	r.tl.hit("Close", "ok")
	return "Close()"
}

// write steps the model for a write of n that completes at once and
// returns its result. With Waits parked (the count is then 0, as checked
// after every step) a successful write of n > 0 goes straight to the
// oldest of them: the model's count, and its Ready channel, stay as they
// are.
func (r *sigRun) write(n uint64, op string) error {
	if len(r.parked) != 0 && n != 0 && n <= signal.Max && !r.m.Closed() {
		p := r.parked[0]
		r.parked = r.parked[1:]
		p.expect(r, result{v: n})
		r.tl.hit(op, "handed to a parked Wait")
		return nil
	}
	err := r.m.Write(n)
	r.tl.err(op, err)
	return err
}

// expect notes the result a parked Wait must have returned once the step
// that settled it is over. It is checked right away, after synctest.Wait.
func (p *sigParked) expect(r *sigRun, want result) {
	r.settling = append(r.settling, settling{p, want})
}

func (r *sigRun) addWait(k ctxKind, n uint64) string {
	desc := fmt.Sprintf("AddWait(%v, %d)", k, n)
	if k == ctxNil {
		r.tl.err("AddWait", signal.ErrInvalid)
		r.sameErr("AddWait(nil)", r.s.AddWait(nilCtx, n), signal.ErrInvalid)
		return desc
	}
	if k == ctxCancelled { // a done context stops the call: nothing added
		want := r.m.WriteWait(model.Done, n)
		r.tl.err("AddWait", want)
		r.sameErr(desc, r.s.AddWait(cancelled, n), want)
		return desc
	}
	if n <= signal.Max && !r.m.Closed() && n > signal.Max-r.m.Count() {
		// It would wait: a parked writer is not modelled.
		r.tl.err("AddWait", context.Canceled)
		r.sameErr(desc, r.s.AddWait(cancelled, n), context.Canceled)
		return desc + " (cancelled)"
	}
	want := r.write(n, "AddWait")
	r.sameErr(desc, r.s.AddWait(k.context(), n), want)
	return desc
}

func (r *sigRun) wait(k ctxKind) string {
	desc := fmt.Sprintf("Wait(%v)", k)
	waits := r.m.Count() == 0 && !r.m.Closed()
	switch {
	case k == ctxNil:
		v, err := r.s.Wait(nilCtx)
		r.tl.err("Wait", signal.ErrInvalid)
		r.sameResult("Wait(nil)", result{v, err}, result{err: signal.ErrInvalid})
	case k == ctxLive && waits && len(r.parked) < maxParked:
		ctx, cancel := context.WithCancel(context.Background())
		p := &sigParked{cancel: cancel, res: make(chan result, 1)}
		go func() {
			v, err := r.s.Wait(ctx)
			p.res <- result{v, err}
		}()
		r.parked = append(r.parked, p)
		r.tl.hit("Wait", "parked")
		desc += " parked"
	default:
		if k == ctxLive && waits {
			k = ctxCancelled
		}
		want, err := r.m.Wait(k.model())
		want2 := result{want, cancelledErr(err)}
		r.tl.err("Wait", want2.err)
		v, err := r.s.Wait(k.context())
		r.sameResult(desc, result{v, err}, want2)
	}
	return desc
}

// cancelParked cancels the context of a parked Wait, which must return 0
// and context.Canceled and leave the queue.
func (r *sigRun) cancelParked(d *decoder) string {
	if len(r.parked) == 0 {
		d.byte()
		return "cancel parked (none)"
	}
	i := d.choice(len(r.parked))
	p := r.parked[i]
	r.parked = append(r.parked[:i:i], r.parked[i+1:]...)
	p.cancel()
	p.expect(r, result{err: context.Canceled})
	return fmt.Sprintf("cancel parked Wait #%d", i)
}

func (r *sigRun) check(desc string) {
	m := r.m
	validate(&r.trail, m)
	for _, s := range r.settling {
		got, ok := settled(s.p.res)
		if !ok {
			r.fail("after %s: a parked Wait still waits, want %v", desc, s.want)
		}
		r.tl.err("Parked Wait", got.err)
		r.sameResult("after "+desc+": parked Wait", got, s.want)
	}
	r.settling = r.settling[:0]
	for i, p := range r.parked {
		if got, ok := settled(p.res); ok {
			r.fail("after %s: parked Wait #%d returned %v, want still waiting", desc, i, got)
		}
	}
	if len(r.parked) != 0 && m.Count() != 0 {
		r.fail("after %s: harness: %d Waits parked with the count at %d", desc, len(r.parked), m.Count())
	}
	if got := r.s.Count(); got != m.Count() {
		r.fail("after %s: Count() = %d, model %d", desc, got, m.Count())
	}
	want := signal.Stats{Count: m.Count(), Waiting: len(r.parked), Closed: m.Closed()}
	if st := r.s.Stats(); st != want {
		r.fail("after %s: Stats() = %+v, model %+v", desc, st, want)
	}
	if s := r.s.String(); s != want.String() {
		r.fail("after %s: String() = %q, want %q", desc, s, want.String())
	}
	r.ready.check(&r.trail, m)
}

// settling is a parked Wait the last step settled, with its result.
type settling struct {
	p    *sigParked
	want result
}

func (r *sigRun) sameErr(what string, got, want error) {
	if !errMatches(got, want) {
		r.fail("%s = %v, model %v", what, got, want)
	}
}

func (r *sigRun) sameResult(what string, got, want result) {
	if got.v != want.v || !errMatches(got.err, want.err) {
		r.fail("%s = (%d, %v), model (%d, %v)", what, got.v, got.err, want.v, want.err)
	}
}

func zeroOrNot(v uint64) string {
	if v == 0 {
		return "zero"
	}
	return "non-zero"
}
