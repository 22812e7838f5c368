package workqueue

import (
	"sync"
	"sync/atomic"

	"github.com/evsync/evsync/internal/evserr"
	"github.com/evsync/evsync/internal/rq"
	"github.com/evsync/evsync/readyq"
)

// Errors returned by this package. They are the same values in every
// evsync package and work with errors.Is.
var (
	// ErrInvalid is what the errors of Wait, WaitAppend, Next and Drain
	// for a nil context, and of Wait, WaitAppend and Next for max ≤ 0,
	// match. Each says the call and what was wrong, such as "workqueue:
	// wait: max 0 is not above 0: evsync: invalid argument". Test for it
	// with errors.Is.
	ErrInvalid = evserr.ErrInvalid
	// ErrClosed is returned by Wait and WaitAppend once the queue is
	// closed and nothing is left to hand out.
	ErrClosed = evserr.ErrClosed
)

// A Mode is how an item is queued again after it was handed out. The
// modes are readyq's (see readyq.Mode), so a value of either package is
// one of the other.
type Mode = readyq.Mode

// The modes: Edge (the default, EPOLLET), Level (epoll's default) and
// OneShot (EPOLLONESHOT). See readyq.Mode.
const (
	Edge    = readyq.Edge
	Level   = readyq.Level
	OneShot = readyq.OneShot
)

// validMode reports whether m is one of the modes.
func validMode(m Mode) bool { return m <= OneShot }

// A Queue is a ready queue of items of type T. It is a FIFO list in which
// an item is queued at most once, plus the items handed out and not yet
// Done (in flight). See the package documentation for the full contract.
//
// The zero value is an empty, open queue, the same as New returns without
// options. NewWithConfig makes one with a Config. Its fields serve these
// needs.
//
//   - Mode suits a queue whose items are mostly level or one-shot.
//   - Recheck tests at Done the level items that may stop being ready.
//   - RateLimiter gives retries a backoff unlike client-go's default.
//   - Fairness keeps the floods of tenants from delaying one another.
//   - FairShare does so over several dimensions, with weights.
//   - Metrics watches the depth, the latency and the retries.
//
// The option WithClock runs the queue's time on a fake clock in tests.
// A *Queue is a source of package poll's Set (see the package doc, "In a
// poll set").
//
// A Queue must not be copied after first use. It knows at most 2³¹−1
// items at once (queued, delayed, in flight or one-shot and armed). A
// mark of one more panics.
//
// There are five ways to mark an item ready.
//
//   - Add marks it ready now, in the queue's mode.
//   - AddMode marks it ready now, in a mode of its own.
//   - AddAfter marks it ready after a delay.
//   - AddRateLimited marks a failed item for a retry after its backoff.
//   - AddWith gives the mark a priority, or a delay and a retry together.
//
// Rearm re-arms a one-shot item, which queues it if it was marked
// meanwhile.
//
// A mark (any of the five, or Rearm) synchronizes before the hand-out
// that returns the item. A Done synchronizes before the hand-out that
// returns the item next. Every change synchronizes before the Drain and
// Ready wake-ups it causes.
//
// Fairness and cancel safety are readyq.Queue's, whose doc argues each
// in full. In short:
//   - Items are handed out in the order they were first marked. Blocked
//     Wait callers are served in FIFO order, and TryTake never takes
//     items a blocked caller is owed.
//   - A Wait, WaitAppend or Drain that returns ctx.Err() changed nothing.
//     One whose context is already done when it starts returns ctx.Err()
//     at once, even if items are queued. Items handed over just as the
//     context ends are returned with a nil error, so none is lost.
type Queue[T comparable] struct {
	_ noCopy
	s state[T] // everything the queue holds; its methods are the steps of the calls
}

