package fuzz_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/evsync/evsync/internal/evserr"
	"github.com/evsync/evsync/internal/testsupport/lincheck"
	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/model"
	"github.com/evsync/evsync/poll"
	"github.com/evsync/evsync/semaphore"
	"github.com/evsync/evsync/signal"
)

// TestSetLinearizable checks concurrent histories of a poll.Set[int] and
// its sources against setLinModel, model.Set over model.Counters: clients
// Add, Modify (to new keys too) and Remove the sources in every mode,
// write to them and read from them (two signals and a semaphore of limit
// 2), take events with Wait (with contexts that never end, end mid-wait
// or have ended) and TryWait (max 0 to 4), and one more client closes a
// source one time in two, and then the Set, at random moments.
//
// What this checks beyond the sequential tests (poll's
// TestSetMatchesTheModel makes one call at a time): under any
// interleaving of the Set's calls with each other and with the sources'
// own, every report can be explained by an order of the calls that
// respects real time. So an edge source is reported once per wakeup and
// a one-shot source once per Modify; no wakeup is lost; a Wait hands each
// event to one caller, in the ready list's order, with the key Modify set
// last; a source removed is never reported once Remove has returned; a
// Wait that returns ctx.Err() took nothing, and one whose context ends
// after the hand-over returns what it was handed; a Wait whose context
// had ended takes nothing; and Close is one instant, after which each
// queued source is reported at most once more and the Waits end with
// ErrClosed.
//
// The model allows what the Set's locking allows, and no more (see
// lin_set_model_test.go): a source tells the Set of a change after its
// own unlock, so the Set may poll the change first and report an edge
// source once more when the wakeup comes; a Wait polls the queued sources
// one at a time, so they may change between two polls; and a Wait that
// blocks first drops the sources queued with no event left.
func TestSetLinearizable(t *testing.T) {
	checkLinearizable(t, "poll.Set", setLinWorkload, setLinWant)
}

// setLinWant are the outcomes the workload must reach.
var setLinWant = []string{
	"Add/ok", "Add/ErrExists", "Add/ErrClosed",
	"Modify/ok", "Modify/ErrNotFound", "Modify/ErrClosed",
	"Remove/ok", "Remove/ErrNotFound",
	"Write/ok", "Write/ErrWouldBlock", "Write/ErrClosed",
	"Read/some", "Read/none",
	"Wait/events", "Wait/Canceled", "Wait/ErrClosed",
	"TryWait/events", "TryWait/none",
	"CloseSource/ok",
}

const (
	setLinSources  = 3 // a signal, a semaphore of limit setLinSemLimit, a signal
	setLinSem      = 1 // the semaphore's index
	setLinSemLimit = 2
	setLinWaiters  = 2  // clients that mostly Wait and TryWait
	setLinOthers   = 3  // clients that mostly register and write
	setLinCalls    = 12 // per client
)

type setLinOp uint8

const (
	setLinAdd setLinOp = iota
	setLinModify
	setLinRemove
	setLinWrite // signal Add(n), semaphore Release(n)
	setLinRead  // signal Take(), semaphore TryAcquire(n)
	setLinWait
	setLinTryWait
	setLinCloseSource
)

var setLinOpNames = [...]string{"Add", "Modify", "Remove", "Write", "Read", "Wait", "TryWait", "CloseSource"}

// setLinCall is the input of a call of the history.
type setLinCall struct {
	op     setLinOp
	src    int // the source's index: Add, Modify, Remove, Write, Read, CloseSource
	key    int // Add, Modify
	events model.Events
	mode   model.Mode
	n      uint64 // Write's units, a semaphore Read's
	max    int    // Wait, TryWait
	ctx    ctxUse // Wait
	id     int    // a source call's index in the history, which names its wakeup
	wakes  bool   // a source call that woke the Set: its wakeup is a setLinWake of its own
	call   int64  // Wait, TryWait: the time of the call
	ret    int64  // a source call: the time it returned
}

// setLinWake is the second step of a source call that woke the Set: the
// wakeup, which a real source delivers after its own unlock. It is an
// operation of its own, with the call's client and times, so it may take
// effect at any moment after the call's change and before it returns
// (see model.Mute).
type setLinWake struct {
	id, src int
}

