package workqueue

import (
	"slices"
	"sync"
	"time"

	"github.com/evsync/evsync/internal/rq"
	"github.com/evsync/evsync/internal/waitq"
	"github.com/evsync/evsync/internal/watch"
)

// The core's types and four of its entries' states (internal/rq), under
// the names this package's code has always used. The rest (Idle, the
// lanes' Listed, the flags and the modes) go by their rq names.
type (
	entry[T comparable] = rq.Entry[T]
	keptMark            = rq.KeptMark
	place               = rq.Place
	index[T comparable] = rq.Index[T]
	slab[T comparable]  = rq.Slab[T]
	fifo[T comparable]  = rq.Fifo[T]
	paged[E any]        = rq.Paged[E]
)

const (
	queued   = rq.Queued
	inFlight = rq.InFlight
	delayed  = rq.Delayed
	disarmed = rq.Disarmed
)

// lookup returns the entry of item, or nil if the queue does not know it.
func (s *state[T]) lookup(item T) *entry[T] {
	e, _ := s.items.Find(&s.slab, item)
	return e
}

// where returns the place of e, an entry the queue knows. An entry on
// lanes.list stores listed. It is queued while its seq is at or past the
// list's head, and in flight once a hand-out has moved the head past it.
// So a hand-out of any size from lanes.list moves one index (internal/rq/fifo.go). An
// entry on a lane stores queued, and inFlight once handed out. Only with
// mu held.
func (s *state[T]) where(e *entry[T]) place {
	if e.State != rq.Listed {
		return e.State
	}
	if e.Seq < s.lanes.list.Head {
		return inFlight
	}
	return queued
}

// Add marks item ready and reports whether the mark is new. The mark is
// in the queue's mode, or in the mode the item already has if the queue
// knows it. Add returns:
//
//   - true for an item not queued, not delayed and not in flight, which
//     is queued at the tail
//   - false for a queued item, which stays where it is (queued at most
//     once)
//   - true for a delayed item (AddAfter), which is queued now with its
//     delay cancelled
//   - true for the first mark of an item in flight, which is kept aside to
//     be queued again at its Done. Later marks are absorbed and return
//     false. A disarmed one-shot item is kept aside the same way, until
//     Rearm.
//   - false after Close, when nothing is marked
//
// Add never blocks. If a Wait caller is blocked, the item is handed to
// it.
func (q *Queue[T]) Add(item T) bool { return q.add(item, q.s.cfg.mode, markOpts{}) }

// AddMode is Add with mode m for an item the queue does not know yet. An
// item's mode is fixed while the queue knows it. For edge and level items
// that lasts until they are idle again (not queued, not delayed, not in
// flight). For one-shot items it lasts until Remove. To change a mode,
// Remove the item and add it again. AddMode returns false and changes
// nothing if m is not a Mode.
func (q *Queue[T]) AddMode(item T, m Mode) bool {
	if !validMode(m) {
		return false
	}
	return q.add(item, m, markOpts{})
}

// markOpts is what a mark carries besides its item and mode.
type markOpts struct {
	after   time.Duration // ready this long from now, or now if ≤ 0
	prio    int
	retried bool // AddRateLimited
	replace bool // AddOpts.Replace: the mark's ready time replaces the item's
}

// add makes a mark. The user's code (the item's hash, the tenant
// function, the rate limiter) runs before the lock is taken.
func (q *Queue[T]) add(item T, m Mode, o markOpts) bool {
	s := &q.s
	s.cfg.keys.Check(item)
	if s.pub.Closed.Load() { // refused: no retry to count (mark handles a Close that comes next)
		return false
	}
	tenant := &noPath // without fair share: nothing to zero or fill per add
	if s.cfg.tenant != nil || s.cfg.share.Key != nil {
		tenant = new(path)
		s.cfg.pathOf(item, tenant) // first: if it panics, no retry is counted
	}
	if o.retried {
		o.after = s.cfg.retryAfter(item, o.after)
	}
	s.mu.Lock()
	s.promote()
	ok := s.mark(item, m, o, tenant)
	if !ok && s.still(o) {
		s.mu.Unlock() // a mark that is not new and changed nothing: unlock would find nothing to do
		return false
	}
	if ok {
		if s.cfg.metrics != nil {
			s.mail.posting().adds++
		}
		s.settle()
	}
	s.unlock()
	return ok
}

