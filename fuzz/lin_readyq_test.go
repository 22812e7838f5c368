package fuzz_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/evsync/evsync/internal/testsupport/lincheck"
	"github.com/evsync/evsync/readyq"
	"github.com/evsync/evsync/workqueue"
)

// TestReadyqLinearizable checks concurrent histories of a workqueue.Queue
// against rqLinModel: producers Add, AddAfter (an hour: no delay comes
// due during a run, only Close queues them), AddRateLimited (with a
// limiter of an hour), Forget and Remove items and read Len, consumers
// take batches with TryTake and Wait (with contexts that never end, end
// mid-wait or have ended), retry some of what they hold with
// AddRateLimited and Done it, and one more client Closes the queue at a
// random moment. Edge and level queues.
//
// What this checks beyond the sequential tests: under any interleaving,
// an item is queued at most once and handed to one consumer at a time, a
// batch is always the head of the queue in FIFO order (by first mark,
// kept-aside marks re-queued at Done in arrival order, level items after
// them), a mark made while the item is in flight is never lost, Remove
// wins over later hand-outs, Close is one instant after which marks are
// refused, and Wait returns ErrClosed exactly when nothing is queued and
// no Done can queue anything; and for the delays, that a delayed item is
// never handed out before Close, that a mark made with a delay while the
// item is in flight delays it at Done (or queues it there after Close),
// that Add cuts a delay short, and that Close queues the delayed items in
// the order their ready times were set.
//
// The third queue is a level queue with a recheck function that always
// reports ready (so the level model applies) whose consumers' Done calls
// name their items at both ends of a list of more than 64: such a Done is
// one step too. (It used to finish its items 64 at a time, unlocking in
// between, so that another consumer could take an item the first copy
// queued again, and the second copy then ended that consumer's hand-out.)
//
// The lean readyq runs the same workloads without the delays: its
// producers Add, Remove and read Len, its consumers take and Done.
func TestReadyqLinearizable(t *testing.T) {
	for _, pkg := range []string{"readyq", "workqueue"} {
		want := rqLinWant
		if pkg == "readyq" {
			want = rqLinWant[:len(rqLinWant)-5] // no AddAfter, AddRateLimited, Forget
		}
		for _, w := range []struct {
			name string
			mode workqueue.Mode
			long bool
		}{{"edge", workqueue.Edge, false}, {"level", workqueue.Level, false}, {"level recheck long Done", workqueue.Level, true}} {
			t.Run(pkg+" "+w.name, func(t *testing.T) {
				checkLinearizable(t, pkg+" "+w.name, rqLinWorkload(pkg, w.mode, w.long), want)
			})
		}
	}
}

// rqLinQueue is the ready list's calls that the workload makes, as
// readyq.Queue and workqueue.Queue have them.
type rqLinQueue interface {
	Add(item int) bool
	Remove(item int) bool
	Len() int
	TryTake(max int) []int
	Wait(ctx context.Context, max int) ([]int, error)
	Done(items ...int) int
	Close()
}

// rqLinDelayer is the controller's calls the workload makes on a
// workqueue.Queue.
type rqLinDelayer interface {
	AddAfter(item int, d time.Duration) bool
	AddRateLimited(item int) bool
	Forget(item int)
}

var rqLinWant = []string{
	"Add/true", "Add/false", "Remove/true", "Remove/false", "Len/read",
	"TryTake/items", "TryTake/none",
	"Wait/ok", "Wait/Canceled", "Wait/ErrClosed",
	"Done/all", "Done/some",
	"AddAfter/true", "AddAfter/false", "AddRateLimited/true", "AddRateLimited/false", "Forget/ok",
}

const (
	rqLinKeys      = 3 // items 0…2: small, so that marks collide
	rqLinProducers = 2
	rqLinConsumers = 3
	rqLinMaxBatch  = 3
	rqLinCalls     = 12 // per worker: more than linCalls, for marks made while items are in flight
)

type rqLinOp uint8

const (
	rqLinAdd rqLinOp = iota
	rqLinRemove
	rqLinLen
	rqLinTryTake
	rqLinWait
	rqLinDone
	rqLinAddAfter       // AddAfter(k, rqLinDelay)
	rqLinAddRateLimited // with a limiter whose every delay is rqLinDelay
	rqLinForget
)

var rqLinOpNames = [...]string{"Add", "Remove", "Len", "TryTake", "Wait", "Done", "AddAfter", "AddRateLimited", "Forget"}

// rqLinDelay is the delay of AddAfter and AddRateLimited: far longer than
// a run, so that only Close ends it, and the same for every call, so that
// the ready times are in the order the calls took effect.
const rqLinDelay = time.Hour