func (w setLinWake) String() string { return fmt.Sprintf("the wakeup of #%d (src%d)", w.id, w.src) }

// setLinWaitEnd is the second step of a Wait that may block: the step
// that ends its wait. It is an operation of its own, with the Wait's
// client, times and output. The first step is the Wait's first poll.
type setLinWaitEnd struct {
	id, max int
	call    int64 // the Wait's
}

func (e setLinWaitEnd) String() string { return fmt.Sprintf("the end of #%d's wait", e.id) }

var setLinModeNames = [...]string{"edge", "level", "oneshot"}

func (c setLinCall) String() string {
	name := setLinOpNames[c.op]
	switch c.op {
	case setLinAdd, setLinModify:
		return fmt.Sprintf("%s(src%d, key %d, %v, %s)", name, c.src, c.key, c.events, setLinModeNames[c.mode])
	case setLinWrite, setLinRead:
		if c.src == setLinSem || c.op == setLinWrite {
			return fmt.Sprintf("#%d %s(src%d, %d)", c.id, name, c.src, c.n)
		}
		return fmt.Sprintf("#%d %s(src%d)", c.id, name, c.src)
	case setLinCloseSource:
		return fmt.Sprintf("#%d %s(src%d)", c.id, name, c.src)
	case setLinWait:
		if c.ctx != ctxEnded {
			return fmt.Sprintf("#%d Wait(%d, ctx %v)", c.id, c.max, c.ctx)
		}
		return fmt.Sprintf("Wait(%d, ctx %v)", c.max, c.ctx)
	case setLinTryWait:
		return fmt.Sprintf("TryWait(%d)", c.max)
	}
	return fmt.Sprintf("%s(src%d)", name, c.src)
}

// setLinOut is what a call returned: its error, the events of Wait and
// TryWait, a Read's units (a semaphore's TryAcquire: 1 or 0).
type setLinOut struct {
	err error
	evs []model.SetEvent
	v   uint64
}

func (o setLinOut) String() string {
	switch {
	case o.err != nil:
		return setLinErrName(o.err)
	case o.evs != nil:
		return fmt.Sprint(o.evs)
	}
	return fmt.Sprint(o.v)
}

// setLinErrName names an error, poll's ErrExists and ErrNotFound too.
func setLinErrName(err error) string {
	switch {
	case errors.Is(err, evserr.ErrExists):
		return "ErrExists"
	case errors.Is(err, evserr.ErrNotFound):
		return "ErrNotFound"
	}
	return errName(err)
}

// setLinReal returns the real sources of a history with the given
// counts.
func setLinReal(counts [setLinSources]uint64) []any {
	src := make([]any, setLinSources)
	for i, n := range counts {
		if i == setLinSem {
			src[i] = semaphore.New(n, semaphore.WithLimit(setLinSemLimit))
		} else {
			src[i] = signal.New(n)
		}
	}
	return src
}

var (
	// In twice as often as the others: a signal is always below its
	// limit, so Out on it is always ready and a Wait never blocks.
	setLinEvents = []model.Events{model.In, model.In, model.Out, model.In | model.Out}
	setLinModes  = []model.Mode{model.Edge, model.Level, model.OneShot}
)

// setLinDrawSetup draws the sources' counts and which of them start in
// the Set, and how.
func setLinDrawSetup(rng *rand.Rand) setLinSetup {
	var s setLinSetup
	for i := range setLinSources {
		if i == setLinSem {
			s.counts[i] = rng.Uint64N(setLinSemLimit + 1)
		} else {
			s.counts[i] = rng.Uint64N(2)
		}
		if rng.IntN(3) != 0 {
			s.regs[i] = model.SetRegistration{Key: 10 * i, Events: setLinEvents[rng.IntN(len(setLinEvents))], Mode: setLinModes[rng.IntN(3)]}
		}
	}
	return s
}

