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
// positions in its ready list instead. The hand-out order (priorities and
// fair share) is written down in readyq_order.go, the clock, delays and
// rate limiter in readyq_time.go.

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
	rqDelayed  // waiting for its ready time
)

// rqItem is what the model knows about one item.
type rqItem struct {
	mode    Mode
	state   rqState
	mark    uint64        // arrival number of a kept-aside mark, 0 if none
	markAt  time.Duration // the kept-aside mark's ready time
	markSeq uint64        // when markAt was set, for ties
	at      time.Duration // delayed: the ready time
	seq     uint64        // delayed: when at was set, for ties
	prio    int           // highest priority of a mark since it became known
	tenant  string        // its tenant, "" without fair share
	limited bool          // AddRateLimited was called since it became known
	removed bool          // in flight, Removed
	rearmed bool          // one-shot, in flight, re-armed
}

// A ReadyQ models a readyq.Queue[int], epoll's ready list, with the
// controller work-queue calls built on it. Make one with NewReadyQ or
// NewReadyQWith.
//
// The calls map onto the model as follows:
//
//	readyq                                     ReadyQ
//	New[int]()                                 NewReadyQ(Edge, nil)
//	NewWithConfig(Config{Mode: m, Recheck: f}) NewReadyQ(Mode(m), f)
//	NewWithConfig(Config{Fairness: t,          NewReadyQWith(ReadyQConfig{
//	  RateLimiter:                               Fairness: t,
//	    ExponentialRateLimiter(b, x)})           BaseDelay: b, MaxDelay: x})
//	Add(k), AddMode(k, m)                      Add(k), AddMode(k, Mode(m))
//	AddAfter(k, d)                             AddAfter(k, d)
//	AddWith(k, o)                              AddWith(k, AddOpts(o))
//	AddRateLimited(k)                          AddRateLimited(k)
//	Forget(k), NumRequeues(k)                  Forget(k), NumRequeues(k)
//	TryTake(max), TryTakeAppend                TryTake(max)
//	Wait(ctx, max), WaitAppend                 Wait(ctx, max)
//	Done(ks...)                                Done(ks...)
//	Next(ctx, ks, max)                         Next(ctx, ks, max)
//	Remove(k), Rearm(k)                        Remove(k), Rearm(k)
//	Priority(k)                                Priority(k)
//	Drain(ctx)                                 Drain(ctx)
//	Ready()                                    Ready(), Fired(ticket)
//	Close()                                    Close()
//	Len(), InFlight()                          Len(), InFlight()
//	Stats()                                    Stats()
//	the queue's timer, as time passes          Advance(d), Now(), Delays()
//
// An item the model knows is in one of these states:
//   - queued, waiting to be handed out
//   - in flight, handed out and not yet Done
//   - delayed, waiting for its ready time
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
//
// The model has a clock of its own. Now starts at 0 and moves only with
// Advance, which queues the delayed items whose time has come. Under
// testing/synctest, a time.Sleep(d) and a synctest.Wait are Advance(d).
// On a fake clock given with readyq.WithClock, so is a step of d alone:
// the queue's next call queues what the step made due, whether or not
// its timer's goroutine has run.
//
// The model's rate limiter is the per-item exponential one,
// readyq.ExponentialRateLimiter. A queue with readyq.DefaultRateLimiter
// also has a token bucket of 10 retries a second, bursts of 100. It
// matches the model only while the bucket has tokens left.
//
// Items are handed out highest priority first. Within a priority, with
// fair share, the tenants take turns. Within a tenant, the oldest item
// goes first. Queue lists the queued items in that order.
type ReadyQ struct {
	mode     Mode
	recheck  func(int) bool   // nil: level items stay ready
	tenantOf func(int) string // nil: no fair share
	base     time.Duration    // the limiter's first delay
	maxDelay time.Duration    // and its cap
	order    rqOrder          // the queued items
	items    map[int]*rqItem
	marks    uint64        // kept-aside marks so far
	seqs     uint64        // ready times set so far
	now      time.Duration // the model's clock
	fails    map[int]int   // the limiter's per-item failure counts
	retries  uint64
	closed   bool

	armed bool   // a Ready channel is out and has not fired yet
	fires uint64 // how many times an armed Ready channel has fired
}