// still reports whether a section of add whose mark o returned false left
// unlock nothing to do: no post, no poll set to tell, no caller woken, no
// depth to measure. That makes the repeated Add of a queued item, the
// commonest mark in a controller, a lookup between Lock and Unlock.
//
// Every section that leaves unlock work ends with unlock. So nothing is
// pending when add takes mu, and still needs only what add's own section
// may have done. Of that, only these leave work (the rest changes fields
// that no waiter, poll set or hook reads):
//
//   - promote on a user's clock, which may queue due items and settle;
//   - a mark with a delay, which may move or queue a delayed item and
//     settle (mark's replace and retime cases);
//   - a retried mark after Close, which posts the item for the limiter
//     to forget;
//   - a mark that raises a queued item's priority, which moves it to
//     another lane: a depth for the metrics to report.
//
// The first three are ruled out by the clock and o, the last by the
// gauge. A false mark queues nothing new, so no caller can be served. Only
// with mu held.
func (s *state[T]) still(o markOpts) bool {
	return !s.cfg.clock.user && o.after <= 0 && !o.retried &&
		(s.cfg.metrics == nil || s.cfg.gauge.still(s.lanes.list.Live))
}

// mark records a mark of item, whose tenant is tenant (see Add and
// AddWith). Only with mu held.
func (s *state[T]) mark(item T, m Mode, o markOpts, tenant *path) bool {
	e, h := s.items.Find(&s.slab, item)
	if o.retried { // When counted a failure, so the limiter forgets it with the item
		if e != nil {
			e.Retried = true
		} else if s.pub.Closed.Load() {
			p := s.mail.posting()
			p.forgot = append(p.forgot, item)
		}
	}
	if s.pub.Closed.Load() {
		return false
	}
	if e == nil {
		e = s.slab.Alloc() // a recycled entry, or one in a new slot
		e.Item, e.Mode = item, rq.Mode(m)
		s.items.Add(e, h)
		s.extras.fresh(e, o, tenant)
		s.admit(e, o.after)
		return true
	}
	p := s.where(e)
	switch {
	case e.Kept(): // known again, in mode m, as if new
		e.Mode = rq.Mode(m)
		s.extras.fresh(e, o, tenant)
		s.admit(e, o.after)
		return true
	case p == rq.Idle:
		s.extras.raise(e, o.prio)
		s.admit(e, o.after)
		return true
	case e.Flags&rq.Removed != 0: // in flight and Removed, so known again, in mode m
		e.Mode, e.Flags = rq.Mode(m), 0
		s.extras.fresh(e, o, tenant)
		s.keepAside(e, o)
		return true
	}
	raised := s.extras.raise(e, o.prio)
	if p == queued && o.replace && o.after > 0 { // a later ready time replaces now
		s.lanes.unqueue(e, &s.extras)
		s.schedule(e, s.cfg.clock.after(o.after), 0)
		s.settle()
		return false
	}
	switch p {
	case delayed:
		if o.after > 0 {
			s.retime(e.ID, s.cfg.clock.after(o.after), o.replace)
			return false
		}
		s.delays.del(e.ID)
		s.arm()
		s.enqueue(e)
		return true
	case queued:
		if raised {
			s.lanes.unqueue(e, &s.extras)
			s.enqueue(e)
		}
		return false
	}
	if e.Mark.N != 0 { // in flight or disarmed, marked already
		if o.after <= 0 {
			e.Mark.At = 0
		} else if at := s.cfg.clock.after(o.after); o.replace || at < e.Mark.At {
			e.Mark.At, e.Mark.Seq = at, s.delays.next() // the earliest ready time wins, or with Replace the last (0: due at once)
		}
		return false
	}
	s.keepAside(e, o) // in flight or disarmed, no mark yet
	return true
}

// retime gives the delayed item in slot e the ready time at if it is
// sooner, or in any case with replace (AddOpts.Replace). A time moved
// later may leave the timer armed too soon. arm then sets it again, as it
// would fire early otherwise (and would then arm itself for the rest).
// Only with mu held.
func (s *state[T]) retime(e int32, at int64, replace bool) {
	n := s.delays.n
	switch {
	case replace:
		s.delays.move(e, at)
	case !s.delays.earlier(e, at):
		return
	}
	s.arm()
	if s.delays.n != n { // the timer's re-arm found items due: queued
		s.settle()
	}
}