// setLinWorkload records one history of a Set.
func setLinWorkload(rng *rand.Rand, tl tally) (porcupine.Model, []porcupine.Operation) {
	setup := setLinDrawSetup(rng)
	src := setLinReal(setup.counts)
	set := poll.New[int]()
	for i, r := range setup.regs {
		if r.Events != 0 {
			if err := set.Add(src[i], r.Key, poll.Events(r.Events), poll.Mode(r.Mode)); err != nil {
				panic(err)
			}
		}
	}
	workers := setLinWaiters + setLinOthers
	seeds := make([]uint64, workers+1)
	for i := range seeds {
		seeds[i] = rng.Uint64()
	}
	var rec lincheck.Recorder
	rec.Run(workers+1, func(c *lincheck.Client, i int) {
		w := &setLinClient{c: c, set: set, src: src, r: rand.New(rand.NewPCG(seeds[i], uint64(i)))}
		switch {
		case i == workers:
			w.closer()
		case i < setLinWaiters:
			w.run(setLinWaiterCalls)
		default:
			w.run(setLinOtherCalls)
		}
	})
	ops := rec.Operations()
	for i, op := range ops {
		if c, ok := op.Input.(setLinCall); ok {
			tl.hit(setLinOpNames[c.op], setLinOutcome(c, op.Output.(setLinOut)))
		}
		ops = setLinSplit(ops, i)
	}
	// The setup is a call of a client of its own that returned before the
	// others started.
	first := porcupine.Operation{ClientId: workers + 1, Input: setup, Output: setLinOut{}, Call: 0, Return: 0}
	return setLinModel(), append([]porcupine.Operation{first}, ops...)
}

// setLinSplit gives the call ops[i] its times. A source call it names by
// its index and, if the call woke the Set, appends its wakeup as an
// operation of its own, with the same client and times. A Wait that may
// block it names too, and appends its return (setLinWaitEnd).
func setLinSplit(ops []porcupine.Operation, i int) []porcupine.Operation {
	c, ok := ops[i].Input.(setLinCall)
	if !ok {
		return ops
	}
	c.call, c.ret = ops[i].Call, ops[i].Return
	ops[i].Input = c
	if c.op == setLinWait && c.ctx != ctxEnded { // it may block: its return is a step of its own
		c.id = i
		ops[i].Input = c
		end := ops[i]
		end.Input = setLinWaitEnd{id: i, max: c.max, call: c.call}
		return append(ops, end)
	}
	if c.op != setLinWrite && c.op != setLinRead && c.op != setLinCloseSource {
		return ops
	}
	o := ops[i].Output.(setLinOut)
	c.id = i
	c.wakes = c.op == setLinCloseSource || c.op == setLinWrite && o.err == nil || c.op == setLinRead && o.v != 0
	ops[i].Input = c
	if !c.wakes {
		return ops
	}
	wk := ops[i]
	wk.Input, wk.Output = setLinWake{id: i, src: c.src}, setLinOut{}
	return append(ops, wk)
}

func setLinOutcome(c setLinCall, o setLinOut) string {
	switch {
	case o.err != nil:
		return setLinErrName(o.err)
	case c.op == setLinWait || c.op == setLinTryWait:
		if len(o.evs) == 0 {
			return "none"
		}
		return "events"
	case c.op == setLinRead:
		if o.v == 0 {
			return "none"
		}
		return "some"
	}
	return "ok"
}

// A setLinClient is one client of a history.
type setLinClient struct {
	c   *lincheck.Client
	set *poll.Set[int]
	src []any
	r   *rand.Rand
}

// The clients' calls, each with its weight.
type setLinWeighted struct {
	weight int
	call   func(*setLinClient)
}

var (
	setLinWaiterCalls = []setLinWeighted{
		{5, (*setLinClient).wait}, {3, (*setLinClient).tryWait}, {2, (*setLinClient).modify},
		{1, (*setLinClient).write},
	}
	setLinOtherCalls = []setLinWeighted{
		{2, (*setLinClient).add}, {3, (*setLinClient).modify}, {2, (*setLinClient).remove},
		{4, (*setLinClient).write}, {3, (*setLinClient).read}, {1, (*setLinClient).tryWait},
	}
)