// ReadyQConfig configures NewReadyQWith, as a readyq.Config configures
// readyq.NewWithConfig. The zero value is an edge-triggered queue, without
// recheck or fair share, with the default delays.
type ReadyQConfig struct {
	Mode     Mode             // Config.Mode: Edge, Level or OneShot
	Recheck  func(int) bool   // Config.Recheck; nil: level items stay ready
	Fairness func(int) string // Config.Fairness; nil: no fair share

	// The delays of the rate limiter, as in
	// ExponentialRateLimiter(BaseDelay, MaxDelay). Zero stands for
	// DefaultBaseDelay and DefaultMaxDelay.
	BaseDelay, MaxDelay time.Duration
}

// NewReadyQ returns a model of a queue of the given mode and recheck
// function, which may be nil. It is NewReadyQWith with only those set. It
// panics for an unknown mode.
func NewReadyQ(mode Mode, recheck func(int) bool) *ReadyQ {
	return NewReadyQWith(ReadyQConfig{Mode: mode, Recheck: recheck})
}

// NewReadyQWith returns a model of readyq.NewWithConfig with the Config
// that o describes. It panics for an unknown mode, a negative delay, or a
// MaxDelay below BaseDelay.
func NewReadyQWith(o ReadyQConfig) *ReadyQ {
	if o.Mode > OneShot {
		panic("model: unknown readyq mode")
	}
	base, maxDelay := cmpOr(o.BaseDelay, DefaultBaseDelay), cmpOr(o.MaxDelay, DefaultMaxDelay)
	if base < 0 || maxDelay < base {
		panic("model: readyq limiter delays out of order")
	}
	return &ReadyQ{
		mode: o.Mode, recheck: o.Recheck, tenantOf: o.Fairness,
		base: base, maxDelay: maxDelay,
		items: map[int]*rqItem{}, fails: map[int]int{},
	}
}