// rqLinCall is the input of a readyq call: the item of Add and Remove,
// the max of TryTake and Wait, the items of Done.
type rqLinCall struct {
	op    rqLinOp
	k     int
	max   int
	ctx   ctxUse // Wait
	items []int
}

func (c rqLinCall) String() string {
	switch c.op {
	case rqLinAdd, rqLinRemove, rqLinAddAfter, rqLinAddRateLimited, rqLinForget:
		return fmt.Sprintf("%s(%d)", rqLinOpNames[c.op], c.k)
	case rqLinWait:
		return fmt.Sprintf("%s(%d, ctx %v)", rqLinOpNames[c.op], c.max, c.ctx)
	case rqLinTryTake:
		return fmt.Sprintf("%s(%d)", rqLinOpNames[c.op], c.max)
	case rqLinDone:
		return fmt.Sprintf("Done(%v)", c.items)
	}
	return "Len()"
}

// rqLinOut is what a readyq call returned: Add's and Remove's ok, the
// items of TryTake and Wait, the count of Len and Done, Wait's error.
type rqLinOut struct {
	ok    bool
	items []int
	n     int
	err   error
}

func (o rqLinOut) String() string {
	if o.err != nil {
		return errName(o.err)
	}
	return fmt.Sprintf("ok=%v items=%v n=%d", o.ok, o.items, o.n)
}

// rqLinState is the state of the porcupine model: comparable (strings
// of item digits and bitmasks), so that porcupine's default equality
// works, and copied by value, so that Step is pure.
type rqLinState struct {
	queue string // queued items, oldest first
	aside string // in-flight items with a kept-aside mark, in the marks' arrival order
	// later holds the items with a ready time still to come, in the order
	// the times were set: the delayed items, and the in-flight items whose
	// kept-aside mark has a delay (also in aside).
	later   string
	flight  uint8 // items in flight (bit k)
	removed uint8 // items in flight that were Removed (Done forgets them)
	closed  bool  // Close has been called: marks are refused
	shut    bool  // and has queued the delayed items (see rqLinCloseWindow)
}

func (s rqLinState) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "queue=[%s] inflight=%03b", s.queue, s.flight)
	if s.aside != "" {
		fmt.Fprintf(&b, " aside=[%s]", s.aside)
	}
	if s.later != "" {
		fmt.Fprintf(&b, " later=[%s]", s.later)
	}
	if s.removed != 0 {
		fmt.Fprintf(&b, " removed=%03b", s.removed)
	}
	switch {
	case s.shut:
		b.WriteString(" closed")
	case s.closed:
		b.WriteString(" closing")
	}
	return b.String()
}

func hashRQState(s any) uint64 {
	st := s.(rqLinState)
	h := uint64(st.flight) | uint64(st.removed)<<8
	if st.closed {
		h |= 1 << 16
	}
	if st.shut {
		h |= 1 << 17
	}
	for _, c := range st.queue + "|" + st.aside + "|" + st.later {
		h = h*31 + uint64(c)
	}
	return h
}

func rqKey(k int) byte { return byte('0' + k) }

// has reports whether the item list l holds k; without removes it.
func has(l string, k int) bool       { return strings.IndexByte(l, rqKey(k)) >= 0 }
func without(l string, k int) string { return strings.Replace(l, string(rqKey(k)), "", 1) }

// exhausted reports whether a Wait would return ErrClosed: closed,
// nothing queued, and no Done that could queue an item (edge and level
// items return at Done only with a kept-aside mark once closed).
func (s rqLinState) exhausted() bool { return s.shut && s.queue == "" && s.aside == "" }

// rqLinModel is the sequential model of a queue whose items all have the
// given mode (Edge or Level, without a recheck function).
func rqLinModel(mode workqueue.Mode) porcupine.Model {
	return porcupine.Model{
		Init: func() any { return rqLinState{} },
		Step: func(state, in, out any) (bool, any) {
			s := state.(rqLinState)
			switch in {
			case closeCall:
				s.closed = true
				return true, rqShut(s)
			case rqLinCloseFlag:
				legal := !s.closed
				s.closed = true
				return legal, s
			case rqLinCloseQueue:
				return s.closed && !s.shut, rqShut(s)
			}
			c, o := in.(rqLinCall), out.(rqLinOut)
			if s.closed && !s.shut {
				return rqClosing(c, o), s
			}
			return rqLinStep(s, c, o, mode)
		},
		Hash:              hashRQState,
		DescribeOperation: describeOp,
		DescribeState:     func(s any) string { return s.(rqLinState).String() },
	}
}