// run makes setLinCalls calls drawn from calls by weight.
func (w *setLinClient) run(calls []setLinWeighted) {
	sum := 0
	for _, c := range calls {
		sum += c.weight
	}
	for range setLinCalls {
		k := w.r.IntN(sum)
		for _, c := range calls {
			if k < c.weight {
				c.call(w)
				break
			}
			k -= c.weight
		}
		maybeYield(w.r)
	}
}

func (w *setLinClient) record(in setLinCall, f func() setLinOut) setLinOut {
	return lincheck.Record(w.c, in, f)
}

// interest draws a source, a key for it (10 times its index, plus 0 to 2,
// so that Modify changes keys), events and a mode.
func (w *setLinClient) interest(op setLinOp) setLinCall {
	i := w.r.IntN(setLinSources)
	return setLinCall{op: op, src: i, key: 10*i + w.r.IntN(3), events: setLinEvents[w.r.IntN(len(setLinEvents))], mode: setLinModes[w.r.IntN(3)]}
}

func (w *setLinClient) add() {
	c := w.interest(setLinAdd)
	w.record(c, func() setLinOut {
		return setLinOut{err: w.set.Add(w.src[c.src], c.key, poll.Events(c.events), poll.Mode(c.mode))}
	})
}

func (w *setLinClient) modify() {
	c := w.interest(setLinModify)
	w.record(c, func() setLinOut {
		return setLinOut{err: w.set.Modify(w.src[c.src], c.key, poll.Events(c.events), poll.Mode(c.mode))}
	})
}

func (w *setLinClient) remove() {
	c := setLinCall{op: setLinRemove, src: w.r.IntN(setLinSources)}
	w.record(c, func() setLinOut { return setLinOut{err: w.set.Remove(w.src[c.src])} })
}

func (w *setLinClient) write() {
	c := setLinCall{op: setLinWrite, src: w.r.IntN(setLinSources), n: w.r.Uint64N(3)}
	w.record(c, func() setLinOut {
		switch s := w.src[c.src].(type) {
		case *semaphore.Semaphore:
			return setLinOut{err: s.Release(c.n)}
		case *signal.Signal:
			return setLinOut{err: s.Add(c.n)}
		}
		panic("not a source")
	})
}

func (w *setLinClient) read() {
	c := setLinCall{op: setLinRead, src: w.r.IntN(setLinSources), n: 1 + w.r.Uint64N(2)}
	w.record(c, func() setLinOut {
		switch s := w.src[c.src].(type) {
		case *semaphore.Semaphore:
			return setLinOut{v: b2u(s.TryAcquire(c.n))}
		case *signal.Signal:
			return setLinOut{v: s.Take()}
		}
		panic("not a source")
	})
}

// setLinEventsOf converts poll's events to the model's.
func setLinEventsOf(evs []poll.Event[int]) []model.SetEvent {
	out := make([]model.SetEvent, len(evs))
	for i, e := range evs {
		out[i] = model.SetEvent{Key: e.Key, Events: model.Events(e.Events)}
	}
	return out
}

// wait makes a Wait whose context ends mid-call one time in two (a
// hand-over may race its end), never ends or had ended.
func (w *setLinClient) wait() {
	var (
		ctx  context.Context
		u    = ctxEnds
		stop func()
	)
	if w.r.IntN(3) == 0 {
		ctx, stop = testkit.CancelSoon(w.r)
	} else {
		ctx, u, stop = linCtx(w.r)
	}
	defer stop()
	c := setLinCall{op: setLinWait, max: 1 + w.r.IntN(3), ctx: u}
	w.record(c, func() setLinOut {
		evs, err := w.set.Wait(ctx, nil, c.max)
		return setLinOut{err: err, evs: setLinEventsOf(evs)}
	})
}

func (w *setLinClient) tryWait() {
	c := setLinCall{op: setLinTryWait, max: w.r.IntN(5)}
	w.record(c, func() setLinOut { return setLinOut{evs: setLinEventsOf(w.set.TryWait(nil, c.max))} })
}