// state is everything a Queue holds: its lock, the state the lock guards,
// what observers read without it (pub) and the configuration (cfg). Its
// methods are the steps that Queue's calls are made of. A step runs only
// with mu held, unless its comment says otherwise. The exceptions within
// the guarded fields are atomic. Stats counts the waiters and drainers
// without the lock, and deliver puts the spare post in mail after the
// unlock.
type state[T comparable] struct {
	mu sync.Mutex

	// The ready list's state (internal/rq/locked.go): the index, the
	// entries, the ready list, the counters, the blocked callers, and the
	// steps of Done, Remove and Rearm. The parts below are the work
	// queue's own.
	core rq.Locked[T]

	extras extras[T] // the entries' extra parts (extras.go)
	lanes  lanes[T]  // the queued items on lanes: priorities and fair share (lanes.go)
	delays delays    // delayed items and the timer (delay.go)

	mail    mailbox[T] // what the current locked section leaves for after the unlock
	running running[T] // the items in flight, with metrics

	pub published   // what observers read without the lock
	cfg settings[T] // the configuration, read without the lock
}

// published is what a Queue shows without its lock. It holds the counters
// that observers read, and the closed flag of Add's fast refusal. The
// observers are Len, InFlight, Stats, the fast paths of Ready and
// TryTake, and the poll sets' Poll (watch.go). It is written only with mu
// held, but for Armed, which the poll sets change.
type published struct {
	// Queued, InFlight and Disarmed are stored by publish. Aside, items in
	// flight with a mark Done will queue, keeps Wait waiting after Close.
	// Sets are the poll sets (watch.go).
	rq.Published

	delayed atomic.Int64 // stored by publish
	tell    bool         // the last publish left items queued for an armed registration; only with mu held, for unlock
}

// empty reports, from lock-free loads, that a TryTake has nothing to
// take. On a user's clock (user set) a delayed item may be due. So the
// queue is empty only if nothing is delayed either. The loads go in the
// reverse order of publish's stores:
//   - a locked section that queues due items stores queued before delayed;
//   - so a load of delayed that sees such a section's 0 is followed by a
//     load of queued that sees its items.
//
// Loaded the other way round, a TryTake could read queued from before
// that section and delayed from after it, and miss both due items.
func (p *published) empty(user bool) bool {
	if user {
		d := p.delayed.Load()
		hook(pointLoaded)
		return d == 0 && p.Queued.Load() == 0
	}
	return p.Queued.Load() == 0
}

// settings are a Queue's configuration, set by New and NewWithConfig and
// read without the lock. Two are learned at their first use, by any call. They
// are the key check and the default rate limiter.
type settings[T comparable] struct {
	keys    rq.Keys[T]     // whether items are probed before the lock (internal/rq/keys.go)
	mode    Mode           // Config.Mode
	recheck func(T) bool   // Config.Recheck, or nil if level items stay ready
	tenant  func(T) string // Config.Fairness, or nil
	share   FairShare[T]   // Config.FairShare, with Dims set, or the zero value
	metrics Metrics        // Config.Metrics
	gauge   *gauge[T]      // the depths reported, with metrics (metrics.go)
	lim     RateLimiter[T] // Config.RateLimiter, or the default made at first use
	limOnce sync.Once
	clock   timebase // WithClock's clock, or the wall clock (clock.go)
}

// bigBatch is the largest hand-out copied under the lock. A larger one is
// copied after the unlock, so that producers do not wait behind the copy
// (bigbatch.go has the figures). A copy outside the lock costs extra work
// (Array.Scans, internal/rq/fifo.go), which a few hundred items do not repay. Tests
// lower it (export_test.go).
var bigBatch = defaultBigBatch

const defaultBigBatch = 256

// New returns an empty queue with the default configuration, the zero
// Config, and the options opts. The queue is edge-triggered, with no
// recheck, the default rate limiter, no fair share and no metrics.
func New[T comparable](opts ...Option) *Queue[T] {
	q := new(Queue[T])
	q.s.cfg.clock = timebaseOf(apply(opts).clock)
	return q
}

// NewWithConfig returns an empty queue configured by c (see Config) and
// the options opts. It panics for the settings the compiler cannot check:
//   - c.Mode is not a Mode;
//   - c.Fairness and c.FairShare are both set;
//   - c.FairShare.Dims is outside [0, MaxDims];
//   - c.FairShare has Dims or Weight set but no Key.
func NewWithConfig[T comparable](c Config[T], opts ...Option) *Queue[T] {
	if !validMode(c.Mode) {
		panic("workqueue: Config.Mode is not a Mode")
	}
	dims := c.dims()
	o := apply(opts)
	q := new(Queue[T])
	s := &q.s
	s.cfg = settings[T]{mode: c.Mode, recheck: c.Recheck, tenant: c.Fairness, share: c.FairShare, lim: c.RateLimiter, metrics: c.Metrics, clock: timebaseOf(o.clock)}
	s.core.Keep = c.Keep
	s.cfg.share.Dims = dims
	s.lanes.fair, s.extras.dims = dims > 0, dims
	if c.Metrics != nil {
		s.cfg.gauge = new(gauge[T])
		s.lanes.watch = s.cfg.gauge
	}
	return q
}