func rqLinStep(s rqLinState, c rqLinCall, o rqLinOut, mode workqueue.Mode) (bool, any) {
	switch c.op {
	case rqLinAdd:
		ok, next := rqAdd(s, c.k)
		return o.ok == ok, next
	case rqLinAddAfter, rqLinAddRateLimited:
		ok, next := rqAddLater(s, c.k)
		return o.ok == ok, next
	case rqLinForget: // the limiter's business: nothing the queue shows
		return true, s
	case rqLinRemove:
		ok, next := rqRemove(s, c.k)
		return o.ok == ok, next
	case rqLinLen:
		return o.n == len(s.queue), s
	case rqLinTryTake:
		return rqTake(s, c.max, o.items)
	case rqLinWait:
		if decided, legal := ctxStep(c.ctx, true, o.err); decided {
			return legal && len(o.items) == 0, s
		}
		switch sentinel(o.err) {
		case nil:
			return len(o.items) != 0 && s.queue != "" && rqTakeOK(s, c.max, o.items), rqTaken(s, o.items)
		case workqueue.ErrClosed:
			return s.exhausted(), s
		}
		return false, s
	case rqLinDone:
		n, next := rqDone(s, c.items, mode)
		return o.n == n, next
	}
	return false, s
}

// rqAdd is Add(k): refused after Close, false for a queued item and for
// an item in flight with a mark already kept aside; a mark on an item in
// flight is kept aside (an item in flight that was Removed is known again,
// with that mark); any other item is queued at the tail.
func rqAdd(s rqLinState, k int) (bool, rqLinState) {
	bit := uint8(1) << k
	switch {
	case s.closed, has(s.queue, k):
		return false, s
	case s.flight&bit != 0 && has(s.aside, k):
		s.later = without(s.later, k) // a delayed mark is due now
		return false, s
	case has(s.later, k): // delayed: queued now
		s.later = without(s.later, k)
		s.queue += string(rqKey(k))
	case s.flight&bit != 0:
		s.removed &^= bit
		s.aside += string(rqKey(k))
	default:
		s.queue += string(rqKey(k))
	}
	return true, s
}

// rqAddLater is AddAfter(k, rqLinDelay) and AddRateLimited(k): refused
// after Close, false for a queued or delayed item (the earlier time wins)
// and for an item in flight with a mark already kept aside (due now or
// sooner); a mark on an item in flight is kept aside with the delay; any
// other item is delayed.
func rqAddLater(s rqLinState, k int) (bool, rqLinState) {
	bit := uint8(1) << k
	switch {
	case s.closed, has(s.queue, k), has(s.later, k) && s.flight&bit == 0:
		return false, s
	case s.flight&bit != 0 && has(s.aside, k):
		return false, s
	case s.flight&bit != 0:
		s.removed &^= bit
		s.aside += string(rqKey(k))
	}
	s.later += string(rqKey(k))
	return true, s
}

// rqShut is what Close does besides refusing marks: the delayed items are
// queued, in the order of their ready times; the kept-aside marks with a
// delay stay for Done.
func rqShut(s rqLinState) rqLinState {
	s.shut = true
	var rest []byte
	for i := range len(s.later) {
		if c := s.later[i]; s.flight&(1<<(c-'0')) == 0 {
			s.queue += string(c)
		} else {
			rest = append(rest, c)
		}
	}
	s.later = string(rest)
	return s
}

// rqLinCloseWindow makes a history's Close two steps, rqLinCloseFlag and
// rqLinCloseQueue, each of which may take effect anywhere within the call.
// A readyq whose Close made its refusal of marks visible (the closed flag
// that Add reads without the lock) before it published the count of the
// delayed items it queued needed that; readyq's Close publishes first,
// so Close is one step and the window is off. Setting it to true weakens
// the check (the mutant rq-close-publishes-late passes then).
const rqLinCloseWindow = false

// The two steps of a Close (see rqLinCloseWindow).
const (
	rqLinCloseFlag  = "Close() refuses marks"
	rqLinCloseQueue = "Close() queues the delayed items"
)

// rqClosing reports whether the call c may return o between the two steps
// of a Close: only the calls that read the queue's state without its lock
// (Len, a TryTake that finds nothing, the refusal of a mark, Forget) can
// happen there, the others wait for the lock that Close holds.
func rqClosing(c rqLinCall, o rqLinOut) bool {
	switch c.op {
	case rqLinAdd, rqLinAddAfter, rqLinAddRateLimited:
		return !o.ok
	case rqLinTryTake:
		return len(o.items) == 0
	case rqLinLen, rqLinForget:
		return true
	}
	return false
}