// keepAside gives the item e, in flight or disarmed, a kept-aside mark.
func (s *state[T]) keepAside(e *entry[T], o markOpts) {
	s.marks++
	e.Mark = keptMark{N: s.marks}
	if o.after > 0 {
		e.Mark.At, e.Mark.Seq = s.cfg.clock.after(o.after), s.delays.next()
	}
	if s.where(e) == inFlight && returns(e) {
		s.pub.Aside.Add(1)
	}
}

// admit queues e now, or delays it by after. Only with mu held.
func (s *state[T]) admit(e *entry[T], after time.Duration) {
	if after > 0 {
		s.schedule(e, s.cfg.clock.after(after), 0)
		return
	}
	s.enqueue(e)
}

// forget deletes item and recycles its entry e. If AddRateLimited was
// called for it, the limiter forgets it too, once the lock is released.
// The argument item is e's item, which the caller has at hand. Only with
// mu held.
func (s *state[T]) forget(item T, e *entry[T]) {
	s.items.Del(e)
	if e.Retried {
		p := s.mail.posting()
		p.forgot = append(p.forgot, item)
	}
	if e.X != 0 {
		s.extras.release(e.X)
	}
	s.slab.Release(e)
}

// unlock releases mu. Then it wakes the callers settled meanwhile (see
// internal/waitq) and, if the section's publish left items queued, the
// poll sets whose registrations wait for that (watch.go). Every locked
// section that publishes ends with it. One that does not may release mu
// alone.
func (s *state[T]) unlock() {
	if s.cfg.metrics != nil && s.cfg.gauge.measure(s.lanes.list.Live, &s.lanes) {
		s.mail.posting().depth = true
	}
	tell := s.pub.tell
	if tell {
		s.pub.tell = false
	}
	w, d, p := s.waiters.Woken(), s.drainers.Woken(), s.mail.take()
	s.mu.Unlock()
	waitq.WakeAll(w)
	waitq.WakeAll(d)
	if tell { // before the metrics, whose hooks are the user's code
		s.pub.Sets.Wake(watch.In)
	}
	if p != nil {
		s.cfg.deliver(p)
		s.mail.recycle(p)
	}
}

// owner is a queue's state as the waitq.Owner of its waiters. A
// cancelled caller leaves under mu, and the Unlock serves those behind
// it.
type owner[T comparable] state[T]

// Lock takes the queue's lock.
func (o *owner[T]) Lock() { o.mu.Lock() }

// Unlock serves those behind a waiter that left and releases the lock.
func (o *owner[T]) Unlock() {
	s := (*state[T])(o)
	s.settle()
	s.unlock()
}

// returns reports whether Done will queue the in-flight item e again
// because of a kept-aside mark. That is what keeps Wait waiting after
// Close. It is whether e is marked, in the sense of doc.go's table.
func returns[T comparable](e *entry[T]) bool {
	return e.Mark.N != 0 && e.Flags&rq.Removed == 0 && (e.Mode != rq.OneShot || e.Flags&rq.Rearmed != 0)
}

// Done ends the hand-out of each item and returns how many of them were in
// flight. It ignores the others (never handed out, already Done,
// unknown). An item Done is queued again at the tail in two cases.
//
//   - It was marked while in flight (a mark kept aside).
//   - It is a level item that is still ready. Without a recheck function
//     it always is. With one, it is if the function reports it ready.
//
// After Close, level items are not queued again, since that would be a
// new mark. Kept-aside marks still are. A one-shot item is disarmed until
// Rearm, unless it was re-armed while in flight. Edge items not marked
// again are forgotten. The package documentation lists these cases in
// order, in a table.
//
// Done finishes all its items in one step, however many there are. An
// item listed twice counts once. The repeat never ends the hand-out of
// the consumer the item goes to next. The items queued again go to the
// tail in the order their marks arrived, followed by the level items in
// the order given. Epoll likewise puts its overflow list back in arrival
// order.
//
// The recheck function, if any, is called for every item first, outside
// the lock, before any item is looked at. If it panics, Done changes
// nothing and the items stay in flight. The panic goes on to Done's
// caller.
//
// Done must be called by the consumer that holds the items. Done for an
// item held by another consumer ends that consumer's hand-out.
func (q *Queue[T]) Done(items ...T) int {
	s := &q.s
	s.cfg.keys.CheckAll(items)
	var ready []bool
	var pooled *[]bool
	if s.cfg.recheck != nil {
		var small [smallDone]bool // on the stack, so no allocation per Done
		ready, pooled = s.cfg.rechecked(items, &small)
	}
	s.mu.Lock()
	s.promote()
	n := s.finish(items, ready)
	s.settle()
	s.unlock()
	if pooled != nil {
		repool(pooled)
	}
	return n
}

