package fuzz_test

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/coalesce"
	"github.com/evsync/evsync/model"
)

// FuzzCoalesce makes the decoded operations on a Waker, on the fake clock
// of a synctest bubble, and on model.Coalescer with its explicit clock,
// and compares every wakeup, every Wait and the Stats after every step.
//
// Input: four configuration bytes, the delay (coDelays[i]), maxBatch
// (coBatches[i], 0 for none), the trailing-debounce maxWait as a multiple
// of the delay (coWaits[i], 0 for the default audit policy) and '1' for
// WithAdaptive or '2' for the zero value (a var coalesce.Waker; the other
// three bytes are then ignored), then operations, each a letter of
// coCodes with its operands:
//
//	W k      k+1 Wake calls (k = 0…3)
//	A ms     the clock moves ms milliseconds (0…31)
//	F        Flush
//	C        Close
//	T        a receive from C() without waiting, then Events()
//	R        the same through Ready()
//	E        Events() alone, with no receive
//	X ctx    Wait(ctx): nil must return ErrInvalid; an already cancelled
//	         context must return context.Canceled and take nothing, even
//	         with a wakeup there; a live one parks the call in a goroutine
//	         where it would park, and the model's TryWait tells what it
//	         returns once a wakeup comes or the Waker is closed
//	K        cancel the parked Wait's context
//
// At most one Wait is parked at a time: the Waker has one consumer.
func FuzzCoalesce(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) { runCoalesce(t, data, nil) })
}

const coCodes = "WAFCTRXKE"

var (
	coDelays  = []time.Duration{0, time.Millisecond, 5 * time.Millisecond, 20 * time.Millisecond}
	coBatches = []uint64{0, 1, 2, 3, 8}
	coWaits   = []time.Duration{0, 1, 2, 5}
)

type coRun struct {
	trail
	tl     tally
	w      *coalesce.Waker
	m      *model.Coalescer
	parked *coParked // the parked Wait, if any
}

type coParked struct {
	cancel context.CancelFunc
	res    chan result
}

func runCoalesce(t *testing.T, data []byte, tl tally) {
	synctest.Test(t, func(t *testing.T) {
		d := &decoder{data: data}
		r := &coRun{trail: trail{t: t}, tl: tl}
		r.construct(d)
		defer r.stop()
		for d.more() {
			desc := r.step(d)
			r.settle(desc)
			r.check(desc)
			r.add(desc)
		}
	})
}

func (r *coRun) stop() {
	r.w.Close()
	if r.parked != nil {
		r.parked.cancel()
	}
}

func (r *coRun) construct(d *decoder) {
	delay := coDelays[d.choice(len(coDelays))]
	batch := coBatches[d.choice(len(coBatches))]
	maxWait := delay * coWaits[d.choice(len(coWaits))]
	kind := d.choice(3)
	if kind == 2 {
		r.m, r.w = model.NewCoalescer(0, 0, 0), new(coalesce.Waker)
		r.tl.hit("New", "zero value")
		return
	}
	adaptive := kind == 1
	var opts []coalesce.Option
	if batch != 0 {
		opts = append(opts, coalesce.WithMaxBatch(batch))
	}
	if maxWait != 0 {
		opts = append(opts, coalesce.WithMaxWait(maxWait))
	}
	r.m = model.NewCoalescer(delay, batch, maxWait)
	if adaptive {
		opts = append(opts, coalesce.WithAdaptive())
		r.m.Adaptive()
		r.tl.hit("New", "adaptive")
	}
	r.w = coalesce.New(delay, opts...)
	policy := "audit"
	if maxWait != 0 {
		policy = "debounce"
	}
	r.tl.hit("New", policy)
	if batch != 0 {
		r.tl.hit("New", "maxBatch")
	}
	if delay == 0 {
		r.tl.hit("New", "zero delay")
	}
}

func (r *coRun) step(d *decoder) string {
	switch d.op(coCodes) {
	case 0:
		k := d.choice(4) + 1
		for i := range k {
			r.w.Wake()
			r.m.Wake()
			if i < k-1 && r.parked != nil {
				// Let the parked Wait finish with a wakeup before the next
				// Wake: it receives the token at once but counts the
				// events a moment later, so a wakeup fired in between may
				// or may not be in its report; the model's Wait reports
				// the first wakeup alone.
				r.settle("Wake")
			}
		}
		r.tl.hit("Wake", fmt.Sprint(k))
		return fmt.Sprintf("Wake ×%d", k)
	case 1:
		ms := time.Duration(d.choice(32)) * time.Millisecond
		time.Sleep(ms) // the bubble's fake clock: due timers run on the way
		synctest.Wait()
		r.m.Advance(ms)
		r.tl.hit("Advance", "ok")
		return fmt.Sprintf("Advance(%v)", ms)
	case 2:
		r.w.Flush()
		r.m.Flush()
		r.tl.hit("Flush", "ok")
		return "Flush()"
	case 3:
		r.w.Close()
		r.m.Close()
		r.tl.hit("Close", "ok")
		return "Close()"
	case 4:
		return r.receive("C", r.w.C())
	case 5:
		return r.receive("Ready", r.w.Ready())
	case 6:
		return r.wait(d.ctx())
	case 7:
		return r.cancelParked()
	}
	return r.events()
}

