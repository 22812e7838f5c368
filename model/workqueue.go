package model

import (
	"math/rand/v2"
	"time"

	"github.com/evsync/evsync/internal/evserr"
)

// A WorkQueue models a workqueue.Queue[int], the controller work queue. It is
// the ready list that ReadyQ models, plus a delayed place, priorities,
// fair share and a rate limiter, on a clock of its own. Make one with
// NewWorkQueue or NewWorkQueueWith.
//
// The calls map onto the model as follows:
//
//	workqueue                                  WorkQueue
//	New[int]()                                 NewWorkQueue(Edge, nil)
//	NewWithConfig(Config{Mode: m, Recheck: f}) NewWorkQueue(Mode(m), f)
//	NewWithConfig(Config{Fairness: t,          NewWorkQueueWith(WorkQueueConfig{
//	  RateLimiter:                               Fairness: t,
//	    ExponentialRateLimiter(b, x)})           BaseDelay: b, MaxDelay: x})
//	  ExponentialRateLimiterWith(Backoff{        the same with Jitter: j, Rand: r',
//	    Base: b, Max: x, Jitter: j, Rand: r})    r' a source that repeats r's values
//	Add(k), AddMode(k, m)                      Add(k), AddMode(k, Mode(m))
//	AddAfter(k, d)                             AddAfter(k, d)
//	AddWith(k, o)                              AddWith(k, AddOpts(o))
//	AddRateLimited(k)                          AddRateLimited(k)
//	Forget(k), NumRequeues(k)                  Forget(k), NumRequeues(k)
//	Priority(k)                                Priority(k)
//	Metrics.Retried calls                      Retries()
//	the queue's timer, as time passes          Advance(d), Now(), Delays()
//	every other call                           as in ReadyQ
//
// An item is in one of ReadyQ's states, or delayed, waiting for its ready
// time. A kept-aside mark has a ready time too. Done or Rearm delays the
// item until then if it is still to come.
//
// The model has a clock of its own. Now starts at 0 and moves only with
// Advance, which queues the delayed items whose time has come. Under
// testing/synctest, a time.Sleep(d) and a synctest.Wait are Advance(d).
// On a fake clock given with workqueue.WithClock, so is a step of d alone:
// the queue's next call queues what the step made due, whether or not
// its timer's goroutine has run.
//
// The model's rate limiter is the per-item exponential one,
// workqueue.ExponentialRateLimiter, jittered as
// workqueue.ExponentialRateLimiterWith's is if WorkQueueConfig.Jitter is
// set. Given sources that return the same values, the two draw one value
// per retry, in the same calls, and agree on every delay. A queue with workqueue.DefaultRateLimiter
// also has a token bucket of 10 retries a second, bursts of 100. It
// matches the model only while the bucket has tokens left.
//
// Items are handed out highest priority first. Within a priority, with
// fair share, the tenants take turns. Within a tenant, the oldest item
// goes first. Queue lists the queued items in that order.
type WorkQueue struct{ w wqCore }

// wqCore is a WorkQueue's state: the ready list and what the work queue
// adds to it. Its methods are the work queue's own steps.
type wqCore struct {
	rq       rqCore
	tenantOf func(int) string // nil: no fair share
	base     time.Duration    // the limiter's first delay
	maxDelay time.Duration    // and its cap
	jitter   float64          // the fraction of a delay cut off at most
	rand     func() float64   // u of each cut, only with jitter
	now      time.Duration    // the model's clock
	seqs     uint64           // ready times set so far
	retries  uint64
}

// WorkQueueConfig configures NewWorkQueueWith, as a workqueue.Config
// configures workqueue.NewWithConfig. The zero value is an edge-triggered
// queue, without recheck or fair share, with the default delays.
type WorkQueueConfig struct {
	Mode     Mode             // Config.Mode: Edge, Level or OneShot
	Recheck  func(int) bool   // Config.Recheck; nil: level items stay ready
	Fairness func(int) string // Config.Fairness; nil: no fair share

	// FairShare is Config.FairShare. Set with Fairness, NewWorkQueueWith
	// panics as workqueue.NewWithConfig does.
	FairShare FairShare

	// The delays of the rate limiter, as in
	// ExponentialRateLimiter(BaseDelay, MaxDelay). Zero stands for
	// DefaultBaseDelay and DefaultMaxDelay.
	BaseDelay, MaxDelay time.Duration

	// Jitter and Rand are workqueue.Backoff's: each retry's delay d becomes
	// d·(1 − Jitter·u) for the next u from Rand. Jitter 0 (the default)
	// never calls Rand. A nil Rand is math/rand/v2's Float64.
	Jitter float64
	Rand   func() float64
}

