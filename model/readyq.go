package model

import (
	"errors"
	"slices"
	"time"

	"github.com/evsync/evsync/internal/evserr"
)

// The model keeps the state of each item explicitly (queued, in flight,
// idle, disarmed, delayed) and the queue as a plain slice, the way the
// semantics are written down. The real queue derives "in flight" from
// positions in its ready list instead.
//
// The ready list is rqCore, which ReadyQ is and WorkQueue holds. The work
// queue adds its own rows in workqueue.go: the delayed place, the marks
// with a ready time, fair share and the rate limiter. The hand-out order
// with priorities and fair share is written down in workqueue_order.go,
// the clock, delays and rate limiter in workqueue_time.go.

// A Mode is a readyq trigger mode. The values are readyq's, so
// Mode(m) converts a readyq.Mode m.
type Mode uint8

// The trigger modes, numbered as readyq's.
const (
	Edge    Mode = iota // readyq.Edge
	Level               // readyq.Level
	OneShot             // readyq.OneShot
)

type rqState uint8

const (
	rqQueued rqState = iota
	rqInFlight
	rqIdle     // one-shot, armed, not queued
	rqDisarmed // one-shot, waiting for Rearm
	rqDelayed  // a WorkQueue's: waiting for its ready time
)

// rqItem is what the model knows about one item. The ready list uses the
// first five fields. The rest are a WorkQueue's, and stay 0 in a ReadyQ.
type rqItem struct {
	mode    Mode
	state   rqState
	mark    uint64 // arrival number of a kept-aside mark, 0 if none
	removed bool   // in flight, Removed
	rearmed bool   // one-shot, in flight, re-armed

	markAt  time.Duration // the kept-aside mark's ready time
	markSeq uint64        // when markAt was set, for ties
	at      time.Duration // delayed: the ready time
	seq     uint64        // delayed: when at was set, for ties
	prio    int           // highest priority of a mark since it became known
	tenant  string        // its tenant, "" without fair share
	fails   int           // the limiter's failure count
}

// honoured reports whether it has a kept-aside mark that counts: on an
// edge or level item, and on a one-shot item only once re-armed.
func (it *rqItem) honoured() bool {
	return it.mark != 0 && (it.mode != OneShot || it.rearmed)
}

// aside reports whether it counts in Stats().Aside: in flight, with a
// mark that counts.
func (it *rqItem) aside() bool { return it.state == rqInFlight && it.honoured() }

// park puts it in state s without a mark, keeping what it is (mode,
// priority, tenant, failure count).
func (it *rqItem) park(s rqState) {
	it.mark, it.markAt, it.markSeq = 0, 0, 0
	it.state, it.rearmed = s, false
}

var errRQItem = errors.New("model: readyq item in an impossible state")

func (it *rqItem) validate(inQueue bool) error {
	switch {
	case (it.state == rqQueued) != inQueue,
		(it.state == rqIdle || it.state == rqDisarmed) && it.mode != OneShot,
		(it.removed || it.rearmed) && it.state != rqInFlight,
		it.removed && (it.mark != 0 || it.prio != 0 || it.fails != 0 || it.tenant != ""),
		(it.state == rqQueued || it.state == rqIdle || it.state == rqDelayed) && it.mark != 0,
		it.mark == 0 && (it.markAt != 0 || it.markSeq != 0),
		it.state != rqDelayed && (it.at != 0 || it.seq != 0),
		it.fails < 0:
		return errRQItem
	}
	return nil
}

// rqItems is every item the model knows, by key.
type rqItems map[int]*rqItem

// count is the number of items for which f holds.
func (m rqItems) count(f func(*rqItem) bool) int {
	n := 0
	for _, it := range m {
		if f(it) {
			n++
		}
	}
	return n
}

// sorted returns the items in state s, sorted.
func (m rqItems) sorted(s rqState) []int {
	var ks []int
	for k, it := range m {
		if it.state == s {
			ks = append(ks, k)
		}
	}
	slices.Sort(ks)
	return ks
}

