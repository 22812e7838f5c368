package readyq

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/evsync/evsync/internal/evserr"
	"github.com/evsync/evsync/internal/rq"
	"github.com/evsync/evsync/internal/waitq"
	"github.com/evsync/evsync/internal/watch"
)

// Errors returned by this package. They are the same values in every
// evsync package and work with errors.Is.
var (
	// ErrInvalid is what the errors of Wait, WaitAppend, Next and Drain
	// for a nil context, and of Wait, WaitAppend and Next for max ≤ 0,
	// match. Each says the call and what was wrong, such as "readyq:
	// wait: max 0 is not above 0: evsync: invalid argument". Test for it
	// with errors.Is.
	ErrInvalid = evserr.ErrInvalid
	// ErrClosed is returned by Wait and WaitAppend once the queue is
	// closed and nothing is left to hand out.
	ErrClosed = evserr.ErrClosed
)

// A Mode is how an item is queued again after it was handed out.
type Mode uint8

const (
	// Edge (the default) queues an item again only if it is marked again
	// (EPOLLET). A mark made while it is in flight is kept aside and
	// queued at Done.
	Edge Mode = iota
	// Level queues an item again at the tail at every Done, so items that
	// stay ready take turns (round-robin). It stops at Remove, or once
	// Config.Recheck reports the item no longer ready. This is epoll's
	// default, level-triggered mode, re-polled after each report.
	Level
	// OneShot disarms an item when it is handed out (EPOLLONESHOT). Marks
	// are kept until Rearm, which queues the item if it was marked
	// meanwhile.
	OneShot
)

func (m Mode) valid() bool { return m <= OneShot }

