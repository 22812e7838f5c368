// ReadyQ models readyq.Queue[int], epoll's ready list. The calls map onto
// the model as follows:
//
//	readyq                                  ReadyQ
//	New(WithMode(m), WithRecheck(f))        NewReadyQ(m, f)
//	Add(k), AddMode(k, m)                   Add(k), AddMode(k, m)
//	TryTake(max), TryTakeAppend             TryTake(max)
//	Wait(ctx, max), WaitAppend              Wait(ctx, max)
//	Done(ks...)                             Done(ks...)
//	Next(ctx, ks, max)                      Next(ctx, ks, max)
//	Remove(k), Rearm(k)                     Remove(k), Rearm(k)
//	Drain(ctx)                              Drain(ctx)
//	Ready()                                 Ready(), Fired(ticket)
//	Close()                                 Close()
//	Len(), InFlight(), Stats()              Len(), InFlight(), Aside(), Disarmed(), Closed()
//
// As for the counters, a blocking call takes the state of its context (a
// Ctx): with Live, Wait and Drain return ErrWouldBlock where the real call
// would wait; with Done they return context.Canceled and change nothing
// (after the check of max), and Next makes its Done and then returns
// context.Canceled. A nil context makes them return ErrInvalid and change
// nothing; the model does not model it. Sequential callers never leave a Wait blocked, so
// Stats' Waiting and Draining are always 0.
//
// The model keeps the state of each item explicitly (queued, in flight,
// idle, disarmed) and the queue as a plain slice, the way the semantics
// are written down; the real queue derives "in flight" from positions in
// its ready list instead.

package model

import (
	"errors"
	"slices"

	"github.com/evsync/evsync/internal/spin"
)

// The trigger modes, numbered as readyq's.
const (
	Edge    uint8 = iota // readyq.Edge
	Level                // readyq.Level
	OneShot              // readyq.OneShot
)

type rqState uint8

const (
	rqQueued rqState = iota
	rqInFlight
	rqIdle     // one-shot, armed, not queued
	rqDisarmed // one-shot, waiting for Rearm
)

// rqItem is what the model knows about one item.
type rqItem struct {
	mode    uint8
	state   rqState
	mark    uint64 // arrival number of a kept-aside mark, 0 if none
	removed bool   // in flight, Removed
	rearmed bool   // one-shot, in flight, re-armed
}

// A ReadyQ models one ready queue of int items. Construct it with
// NewReadyQ.
type ReadyQ struct {
	mode    uint8
	recheck func(int) bool // nil: level items stay ready
	queue   []int          // queued items, oldest first
	items   map[int]*rqItem
	marks   uint64
	closed  bool

	armed bool   // a Ready channel is out and has not fired yet
	fires uint64 // how many times an armed Ready channel has fired
}

// NewReadyQ returns a model of readyq.New with WithMode(mode) and, if
// recheck is not nil, WithRecheck(recheck). It panics for an unknown mode.
func NewReadyQ(mode uint8, recheck func(int) bool) *ReadyQ {
	if mode > OneShot {
		panic("model: unknown readyq mode")
	}
	return &ReadyQ{mode: mode, recheck: recheck, items: map[int]*rqItem{}}
}

// Add models Add(k): it marks k in the queue's mode (see AddMode).
func (q *ReadyQ) Add(k int) bool { return q.AddMode(k, q.mode) }

// AddMode models AddMode(k, m): false for an unknown mode or after Close;
// an unknown or idle item is queued (true); a queued one is left alone
// (false); an item in flight or disarmed gets a kept-aside mark, true for
// the first, false if it has one already. An item in flight that was
// Removed becomes known again, with mode m and a kept-aside mark.
func (q *ReadyQ) AddMode(k int, m uint8) bool {
	if m > OneShot || q.closed {
		return false
	}
	it, known := q.items[k]
	switch {
	case !known:
		q.items[k] = &rqItem{mode: m}
		q.queue = append(q.queue, k)
	case it.state == rqIdle:
		it.state = rqQueued
		q.queue = append(q.queue, k)
	case it.state == rqQueued:
		return false
	case it.state == rqInFlight && it.removed:
		*it = rqItem{mode: m, state: rqInFlight}
		q.keepAside(it)
	case it.mark != 0:
		return false
	default: // in flight or disarmed, no mark yet
		q.keepAside(it)
	}
	q.settle()
	return true
}

func (q *ReadyQ) keepAside(it *rqItem) {
	q.marks++
	it.mark = q.marks
}

// TryTake models TryTake(max): up to max queued items, oldest first, now
// in flight; nil if max ≤ 0 or nothing is queued.
func (q *ReadyQ) TryTake(max int) []int {
	if max <= 0 || len(q.queue) == 0 {
		return nil
	}
	n := min(max, len(q.queue))
	out := slices.Clone(q.queue[:n])
	q.queue = q.queue[n:]
	for _, k := range out {
		q.items[k].state = rqInFlight
	}
	q.settle()
	return out
}