// A ReadyQ models a readyq.Queue[int] as epoll's ready list. Make one
// with NewReadyQ or NewReadyQWith. WorkQueue models the controller
// work-queue calls built on it.
//
// The calls map onto the model as follows:
//
//	readyq                                     ReadyQ
//	New[int]()                                 NewReadyQ(Edge, nil)
//	NewWithConfig(Config{Mode: m, Recheck: f}) NewReadyQ(Mode(m), f)
//	Add(k), AddMode(k, m)                      Add(k), AddMode(k, Mode(m))
//	TryTake(max), TryTakeAppend                TryTake(max)
//	Wait(ctx, max), WaitAppend                 Wait(ctx, max)
//	Done(ks...)                                Done(ks...)
//	Next(ctx, ks, max)                         Next(ctx, ks, max)
//	Remove(k), Rearm(k)                        Remove(k), Rearm(k)
//	Drain(ctx)                                 Drain(ctx)
//	Ready()                                    Ready(), Fired(ticket)
//	Close()                                    Close()
//	Len(), InFlight()                          Len(), InFlight()
//	Stats()                                    Stats()
//
// An item the model knows is in one of these states:
//   - queued, waiting to be handed out
//   - in flight, handed out and not yet Done
//   - disarmed, a one-shot item handed out and waiting for Rearm
//   - idle, a one-shot item re-armed at its Done and not marked since
//
// An item in flight or disarmed may also hold a kept-aside mark, a mark
// that came meanwhile. Done or Rearm acts on it later.
//
// Items are ints. A test of a queue of other keys maps each key it uses
// to an int, such as its index in a fixed table of keys. A small table
// makes the interesting cases, marks of an item already known, common.
//
// Sequential callers never leave a Wait or a Drain waiting. So Stats'
// Waiting and Draining are always 0.
type ReadyQ struct{ rqCore }

// rqCore is the ready list, the state and the calls that ReadyQ and
// WorkQueue share. Its exported methods are ReadyQ's. A WorkQueue calls
// them and its steps, and adds its own rows before them.
type rqCore struct {
	mode    Mode
	recheck func(int) bool // nil: level items stay ready
	items   rqItems
	order   rqOrder // the queued items
	marks   uint64  // kept-aside marks so far
	closed  bool

	armed bool   // a Ready channel is out and has not fired yet
	fires uint64 // how many times an armed Ready channel has fired
}

// ReadyQConfig configures NewReadyQWith, as a readyq.Config with only
// Mode and Recheck configures readyq.NewWithConfig. The zero value is an
// edge-triggered queue without recheck.
type ReadyQConfig struct {
	Mode    Mode           // Config.Mode: Edge, Level or OneShot
	Recheck func(int) bool // Config.Recheck; nil: level items stay ready
}

// NewReadyQ returns a model of a queue of the given mode and recheck
// function, which may be nil. It panics for an unknown mode.
func NewReadyQ(mode Mode, recheck func(int) bool) *ReadyQ {
	return NewReadyQWith(ReadyQConfig{Mode: mode, Recheck: recheck})
}

// NewReadyQWith returns a model of readyq.NewWithConfig with the Config
// that o describes. It panics for an unknown mode.
func NewReadyQWith(o ReadyQConfig) *ReadyQ {
	return &ReadyQ{newCore(o)}
}

func newCore(o ReadyQConfig) rqCore {
	if o.Mode > OneShot {
		panic("model: unknown readyq mode")
	}
	return rqCore{mode: o.Mode, recheck: o.Recheck, items: rqItems{}}
}

// QueueStats is what Stats returns. Its fields are those of
// workqueue.Stats, so QueueStats(s) converts a workqueue.Stats s. A
// readyq.Stats has the same fields but Delayed.
type QueueStats struct {
	Queued   int  // queued items, Len()
	Delayed  int  // a WorkQueue's delayed items; 0 in a ReadyQ
	InFlight int  // items in flight, InFlight()
	Aside    int  // items in flight with a mark that counts
	Disarmed int  // one-shot items waiting for Rearm
	Waiting  int  // always 0: a model has no blocked callers
	Draining int  // always 0
	Closed   bool // Close has been called
}