// splitClose replaces the Close of ops by its two steps, with the same
// times (see rqLinCloseWindow).
func splitClose(ops []porcupine.Operation) []porcupine.Operation {
	for i, op := range ops {
		if op.Input == closeCall {
			ops[i].Input = rqLinCloseFlag
			op.Input = rqLinCloseQueue
			return append(ops, op)
		}
	}
	return ops
}

// rqRemove is Remove(k): a queued or delayed item is forgotten; one in
// flight loses its mark and is forgotten at its Done (a second Remove is
// false).
func rqRemove(s rqLinState, k int) (bool, rqLinState) {
	bit := uint8(1) << k
	switch {
	case has(s.queue, k):
		s.queue = without(s.queue, k)
	case has(s.later, k) && s.flight&bit == 0:
		s.later = without(s.later, k)
	case s.flight&bit != 0 && s.removed&bit == 0:
		s.removed |= bit
		s.aside = without(s.aside, k)
		s.later = without(s.later, k)
	default:
		return false, s
	}
	return true, s
}

// rqTakeOK reports whether items are what a hand-out of up to max takes
// from s: the head of the queue, min(max, queued) of them.
func rqTakeOK(s rqLinState, max int, items []int) bool {
	if len(items) != min(max, len(s.queue)) {
		return false
	}
	for i, k := range items {
		if s.queue[i] != rqKey(k) {
			return false
		}
	}
	return true
}

// rqTaken is s after items were handed out from the head of the queue.
func rqTaken(s rqLinState, items []int) rqLinState {
	s.queue = s.queue[min(len(items), len(s.queue)):]
	for _, k := range items {
		s.flight |= 1 << k
	}
	return s
}

// rqTake is TryTake(max): the head of the queue, nothing if it is empty.
func rqTake(s rqLinState, max int, items []int) (bool, any) {
	return rqTakeOK(s, max, items), rqTaken(s, items)
}

// rqDone is Done(items...): it returns how many were in flight and the
// state after. Each item in flight is forgotten (Removed, or an edge item
// without a mark), delayed (a kept-aside mark with a delay, on an open
// queue, unless it is a level item, whose "ready now" is sooner: it keeps
// its place in later) or queued again at the tail: first the items with a
// kept-aside mark, in the marks' arrival order, then level items (on an
// open queue) in the order given.
func rqDone(s rqLinState, items []int, mode workqueue.Mode) (int, rqLinState) {
	n := 0
	var marked uint8
	var level []byte
	for _, k := range items {
		bit := uint8(1) << k
		if s.flight&bit == 0 {
			continue // not in flight, or already Done in this call
		}
		n++
		s.flight &^= bit
		switch {
		case s.removed&bit != 0:
			s.removed &^= bit
		case has(s.later, k) && !s.shut && mode == workqueue.Level:
			s.later = without(s.later, k)
			s.aside = without(s.aside, k)
			level = append(level, rqKey(k))
		case has(s.later, k) && !s.shut:
			s.aside = without(s.aside, k) // delayed, in its place in later
		case has(s.aside, k):
			s.later = without(s.later, k) // after Close a delayed mark is due
			marked |= bit
		case mode == workqueue.Level && !s.shut:
			level = append(level, rqKey(k))
		}
	}
	var rest []byte
	for i := range len(s.aside) {
		if c := s.aside[i]; marked&(1<<(c-'0')) != 0 {
			s.queue += string(c)
		} else {
			rest = append(rest, c)
		}
	}
	s.aside = string(rest)
	s.queue += string(level)
	return n, s
}