// Close closes the queue. From then on Add, AddMode, AddAfter, AddWith,
// AddRateLimited and Rearm change nothing and return false. Every delayed
// item is queued at once, in ready-time order, so that no delay is lost
// with the queue. Consumers see each item (Remove takes one back). After
// Close, the queue works as follows.
//
//   - What is queued is still handed out.
//   - Marks kept aside are still queued at Done. A kept-aside mark's ready
//     time is then ignored.
//   - Wait returns ErrClosed once nothing is queued and no item in flight
//     has a kept-aside mark. Until then a blocked Wait keeps waiting,
//     since a Done may still queue an item.
//   - Level items are no longer queued again at Done.
//   - Drain is unaffected.
//
// Close is idempotent.
func (q *Queue[T]) Close() {
	s := &q.s
	s.mu.Lock()
	closing := !s.pub.Closed.Load()
	if closing {
		s.dueAt(s.cfg.clock.now(), true) // before closed is seen without the lock: a refused Add
		s.publish()                      // must not find the delayed items still uncounted
		s.core.Close()
		s.pub.Closed.Store(true)
		s.settle()
	}
	s.unlock()
	if closing {
		s.hangUp()
	}
}

// CloseDiscardingDelays closes the queue as Close does, but forgets every
// delayed item instead of queuing it, as client-go's ShutDown drops them.
// At Done, a kept-aside mark whose ready time is still to come is dropped
// too. One due at once is still queued. So is, on a user's clock
// (WithClock), a delayed item whose time the clock has passed. It returns
// how many delayed items it forgot, and their retry state goes with them. After Close it changes
// nothing and returns 0.
func (q *Queue[T]) CloseDiscardingDelays() int {
	s := &q.s
	s.mu.Lock()
	s.promote() // an item due on a user's clock is queued, not forgotten
	if s.pub.Closed.Load() {
		s.unlock()
		return 0
	}
	n := s.delays.n
	for w := s.delays.first(); w != nil; w = s.delays.first() {
		e := s.core.Slab.Entry(w.e)
		s.delays.del(w.e)
		s.core.Forget(e)
	}
	s.arm()
	s.core.CloseDiscarding()
	s.publish() // before closed is seen without the lock, as in Close
	s.pub.Closed.Store(true)
	s.settle()
	s.unlock()
	s.hangUp()
	return n
}

// settle serves blocked callers after a change. Only with mu held. Each
// test is a plain read, as in the core's Settle, so a change with nobody
// blocked and no Ready armed costs three loads before the publish.
//
//   - Queued items go to blocked Wait callers, oldest first.
//   - After Close, once nothing is left to hand out, those callers get
//     ErrClosed.
//   - Drain callers are released once nothing is queued or in flight.
//   - An armed Ready channel fires if a Wait would not block.
//   - The counters are published.
func (s *state[T]) settle() {
	if s.core.Waiters.Len() != 0 {
		for s.queued() > 0 {
			w := s.core.Waiters.Front()
			if w == nil {
				break
			}
			// The copy is under the lock. A caller only blocks while
			// nothing is queued, so it is bounded by max and by what the
			// granter just queued: one item for an Add, maybe many for a
			// Done that puts back kept-aside or level items. That Done's
			// grant is the one hand-out whose copy is not O(1) under the
			// lock (package doc).
			p := w.P
			p.Buf = s.takeLocked(p.Buf, p.Max)
			s.core.Waiters.Grant(w, p)
		}
		if s.exhausted() {
			s.core.Waiters.RejectAll()
		}
	}
	if s.core.Drainers.Len() != 0 && s.idle() {
		for w := s.core.Drainers.Front(); w != nil; w = s.core.Drainers.Front() {
			s.core.Drainers.Grant(w, struct{}{})
		}
	}
	if s.core.Ready.Armed() {
		s.core.Ready.Fire(s.readyNow())
	}
	s.publish()
}