// Add models Add(k). It is AddMode(k, m) with the queue's mode m.
func (q *rqCore) Add(k int) bool { return q.AddMode(k, q.mode) }

// AddMode models AddMode(k, m), a mark of k, and reports whether the mark
// is new. By k's state before the call:
//   - unknown, or one-shot and idle: k is queued, true
//   - in flight and Removed: k is known again, with mode m and a
//     kept-aside mark, true
//   - queued: nothing changes, false
//   - in flight or disarmed: k gets a kept-aside mark, true for the first,
//     false if it has one
//
// AddMode returns false, changing nothing, for an unknown mode or after
// Close. A known item keeps its mode.
func (q *rqCore) AddMode(k int, m Mode) bool {
	if m > OneShot || q.closed {
		return false
	}
	ok := q.mark(k, m)
	q.settle()
	return ok
}

// mark applies one mark of mode m to k, as AddMode describes.
func (q *rqCore) mark(k int, m Mode) bool {
	it, known := q.items[k]
	switch {
	case !known:
		it = &rqItem{mode: m}
		q.items[k] = it
		q.enqueue(k, it)
	case it.removed:
		*it = rqItem{mode: m, state: rqInFlight}
		q.keepAside(it)
	case it.state == rqIdle:
		q.enqueue(k, it)
	case it.state == rqQueued || it.mark != 0:
		return false
	default: // in flight or disarmed
		q.keepAside(it)
	}
	return true
}

// keepAside gives it, in flight or disarmed, a kept-aside mark: the next
// arrival number.
func (q *rqCore) keepAside(it *rqItem) {
	q.marks++
	it.mark = q.marks
}

// enqueue queues k at the tail of its priority and tenant, ending a delay.
func (q *rqCore) enqueue(k int, it *rqItem) {
	it.state, it.at, it.seq = rqQueued, 0, 0
	q.order.push(rqEntry{k: k, prio: it.prio, tenant: it.tenant})
}

// TryTake models TryTake(max). It hands out up to max queued items, which
// are then in flight. A ReadyQ hands them out oldest first. A batch holds
// the items that max hand-outs of one would give. TryTake returns nil if
// max ≤ 0 or nothing is queued.
func (q *rqCore) TryTake(max int) []int {
	if max <= 0 || q.order.len() == 0 {
		return nil
	}
	var out []int
	for len(out) < max && q.order.len() > 0 {
		k := q.order.pop()
		q.items[k].state = rqInFlight
		out = append(out, k)
	}
	q.settle()
	return out
}

// Wait models Wait(ctx, max). It returns, in this order of checks:
//   - nil and ErrInvalid for max ≤ 0
//   - nil and context.Canceled if ctx is Done
//   - what TryTake(max) returns and nil, if an item is queued
//   - nil and ErrClosed once closed with nothing left to hand out, that
//     is nothing queued and nothing in flight that Done will queue again
//   - nil and ErrWouldBlock otherwise, where the real Wait waits
//
// A call that returns an error changes nothing.
func (q *rqCore) Wait(ctx Ctx, max int) ([]int, error) {
	switch {
	case max <= 0:
		return nil, evserr.ErrInvalid
	case ctx == Done:
		return nil, stopped(ctx)
	case q.order.len() != 0:
		return q.TryTake(max), nil
	case q.exhausted():
		return nil, evserr.ErrClosed
	}
	return nil, evserr.ErrWouldBlock
}

// Done models Done(ks...) and returns how many of ks were in flight. A
// kept-aside mark counts on an edge or level item, and on a one-shot item
// only once re-armed. Each item in flight, in this order of checks:
//   - is forgotten if it was Removed, or is an edge item with no mark
//   - is queued again if its mark counts
//   - is queued again if it is a level item, still ready, on an open queue
//   - is forgotten if it is a level item
//   - becomes idle if it is a one-shot item re-armed, else disarmed,
//     keeping its mark
//
// Done calls the recheck function for every item of ks first, as the
// real Done does. A repeat of an item in ks is ignored. The items queued
// again go to the tail. Those with a mark go first, in the order the
// marks came, then the level items in the order of ks.
func (q *rqCore) Done(ks ...int) int { return q.done(ks, q.finish) }