func cmpOr(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// Add models Add(k). It is AddMode(k, m) with the queue's mode m.
func (q *ReadyQ) Add(k int) bool { return q.AddMode(k, q.mode) }

// AddMode models AddMode(k, m), a mark of k ready now. It reports whether
// the mark is new. By k's state before the call:
//   - unknown, or one-shot and idle: k is queued, true
//   - in flight and Removed: k is known again, with mode m and a
//     kept-aside mark, true
//   - queued: nothing changes, false
//   - in flight or disarmed: k gets a kept-aside mark, true for the first,
//     false if it has one (its ready time becomes now)
//   - delayed: k is queued now and its delay dropped, true
//
// AddMode returns false, changing nothing, for an unknown mode or after
// Close. A known item keeps its mode, and the mark has priority 0.
func (q *ReadyQ) AddMode(k int, m Mode) bool { return q.add(k, m, 0, false, 0) }

// AddAfter models AddAfter(k, d), a mark of k ready at Now()+d. With d ≤ 0
// it is Add(k). It reports whether the mark is new. By k's state:
//   - unknown, or one-shot and idle: k is delayed, true
//   - delayed: k keeps the earlier ready time, false
//   - queued: nothing changes, false
//   - in flight or disarmed: k gets a kept-aside mark with that time,
//     true for the first, false for a later one, the earliest time winning
//
// AddAfter returns false, changing nothing, after Close.
func (q *ReadyQ) AddAfter(k int, d time.Duration) bool { return q.add(k, q.mode, d, false, 0) }

// AddRateLimited models AddRateLimited(k). It is AddAfter(k, d), with the
// limiter's delay d for k's failures so far. It counts one more failure
// for k and one more retry. After Close it returns false and changes
// nothing.
func (q *ReadyQ) AddRateLimited(k int) bool { return q.add(k, q.mode, 0, true, 0) }

// AddWith models AddWith(k, o). It is AddAfter(k, o.After), or with
// o.RateLimited, AddRateLimited(k) with its delay cut to o.After if that
// is sooner and above 0. The item's priority becomes the higher of its own
// and o.Priority. A queued item it raises moves to the tail of its new
// priority, and AddWith still returns false. After Close it returns false
// and changes nothing.
func (q *ReadyQ) AddWith(k int, o AddOpts) bool {
	return q.add(k, q.mode, o.After, o.RateLimited, o.Priority)
}

// AddOpts are the options of one AddWith mark. Its fields are those of
// readyq.AddOpts, so AddOpts(o) converts a readyq.AddOpts o.
type AddOpts struct {
	After       time.Duration // the delay, none if ≤ 0
	RateLimited bool          // delay by the limiter, or by After if sooner
	Priority    int           // higher is handed out first
}

// add is every mark. The tenant function runs first, so that if it panics
// nothing has changed; the limiter's When comes next, as in the real call.
func (q *ReadyQ) add(k int, m Mode, after time.Duration, rateLimited bool, prio int) bool {
	if m > OneShot || q.closed {
		return false
	}
	tenant := q.tenantFor(k)
	d := after
	if rateLimited {
		w := q.when(k)
		if after <= 0 || w < after {
			d = w
		}
		q.retries++
	}
	ok := q.mark(k, m, q.readyAt(d), prio, tenant)
	if rateLimited {
		q.items[k].limited = true
	}
	q.settle()
	return ok
}

// tenantFor is k's tenant: the one the model has if k is known, else the
// tenant function's answer ("" without one).
func (q *ReadyQ) tenantFor(k int) string {
	if it, ok := q.items[k]; ok && !it.removed {
		return it.tenant
	}
	if q.tenantOf == nil {
		return ""
	}
	return q.tenantOf(k)
}

// mark applies one mark of mode m, ready at at (≤ now: now), priority
// prio, to k, whose tenant is tenant; it reports whether the mark queued,
// delayed or kept aside k where nothing did before.
func (q *ReadyQ) mark(k int, m Mode, at time.Duration, prio int, tenant string) bool {
	it, known := q.items[k]
	switch {
	case !known:
		it = &rqItem{mode: m, prio: prio, tenant: tenant}
		q.items[k] = it
		q.place(k, it, at)
		return true
	case it.removed:
		*it = rqItem{mode: m, state: rqInFlight, prio: prio, tenant: tenant}
		q.keepAside(it, at)
		return true
	case it.state == rqQueued:
		if prio > it.prio {
			q.order.remove(k)
			it.prio = prio
			q.enqueue(k, it)
		}
		return false
	}
	it.prio = max(it.prio, prio)
	switch it.state {
	case rqIdle:
		q.place(k, it, at)
		return true
	case rqDelayed:
		return q.advanceDelay(k, it, at)
	}
	if it.mark == 0 { // in flight or disarmed
		q.keepAside(it, at)
		return true
	}
	if at < it.markAt {
		it.markAt, it.markSeq = at, q.stamp()
	}
	return false
}

// advanceDelay moves delayed k's ready time to at if that is earlier: to
// now queues it (true); a later time in the future is only noted (false).
func (q *ReadyQ) advanceDelay(k int, it *rqItem, at time.Duration) bool {
	if at <= q.now {
		q.enqueue(k, it)
		return true
	}
	if at < it.at {
		it.at, it.seq = at, q.stamp()
	}
	return false
}

// keepAside gives it, in flight or disarmed, a kept-aside mark ready at at.
func (q *ReadyQ) keepAside(it *rqItem, at time.Duration) {
	q.marks++
	it.mark, it.markAt, it.markSeq = q.marks, at, q.stamp()
}

func (q *ReadyQ) clearMark(it *rqItem) { it.mark, it.markAt, it.markSeq = 0, 0, 0 }

// enqueue queues k at the tail of its priority and tenant, ending a delay.
func (q *ReadyQ) enqueue(k int, it *rqItem) {
	it.state, it.at, it.seq = rqQueued, 0, 0
	q.order.push(rqEntry{k: k, prio: it.prio, tenant: it.tenant})
}

// forget drops k, which is not queued, and with it k's failure count if
// AddRateLimited was called for it (the real queue calls the limiter's
// Forget then).
func (q *ReadyQ) forget(k int, it *rqItem) {
	delete(q.items, k)
	if it.limited {
		delete(q.fails, k)
	}
}

// TryTake models TryTake(max). It hands out up to max queued items, which
// are then in flight. The order is highest priority first, then the
// tenants in turn, then oldest first. A batch holds the items that max
// hand-outs of one would give. TryTake returns nil if max ≤ 0 or nothing
// is queued.
func (q *ReadyQ) TryTake(max int) []int {
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
func (q *ReadyQ) Wait(ctx Ctx, max int) ([]int, error) {
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
//   - is queued again if its mark counts and its ready time has come
//   - is queued again if it is a level item, still ready, on an open queue
//   - is delayed until its mark's ready time if the mark counts
//   - is forgotten if it is a level item
//   - becomes idle if it is a one-shot item re-armed, else disarmed,
//     keeping its mark
//
// After Close every mark's ready time has come. Done calls the recheck
// function for every item of ks first, as the real Done does. A repeat of
// an item in ks is ignored. The items queued again go to the tail of
// their priority. Those with a mark go first, in the order the marks
// came, then the level items in the order of ks.
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
// so that a repeat of it in the same Done is ignored. A level item still
// ready with a mark in the future is queued as a level item: its ready
// time, now, is the earlier one.
func (q *ReadyQ) finish(k int, it *rqItem, ready bool, back *rqBack) {
	honoured := it.mark != 0 && (it.mode != OneShot || it.rearmed)
	switch {
	case it.removed || it.mode == Edge && it.mark == 0:
		q.forget(k, it)
	case honoured && (q.closed || it.markAt <= q.now):
		back.marked = append(back.marked, k)
		back.keys = append(back.keys, it.mark)
		it.state = rqQueued
	case it.mode == Level && !q.closed && ready:
		back.level = append(back.level, k)
		it.state = rqQueued
	case honoured:
		q.delayMark(it)
	case it.mode == Level:
		q.forget(k, it)
	case it.rearmed:
		q.park(it, rqIdle)
	default:
		it.state = rqDisarmed
	}
}

// delayMark turns it's kept-aside mark, still in the future, into a delay
// with the mark's ready time and sequence number.
func (q *ReadyQ) delayMark(it *rqItem) {
	at, seq := it.markAt, it.markSeq
	q.park(it, rqDelayed)
	it.at, it.seq = at, seq
}

// park puts it in state s without a mark, keeping what it is (mode,
// priority, tenant, limiter use).
func (q *ReadyQ) park(it *rqItem, s rqState) {
	q.clearMark(it)
	it.state, it.rearmed = s, false
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
	it := q.items[k]
	q.park(it, rqQueued)
	q.enqueue(k, it)
}

// Remove models Remove(k) and reports whether k was known. It returns
// false if k is unknown, or in flight and already Removed. Otherwise:
//   - a queued item leaves the queue and is forgotten
//   - an item in flight loses its mark and is forgotten at its Done
//   - an idle, disarmed or delayed item is forgotten
//
// If AddRateLimited was called for k, Remove resets k's failure count at
// once, also for an item in flight.
func (q *ReadyQ) Remove(k int) bool {
	it, ok := q.items[k]
	switch {
	case !ok || it.removed:
		return false
	case it.state == rqQueued:
		q.order.remove(k)
		q.forget(k, it)
	case it.state == rqInFlight:
		if it.limited {
			delete(q.fails, k)
		}
		*it = rqItem{mode: it.mode, state: rqInFlight, removed: true}
	default:
		q.forget(k, it)
	}
	q.settle()
	return true
}

// Rearm models Rearm(k) and reports whether it re-armed k.
//   - A disarmed item with a mark is queued if the mark's time has come,
//     else delayed until then.
//   - A disarmed item without a mark becomes idle.
//   - An item in flight is re-armed for its Done.
//
// Rearm returns false after Close, for an item unknown or not one-shot,
// and for one already armed.
func (q *ReadyQ) Rearm(k int) bool {
	it, ok := q.items[k]
	if q.closed || !ok || it.mode != OneShot {
		return false
	}
	switch {
	case it.state == rqDisarmed && it.mark != 0 && it.markAt <= q.now:
		q.requeue(k)
	case it.state == rqDisarmed && it.mark != 0:
		q.delayMark(it)
	case it.state == rqDisarmed:
		q.park(it, rqIdle)
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
func (q *ReadyQ) Next(ctx Ctx, ks []int, max int) ([]int, error) {
	if max <= 0 {
		return ks, evserr.ErrInvalid
	}
	q.Done(ks...)
	return q.Wait(ctx, max)
}

// Drain models Drain(ctx), open or closed. It returns:
//   - context.Canceled if ctx is Done
//   - nil if nothing is queued, delayed or in flight
//   - ErrWouldBlock otherwise, where the real Drain waits
func (q *ReadyQ) Drain(ctx Ctx) error {
	if err := stopped(ctx); err != nil {
		return err
	}
	if st := q.Stats(); st.Queued == 0 && st.InFlight == 0 && st.Delayed == 0 {
		return nil
	}
	return evserr.ErrWouldBlock
}

// Close models Close. Later marks return false. Every delayed item is
// queued at once, in ready-time order. What is queued is still handed
// out, and kept-aside marks are still queued at Done.
func (q *ReadyQ) Close() {
	q.closed = true
	q.queueDue(func(*rqItem) bool { return true })
	q.settle()
}

// Ready models Ready() and returns the ticket of its channel. The channel
// is closed at once if a Wait would not wait. That is when an item is
// queued, or when the queue is closed with nothing left to hand out.
// Otherwise the first later call after which a Wait would not wait closes
// it.
func (q *ReadyQ) Ready() Ticket {
	if q.readyNow() {
		return Ticket(q.fires)
	}
	q.armed = true
	return Ticket(q.fires + 1)
}

// Fired reports whether the Ready channel named by t is closed.
func (q *ReadyQ) Fired(t Ticket) bool { return uint64(t) <= q.fires }

func (q *ReadyQ) settle() {
	if q.armed && q.readyNow() {
		q.armed = false
		q.fires++
	}
}

func (q *ReadyQ) readyNow() bool { return q.order.len() != 0 || q.exhausted() }

// exhausted reports whether the queue is closed with nothing left to hand
// out.
func (q *ReadyQ) exhausted() bool { return q.closed && q.order.len() == 0 && q.Stats().Aside == 0 }

// Queue returns the queued items in the order hand-outs would take them.
// Without priorities or fair share, that is oldest first.
func (q *ReadyQ) Queue() []int { return q.order.handOut() }

// Len is what the real Len returns, the number of queued items.
func (q *ReadyQ) Len() int { return q.order.len() }

// InFlight is what the real InFlight returns, the number of items handed
// out and not yet Done.
func (q *ReadyQ) InFlight() int {
	return q.count(func(it *rqItem) bool { return it.state == rqInFlight })
}

// QueueStats is what Stats returns. Its fields are those of
// readyq.Stats, so QueueStats(s) converts a readyq.Stats s.
type QueueStats struct {
	Queued   int  // queued items, Len()
	Delayed  int  // delayed items
	InFlight int  // items in flight, InFlight()
	Aside    int  // items in flight with a mark that counts
	Disarmed int  // one-shot items waiting for Rearm
	Waiting  int  // always 0: a model has no blocked callers
	Draining int  // always 0
	Closed   bool // Close has been called
}

// Stats is what the real Stats returns. Aside counts the items in flight
// with a mark that counts, which Done will queue again or delay.
func (q *ReadyQ) Stats() QueueStats {
	return QueueStats{
		Queued:   q.order.len(),
		Delayed:  q.count(func(it *rqItem) bool { return it.state == rqDelayed }),
		InFlight: q.InFlight(),
		Aside: q.count(func(it *rqItem) bool {
			return it.state == rqInFlight && it.mark != 0 && (it.mode != OneShot || it.rearmed)
		}),
		Disarmed: q.count(func(it *rqItem) bool { return it.state == rqDisarmed }),
		Closed:   q.closed,
	}
}

// Priority models Priority(k). It returns k's priority and true, or false
// if k is unknown or in flight and Removed.
func (q *ReadyQ) Priority(k int) (int, bool) {
	it, ok := q.items[k]
	if !ok || it.removed {
		return 0, false
	}
	return it.prio, true
}

// Tenant returns k's tenant and true, or false if k is unknown or in
// flight and Removed. Without fair share the tenant is "".
func (q *ReadyQ) Tenant(k int) (string, bool) {
	it, ok := q.items[k]
	if !ok || it.removed {
		return "", false
	}
	return it.tenant, true
}

// Known lists every item the model knows, in no particular order. An
// item in flight and Removed is known until its Done.
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

// Validate checks the model's own invariants and describes the first one
// broken. It returns nil unless the model has a bug. It checks that:
//   - the queue holds exactly the queued items, once each, at their own
//     priority and tenant, and the tenants' turns match it
//   - only one-shot items are idle or disarmed
//   - only items in flight are Removed or re-armed, and a Removed one
//     keeps nothing
//   - nothing queued, idle or delayed has a mark
//   - only a delayed item has a ready time, in the future, and none once
//     closed
//   - a failure count belongs to a known item that AddRateLimited marked
//   - a Ready channel still open is one a Wait would wait on
func (q *ReadyQ) Validate() error {
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
		if it.state == rqDelayed && (q.closed || it.at <= q.now) {
			return invariantError("delayed item due, or delayed on a closed queue")
		}
	}
	for k, n := range q.fails {
		if it, ok := q.items[k]; n <= 0 || !ok || !it.limited {
			return invariantError("failure count outlives its item")
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
		it.removed && (it.mark != 0 || it.prio != 0 || it.limited || it.tenant != ""),
		(it.state == rqQueued || it.state == rqIdle || it.state == rqDelayed) && it.mark != 0,
		it.mark == 0 && (it.markAt != 0 || it.markSeq != 0),
		it.state != rqDelayed && (it.at != 0 || it.seq != 0):
		return errRQItem
	}
	return nil
}