// Wait models Wait(ctx, max): ErrInvalid for max ≤ 0; context.Canceled
// if ctx is Done; the items if any are queued; ErrClosed once closed with
// nothing left to hand out (nothing queued, no item in flight that Done
// will queue again); else ErrWouldBlock.
func (q *ReadyQ) Wait(ctx Ctx, max int) ([]int, error) {
	switch {
	case max <= 0:
		return nil, spin.ErrInvalid
	case ctx == Done:
		return nil, stopped(ctx)
	case len(q.queue) != 0:
		return q.TryTake(max), nil
	case q.exhausted():
		return nil, spin.ErrClosed
	}
	return nil, spin.ErrWouldBlock
}

// Done models Done(ks...) and returns how many were in flight. Each item
// in flight is forgotten (Removed, or edge without a mark), queued again
// (a kept-aside mark that counts, or a level item still ready on an open
// queue), or parked (one-shot: idle if re-armed, else disarmed with its
// mark). A repeat of an item in ks is ignored. The items queued again go
// to the tail: kept-aside marks in arrival order, then level items in the
// order given, for the whole call however long it is (the real Done
// rechecks every item first and then finishes them all in one step).
func (q *ReadyQ) Done(ks ...int) int {
	ready := make([]bool, len(ks))
	for i, k := range ks {
		ready[i] = q.recheck == nil || q.recheck(k)
	}
	var back rqBack
	n := 0
	for i, k := range ks {
		if it, ok := q.items[k]; ok && it.state == rqInFlight {
			n++
			q.finish(k, it, ready[i], &back)
		}
	}
	back.requeue(q)
	q.settle()
	return n
}

// rqBack is what one Done queues again: the items with a kept-aside mark
// and their marks' arrival numbers, and the level items.
type rqBack struct {
	marked, level []int
	keys          []uint64
}

// finish ends the hand-out of item k, in flight; ready is its recheck.
// An item to be queued again goes to back and is marked queued at once,
// so that a repeat of it in the same Done is ignored.
func (q *ReadyQ) finish(k int, it *rqItem, ready bool, back *rqBack) {
	switch {
	case it.removed || it.mode == Edge && it.mark == 0:
		delete(q.items, k)
	case it.mark != 0 && (it.mode != OneShot || it.rearmed):
		back.marked = append(back.marked, k)
		back.keys = append(back.keys, it.mark)
		it.state = rqQueued
	case it.mode == Level && !q.closed && ready:
		back.level = append(back.level, k)
		it.state = rqQueued
	case it.mode == Level:
		delete(q.items, k)
	case it.rearmed:
		*it = rqItem{mode: OneShot, state: rqIdle}
	default:
		it.state = rqDisarmed
	}
}

// requeue queues the items of b: the marked ones in the order their marks
// arrived, then the level ones.
func (b *rqBack) requeue(q *ReadyQ) {
	order := make([]int, len(b.marked))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(x, y int) int { return compare(b.keys[x], b.keys[y]) })
	for _, i := range order {
		q.requeue(b.marked[i])
	}
	for _, k := range b.level {
		q.requeue(k)
	}
}