// closer closes a random source one time in two, and then the Set, each
// after a random number of yields.
func (w *setLinClient) closer() {
	if w.r.IntN(2) == 0 {
		for range w.r.IntN(100) {
			runtime.Gosched()
		}
		c := setLinCall{op: setLinCloseSource, src: w.r.IntN(setLinSources)}
		w.record(c, func() setLinOut {
			switch s := w.src[c.src].(type) {
			case *semaphore.Semaphore:
				s.Close()
			case *signal.Signal:
				s.Close()
			}
			return setLinOut{}
		})
	}
	closer(w.c, w.r.IntN(150), w.set.Close)
}

// setBrokenHistories are hand-made poll.Set histories for
// TestModelsRejectBrokenHistories: each broken one next to a history it
// differs from only in timing or an allowed outcome.
func setBrokenHistories() []brokenHistory {
	h := &setHand{}
	in, out, inout := model.In, model.Out, model.In|model.Out
	reg := func(key int, ev model.Events, m model.Mode) model.SetRegistration {
		return model.SetRegistration{Key: key, Events: ev, Mode: m}
	}
	edge1 := setLinSetup{regs: [setLinSources]model.SetRegistration{reg(0, in, model.Edge)}}
	level1 := setLinSetup{counts: [setLinSources]uint64{1}, regs: [setLinSources]model.SetRegistration{reg(0, in, model.Level)}}
	oneshot := setLinSetup{regs: [setLinSources]model.SetRegistration{reg(0, in, model.OneShot)}}
	two := setLinSetup{counts: [setLinSources]uint64{1, 0}, regs: [setLinSources]model.SetRegistration{reg(0, in, model.Level), reg(10, in, model.Level)}}
	twoReady := setLinSetup{counts: [setLinSources]uint64{1, 1}, regs: [setLinSources]model.SetRegistration{reg(0, in, model.Level), reg(10, in, model.Level)}}
	evs := func(kv ...int) setLinOut {
		o := setLinOut{evs: []model.SetEvent{}}
		for _, k := range kv {
			o.evs = append(o.evs, model.SetEvent{Key: k, Events: in})
		}
		return o
	}
	ok := setLinOut{}
	return []brokenHistory{
		{"set: an edge source reported twice for one write", setLinModel(), h.ops(edge1,
			h.src(0, setLinWrite, 0, 1, ok, 1, 2),
			h.call(1, setLinCall{op: setLinTryWait, max: 4}, evs(0), 3, 4),
			h.call(1, setLinCall{op: setLinTryWait, max: 4}, evs(0), 5, 6),
		), false},
		{"set: an edge source reported again after a second write", setLinModel(), h.ops(edge1,
			h.src(0, setLinWrite, 0, 1, ok, 1, 2),
			h.call(1, setLinCall{op: setLinTryWait, max: 4}, evs(0), 3, 4),
			h.src(0, setLinWrite, 0, 0, ok, 5, 6),
			h.call(1, setLinCall{op: setLinTryWait, max: 4}, evs(0), 7, 8),
		), true},
		{"set: a write's wakeup after a Modify polled it reports an edge source once more", setLinModel(), h.ops(edge1,
			h.src(0, setLinWrite, 0, 1, ok, 1, 10),
			h.call(1, setLinCall{op: setLinModify, src: 0, key: 1, events: in, mode: model.Edge}, ok, 2, 3),
			h.call(1, setLinCall{op: setLinTryWait, max: 4}, evs(1), 4, 5),
			h.call(1, setLinCall{op: setLinTryWait, max: 4}, evs(1), 11, 12),
		), true},
		{"set: that history with the write returned before the first report", setLinModel(), h.ops(edge1,
			h.src(0, setLinWrite, 0, 1, ok, 1, 3),
			h.call(1, setLinCall{op: setLinModify, src: 0, key: 1, events: in, mode: model.Edge}, ok, 2, 3),
			h.call(1, setLinCall{op: setLinTryWait, max: 4}, evs(1), 4, 5),
			h.call(1, setLinCall{op: setLinTryWait, max: 4}, evs(1), 11, 12),
		), false},
		{"set: a write's event lost", setLinModel(), h.ops(edge1,
			h.src(0, setLinWrite, 0, 1, ok, 1, 2),
			h.call(1, setLinCall{op: setLinTryWait, max: 4}, evs(), 3, 4),
		), false},
		{"set: a one-shot source reported twice", setLinModel(), h.ops(oneshot,
			h.src(0, setLinWrite, 0, 1, ok, 1, 2),
			h.call(1, setLinCall{op: setLinTryWait, max: 4}, evs(0), 3, 4),
			h.src(0, setLinWrite, 0, 1, ok, 5, 6),
			h.call(1, setLinCall{op: setLinTryWait, max: 4}, evs(0), 7, 8),
		), false},
		{"set: a one-shot source reported again after Modify", setLinModel(), h.ops(oneshot,
			h.src(0, setLinWrite, 0, 1, ok, 1, 2),
			h.call(1, setLinCall{op: setLinTryWait, max: 4}, evs(0), 3, 4),
			h.call(0, setLinCall{op: setLinModify, src: 0, key: 0, events: in, mode: model.OneShot}, ok, 5, 6),
			h.call(1, setLinCall{op: setLinTryWait, max: 4}, evs(0), 7, 8),
		), true},
		{"set: a source reported after Remove returned", setLinModel(), h.ops(level1,
			h.call(0, setLinCall{op: setLinRemove, src: 0}, ok, 1, 2),
			h.call(1, setLinCall{op: setLinTryWait, max: 4}, evs(0), 3, 4),
		), false},
		{"set: a source reported during Remove", setLinModel(), h.ops(level1,
			h.call(0, setLinCall{op: setLinRemove, src: 0}, ok, 2, 3),
			h.call(1, setLinCall{op: setLinTryWait, max: 4}, evs(0), 1, 4),
			h.call(1, setLinCall{op: setLinTryWait, max: 4}, evs(), 5, 6),
		), true},
		{"set: a queued source reported with its old key after Modify", setLinModel(), h.ops(level1,
			h.call(0, setLinCall{op: setLinModify, src: 0, key: 1, events: in, mode: model.Level}, ok, 1, 2),
			h.call(1, setLinCall{op: setLinTryWait, max: 4}, evs(0), 3, 4),
		), false},
		{"set: a queued source reported with its new key", setLinModel(), h.ops(level1,
			h.call(0, setLinCall{op: setLinModify, src: 0, key: 1, events: in, mode: model.Level}, ok, 1, 2),
			h.call(1, setLinCall{op: setLinTryWait, max: 4}, evs(1), 3, 4),
		), true},
		{"set: a Wait whose context never ends cancelled", setLinModel(), h.ops(edge1,
			h.call(1, setLinCall{op: setLinWait, max: 1, ctx: ctxNever}, setLinOut{err: context.Canceled}, 1, 2),
		), false},
		{"set: a Wait whose context had ended took an event", setLinModel(), h.ops(level1,
			h.call(1, setLinCall{op: setLinWait, max: 1, ctx: ctxEnded}, evs(0), 1, 2),
		), false},
		{"set: a Wait cancelled mid-call dropped a source with no event left", setLinModel(), h.ops(two,
			h.src(0, setLinRead, 0, 0, setLinOut{v: 1}, 1, 2),
			h.call(1, setLinCall{op: setLinWait, max: 1, ctx: ctxEnds}, setLinOut{err: context.Canceled}, 3, 4),
			h.src(0, setLinWrite, 1, 1, ok, 5, 6),
			h.src(0, setLinWrite, 0, 1, ok, 7, 8),
			h.call(1, setLinCall{op: setLinTryWait, max: 1}, evs(10), 9, 10), // the dropped one went to the tail
		), true},
		{"set: a Wait whose context had ended dropped a source", setLinModel(), h.ops(two,
			h.src(0, setLinRead, 0, 0, setLinOut{v: 1}, 1, 2),
			h.call(1, setLinCall{op: setLinWait, max: 1, ctx: ctxEnded}, setLinOut{err: context.Canceled}, 3, 4),
			h.src(0, setLinWrite, 1, 1, ok, 5, 6),
			h.src(0, setLinWrite, 0, 1, ok, 7, 8),
			h.call(1, setLinCall{op: setLinTryWait, max: 1}, evs(10), 9, 10),
		), false},
		{"set: a harvest polled each source at a moment of its own", setLinModel(), h.ops(twoReady,
			h.call(1, setLinCall{op: setLinTryWait, max: 2}, evs(0), 1, 10),
			h.src(0, setLinRead, 0, 0, setLinOut{v: 1}, 2, 3),
			h.src(0, setLinRead, 1, 1, setLinOut{v: 1}, 4, 5),
		), true},
		{"set: a harvest polled the sources out of the ready list's order", setLinModel(), h.ops(twoReady,
			h.call(1, setLinCall{op: setLinTryWait, max: 2}, evs(10), 1, 10),
			h.src(0, setLinRead, 1, 1, setLinOut{v: 1}, 2, 3),
			h.src(0, setLinRead, 0, 0, setLinOut{v: 1}, 4, 5),
		), false},
		{"set: a blocked Wait dropped the sources with no event left", setLinModel(), h.ops(twoReady,
			h.src(0, setLinRead, 0, 0, setLinOut{v: 1}, 1, 2),
			h.src(0, setLinRead, 1, 1, setLinOut{v: 1}, 3, 4),
			h.call(1, setLinCall{op: setLinWait, max: 1, ctx: ctxNever}, evs(0), 5, 12),
			h.src(0, setLinWrite, 0, 1, ok, 6, 7),
			h.src(0, setLinWrite, 1, 1, ok, 8, 9),
			h.call(2, setLinCall{op: setLinTryWait, max: 2}, evs(0, 10), 13, 14), // src1 queued again after src0
		), true},
		{"set: a source closed with no Hup reported", setLinModel(), h.ops(setLinSetup{regs: [setLinSources]model.SetRegistration{reg(0, out, model.Edge)}},
			h.call(1, setLinCall{op: setLinTryWait, max: 4}, setLinOut{evs: []model.SetEvent{{Key: 0, Events: out}}}, 1, 2),
			h.src(0, setLinCloseSource, 0, 0, ok, 3, 4),
			h.call(1, setLinCall{op: setLinTryWait, max: 4}, setLinOut{evs: []model.SetEvent{{Key: 0, Events: inout}}}, 5, 6),
		), false},
		{"set: Wait refused by Close while a source is ready", setLinModel(), h.ops(level1,
			h.op(0, closeCall, output{}, 1, 2),
			h.call(1, setLinCall{op: setLinWait, max: 1, ctx: ctxNever}, setLinOut{err: evserr.ErrClosed}, 3, 4),
		), false},
	}
}

