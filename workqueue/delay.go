package workqueue

import (
	"time"

	"github.com/evsync/evsync/internal/clk"
	"github.com/evsync/evsync/internal/rq"
)

// delays is a queue's delayed items and its timer. Only with mu held.
//
// Each delayed item is a wait in one of the 4-ary min-heaps (heap.go)
// that heaps holds. Waits come out by ready time, and equal times in the
// order they were set.
//
// The position of each delayed entry in the heaps is kept apart from the
// entries, in pos. It is a dense array of int32s by slot, because every
// move in a heap writes one. A move then touches a line shared with 15
// other positions instead of an entry's own. That was measured as 5 %
// off a delayed item's cycle with a million delayed. It grows with the
// slots of the items delayed, so a queue that delays nothing has none.
//
// One timer per queue, made at the first delay on the queue's clock, is
// armed for the earliest ready time. It is stopped while nothing is
// delayed, so an idle queue runs no timer and no goroutine. The timer's function runs only
// when it fires. A run that fires late, or that a Reset came too late to
// stop, queues what is due by then and arms the timer again.
//
// On the wall clock the timer is a time.Timer, used directly, so that a
// queue without WithClock pays nothing for the option. clk's Timer would
// add a call to each Reset and Stop.
//
// Times are nanoseconds on the queue's own clock (clock.go), read only
// with mu held. They come from WithClock's clock, or from package time.
// Under testing/synctest package time follows the bubble's clock exactly.
// On a user's clock every locked section first queues what is due
// (promote), since the timer's goroutine may run long after the clock has
// moved.
type delays struct {
	heaps
	pos   paged[int32] // a delayed entry's position in the heaps, by slot (see locate)
	n     int          // the delayed items, in all heaps
	seq   uint64
	timer *time.Timer // on the wall clock, nil until the first delay
	user  clk.Timer   // on a user's clock, the zero Timer until then
	armed int64       // the ready time the timer is set for; 0: stopped
}

// AddAfter marks item ready d from now: it becomes queued then, unless a
// mark makes it ready sooner (the earliest ready time wins; AddWith with
// AddOpts.Replace sets the time instead, later or earlier). It reports
// whether the mark is new:
//
//   - an item not queued, not delayed and not in flight is delayed: true;
//   - a delayed item keeps the earlier of its two ready times: false;
//   - a queued item stays where it is: false;
//   - an item in flight is kept aside with its ready time, to be queued
//     at its Done if the time has come by then, and delayed otherwise:
//     true for the first kept-aside mark, false for later ones (the
//     earliest of their times wins);
//   - after Close nothing is marked: false.
//
// A d ≤ 0 is Add (as client-go's AddAfter does). Add of a delayed item
// queues it at once and cancels its delay; Remove forgets it. Close
// queues every delayed item at once, so none is lost (see Close).
//
// A ready time past the clock's end is the end. That is 2⁶³−1 ns after
// the queue's first reading of the wall clock, and about 2⁶² ns after it
// on a user's clock (WithClock). Such an item is not queued before the
// clock gets there, or Close. Ready times at the end tie: they go in the
// order they were set.
func (q *Queue[T]) AddAfter(item T, d time.Duration) bool {
	return q.add(item, q.s.cfg.mode, markOpts{after: d})
}

// AddOpts are the options of one mark, for AddWith.
type AddOpts struct {
	// After delays the item: ready this long from now (≤ 0: now).
	After time.Duration
	// RateLimited delays it by the rate limiter's When(item) instead,
	// or by After if that is sooner and above 0; as AddRateLimited, it
	// counts a retry.
	RateLimited bool
	// Priority orders the hand-outs: higher first, FIFO within one
	// priority. An item has the highest priority of its marks since the
	// queue started to know it.
	Priority int
	// Replace makes the mark's ready time (After, or the limiter's with
	// RateLimited) the item's, later or earlier, in one step, as
	// time.Timer's Reset does. Without it the earliest ready time wins.
	// It postpones an item already delayed, where Remove then AddAfter
	// would let a worker take it in between. At the clock's end (see
	// AddAfter) no ready time is later than now: a queued item stays
	// where it is.
	Replace bool
}

// AddWith marks item ready with the options o. The mark takes the
// queue's mode, or the mode the item already has. AddWith reports whether
// the mark is new, as Add and AddAfter do. A mark whose priority is above
// a queued item's moves the item to the tail of its new priority, and
// reports false.
// It is controller-runtime's AddWithOpts for one item: the earliest ready
// time and the highest priority of the marks win.
//
// With o.Replace the mark's ready time wins instead, later or earlier.
// Call it d the mark's delay. By the item's place, AddWith then:
//
//   - not queued, not delayed, not in flight: as without Replace (true);
//   - delayed, d > 0: moves it to d from now, sooner or later: false;
//   - delayed, d ≤ 0: queues it now, as Add does: true;
//   - queued, d > 0: takes it off the queue and delays it by d: false;
//   - queued, d ≤ 0, or at the clock's end: leaves it where it is: false;
//   - in flight with a kept-aside mark: gives the mark the ready time d
//     from now (due at once for d ≤ 0): false;
//   - in flight without one: as without Replace (true);
//   - after Close: nothing changes: false.
//
// So false still means the item had a mark already: the call only moved
// its ready time. The priority rule does not change: the highest wins. A
// disarmed one-shot item's mark is replaced as an in-flight item's is.
func (q *Queue[T]) AddWith(item T, o AddOpts) bool {
	return q.add(item, q.s.cfg.mode, markOpts{after: o.After, prio: o.Priority, retried: o.RateLimited, replace: o.Replace})
}