func compare(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (q *ReadyQ) requeue(k int) {
	q.items[k] = &rqItem{mode: q.items[k].mode, state: rqQueued}
	q.queue = append(q.queue, k)
}

// Remove models Remove(k): false if k is unknown (or in flight and already
// Removed). A queued item leaves the queue; one in flight loses its mark
// and is forgotten at Done; idle and disarmed items are forgotten.
func (q *ReadyQ) Remove(k int) bool {
	it, ok := q.items[k]
	switch {
	case !ok || it.removed:
		return false
	case it.state == rqQueued:
		q.queue = slices.DeleteFunc(q.queue, func(x int) bool { return x == k })
		delete(q.items, k)
	case it.state == rqInFlight:
		it.removed, it.mark, it.rearmed = true, 0, false
	default:
		delete(q.items, k)
	}
	q.settle()
	return true
}

// Rearm models Rearm(k): false after Close, for an item that is not
// one-shot or not known, or already armed. A disarmed item becomes idle,
// or is queued if it has a kept-aside mark; one in flight is re-armed for
// its Done.
func (q *ReadyQ) Rearm(k int) bool {
	it, ok := q.items[k]
	if q.closed || !ok || it.mode != OneShot {
		return false
	}
	switch {
	case it.state == rqDisarmed && it.mark != 0:
		q.requeue(k)
	case it.state == rqDisarmed:
		*it = rqItem{mode: OneShot, state: rqIdle}
	case it.state == rqInFlight && !it.removed && !it.rearmed:
		it.rearmed = true
	default:
		return false
	}
	q.settle()
	return true
}

// Next models Next(ctx, ks, max): ErrInvalid, doing nothing, for max ≤ 0;
// otherwise Done(ks...), whatever ctx is (finishing held items is not a
// wait), then Wait(ctx, max).
func (q *ReadyQ) Next(ctx Ctx, ks []int, max int) ([]int, error) {
	if max <= 0 {
		return nil, spin.ErrInvalid
	}
	q.Done(ks...)
	return q.Wait(ctx, max)
}

// Drain models Drain(ctx): context.Canceled if ctx is Done; nil if
// nothing is queued or in flight, else ErrWouldBlock.
func (q *ReadyQ) Drain(ctx Ctx) error {
	if err := stopped(ctx); err != nil {
		return err
	}
	if len(q.queue) == 0 && q.InFlight() == 0 {
		return nil
	}
	return spin.ErrWouldBlock
}

// Close models Close.
func (q *ReadyQ) Close() {
	q.closed = true
	q.settle()
}

// Ready models Ready(): the ticket of the channel it returns, closed at
// once if a Wait would not block (something queued, or closed and
// exhausted), else at the first change after which one would not.
func (q *ReadyQ) Ready() Ticket {
	if q.readyNow() {
		return Ticket(q.fires)
	}
	q.armed = true
	return Ticket(q.fires + 1)
}

// Fired reports whether the channel named by t is closed.
func (q *ReadyQ) Fired(t Ticket) bool { return uint64(t) <= q.fires }

func (q *ReadyQ) settle() {
	if q.armed && q.readyNow() {
		q.armed = false
		q.fires++
	}
}

func (q *ReadyQ) readyNow() bool { return len(q.queue) != 0 || q.exhausted() }

// exhausted reports whether the queue is closed with nothing left to hand
// out.
func (q *ReadyQ) exhausted() bool { return q.closed && len(q.queue) == 0 && q.Aside() == 0 }

// Queue returns the queued items, oldest first.
func (q *ReadyQ) Queue() []int { return slices.Clone(q.queue) }

// Len is the number of queued items.
func (q *ReadyQ) Len() int { return len(q.queue) }

// InFlight is the number of items handed out and not yet Done.
func (q *ReadyQ) InFlight() int {
	return q.count(func(it *rqItem) bool { return it.state == rqInFlight })
}

// Aside is the number of items in flight that Done will queue again
// because of a kept-aside mark.
func (q *ReadyQ) Aside() int {
	return q.count(func(it *rqItem) bool {
		return it.state == rqInFlight && it.mark != 0 && (it.mode != OneShot || it.rearmed)
	})
}

// Disarmed is the number of one-shot items waiting for Rearm.
func (q *ReadyQ) Disarmed() int {
	return q.count(func(it *rqItem) bool { return it.state == rqDisarmed })
}

// Closed reports whether Close has been called.
func (q *ReadyQ) Closed() bool { return q.closed }

// Known lists every item the model knows, in no particular order.
func (q *ReadyQ) Known() []int {
	ks := make([]int, 0, len(q.items))
	for k := range q.items {
		ks = append(ks, k)
	}
	return ks
}

// InFlightItems returns the items in flight, sorted.
func (q *ReadyQ) InFlightItems() []int {
	var ks []int
	for k, it := range q.items {
		if it.state == rqInFlight {
			ks = append(ks, k)
		}
	}
	slices.Sort(ks)
	return ks
}

func (q *ReadyQ) count(f func(*rqItem) bool) int {
	n := 0
	for _, it := range q.items {
		if f(it) {
			n++
		}
	}
	return n
}

// Validate checks the model's invariants: the queue holds each item at
// most once, exactly the items in state queued; only one-shot items are
// idle or disarmed; only items in flight are removed or re-armed; nothing
// is idle with a mark; an armed Ready channel implies a Wait would block.
func (q *ReadyQ) Validate() error {
	seen := map[int]bool{}
	for _, k := range q.queue {
		it, ok := q.items[k]
		if seen[k] || !ok || it.state != rqQueued {
			return invariantError("queue entry not a queued item, or twice")
		}
		seen[k] = true
	}
	for k, it := range q.items {
		if err := it.validate(seen[k]); err != nil {
			return err
		}
	}
	if q.armed && q.readyNow() {
		return invariantError("armed Ready channel not fired")
	}
	return nil
}

var errRQItem = errors.New("model: readyq item in an impossible state")

func (it *rqItem) validate(inQueue bool) error {
	switch {
	case (it.state == rqQueued) != inQueue,
		(it.state == rqIdle || it.state == rqDisarmed) && it.mode != OneShot,
		(it.removed || it.rearmed) && it.state != rqInFlight,
		it.removed && it.mark != 0,
		(it.state == rqQueued || it.state == rqIdle) && it.mark != 0:
		return errRQItem
	}
	return nil
}