// events is Events alone, with no receive first: it takes the token too,
// and after Close it leaves none.
func (r *coRun) events() string {
	got, want := r.w.Events(), r.m.Events()
	if got != want {
		r.fail("Events() = %d, model %d", got, want)
	}
	label := "none"
	if want != 0 {
		label = "some"
	}
	r.tl.hit("Events", label)
	return "Events()"
}

// receive is the non-blocking consumer: a token from ch, then Events,
// against the model's TryWait.
func (r *coRun) receive(name string, ch <-chan struct{}) string {
	if r.parked != nil {
		r.tl.hit(name, "skipped: a Wait is parked")
		return name + " skipped"
	}
	var got result
	ok := false
	select {
	case _, open := <-ch:
		got.v = r.w.Events()
		ok = open || got.v != 0
	default:
	}
	events, merr := r.m.TryWait()
	mOK := merr == nil
	r.tl.hit(name, fmt.Sprint(mOK))
	if got.v != events || ok != mOK {
		r.fail("receive from %s: (%d events, %v), model (%d, %v)", name, got.v, ok, events, mOK)
	}
	return "receive from " + name
}

// parks reports whether Wait would park now: no wakeup is out and the
// Waker is open.
func (r *coRun) parks() bool { return !r.m.Signalled() && !r.m.Closed() }

func (r *coRun) wait(k ctxKind) string {
	desc := fmt.Sprintf("Wait(%v)", k)
	switch {
	case r.parked != nil:
		r.tl.hit("Wait", "skipped: a Wait is parked")
		return desc + " skipped"
	case k == ctxNil:
		v, err := r.w.Wait(nilCtx)
		r.tl.err("Wait", err)
		r.sameResult(desc, result{v, err}, result{err: coalesce.ErrInvalid})
	case k == ctxCancelled:
		v, err := r.w.Wait(cancelled)
		events, werr := r.m.Wait(model.Done)
		r.tl.err("Wait", err)
		r.sameResult(desc, result{v, err}, result{events, werr})
	case r.parks():
		ctx, cancel := context.WithCancel(context.Background())
		p := &coParked{cancel: cancel, res: make(chan result, 1)}
		go func() {
			v, err := r.w.Wait(ctx)
			p.res <- result{v, err}
		}()
		r.parked = p
		r.tl.hit("Wait", "parked")
		desc += " parked"
	default:
		v, err := r.w.Wait(context.Background())
		want := r.tryWait()
		r.tl.err("Wait", want.err)
		r.sameResult(desc+" (live)", result{v, err}, want)
	}
	return desc
}

// tryWait is what the model says Wait returns when it does not park.
func (r *coRun) tryWait() result {
	events, err := r.m.TryWait()
	if err == model.ErrWouldBlock {
		r.fail("harness: tryWait where Wait would park")
	}
	return result{events, err}
}

func (r *coRun) cancelParked() string {
	if r.parked == nil {
		return "cancel parked (none)"
	}
	p := r.parked
	r.parked = nil
	p.cancel()
	synctest.Wait()
	got, ok := settled(p.res)
	if !ok {
		r.fail("the parked Wait still waits after its context was cancelled")
	}
	r.tl.err("Parked Wait", got.err)
	r.sameResult("parked Wait after cancel", got, result{err: context.Canceled})
	return "cancel parked Wait"
}

// settle lets the parked Wait, if any, run; it must have returned exactly
// when the model has a wakeup out or is closed, with the model's TryWait.
func (r *coRun) settle(desc string) {
	synctest.Wait()
	p := r.parked
	if p == nil {
		return
	}
	got, ok := settled(p.res)
	if ok == r.parks() {
		r.fail("after %s: parked Wait returned = %v (%d, %v), model says it parks = %v",
			desc, ok, got.v, got.err, r.parks())
	}
	if ok {
		r.parked = nil
		r.tl.err("Parked Wait", got.err)
		r.sameResult("after "+desc+": parked Wait", got, r.tryWait())
	}
}

func (r *coRun) check(desc string) {
	validate(&r.trail, r.m)
	st := r.w.Stats()
	armed, _ := r.m.Armed()
	want := coalesce.Stats{
		Pending:   r.m.Pending(),
		Delivered: r.m.Delivered(),
		Wakeups:   r.m.Wakeups(),
		Armed:     armed,
		Closed:    r.m.Closed(),
	}
	if st != want {
		r.fail("after %s at %v: Stats() = %+v, model %+v", desc, r.m.Now(), st, want)
	}
}

// sameResult compares a Wait's result with the model's: the same events,
// and an error that is the model's or wraps it (errMatches).
func (r *coRun) sameResult(what string, got, want result) {
	if got.v != want.v || !errMatches(got.err, want.err) {
		r.fail("%s = (%d, %v), model (%d, %v)", what, got.v, got.err, want.v, want.err)
	}
}