// rqLinWorkload returns the workload of a queue of package pkg
// ("readyq" or "workqueue") in the given mode; with long, the queue has a
// recheck function that always reports ready, and consumers' Done calls
// may be long (see rqDoneHeld).
func rqLinWorkload(pkg string, mode workqueue.Mode, long bool) workload {
	return func(rng *rand.Rand, tl tally) (porcupine.Model, []porcupine.Operation) {
		var recheck func(int) bool
		if long {
			recheck = func(int) bool { return true }
		}
		var q rqLinQueue = readyq.NewWithConfig(readyq.Config[int]{Mode: mode, Recheck: recheck})
		if pkg == "workqueue" {
			q = workqueue.NewWithConfig(workqueue.Config[int]{
				Mode:        mode,
				Recheck:     recheck,
				RateLimiter: workqueue.ExponentialRateLimiter[int](rqLinDelay, rqLinDelay),
			})
		}
		workers := rqLinProducers + rqLinConsumers
		seeds := make([]uint64, workers)
		for i := range seeds {
			seeds[i] = rng.Uint64()
		}
		yields := rng.IntN(150)
		var rec lincheck.Recorder
		rec.Run(workers+1, func(c *lincheck.Client, i int) {
			r := rand.New(rand.NewPCG(seeds[min(i, workers-1)], uint64(i)))
			switch {
			case i == workers:
				closer(c, yields, q.Close)
			case i < rqLinProducers:
				rqProducer(c, q, r)
			default:
				rqConsumer(c, q, r, long)
			}
		})
		ops := rec.Operations()
		if rqLinCloseWindow {
			ops = splitClose(ops)
		}
		for _, op := range ops {
			if c, ok := op.Input.(rqLinCall); ok {
				tl.hit(rqLinOpNames[c.op], rqLinOutcome(c, op.Output.(rqLinOut)))
			}
		}
		return rqLinModel(mode), ops
	}
}

func rqLinOutcome(c rqLinCall, o rqLinOut) string {
	switch c.op {
	case rqLinAdd, rqLinRemove, rqLinAddAfter, rqLinAddRateLimited:
		return fmt.Sprint(o.ok)
	case rqLinForget:
		return "ok"
	case rqLinLen:
		return "read"
	case rqLinTryTake:
		if len(o.items) == 0 {
			return "none"
		}
		return "items"
	case rqLinDone:
		if o.n == len(c.items) {
			return "all"
		}
		return "some"
	}
	return errName(o.err)
}

// rqProducer marks (at once or with a delay), retries, forgets and
// removes random items and reads Len. A queue without delays (readyq)
// only marks, removes and reads Len.
func rqProducer(c *lincheck.Client, q rqLinQueue, r *rand.Rand) {
	d, delays := q.(rqLinDelayer)
	for range rqLinCalls {
		k := r.IntN(rqLinKeys)
		n := r.IntN(26)
		if !delays && n >= 10 && n < 16 {
			n = r.IntN(10) // an Add instead
		}
		switch {
		case n < 10:
			lincheck.Record(c, rqLinCall{op: rqLinAdd, k: k}, func() rqLinOut { return rqLinOut{ok: q.Add(k)} })
		case n < 13:
			lincheck.Record(c, rqLinCall{op: rqLinAddAfter, k: k}, func() rqLinOut { return rqLinOut{ok: d.AddAfter(k, rqLinDelay)} })
		case n < 15:
			rqRetry(c, d, k)
		case n < 16:
			lincheck.Record(c, rqLinCall{op: rqLinForget, k: k}, func() rqLinOut { d.Forget(k); return rqLinOut{} })
		case n < 21:
			lincheck.Record(c, rqLinCall{op: rqLinRemove, k: k}, func() rqLinOut { return rqLinOut{ok: q.Remove(k)} })
		default:
			lincheck.Record(c, rqLinCall{op: rqLinLen}, func() rqLinOut { return rqLinOut{n: q.Len()} })
		}
		maybeYield(r)
	}
}

// rqConsumer takes batches with TryTake or Wait and Done's them, at once
// or after its next TryTake, sometimes naming an item twice; it holds
// nothing when it Waits or returns (a consumer must Done what it holds
// before it waits again: a Wait on a closed queue waits for the Done of
// a kept-aside mark).
func rqConsumer(c *lincheck.Client, q rqLinQueue, r *rand.Rand, long bool) {
	var held []int
	for range rqLinCalls {
		max := 1 + r.IntN(rqLinMaxBatch)
		if r.IntN(2) == 0 {
			held = append(held, lincheck.Record(c, rqLinCall{op: rqLinTryTake, max: max}, func() rqLinOut {
				return rqLinOut{items: q.TryTake(max)}
			}).items...)
		} else {
			held = rqDoneHeld(c, q, r, held, long)
			ctx, u, stop := linCtx(r)
			held = append(held, lincheck.Record(c, rqLinCall{op: rqLinWait, max: max, ctx: u}, func() rqLinOut {
				items, err := q.Wait(ctx, max)
				return rqLinOut{items: items, err: err}
			}).items...)
			stop()
		}
		maybeYield(r)
		if r.IntN(3) != 0 {
			held = rqDoneHeld(c, q, r, held, long)
		}
	}
	rqDoneHeld(c, q, r, held, long)
}

// rqRetry records AddRateLimited(k).
func rqRetry(c *lincheck.Client, q rqLinDelayer, k int) {
	lincheck.Record(c, rqLinCall{op: rqLinAddRateLimited, k: k}, func() rqLinOut { return rqLinOut{ok: q.AddRateLimited(k)} })
}