// smallDone is the most items a Done with a recheck function rechecks
// into a stack array. Larger calls use a pooled buffer.
const smallDone = 64

// readyBufs recycles the recheck results of large Done calls.
var readyBufs = sync.Pool{New: func() any { return new([]bool) }}

// maxPooled bounds the buffers kept in readyBufs, so that one huge Done
// does not keep its buffer alive.
const maxPooled = 1 << 16

// rechecked runs the recheck function for each item and returns the
// answers in order. They go to small, the
// caller's stack array, if it has room. Otherwise they go to a pooled
// buffer, returned as pooled for repool. A panicking recheck leaves the
// buffer to the collector.
//
// All the rechecks run before the lock, so that all of a Done's items are
// finished in one locked section, as a Done without one does. So
// finish's rule for repeats covers the whole call. Finishing in several
// sections would let a repeat in a later one find the item handed to
// another consumer meanwhile. The repeat would then end that consumer's
// hand-out.
func (c *settings[T]) rechecked(items []T, small *[smallDone]bool) (ready []bool, pooled *[]bool) {
	n := len(items)
	if n <= len(small) {
		ready = small[:n]
	} else {
		pooled = readyBufs.Get().(*[]bool)
		*pooled = slices.Grow((*pooled)[:0], n)[:n]
		ready = *pooled
	}
	for i, item := range items {
		ready[i] = c.recheck(item)
	}
	return ready, pooled
}

// repool puts back the pooled buffer of a large Done, unless it grew too
// large to keep.
func repool(pooled *[]bool) {
	if cap(*pooled) <= maxPooled {
		readyBufs.Put(pooled)
	}
}

// later reports whether the in-flight item e has a kept-aside mark whose
// ready time is still to come (before Close). Only with mu held.
func (s *state[T]) later(e *entry[T]) bool {
	return e.Mark.At != 0 && !s.pub.Closed.Load() && e.Mark.At > s.cfg.clock.now()
}

// finish is Done under the lock. Its ready[i] is the recheck of items[i],
// and ready is nil without a recheck function. Each item in flight goes
// where decide sends it. A repeat of an item in the same call finds it no
// longer in flight and is ignored.
func (s *state[T]) finish(items []T, ready []bool) int {
	n := 0
	s.requeue = s.requeue[:0]
	for i, item := range items {
		e := s.lookup(item)
		if e == nil || s.where(e) != inFlight {
			continue
		}
		n++
		s.inflight--
		if s.cfg.metrics != nil {
			s.finished(e)
		}
		s.decide(item, e, uint64(i), ready == nil || ready[i])
	}
	s.putBack()
	return n
}

// decide moves e, Done, to its next place by the first row of the table
// in doc.go that fits it. It tests the rows in the same order. The
// argument i is the item's index in Done's arguments. The argument still
// is whether a level item is still ready. That is so if there is no
// recheck function, or if it said so.
func (s *state[T]) decide(item T, e *entry[T], i uint64, still bool) {
	back := returns(e) // marked, in the table's sense
	if back {
		s.pub.Aside.Add(-1)
	}
	switch {
	case e.Flags&rq.Removed != 0: // removed: forgotten
		s.forget(item, e)
	case back && s.discard && e.Mark.At > s.cfg.clock.now(): // marked, its time to come, delays dropped: forgotten
		s.forget(item, e)
	case back && s.later(e) && (e.Mode != rq.Level || !still): // marked for later, unless level and still ready: delayed
		m := e.Mark
		e.Mark, e.Flags = keptMark{}, 0
		s.schedule(e, m.At, m.Seq)
	case back && !s.later(e): // marked, due now: queued
		s.putLater(e, e.Mark.N)
	case e.Mode == rq.Level && !s.pub.Closed.Load() && still: // level, still ready: queued
		s.putLater(e, rq.LevelKey+i)
	case e.Mode == rq.OneShot && e.Flags&rq.Rearmed != 0: // one-shot, re-armed: idle
		e.State, e.Flags = rq.Idle, 0
	case e.Mode == rq.OneShot: // one-shot: disarmed
		e.State, e.Flags = disarmed, 0 // with its mark, if any, until Rearm
		s.disarmed++
	default: // anything else: forgotten
		s.drop(item, e)
	}
}