// next returns the next tie-break number: the order ready times are set.
func (d *delays) next() uint64 {
	d.seq++
	return d.seq
}

// schedule delays e until at, ordered among equal times by seq (0: a new
// number, the time is set now). Only with mu held.
func (s *state[T]) schedule(e *entry[T], at int64, seq uint64) {
	e.State = delayed
	s.delays.add(e.ID, at, seq)
	s.arm()
}

// add delays the item in slot e until at, ordered among equal times by
// seq (0: a new number, the time is set now).
func (d *delays) add(e int32, at int64, seq uint64) {
	if seq == 0 {
		seq = d.next()
	}
	for int(e) >= d.pos.Cap() {
		d.pos.Grow()
	}
	d.n++
	d.push(wait{at, seq, e})
}

// earlier moves the wait of the delayed item in slot e to at, if that is
// sooner, and reports whether it did. The timer is the caller's.
func (d *delays) earlier(e int32, at int64) bool {
	h, i := d.locate(e)
	w := h.waits.At(i)
	if at >= w.at {
		return false
	}
	w.at, w.seq = at, d.next()
	d.sooner(h, i)
	return true
}

// move gives the wait of the delayed item in slot e the ready time at,
// sooner or later than its own, and a new tie-break number (AddOpts's
// Replace). The timer is the caller's.
func (d *delays) move(e int32, at int64) {
	if d.earlier(e, at) {
		return
	}
	h, i := d.locate(e)
	w := h.waits.At(i)
	w.at, w.seq = at, d.next() // as late or later: after the waits of its time
	d.postpone(h, i)
}

// del takes the wait of the delayed item in slot e out of its heap. The
// timer is the caller's.
func (d *delays) del(e int32) {
	h, i := d.locate(e)
	h.remove(d.spots(h), i)
	d.n--
}

// dueAt queues every delayed item whose time has come by the reading now,
// or every delayed item if all is set (Close), in ready-time order. It
// arms the timer for the rest.
func (s *state[T]) dueAt(now int64, all bool) {
	for w := s.delays.first(); w != nil; w = s.delays.first() {
		if w.at > now && !all {
			break
		}
		e := s.core.Slab.Entry(w.e)
		s.delays.del(w.e)
		s.enqueue(e)
	}
	s.delays.advance(now)
	s.arm()
}

// promote queues, on a user's clock, each delayed item whose time the
// clock has passed (catchUp). Every locked section of a call starts with
// it, right after mu.Lock. So every call sees those items queued, with no
// need for the timer's goroutine to run first. On the wall clock it costs
// one test of a field: the compiler inlines it (mu.Lock and it together
// would not be).
func (s *state[T]) promote() {
	if s.cfg.clock.user {
		s.catchUp()
	}
}

// catchUp queues the delayed items that are due on a user's clock and
// serves blocked callers with them (settle). It reads the clock once, and
// only if something is delayed. Only with mu held.
func (s *state[T]) catchUp() {
	w := s.delays.first()
	if w == nil {
		return
	}
	if now := s.cfg.clock.userNow(); w.at <= now {
		s.dueAt(now, false)
		s.settle()
	}
}

// fire is the timer's function.
func (s *state[T]) fire() {
	s.mu.Lock()
	s.delays.armed = 0 // this run is the timer's; dueAt arms it again for the rest
	s.dueAt(s.cfg.clock.now(), false)
	s.settle()
	s.unlock()
}

// arm sets the timer for the earliest ready time, or stops it. It never
// arms the timer for a time the clock has passed. It queues the items due
// by then instead (dueAt, which calls arm again for the rest). The wall
// clock would fire such a timer at once. A user's clock may fire it only
// when it is next moved, as k8s.io/utils/clock/testing's FakeClock does.
// The caller settles what it queued.
func (s *state[T]) arm() {
	d := &s.delays
	w := d.first()
	if w == nil {
		d.stop(s.cfg.clock.user)
		return
	}
	if w.at == d.armed {
		return
	}
	now := s.cfg.clock.now()
	if w.at <= now {
		s.dueAt(now, false)
		return
	}
	d.set(&s.cfg.clock, w.at, time.Duration(w.at-now), s)
}

// A firer is what a timer calls when it fires: a queue's state.
type firer interface{ fire() }

// set arms the timer to fire f in wait, for the ready time at. It makes
// the timer at the first delay on the queue's clock c.
func (d *delays) set(c *timebase, at int64, wait time.Duration, f firer) {
	switch {
	case c.user && d.user == (clk.Timer{}):
		d.user = c.src.AfterFunc(wait, f.fire)
	case c.user:
		d.user.Reset(wait)
	case d.timer == nil:
		d.timer = time.AfterFunc(wait, f.fire)
	default:
		d.timer.Reset(wait)
	}
	d.armed = at
}

// stop stops the timer, if it is armed. The argument user is whether the
// queue runs on a user's clock.
func (d *delays) stop(user bool) {
	if d.armed == 0 {
		return
	}
	if user {
		d.user.Stop()
	} else {
		d.timer.Stop()
	}
	d.armed = 0
}

// Priority returns the priority of an item the queue knows, and true.
// The item may be queued, delayed, in flight or disarmed. For an item the
// queue does not know, it returns 0 and false. An item handed out keeps its priority until the queue
// forgets it, so a consumer can read it after Wait (controller-runtime's
// GetWithPriority).
func (q *Queue[T]) Priority(item T) (int, bool) {
	s := &q.s
	s.cfg.keys.Check(item)
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.core.Lookup(item)
	if e == nil || e.Flags&rq.Removed != 0 || e.Kept() {
		return 0, false
	}
	return s.extras.prio(e), true
}