// rqDoneHeld calls Done for the items held, if any, one of them twice
// one time in four, and returns held emptied; one time in four it first
// retries one of them (AddRateLimited: failed). With long, one time in two
// the items are named at both ends of a list of more than 64. A queue
// without delays (readyq) is never retried.
func rqDoneHeld(c *lincheck.Client, q rqLinQueue, r *rand.Rand, held []int, long bool) []int {
	if len(held) == 0 {
		return held
	}
	if d, ok := q.(rqLinDelayer); ok && r.IntN(4) == 0 {
		rqRetry(c, d, held[r.IntN(len(held))])
	}
	items := slices.Clone(held)
	switch {
	case long && r.IntN(2) == 0:
		items = slices.Concat(held, slices.Repeat(held[:1], 64), held)
	case r.IntN(4) == 0:
		items = append(items, held[r.IntN(len(held))])
	}
	lincheck.Record(c, rqLinCall{op: rqLinDone, items: items}, func() rqLinOut { return rqLinOut{n: q.Done(items...)} })
	return held[:0]
}

// readyqBrokenHistories are hand-made readyq histories for
// TestModelsRejectBrokenHistories: each broken one next to the history it
// differs from only in timing or an allowed outcome.
func readyqBrokenHistories() []brokenHistory {
	edge, level := rqLinModel(workqueue.Edge), rqLinModel(workqueue.Level)
	op := func(client int, in any, out rqLinOut, callAt, retAt int64) porcupine.Operation {
		return porcupine.Operation{ClientId: client, Input: in, Output: out, Call: callAt, Return: retAt}
	}
	add := func(k int) rqLinCall { return rqLinCall{op: rqLinAdd, k: k} }
	remove := func(k int) rqLinCall { return rqLinCall{op: rqLinRemove, k: k} }
	take := func(max int) rqLinCall { return rqLinCall{op: rqLinTryTake, max: max} }
	wait := func(max int) rqLinCall { return rqLinCall{op: rqLinWait, max: max} }
	waitCtx := func(max int, u ctxUse) rqLinCall { return rqLinCall{op: rqLinWait, max: max, ctx: u} }
	done := func(ks ...int) rqLinCall { return rqLinCall{op: rqLinDone, items: ks} }
	later := func(k int) rqLinCall { return rqLinCall{op: rqLinAddAfter, k: k} }
	retry := func(k int) rqLinCall { return rqLinCall{op: rqLinAddRateLimited, k: k} }
	length := rqLinCall{op: rqLinLen}
	okOut := rqLinOut{ok: true}
	items := func(ks ...int) rqLinOut { return rqLinOut{items: ks} }
	count := func(n int) rqLinOut { return rqLinOut{n: n} }
	closed, canceled := rqLinOut{err: workqueue.ErrClosed}, rqLinOut{err: context.Canceled}
	return []brokenHistory{
		{"readyq: an item handed to two consumers at once", edge, []porcupine.Operation{
			op(0, add(1), okOut, 1, 2),
			op(1, wait(1), items(1), 3, 6),
			op(2, take(1), items(1), 4, 5),
		}, false},
		{"readyq: the item handed to the second consumer after a Done", edge, []porcupine.Operation{
			op(0, add(1), okOut, 1, 2),
			op(0, add(1), okOut, 3, 9), // kept aside while in flight
			op(1, wait(1), items(1), 3, 6),
			op(1, done(1), count(1), 7, 8),
			op(2, take(1), items(1), 4, 10),
		}, true},
		{"readyq: a kept-aside mark lost at Done", edge, []porcupine.Operation{
			op(0, add(1), okOut, 1, 2),
			op(1, take(1), items(1), 3, 4),
			op(0, add(1), okOut, 5, 6),
			op(1, done(1), count(1), 7, 8),
			op(1, take(1), items(), 9, 10),
		}, false},
		{"readyq: a kept-aside mark re-queued at Done", edge, []porcupine.Operation{
			op(0, add(1), okOut, 1, 2),
			op(1, take(1), items(1), 3, 4),
			op(0, add(1), okOut, 5, 6),
			op(1, done(1), count(1), 7, 8),
			op(1, take(1), items(1), 9, 10),
		}, true},
		{"readyq: an Add accepted after Close returned", edge, []porcupine.Operation{
			op(0, closeCall, rqLinOut{}, 1, 2),
			op(1, add(1), okOut, 3, 4),
		}, false},
		{"readyq: an Add accepted during Close", edge, []porcupine.Operation{
			op(0, closeCall, rqLinOut{}, 1, 4),
			op(1, add(1), okOut, 2, 3),
			op(1, take(1), items(1), 5, 6),
		}, true},
		{"readyq: FIFO broken", edge, []porcupine.Operation{
			op(0, add(1), okOut, 1, 2),
			op(0, add(2), okOut, 3, 4),
			op(1, take(1), items(2), 5, 6),
		}, false},
		{"readyq: FIFO by the order the overlapping marks took effect", edge, []porcupine.Operation{
			op(0, add(1), okOut, 1, 4),
			op(2, add(2), okOut, 2, 3),
			op(1, take(1), items(2), 5, 6),
		}, true},
		{"readyq: marks re-queued out of arrival order", edge, []porcupine.Operation{
			op(0, add(1), okOut, 1, 2),
			op(0, add(2), okOut, 3, 4),
			op(1, take(2), items(1, 2), 5, 6),
			op(0, add(2), okOut, 7, 8),
			op(0, add(1), okOut, 9, 10),
			op(1, done(1, 2), count(2), 11, 12),
			op(1, take(1), items(1), 13, 14),
		}, false},
		{"readyq: a Wait refused by Close while an item is queued", edge, []porcupine.Operation{
			op(0, add(1), okOut, 1, 2),
			op(0, closeCall, rqLinOut{}, 3, 4),
			op(1, wait(1), closed, 5, 6),
		}, false},
		{"readyq: a Wait refused by Close while a Done can still queue a mark", edge, []porcupine.Operation{
			op(0, add(1), okOut, 1, 2),
			op(1, take(1), items(1), 3, 4),
			op(0, add(1), okOut, 5, 6),
			op(0, closeCall, rqLinOut{}, 7, 8),
			op(2, wait(1), closed, 9, 10),
		}, false},
		{"readyq: that Wait cancelled instead", edge, []porcupine.Operation{
			op(0, add(1), okOut, 1, 2),
			op(1, take(1), items(1), 3, 4),
			op(0, add(1), okOut, 5, 6),
			op(0, closeCall, rqLinOut{}, 7, 8),
			op(2, wait(1), canceled, 9, 10),
		}, true},
		{"readyq: a Wait whose context never ends cancelled", edge, []porcupine.Operation{
			op(1, waitCtx(1, ctxNever), canceled, 3, 4),
		}, false},
		{"readyq: a Wait whose context had ended took a queued item", edge, []porcupine.Operation{
			op(0, add(1), okOut, 1, 2),
			op(1, waitCtx(1, ctxEnded), items(1), 3, 4),
		}, false},
		{"readyq: that Wait stopped instead, leaving the item queued", edge, []porcupine.Operation{
			op(0, add(1), okOut, 1, 2),
			op(1, waitCtx(1, ctxEnded), canceled, 3, 4),
			op(2, take(1), items(1), 5, 6),
		}, true},
		{"readyq: a removed item handed out", edge, []porcupine.Operation{
			op(0, add(1), okOut, 1, 2),
			op(0, remove(1), okOut, 3, 4),
			op(1, take(1), items(1), 5, 6),
		}, false},
		{"readyq: a level item not re-queued at Done", level, []porcupine.Operation{
			op(0, add(1), okOut, 1, 2),
			op(1, take(1), items(1), 3, 4),
			op(1, done(1), count(1), 5, 6),
			op(1, take(1), items(), 7, 8),
		}, false},
		{"readyq: a level item re-queued at Done", level, []porcupine.Operation{
			op(0, add(1), okOut, 1, 2),
			op(1, take(1), items(1), 3, 4),
			op(1, done(1, 1), count(1), 5, 6),
			op(1, take(1), items(1), 7, 8),
		}, true},
		{"readyq: a repeated item counted twice by Done", level, []porcupine.Operation{
			op(0, add(1), okOut, 1, 2),
			op(1, take(1), items(1), 3, 4),
			op(1, done(1, 1), count(2), 5, 6),
		}, false},
		{"readyq: a delayed item handed out before its time", edge, []porcupine.Operation{
			op(0, later(1), okOut, 1, 2),
			op(1, take(1), items(1), 3, 4),
		}, false},
		{"readyq: a delayed item handed out after Close", edge, []porcupine.Operation{
			op(0, later(1), okOut, 1, 2),
			op(0, length, count(0), 3, 4),
			op(0, closeCall, rqLinOut{}, 5, 6),
			op(1, take(1), items(1), 7, 8),
		}, true},
		{"readyq: Close queues the delayed items out of ready-time order", edge, []porcupine.Operation{
			op(0, later(1), okOut, 1, 2),
			op(0, retry(2), okOut, 3, 4),
			op(0, later(1), rqLinOut{}, 5, 6), // the earlier time kept
			op(0, closeCall, rqLinOut{}, 7, 8),
			op(1, take(2), items(2, 1), 9, 10),
		}, false},
		{"readyq: Close queues them in ready-time order, after what was queued", edge, []porcupine.Operation{
			op(0, later(1), okOut, 1, 2),
			op(0, retry(2), okOut, 3, 4),
			op(0, add(3), okOut, 5, 6),
			op(0, closeCall, rqLinOut{}, 7, 8),
			op(1, take(3), items(3, 1, 2), 9, 10),
		}, true},
		{"readyq: Add does not cut a delay short", edge, []porcupine.Operation{
			op(0, later(1), okOut, 1, 2),
			op(0, add(1), rqLinOut{}, 3, 4),
		}, false},
		{"readyq: Add cuts a delay short", edge, []porcupine.Operation{
			op(0, later(1), okOut, 1, 2),
			op(0, add(1), okOut, 3, 4),
			op(1, take(1), items(1), 5, 6),
		}, true},
		{"readyq: a retry of an item in flight queued at Done", edge, []porcupine.Operation{
			op(0, add(1), okOut, 1, 2),
			op(1, take(1), items(1), 3, 4),
			op(1, retry(1), okOut, 5, 6),
			op(1, done(1), count(1), 7, 8),
			op(1, take(1), items(1), 9, 10),
		}, false},
		{"readyq: that retry delayed at Done, queued by Close", edge, []porcupine.Operation{
			op(0, add(1), okOut, 1, 2),
			op(1, take(1), items(1), 3, 4),
			op(1, retry(1), okOut, 5, 6),
			op(1, done(1), count(1), 7, 8),
			op(1, take(1), items(), 9, 10),
			op(0, closeCall, rqLinOut{}, 11, 12),
			op(1, take(1), items(1), 13, 14),
		}, true},
		{"readyq: a Wait refused by Close while a Done can still queue a delayed mark", edge, []porcupine.Operation{
			op(0, add(1), okOut, 1, 2),
			op(1, take(1), items(1), 3, 4),
			op(0, later(1), okOut, 5, 6),
			op(0, closeCall, rqLinOut{}, 7, 8),
			op(2, wait(1), closed, 9, 10),
		}, false},
		{"readyq: a level item with a delayed mark re-queued at Done", level, []porcupine.Operation{
			op(0, add(1), okOut, 1, 2),
			op(1, take(1), items(1), 3, 4),
			op(0, later(1), okOut, 5, 6),
			op(1, done(1), count(1), 7, 8),
			op(1, take(1), items(1), 9, 10),
		}, true},
		{"readyq: an Add refused by Close, then a Len without the item Close queued", edge, []porcupine.Operation{
			op(0, later(1), okOut, 1, 2),
			op(1, closeCall, rqLinOut{}, 3, 10),
			op(0, add(2), rqLinOut{}, 4, 5),
			op(0, length, count(0), 6, 7),
		}, false},
		{"readyq: that history with Close in two steps (rqLinCloseWindow)", edge, []porcupine.Operation{
			op(0, later(1), okOut, 1, 2),
			op(1, rqLinCloseFlag, rqLinOut{}, 3, 10),
			op(1, rqLinCloseQueue, rqLinOut{}, 3, 10),
			op(0, add(2), rqLinOut{}, 4, 5),
			op(0, length, count(0), 6, 7),
			op(0, take(1), items(), 8, 9),
			op(0, take(1), items(1), 11, 12),
		}, true},
		{"readyq: a Wait refused between the two steps of a Close", edge, []porcupine.Operation{
			op(0, later(1), okOut, 1, 2),
			op(1, rqLinCloseFlag, rqLinOut{}, 3, 10),
			op(1, rqLinCloseQueue, rqLinOut{}, 3, 10),
			op(0, add(2), rqLinOut{}, 4, 5),
			op(0, wait(1), closed, 6, 7),
		}, false},
		{"readyq: a delayed mark Removed with its item in flight", edge, []porcupine.Operation{
			op(0, add(1), okOut, 1, 2),
			op(1, take(1), items(1), 3, 4),
			op(0, later(1), okOut, 5, 6),
			op(0, remove(1), okOut, 7, 8),
			op(1, done(1), count(1), 9, 10),
			op(0, closeCall, rqLinOut{}, 11, 12),
			op(1, wait(1), closed, 13, 14),
		}, true},
	}
}