// done is Done with finish for the rows of each item in flight.
func (q *rqCore) done(ks []int, finish func(k int, it *rqItem, ready bool, back *rqBack)) int {
	ready := make([]bool, len(ks))
	for i, k := range ks {
		ready[i] = q.recheck == nil || q.recheck(k)
	}
	var back rqBack
	n := 0
	for i, k := range ks {
		if it, ok := q.items[k]; ok && it.state == rqInFlight {
			n++
			finish(k, it, ready[i], &back)
		}
	}
	back.requeue(q)
	q.settle()
	return n
}

// finish ends the hand-out of item k, in flight; ready is its recheck.
// These are Done's rows. An item to be queued again goes to back.
func (q *rqCore) finish(k int, it *rqItem, ready bool, back *rqBack) {
	switch {
	case it.removed || it.mode == Edge && it.mark == 0:
		delete(q.items, k)
	case it.honoured():
		back.put(k, it, true)
	case it.mode == Level && !q.closed && ready:
		back.put(k, it, false)
	case it.mode == Level:
		delete(q.items, k)
	case it.rearmed:
		it.park(rqIdle)
	default:
		it.state = rqDisarmed
	}
}

// rqBack is what one Done queues again: the items with a kept-aside mark
// and their marks' arrival numbers, and the level items.
type rqBack struct {
	marked, level []int
	keys          []uint64
}

// put notes that k goes back, by its mark if marked, else as a level
// item. k is marked queued at once, so that a repeat of it in the same
// Done is ignored.
func (b *rqBack) put(k int, it *rqItem, marked bool) {
	if marked {
		b.marked = append(b.marked, k)
		b.keys = append(b.keys, it.mark)
	} else {
		b.level = append(b.level, k)
	}
	it.state = rqQueued
}