// exhausted reports whether a closed queue has nothing left to hand out.
// That means nothing is queued, and no Done could queue an item again.
func (s *state[T]) exhausted() bool {
	return s.core.Closed() && s.queued() == 0 && s.core.Aside() == 0
}

// idle reports whether nothing is queued, delayed or in flight (Drain).
func (s *state[T]) idle() bool {
	return s.queued() == 0 && s.core.InFlight() == 0 && s.delays.n == 0
}

// readyNow reports whether a Wait would return at once.
func (s *state[T]) readyNow() bool { return s.queued() > 0 || s.exhausted() }

// queued is the number of queued items, on the ready list and the lanes.
func (s *state[T]) queued() int { return s.core.List.Live + s.lanes.live }

// Len returns the number of queued items. On a user's clock (WithClock)
// that counts each delayed item whose time the clock has passed.
func (q *Queue[T]) Len() int {
	if q.s.cfg.clock.user {
		return q.Stats().Queued
	}
	return int(q.s.pub.Queued.Load())
}

// InFlight returns the number of items handed out and not yet Done.
func (q *Queue[T]) InFlight() int { return int(q.s.pub.InFlight.Load()) }

// publish stores the counters that changed. Only with mu held. Every
// locked section that changes one calls it before its unlock (settle
// does).
//
// Then it loads how many poll registrations are armed, and notes in tell
// whether the section leaves items queued for them (watch.go). The load
// comes after the stores: a set that arms, then polls, sees the items or
// is told. The other order could miss both.
func (s *state[T]) publish() {
	queued := s.queued()
	rq.Store(&s.pub.Queued, queued)
	rq.Store(&s.pub.delayed, s.delays.n)
	rq.Store(&s.pub.InFlight, s.core.InFlight())
	rq.Store(&s.pub.Disarmed, s.core.Disarmed())
	rq.Store(&s.pub.Aside, s.core.Aside())
	hook(pointArmed)
	s.pub.tell = queued > 0 && s.pub.Armed.Load() != 0
}

// Stats is a snapshot of a queue's state.
type Stats struct {
	Queued   int // items waiting to be handed out (Len)
	Delayed  int // items waiting for their ready time (AddAfter, AddRateLimited)
	InFlight int // items handed out, not yet Done
	Aside    int // in-flight items marked again, to be queued at Done
	Disarmed int // one-shot items waiting for Rearm

	Waiting, Draining int  // blocked Wait and Drain callers
	Closed            bool // Close has been called
}

// Stats returns a snapshot read with atomic loads only. On the wall clock
// it never takes the lock, so observers never slow producers or
// consumers. On a user's clock (WithClock) with an item delayed, it first
// takes the lock to queue the items whose time the clock has passed. The
// fields are read one by one and may be mutually inconsistent under
// concurrent use.
func (q *Queue[T]) Stats() Stats {
	s := &q.s
	if s.cfg.clock.user && s.pub.delayed.Load() != 0 { // items may be due (see promote)
		s.mu.Lock()
		s.catchUp()
		s.unlock()
	}
	c := s.pub.Counts(s.core.Waiters.Len(), s.core.Drainers.Len())
	c.Delayed = int(s.pub.delayed.Load()) // after Queued, as before
	return Stats(c)
}

// String formats a Stats snapshot, such as
// "workqueue{queued=3 inflight=2 aside=1 disarmed=0 waiting=0 draining=0}".
// A queue with delayed items shows "delayed=N" after queued. A closed one
// ends with " closed".
func (q *Queue[T]) String() string { return q.Stats().String() }

// String formats the snapshot.
func (st Stats) String() string { return rq.Counts(st).Format("workqueue") }

// noCopy lets go vet's copylocks check flag copies of a Queue.
type noCopy struct{}

// Lock is a no-op. Its presence is what go vet looks for.
func (*noCopy) Lock() {}

// Unlock is a no-op, the pair of Lock.
func (*noCopy) Unlock() {}