// NewWorkQueue returns a model of a queue of the given mode and recheck
// function, which may be nil. It is NewWorkQueueWith with only those set.
// It panics for an unknown mode.
func NewWorkQueue(mode Mode, recheck func(int) bool) *WorkQueue {
	return NewWorkQueueWith(WorkQueueConfig{Mode: mode, Recheck: recheck})
}

// NewWorkQueueWith returns a model of workqueue.NewWithConfig with the Config
// that o describes. It panics for an unknown mode, a negative delay, a
// MaxDelay below BaseDelay, or a Jitter outside [0, 1].
func NewWorkQueueWith(o WorkQueueConfig) *WorkQueue {
	rq := newCore(ReadyQConfig{Mode: o.Mode, Recheck: o.Recheck})
	base, maxDelay := cmpOr(o.BaseDelay, DefaultBaseDelay), cmpOr(o.MaxDelay, DefaultMaxDelay)
	if base < 0 || maxDelay < base {
		panic("model: workqueue limiter delays out of order")
	}
	if !(o.Jitter >= 0 && o.Jitter <= 1) {
		panic("model: workqueue limiter jitter outside [0, 1]")
	}
	w := wqCore{rq: rq, tenantOf: o.Fairness, base: base, maxDelay: maxDelay, jitter: o.Jitter, rand: o.Rand}
	if w.rand == nil {
		w.rand = rand.Float64
	}
	w.shareFair(o)
	return &WorkQueue{w}
}