// requeue queues the items of b: the marked ones in the order their marks
// arrived, then the level ones.
func (b *rqBack) requeue(q *rqCore) {
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

// requeue queues k again, without its mark.
func (q *rqCore) requeue(k int) {
	it := q.items[k]
	it.park(rqQueued)
	q.enqueue(k, it)
}

// Remove models Remove(k) and reports whether k was known. It returns
// false if k is unknown, or in flight and already Removed. Otherwise:
//   - a queued item leaves the queue and is forgotten
//   - an item in flight loses its mark and is forgotten at its Done
//   - any other item is forgotten
func (q *rqCore) Remove(k int) bool {
	it, ok := q.items[k]
	switch {
	case !ok || it.removed:
		return false
	case it.state == rqQueued:
		q.order.remove(k)
		delete(q.items, k)
	case it.state == rqInFlight:
		*it = rqItem{mode: it.mode, state: rqInFlight, removed: true}
	default:
		delete(q.items, k)
	}
	q.settle()
	return true
}

// Rearm models Rearm(k) and reports whether it re-armed k.
//   - A disarmed item with a mark is queued.
//   - A disarmed item without a mark becomes idle.
//   - An item in flight is re-armed for its Done.
//
// Rearm returns false after Close, for an item unknown or not one-shot,
// and for one already armed.
func (q *rqCore) Rearm(k int) bool {
	it, ok := q.items[k]
	if q.closed || !ok || it.mode != OneShot {
		return false
	}
	switch {
	case it.state == rqDisarmed && it.mark != 0:
		q.requeue(k)
	case it.state == rqDisarmed:
		it.park(rqIdle)
	case it.state == rqInFlight && !it.removed && !it.rearmed:
		it.rearmed = true
	default:
		return false
	}
	q.settle()
	return true
}

// Next models Next(ctx, ks, max). For max ≤ 0 it returns ks unchanged
// and ErrInvalid, and does nothing. So ks are still in flight, and the
// caller still holds them. Otherwise it is Done(ks...) and then
// Wait(ctx, max). Done runs even with a Done ctx, as finishing held items
// is not a wait.
func (q *rqCore) Next(ctx Ctx, ks []int, max int) ([]int, error) {
	if max <= 0 {
		return ks, evserr.ErrInvalid
	}
	q.Done(ks...)
	return q.Wait(ctx, max)
}

// Drain models Drain(ctx), open or closed. It returns:
//   - context.Canceled if ctx is Done
//   - nil if every item the model knows is idle or disarmed
//   - ErrWouldBlock otherwise, where the real Drain waits
func (q *rqCore) Drain(ctx Ctx) error {
	if err := stopped(ctx); err != nil {
		return err
	}
	if q.items.count(func(it *rqItem) bool { return it.state != rqIdle && it.state != rqDisarmed }) == 0 {
		return nil
	}
	return evserr.ErrWouldBlock
}

// Close models Close. Later marks return false. What is queued is still
// handed out, and kept-aside marks are still queued at Done.
func (q *rqCore) Close() {
	q.closed = true
	q.settle()
}

// Ready models Ready() and returns the ticket of its channel. The channel
// is closed at once if a Wait would not wait. That is when an item is
// queued, or when the queue is closed with nothing left to hand out.
// Otherwise the first later call after which a Wait would not wait closes
// it.
func (q *rqCore) Ready() Ticket {
	if q.readyNow() {
		return Ticket(q.fires)
	}
	q.armed = true
	return Ticket(q.fires + 1)
}

// Fired reports whether the Ready channel named by t is closed.
func (q *rqCore) Fired(t Ticket) bool { return uint64(t) <= q.fires }

func (q *rqCore) settle() {
	if q.armed && q.readyNow() {
		q.armed = false
		q.fires++
	}
}

func (q *rqCore) readyNow() bool { return q.order.len() != 0 || q.exhausted() }

// exhausted reports whether the queue is closed with nothing left to hand
// out.
func (q *rqCore) exhausted() bool {
	return q.closed && q.order.len() == 0 && q.items.count((*rqItem).aside) == 0
}

// Queue returns the queued items in the order hand-outs would take them.
// In a ReadyQ, that is oldest first.
func (q *rqCore) Queue() []int { return q.order.handOut() }

// Len is what the real Len returns, the number of queued items.
func (q *rqCore) Len() int { return q.order.len() }

// InFlight is what the real InFlight returns, the number of items handed
// out and not yet Done.
func (q *rqCore) InFlight() int { return len(q.items.sorted(rqInFlight)) }

// Stats is what the real Stats returns. Aside counts the items in flight
// with a mark that counts, which Done will queue again.
func (q *rqCore) Stats() QueueStats {
	return QueueStats{
		Queued:   q.order.len(),
		Delayed:  len(q.items.sorted(rqDelayed)),
		InFlight: q.InFlight(),
		Aside:    q.items.count((*rqItem).aside),
		Disarmed: len(q.items.sorted(rqDisarmed)),
		Closed:   q.closed,
	}
}

// Known lists every item the model knows, in no particular order. An
// item in flight and Removed is known until its Done.
func (q *rqCore) Known() []int {
	ks := make([]int, 0, len(q.items))
	for k := range q.items {
		ks = append(ks, k)
	}
	return ks
}

// InFlightItems returns the items in flight, sorted.
func (q *rqCore) InFlightItems() []int { return q.items.sorted(rqInFlight) }

// Validate checks the model's own invariants and describes the first one
// broken. It returns nil unless the model has a bug. It checks that:
//   - the queue holds exactly the queued items, once each, at their own
//     priority and tenant, and the tenants' turns match it
//   - only one-shot items are idle or disarmed
//   - only items in flight are Removed or re-armed, and a Removed one
//     keeps nothing
//   - nothing queued or idle has a mark
//   - a Ready channel still open is one a Wait would wait on
func (q *rqCore) Validate() error {
	if err := q.order.validate(); err != nil {
		return err
	}
	seen := map[int]bool{}
	for _, e := range q.order.fifo {
		it, ok := q.items[e.k]
		if seen[e.k] || !ok || it.state != rqQueued || e.prio != it.prio || e.tenant != it.tenant {
			return invariantError("queue entry not a queued item, or twice")
		}
		seen[e.k] = true
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