// String returns "edge", "level" or "oneshot".
func (m Mode) String() string {
	switch m {
	case Edge:
		return "edge"
	case Level:
		return "level"
	case OneShot:
		return "oneshot"
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// Config is a queue's configuration. The zero Config is New's.
type Config[T comparable] struct {
	// Mode is the mode of items marked by Add. AddMode sets one per item.
	Mode Mode
	// Recheck, if not nil, is called at Done for each level item, outside
	// the lock. An item it reports not ready is forgotten instead of
	// queued again: the re-poll of a level-triggered file.
	Recheck func(T) bool
	// Keep has the queue keep what it knew of an item it forgets at Done
	// (row 6 of the package doc's table), for the item's next mark. That
	// mark then finds the item's entry and makes none. So a Done and an
	// Add of the same item skip the index's deletion and insertion. A
	// kept item is still forgotten, as seen from outside:
	//
	//   - Len, InFlight and Stats do not count it, and Drain does not
	//     wait for it.
	//   - Its next mark is a new item's, in the mode of that mark.
	//   - Done and Rearm of it change nothing and report so.
	//   - Remove frees what was kept and returns false.
	//
	// The cost is memory. A queue with Keep holds one entry for every
	// item marked since its last Remove, queued or not: about 80 bytes
	// for an int item, plus the item itself, which stays reachable. So
	// Keep suits a queue whose items are few and come back, such as
	// connections or a controller's keys. Remove each item that goes for
	// good. Without Keep (the default), a queue's memory follows the
	// items it holds at once, however many it has seen.
	Keep bool
}

// A Queue is a ready queue of items of type T. It is a FIFO list in which
// an item is queued at most once, plus the items handed out and not yet
// Done (in flight). See the package documentation for the full contract.
//
// The zero value is an empty, open, edge-triggered queue, the same as New
// returns. A Queue must not be copied after first use. It knows at most
// 2³¹−1 items at once (queued, in flight or one-shot and armed). A mark
// of one more panics.
//
// Add marks an item ready in the queue's mode, and AddMode in a mode of
// its own. Rearm re-arms a one-shot item, which queues it if it was
// marked meanwhile.
//
// A mark (Add, AddMode or Rearm) synchronizes before the hand-out that
// returns the item. A Done synchronizes before the hand-out that returns
// the item next. Every change synchronizes before the Drain and Ready
// wake-ups it causes.
//
// Fairness: items are handed out in the order they were first marked. A
// mark kept aside while the item was in flight counts from the Done that
// queues it. Blocked Wait callers are served in FIFO order, each with up
// to its max items at once. TryTake never takes items a blocked caller is
// owed, because a caller only blocks while nothing is queued. Level items
// go back to the tail at Done, so no ready item is starved.
//
// Cancel safety: a Wait, WaitAppend or Drain that returns ctx.Err()
// changed nothing. A call whose context is already done when it starts
// returns ctx.Err() at once, even if items are queued. A done context is
// a request to stop, so a consumer loop ends even while work keeps
// arriving. TryTake still takes what is there, and Next still finishes
// its done items. Items are never handed to a caller whose context is
// already done. They go to the next caller or stay queued. Items may be
// handed over while the context is still live, and the context may end
// before the caller wakes. Then the call took effect first and returns
// the items with a nil error. So no item is lost between the queue and a
// caller that gives up.
type Queue[T comparable] struct {
	_       noCopy
	keys    rq.Keys[T]   // the key check, learned at the first call
	watched atomic.Bool  // set at the first observer call: from then on every unlock publishes
	mode    Mode         // Config.Mode
	recheck func(T) bool // Config.Recheck
	_       [64]byte     // keeps the words above, read by every call, off the lines written below

	mu  sync.Mutex
	sec rq.Locked[T] // the state mu guards, handed out by lock only
	_   [64]byte
	// pub is what the queue shows without its lock, on lines of their
	// own. It is written with the lock held, once an observer has asked
	// (watch).
	pub rq.Published
}

// New returns an empty edge-triggered queue, the same as the zero Queue.
func New[T comparable]() *Queue[T] { return new(Queue[T]) }

// NewWithConfig returns an empty queue configured by c. It panics if
// c.Mode is not a Mode, the one setting the compiler cannot check.
func NewWithConfig[T comparable](c Config[T]) *Queue[T] {
	if !c.Mode.valid() {
		panic("readyq: Config.Mode is not a Mode")
	}
	q := &Queue[T]{mode: c.Mode, recheck: c.Recheck}
	q.sec.Keep = c.Keep
	return q
}

// lock takes the lock and returns the state it guards. It is the only way
// to the state.
func (q *Queue[T]) lock() *rq.Locked[T] {
	hook(pointLock)
	q.mu.Lock()
	return &q.sec
}

// unlock publishes the counters if observed, releases the lock and wakes
// the callers settled meanwhile (internal/waitq). A section that changed
// nothing releases mu alone.
func (q *Queue[T]) unlock(l *rq.Locked[T]) {
	var ev watch.Events
	if q.watched.Load() {
		q.publish(l) // before the load of armed: a set that arms, then polls, sees one or the other
		hook(pointArmed)
		if l.Queued() > 0 && q.pub.Armed.Load() != 0 {
			ev = watch.In // a poll set's armed registration wants the next section that leaves items queued (watch.go)
		}
	}
	w, d := l.Waiters.Woken(), l.Drainers.Woken()
	q.mu.Unlock()
	if w != nil {
		waitq.WakeAll(w)
	}
	if d != nil {
		waitq.WakeAll(d)
	}
	if ev != 0 {
		q.pub.Sets.Wake(ev)
	}
}

// publish stores the counters that changed. Only with mu held.
func (q *Queue[T]) publish(l *rq.Locked[T]) {
	rq.Store(&q.pub.Queued, l.Queued())
	rq.Store(&q.pub.InFlight, l.InFlight())
	rq.Store(&q.pub.Disarmed, l.Disarmed())
	rq.Store(&q.pub.Aside, l.Aside())
}

// watch starts the publishing of the counters, at the first call that
// reads them. Until then no unlock writes them, so a queue nobody
// observes pays nothing for them. The first observer takes the lock once.
//
// It publishes before it sets watched. So an observer that finds watched
// set reads counters that are published, and one that finds it clear
// takes the lock. The other order would let a TryTake find an item
// queued before the first observer call and read a count of 0.
func (q *Queue[T]) watch() {
	if !q.watched.Load() {
		l := q.lock()
		q.publish(l)
		hook(pointWatch)
		q.watched.Store(true)
		q.mu.Unlock()
	}
}

// owner is a Queue as the waitq.Owner of its waiters. A cancelled caller
// leaves under mu, and the Unlock serves those behind it.
type owner[T comparable] Queue[T]

// Lock takes the queue's lock.
func (o *owner[T]) Lock() { o.mu.Lock() }

// Unlock serves those behind a waiter that left and releases the lock.
func (o *owner[T]) Unlock() {
	q := (*Queue[T])(o)
	q.sec.Settle()
	q.unlock(&q.sec)
}

// Add marks item ready and reports whether the mark is new. The mark is
// in the queue's mode, or in the mode the item already has if the queue
// knows it. Add returns:
//
//   - true for an item not queued and not in flight, which is queued at
//     the tail
//   - false for a queued item, which stays where it is (queued at most
//     once)
//   - true for the first mark of an item in flight, which is kept aside to
//     be queued again at its Done. Later marks are absorbed and return
//     false. A disarmed one-shot item is kept aside the same way, until
//     Rearm.
//   - false after Close, when nothing is marked
//
// Add never blocks. If a Wait caller is blocked, the item is handed to
// it.
func (q *Queue[T]) Add(item T) bool {
	q.keys.Check(item)
	l := q.lock()
	if !l.Mark(item, rq.Mode(q.mode)) {
		q.mu.Unlock() // a mark that is not new changes nothing
		return false
	}
	q.unlock(l)
	return true
}

// AddMode is Add with mode m for an item the queue does not know yet. An
// item's mode is fixed while the queue knows it. For edge and level items
// that lasts until they are idle again (not queued, not in flight). For
// one-shot items it lasts until Remove. To change a mode, Remove the item
// and add it again. AddMode returns false and changes nothing if m is not
// a Mode.
func (q *Queue[T]) AddMode(item T, m Mode) bool {
	if !m.valid() {
		return false
	}
	q.keys.Check(item)
	l := q.lock()
	if !l.Mark(item, rq.Mode(m)) {
		q.mu.Unlock()
		return false
	}
	q.unlock(l)
	return true
}

// Remove forgets item (EPOLL_CTL_DEL) and reports whether the queue knew
// it. Remove works on a closed queue too.
//
//   - A queued item is taken off the list. No hand-out after Remove
//     returns it, until it is marked again.
//   - An item in flight stays in flight until its Done, which then forgets
//     it. Marks kept aside for it are dropped.
//   - A disarmed or idle one-shot item is forgotten with its mode.
func (q *Queue[T]) Remove(item T) bool {
	q.keys.Check(item)
	l := q.lock()
	if !l.Remove(item) {
		q.mu.Unlock()
		return false
	}
	l.Settle()
	q.unlock(l)
	return true
}

// Rearm re-arms a one-shot item and reports whether it was disarmed. A
// disarmed item that was marked since it was handed out is queued at
// once. Otherwise the next mark queues it. An item still in flight is
// re-armed for its Done, which then queues it if it was marked meanwhile.
// Rearm returns false and changes nothing for an item that is not
// one-shot, not known or already armed. It does so after Close too, since
// re-arming would be a new mark.
func (q *Queue[T]) Rearm(item T) bool {
	q.keys.Check(item)
	l := q.lock()
	if !l.Rearm(item) {
		q.mu.Unlock()
		return false
	}
	l.Settle()
	q.unlock(l)
	return true
}

// Close closes the queue. From then on Add, AddMode and Rearm change
// nothing and return false. After Close, the queue works as follows.
//
//   - What is queued is still handed out.
//   - Marks kept aside are still queued at Done.
//   - Wait returns ErrClosed once nothing is queued and no item in flight
//     has a kept-aside mark. Until then a blocked Wait keeps waiting,
//     since a Done may still queue an item.
//   - Level items are no longer queued again at Done.
//   - Drain is unaffected.
//
// Close is idempotent.
func (q *Queue[T]) Close() {
	l := q.lock()
	closing := l.Close()
	if closing {
		q.pub.Closed.Store(true)
		l.Settle()
	}
	q.unlock(l)
	if closing && q.pub.Armed.Load() != 0 {
		q.pub.Sets.Wake(watch.Hup)
	}
}

// bigBatch is the largest hand-out copied under the lock. A larger one is
// copied after the unlock, so that producers do not wait behind the copy.
// A copy outside the lock costs extra work (Array.Scans in internal/rq),
// which a few hundred items do not repay. Tests lower it
// (export_test.go).
var bigBatch = defaultBigBatch

const defaultBigBatch = 256

type noCopy struct{}

// Lock is a no-op used by go vet's copylocks check.
func (*noCopy) Lock() {}

// Unlock is a no-op used by go vet's copylocks check.
func (*noCopy) Unlock() {}