func cmpOr(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// AddOpts are the options of one AddWith mark. Its fields are those of
// workqueue.AddOpts, so AddOpts(o) converts a workqueue.AddOpts o.
type AddOpts struct {
	After       time.Duration // the delay, none if ≤ 0
	RateLimited bool          // delay by the limiter, or by After if sooner
	Priority    int           // higher is handed out first
	Replace     bool          // the mark's ready time replaces the item's
}

// Add models Add(k). It is AddMode(k, m) with the queue's mode m.
func (q *WorkQueue) Add(k int) bool { return q.w.add(k, q.w.rq.mode, AddOpts{}) }

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
func (q *WorkQueue) AddMode(k int, m Mode) bool { return q.w.add(k, m, AddOpts{}) }

// AddAfter models AddAfter(k, d), a mark of k ready at Now()+d. With d ≤ 0
// it is Add(k). It reports whether the mark is new. By k's state:
//   - unknown, or one-shot and idle: k is delayed, true
//   - delayed: k keeps the earlier ready time, false
//   - queued: nothing changes, false
//   - in flight or disarmed: k gets a kept-aside mark with that time,
//     true for the first, false for a later one, the earliest time winning
//
// AddAfter returns false, changing nothing, after Close.
func (q *WorkQueue) AddAfter(k int, d time.Duration) bool {
	return q.w.add(k, q.w.rq.mode, AddOpts{After: d})
}

// AddRateLimited models AddRateLimited(k). It is AddAfter(k, d), with the
// limiter's delay d for k's failures so far. It counts one more failure
// for k and one more retry. After Close it returns false and changes
// nothing.
func (q *WorkQueue) AddRateLimited(k int) bool {
	return q.w.add(k, q.w.rq.mode, AddOpts{RateLimited: true})
}

// AddWith models AddWith(k, o). It is AddAfter(k, o.After), or with
// o.RateLimited, AddRateLimited(k) with its delay cut to o.After if that
// is sooner and above 0. The item's priority becomes the higher of its own
// and o.Priority. A queued item it raises moves to the tail of its new
// priority, and AddWith still returns false. After Close it returns false
// and changes nothing.
//
// With o.Replace the mark's ready time t (Now()+d, d the delay above)
// replaces k's, later or earlier. By k's state:
//   - unknown, idle, in flight and Removed, or in flight without a mark:
//     as without Replace
//   - delayed: k is delayed until t, false; for t ≤ Now() it is queued
//     now, true
//   - queued, t after Now(): k leaves the queue and is delayed until t,
//     false; otherwise nothing changes, false
//   - in flight or disarmed with a mark: the mark's ready time becomes t,
//     false
//
// Every ready time Replace sets takes a new sequence number, so it comes
// after the ready times already set for the same moment.
func (q *WorkQueue) AddWith(k int, o AddOpts) bool { return q.w.add(k, q.w.rq.mode, o) }

// add is every mark. The tenant function runs first, so that if it panics
// nothing has changed. The limiter's delay comes next, as in the real
// call.
func (w *wqCore) add(k int, m Mode, o AddOpts) bool {
	q := &w.rq
	if m > OneShot || q.closed {
		return false
	}
	tenant, fails := "", 0
	if it, ok := q.items[k]; ok && !it.removed {
		tenant, fails = it.tenant, it.fails
	} else if w.tenantOf != nil {
		tenant = w.tenantOf(k)
	}
	d := o.After
	if o.RateLimited {
		if b := w.retryDelay(fails); o.After <= 0 || b < o.After {
			d = b
		}
		fails++
		w.retries++
	}
	ok := w.mark(k, m, markOpts{at: w.readyAt(d), prio: o.Priority, replace: o.Replace}, tenant)
	q.items[k].fails = fails
	q.settle()
	return ok
}

// markOpts are what one mark carries besides its item and mode: its
// ready time (≤ now: now), its priority, and whether its time replaces
// the item's (AddOpts.Replace).
type markOpts struct {
	at      time.Duration
	prio    int
	replace bool
}

// mark applies one mark of mode m, o, to k, whose tenant is tenant. It
// reports whether the mark queued, delayed or kept aside k where nothing
// did before. These are the ready list's marks with a ready time and a
// priority.
func (w *wqCore) mark(k int, m Mode, o markOpts, tenant string) bool {
	q := &w.rq
	at, prio := o.at, o.prio
	it, known := q.items[k]
	switch {
	case !known:
		it = &rqItem{mode: m, prio: prio, tenant: tenant}
		q.items[k] = it
		w.place(k, it, at)
		return true
	case it.removed:
		*it = rqItem{mode: m, state: rqInFlight, prio: prio, tenant: tenant}
		w.keepAside(it, at)
		return true
	case it.state == rqQueued && o.replace && at > w.now: // a later ready time replaces now
		q.order.remove(k)
		it.prio = max(it.prio, prio)
		it.state, it.at, it.seq = rqDelayed, at, w.stamp()
		return false
	case it.state == rqQueued:
		if prio > it.prio {
			q.order.remove(k)
			it.prio = prio
			q.enqueue(k, it)
		}
		return false
	}
	it.prio = max(it.prio, prio)
	switch {
	case it.state == rqIdle:
		w.place(k, it, at)
		return true
	case it.state == rqDelayed && at <= w.now:
		q.enqueue(k, it)
		return true
	case it.state == rqDelayed:
		if o.replace || at < it.at {
			it.at, it.seq = at, w.stamp()
		}
		return false
	case it.mark == 0: // in flight or disarmed
		w.keepAside(it, at)
		return true
	}
	if o.replace || at < it.markAt {
		it.markAt, it.markSeq = at, w.stamp()
	}
	return false
}

// keepAside gives it, in flight or disarmed, a kept-aside mark ready at at.
func (w *wqCore) keepAside(it *rqItem, at time.Duration) {
	w.rq.keepAside(it)
	it.markAt, it.markSeq = at, w.stamp()
}

// TryTake models TryTake(max), as ReadyQ's does, in the order that Queue
// lists.
func (q *WorkQueue) TryTake(max int) []int { return q.w.rq.TryTake(max) }

// Wait models Wait(ctx, max), as ReadyQ's does.
func (q *WorkQueue) Wait(ctx Ctx, max int) ([]int, error) { return q.w.rq.Wait(ctx, max) }

// Done models Done(ks...), as ReadyQ's does, with two rows more. An item
// with a mark that counts and whose ready time is still to come, on an
// open queue:
//   - is queued again if it is a level item still ready
//   - else is delayed until the mark's ready time
//
// After Close every mark's ready time has come. The items queued again go
// to the tail of their priority.
func (q *WorkQueue) Done(ks ...int) int { return q.w.rq.done(ks, q.w.finish) }

// finish is Done's rows for a mark whose ready time is still to come. The
// ready list's rows do the rest.
func (w *wqCore) finish(k int, it *rqItem, ready bool, back *rqBack) {
	switch {
	case !it.honoured() || w.rq.closed || it.markAt <= w.now:
		w.rq.finish(k, it, ready, back)
	case it.mode == Level && ready:
		back.put(k, it, false)
	default:
		it.delayMark()
	}
}

// delayMark turns it's kept-aside mark, still in the future, into a delay
// with the mark's ready time and sequence number.
func (it *rqItem) delayMark() {
	at, seq := it.markAt, it.markSeq
	it.park(rqDelayed)
	it.at, it.seq = at, seq
}

// Next models Next(ctx, ks, max), as ReadyQ's does, with this Done.
func (q *WorkQueue) Next(ctx Ctx, ks []int, max int) ([]int, error) {
	if max <= 0 {
		return ks, evserr.ErrInvalid
	}
	q.Done(ks...)
	return q.Wait(ctx, max)
}

// Remove models Remove(k), as ReadyQ's does. A delayed item is forgotten.
// Remove resets k's failure count at once, also for an item in flight.
func (q *WorkQueue) Remove(k int) bool { return q.w.rq.Remove(k) }

// Rearm models Rearm(k), as ReadyQ's does, except that a disarmed item
// whose mark's ready time is still to come is delayed until then.
func (q *WorkQueue) Rearm(k int) bool {
	w := &q.w
	it, ok := w.rq.items[k]
	if !ok || w.rq.closed || it.state != rqDisarmed || it.mark == 0 || it.markAt <= w.now {
		return w.rq.Rearm(k)
	}
	it.delayMark()
	w.rq.settle()
	return true
}

// Drain models Drain(ctx), as ReadyQ's does. It returns nil only once
// nothing is queued, delayed or in flight.
func (q *WorkQueue) Drain(ctx Ctx) error { return q.w.rq.Drain(ctx) }

// Close models Close, as ReadyQ's does. Every delayed item is queued at
// once, in ready-time order.
func (q *WorkQueue) Close() {
	q.w.queueDue(func(*rqItem) bool { return true })
	q.w.rq.Close()
}

// Ready models Ready(), as ReadyQ's does.
func (q *WorkQueue) Ready() Ticket { return q.w.rq.Ready() }

// Fired reports whether the Ready channel named by t is closed.
func (q *WorkQueue) Fired(t Ticket) bool { return q.w.rq.Fired(t) }

// Queue returns the queued items in the order hand-outs would take them:
// highest priority first, then the tenants in turn, then oldest first.
func (q *WorkQueue) Queue() []int { return q.w.rq.Queue() }

// Len is what the real Len returns, the number of queued items.
func (q *WorkQueue) Len() int { return q.w.rq.Len() }

// InFlight is what the real InFlight returns, the number of items handed
// out and not yet Done.
func (q *WorkQueue) InFlight() int { return q.w.rq.InFlight() }

// Stats is what the real Stats returns, as ReadyQ's is. Delayed counts
// the delayed items.
func (q *WorkQueue) Stats() QueueStats { return q.w.rq.Stats() }

// Known lists every item the model knows, in no particular order. An
// item in flight and Removed is known until its Done.
func (q *WorkQueue) Known() []int { return q.w.rq.Known() }

// InFlightItems returns the items in flight, sorted.
func (q *WorkQueue) InFlightItems() []int { return q.w.rq.InFlightItems() }

// Priority models Priority(k). It returns k's priority and true, or false
// if k is unknown or in flight and Removed.
func (q *WorkQueue) Priority(k int) (int, bool) {
	it, ok := q.w.rq.items[k]
	if !ok || it.removed {
		return 0, false
	}
	return it.prio, true
}

// Tenant returns k's tenant and true, or false if k is unknown or in
// flight and Removed. Without fair share the tenant is "".
func (q *WorkQueue) Tenant(k int) (string, bool) {
	it, ok := q.w.rq.items[k]
	if !ok || it.removed {
		return "", false
	}
	return it.tenant, true
}

// Validate checks the model's own invariants and describes the first one
// broken. It returns nil unless the model has a bug. It checks what
// ReadyQ's Validate checks, and that:
//   - nothing delayed has a mark
//   - only a delayed item has a ready time, in the future, and none once
//     closed
//   - a failure count belongs to an item that is not Removed
func (q *WorkQueue) Validate() error {
	w := &q.w
	if err := w.rq.Validate(); err != nil {
		return err
	}
	for _, it := range w.rq.items {
		if it.state == rqDelayed && (w.rq.closed || it.at <= w.now) {
			return invariantError("delayed item due, or delayed on a closed queue")
		}
	}
	return nil
}