// setHand builds hand-made histories: the setup first, then the calls,
// each source call with its wakeup.
type setHand struct{ id int }

func (h *setHand) op(client int, in, out any, callAt, retAt int64) []porcupine.Operation {
	return []porcupine.Operation{{ClientId: client, Input: in, Output: out, Call: callAt, Return: retAt}}
}

// call is the call c, split as a recorded one is (setLinSplit), with an
// id of its own.
func (h *setHand) call(client int, c setLinCall, o setLinOut, callAt, retAt int64) []porcupine.Operation {
	h.id++
	ops := setLinSplit(h.op(client, c, o, callAt, retAt), 0)
	c = ops[0].Input.(setLinCall)
	c.id = h.id
	ops[0].Input = c
	if len(ops) == 2 {
		switch x := ops[1].Input.(type) {
		case setLinWake:
			x.id = h.id
			ops[1].Input = x
		case setLinWaitEnd:
			x.id = h.id
			ops[1].Input = x
		}
	}
	return ops
}

// src is a source call on source i; n is a write's units or a semaphore
// read's.
func (h *setHand) src(client int, op setLinOp, i int, n uint64, o setLinOut, callAt, retAt int64) []porcupine.Operation {
	return h.call(client, setLinCall{op: op, src: i, n: n}, o, callAt, retAt)
}

func (h *setHand) ops(setup setLinSetup, calls ...[]porcupine.Operation) []porcupine.Operation {
	ops := []porcupine.Operation{{ClientId: 9, Input: setup, Output: setLinOut{}}}
	for _, c := range calls {
		ops = append(ops, c...)
	}
	return ops
}