// drop forgets item, Done, or with Config.Keep keeps its entry e idle
// for the item's next mark (rq's Locked.drop). A kept entry is the item
// and its slot only: the limiter forgets the item's retries as for a
// forgotten one, and its priority and tenant go. Only with mu held.
func (s *state[T]) drop(item T, e *entry[T]) {
	if !s.cfg.keep && !rq.KeepAll {
		s.forget(item, e)
		return
	}
	if e.Retried {
		e.Retried = false
		p := s.mail.posting()
		p.forgot = append(p.forgot, item)
	}
	if e.X != 0 {
		s.extras.release(e.X)
		e.X = 0
	}
	e.State, e.Flags, e.Mark = rq.Idle, 0, keptMark{}
}

// putLater notes e for putBack, which queues the items Done puts back in
// key order. Until then e stores queued, not inFlight.
func (s *state[T]) putLater(e *entry[T], key uint64) {
	s.requeue = append(s.requeue, rq.Requeue{Key: key, E: e.ID})
	e.State, e.Flags = queued, 0
}

// putBack queues Done's re-queued items in order (see Done).
func (s *state[T]) putBack() {
	r := s.requeue
	rq.SortRequeues(r)
	for _, x := range r {
		e := s.slab.Entry(x.E)
		s.enqueue(e)
		e.Mark = keptMark{}
	}
}

// Remove forgets item (EPOLL_CTL_DEL) and reports whether the queue knew
// it. Remove works on a closed queue too.
//
//   - A queued item is taken off the list. No hand-out after Remove
//     returns it, until it is marked again.
//   - An item in flight stays in flight until its Done, which then forgets
//     it. Marks kept aside for it are dropped.
//   - A delayed item is forgotten, its delay cancelled.
//   - A disarmed or idle one-shot item is forgotten with its mode.
func (q *Queue[T]) Remove(item T) bool {
	s := &q.s
	s.cfg.keys.Check(item)
	s.mu.Lock()
	s.promote()
	defer s.unlock()
	e := s.lookup(item)
	if e == nil {
		return false
	}
	switch s.where(e) {
	case queued:
		s.lanes.unqueue(e, &s.extras)
		s.forget(item, e)
	case delayed:
		s.delays.del(e.ID)
		s.arm()
		s.forget(item, e)
	case inFlight:
		if e.Flags&rq.Removed != 0 {
			return false
		}
		if returns(e) {
			s.pub.Aside.Add(-1)
		}
		e.Flags = rq.Removed
		e.Mark = keptMark{}
		if e.Retried { // gone from the queue, and so is its retry state
			e.Retried = false
			p := s.mail.posting()
			p.forgot = append(p.forgot, item)
		}
	case disarmed:
		s.disarmed--
		s.forget(item, e)
	case rq.Idle:
		if e.Kept() { // not known: its entry is freed, and Remove reports so
			s.forget(item, e)
			return false
		}
		s.forget(item, e)
	}
	s.settle()
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
	s := &q.s
	s.cfg.keys.Check(item)
	if s.pub.Closed.Load() {
		return false
	}
	s.mu.Lock()
	s.promote()
	defer s.unlock()
	e := s.lookup(item)
	if e == nil || e.Mode != rq.OneShot || s.pub.Closed.Load() {
		return false
	}
	switch p := s.where(e); {
	case p == disarmed:
		s.disarmed--
		e.State = rq.Idle
		if m := e.Mark; m.N != 0 {
			e.Mark = keptMark{}
			if m.At != 0 && m.At > s.cfg.clock.now() {
				s.schedule(e, m.At, m.Seq)
			} else {
				s.enqueue(e)
			}
		}
	case p == inFlight && e.Flags&(rq.Removed|rq.Rearmed) == 0:
		e.Flags |= rq.Rearmed
		if returns(e) {
			s.pub.Aside.Add(1)
		}
	default:
		return false
	}
	s.settle()
	return true
}
