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
// unlock nothing to do: no post, no forgotten item to bury, no poll set
// to tell, no caller woken, no depth to measure. That makes the repeated
// Add of a queued item, the commonest mark in a controller, a lookup
// between Lock and Unlock.
//
// Every section that leaves unlock work ends with unlock. So nothing is
// pending when add takes mu, and still needs only what add's own section
// may have done. Of that, only these leave work (the rest changes fields
// that no waiter, poll set or hook reads, and none forgets an item):
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
		(s.cfg.metrics == nil || s.cfg.gauge.still(s.core.List.Live))
}

// mark records a mark of item, whose tenant is tenant (see Add and
// AddWith). Only with mu held.
func (s *state[T]) mark(item T, m Mode, o markOpts, tenant *path) bool {
	if s.core.Closed() { // nothing is marked, but a retry is counted
		if o.retried { // a failure counted: the limiter forgets it with the item
			if e := s.core.Lookup(item); e != nil {
				e.Retried = true
			} else {
				p := s.mail.posting()
				p.forgot = append(p.forgot, item)
			}
		}
		return false
	}
	e, added := s.core.Items.FindOrAdd(&s.core.Slab, item) // a new item gets a recycled entry, or one in a new slot
	if added {
		e.Mode = rq.Mode(m)
		s.extras.fresh(e, o, tenant)
		s.admit(e, o.after)
		return true
	}
	if o.retried { // a failure counted: the limiter forgets it with the item
		e.Retried = true
	}
	p := s.core.Where(e)
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
	if p == queued && o.replace && o.after > 0 {
		if at, later := s.cfg.clock.afterNow(o.after); later { // a later ready time replaces now; at the clock's end none is later
			s.lanes.unqueue(e, &s.extras, &s.core.List)
			s.schedule(e, at, 0)
			s.settle()
			return false
		}
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
			s.lanes.unqueue(e, &s.extras, &s.core.List)
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

// keepAside gives the item e, in flight or disarmed, a kept-aside mark
// with o's ready time.
func (s *state[T]) keepAside(e *entry[T], o markOpts) {
	s.core.KeepAside(e)
	if o.after > 0 {
		e.Mark.At, e.Mark.Seq = s.cfg.clock.after(o.after), s.delays.next()
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

// bury settles what the core's steps forgot (rq.Locked.Gone): the
// limiter forgets an item AddRateLimited was called for, once the lock
// is released, and extra parts are recycled. Every locked section that
// may forget an item ends with unlock, which calls it. Only with mu held.
func (s *state[T]) bury() {
	for _, g := range s.core.Gone {
		if g.Retried {
			p := s.mail.posting()
			p.forgot = append(p.forgot, g.Item)
		}
		if g.X != 0 {
			s.extras.release(g.X)
		}
	}
	clear(s.core.Gone) // keeps no item alive
	s.core.Gone = s.core.Gone[:0]
}

// unlock releases mu. Then it wakes the callers settled meanwhile (see
// internal/waitq) and, if the section's publish left items queued, the
// poll sets whose registrations wait for that (watch.go). Every locked
// section that publishes ends with it. One that does not may release mu
// alone.
func (s *state[T]) unlock() {
	if s.cfg.metrics != nil && s.cfg.gauge.measure(s.core.List.Live, &s.lanes) {
		s.mail.posting().depth = true
	}
	if len(s.core.Gone) != 0 {
		s.bury()
	}
	tell := s.pub.tell
	if tell {
		s.pub.tell = false
	}
	w, d, p := s.core.Waiters.Woken(), s.core.Drainers.Woken(), s.mail.take()
	s.mu.Unlock()
	if w != nil { // a plain test: most sections wake nobody
		waitq.WakeAll(w)
	}
	if d != nil {
		waitq.WakeAll(d)
	}
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

// finish is Done under the lock. Its ready[i] is the recheck of items[i],
// and ready is nil without a recheck function. Each item in flight goes
// where the core's Decide sends it, by the table in doc.go. A repeat of
// an item in the same call finds it no longer in flight and is ignored.
// Then the items Decide delayed go to the heaps, and those it queued
// again to their lanes in order.
func (s *state[T]) finish(items []T, ready []bool) int {
	n := 0
	for i, item := range items {
		e := s.core.Ends(item)
		if e == nil {
			continue
		}
		n++
		if s.cfg.metrics != nil {
			s.finished(e)
		}
		var now int64 // read only for a mark with a ready time
		if e.Mark.At != 0 {
			now = s.cfg.clock.now()
		}
		s.core.Decide(e, uint64(i), ready == nil || ready[i], now)
	}
	if len(s.core.Timed) != 0 {
		for _, t := range s.core.Timed {
			s.schedule(s.core.Slab.Entry(t.E), t.At, t.Seq)
		}
		s.core.Timed = s.core.Timed[:0]
	}
	for _, r := range s.core.Requeued() {
		e := s.core.Slab.Entry(r.E)
		s.enqueue(e)
		e.Mark = keptMark{}
	}
	return n
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
	e := s.core.Lookup(item)
	if e == nil {
		return false
	}
	p := s.core.Where(e)
	switch p { // off its lane or heap; the core does the rest
	case queued:
		s.lanes.unqueue(e, &s.extras, &s.core.List)
	case delayed:
		s.delays.del(e.ID)
		s.arm()
	}
	if !s.core.Unknow(e, p) {
		return false
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
	if s.core.Closed() {
		return false
	}
	e := s.core.Lookup(item)
	m, ok := s.core.Rearms(e)
	if !ok {
		return false
	}
	if m.N != 0 { // disarmed and marked: queued, or delayed for its time
		if m.At != 0 && m.At > s.cfg.clock.now() {
			s.schedule(e, m.At, m.Seq)
		} else {
			s.enqueue(e)
		}
	}
	s.settle()
	return true
}
