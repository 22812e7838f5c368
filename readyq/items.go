package readyq

import (
	"slices"
	"sync"

	"github.com/evsync/evsync/internal/spin"
)

// An entry is what the queue knows about one item; forgotten entries are
// recycled (spare). Only with mu held.
type entry struct {
	seq   uint64 // last place in the ready list: queued if ≥ list.head, else in flight (state active)
	mark  uint64 // arrival number of a kept-aside mark, 0 if none
	state state
	mode  Mode
	flags flags
}

type state uint8

const (
	active    state = iota // queued or in flight, as seq tells
	idle                   // one-shot, armed, not queued: stays known until Remove
	disarmed               // one-shot, handed out and Done, waiting for Rearm
	requeuing              // within Done only: about to be queued again
)

type flags uint8

const (
	removed flags = 1 << iota // in flight, Removed: Done forgets it
	rearmed                   // one-shot, in flight, re-armed: Done may queue it
)

// Add marks item ready in the queue's mode (or the mode it already has,
// if the queue knows it) and reports whether the mark is new:
//
//   - an item not queued and not in flight is queued at the tail: true;
//   - a queued item stays where it is: false (queued at most once);
//   - an item in flight is kept aside, to be queued again at its Done, and
//     so is a disarmed one-shot item, until Rearm: true for the first such
//     mark, false for later ones, which it absorbs;
//   - after Close nothing is marked: false.
//
// Add never blocks; if a Wait caller is blocked, the item is handed to it.
func (q *Queue[T]) Add(item T) bool { return q.add(item, q.mode) }

// AddMode is Add with mode m for an item the queue does not know yet. An
// item's mode is fixed while the queue knows it: edge and level items
// until they are idle again (not queued, not in flight), one-shot items
// until Remove. To change a mode, Remove the item and add it again.
// AddMode returns false and changes nothing if m is not a Mode.
func (q *Queue[T]) AddMode(item T, m Mode) bool {
	if !m.valid() {
		return false
	}
	return q.add(item, m)
}

func (q *Queue[T]) add(item T, m Mode) bool {
	q.checkKey(item)
	if q.closed.Load() {
		return false
	}
	q.mu.Lock()
	ok := q.mark(item, m)
	if ok {
		q.settle()
	}
	q.unlock()
	return ok
}

// mark records a mark of item (see Add). Only with mu held.
func (q *Queue[T]) mark(item T, m Mode) bool {
	if q.closed.Load() {
		return false
	}
	if q.items == nil {
		q.items = make(map[T]*entry)
	}
	e := q.items[item]
	switch {
	case e == nil:
		e = q.newEntry()
		e.seq, e.mode = q.list.push(item), m
		q.items[item] = e
	case e.state == idle:
		e.state, e.seq = active, q.list.push(item)
	case q.queued(e) || e.mark != 0:
		return false
	default: // in flight or disarmed
		if e.flags&removed != 0 { // forgotten by Remove while in flight: known again, in mode m
			e.flags, e.mode = 0, m
		}
		q.marks++
		e.mark = q.marks
		if e.state == active && q.returns(e) {
			q.aside.Add(1)
		}
	}
	return true
}

// newEntry returns a recycled entry, or a new one. Only with mu
// held.
func (q *Queue[T]) newEntry() *entry {
	if n := len(q.spare); n > 0 {
		e := q.spare[n-1]
		q.spare = q.spare[:n-1]
		return e
	}
	return new(entry)
}

// forget deletes item and recycles its entry. Only with mu held.
func (q *Queue[T]) forget(item T, e *entry) {
	delete(q.items, item)
	e.seq, e.state, e.mode, e.flags = 0, active, Edge, 0
	e.mark = 0
	q.spare = append(q.spare, e)
}

// unlock releases mu, then wakes the callers settled meanwhile (see
// internal/spin).
func (q *Queue[T]) unlock() {
	w, d := q.waiters.Woken(), q.drainers.Woken()
	q.mu.Unlock()
	spin.WakeAll(w)
	spin.WakeAll(d)
}

// owner is a Queue as the spin.Owner of its waiters: a cancelled caller
// leaves under mu, and the Unlock serves those behind it.
type owner[T comparable] Queue[T]

func (o *owner[T]) Lock() { o.mu.Lock() }

func (o *owner[T]) Unlock() {
	q := (*Queue[T])(o)
	q.settle()
	q.unlock()
}

// queued reports whether e is on the ready list; inFlight whether it was
// handed out and not Done. Only with mu held.
func (q *Queue[T]) queued(e *entry) bool   { return e.state == active && e.seq >= q.list.head }
func (q *Queue[T]) inFlight(e *entry) bool { return e.state == active && e.seq < q.list.head }

// returns reports whether Done will queue the in-flight item e again
// because of a kept-aside mark (what keeps Wait waiting after Close).
func (q *Queue[T]) returns(e *entry) bool {
	return e.mark != 0 && e.flags&removed == 0 && (e.mode != OneShot || e.flags&rearmed != 0)
}

// Done ends the hand-out of each item and returns how many of them were in
// flight; the others (never handed out, already Done, unknown) are
// ignored. An item Done is queued again at the tail if it was marked while
// in flight (a mark kept aside), or if it is a level item that is still
// ready: always, if the queue has no recheck function, else if the
// function reports it ready. After Close, level items are not queued again
// (that would be a new mark), but kept-aside marks still are. A one-shot
// item is disarmed until Rearm, unless it was re-armed while in flight.
// Edge items not marked again are forgotten.
//
// Done finishes all its items in one step, however many there are: an
// item listed twice counts once, and the repeat never ends the hand-out of
// the consumer the item goes to next. The items queued again go to the
// tail in the order their marks arrived (epoll puts its overflow list back
// in arrival order), followed by the level items in the order given. The
// recheck function, if any, is called for every item first, outside the
// lock, before any item is looked at; if it panics, Done changes nothing
// (the items stay in flight) and the panic goes on to Done's caller.
//
// Done must be called by the consumer that holds the items: Done for an
// item held by another consumer ends that consumer's hand-out.
func (q *Queue[T]) Done(items ...T) int {
	q.checkKeys(items)
	if q.recheck != nil {
		return q.doneRechecked(items)
	}
	q.mu.Lock()
	n := q.finish(items, nil)
	q.settle()
	q.unlock()
	return n
}

// doneRechecked is Done with a recheck function.
func (q *Queue[T]) doneRechecked(items []T) int {
	if len(items) > smallDone {
		return q.doneBig(items)
	}
	var ready [smallDone]bool // on the stack: no allocation per Done
	for i, item := range items {
		ready[i] = q.recheck(item)
	}
	return q.finishAll(items, ready[:len(items)])
}

// smallDone is the most items a Done with a recheck function rechecks
// into a stack array; larger calls use a pooled buffer.
const smallDone = 64

// readyBufs recycles the recheck results of large Done calls.
var readyBufs = sync.Pool{New: func() any { return new([]bool) }}

// maxPooled bounds the buffers kept in readyBufs, so that one huge Done
// does not keep its buffer alive.
const maxPooled = 1 << 16

// doneBig is Done with a recheck function for more than smallDone items.
// A panicking recheck leaves the buffer to the collector.
func (q *Queue[T]) doneBig(items []T) int {
	p := readyBufs.Get().(*[]bool)
	ready := slices.Grow((*p)[:0], len(items))[:len(items)]
	for i, item := range items {
		ready[i] = q.recheck(item)
	}
	n := q.finishAll(items, ready)
	if cap(ready) <= maxPooled {
		*p = ready
		readyBufs.Put(p)
	}
	return n
}

// finishAll is the locked section of a Done with a recheck function: all
// of its items at once, as without one, so that finish's rule for repeats
// covers the whole call. Finishing in several sections would let a repeat
// in a later one find the item handed to another consumer meanwhile, and
// end that consumer's hand-out.
func (q *Queue[T]) finishAll(items []T, ready []bool) int {
	q.mu.Lock()
	n := q.finish(items, ready)
	q.settle()
	q.unlock()
	return n
}

// requeue is an item Done queues again, with its order key: the arrival
// number of its kept-aside mark, or (level items) levelKey plus its place
// in Done's arguments.
type requeue[T comparable] struct {
	key  uint64
	item T
	e    *entry
}

// levelKey orders level items after every kept-aside mark in Done.
const levelKey = 1 << 63

// finish is Done under the lock; ready[i] is the recheck of items[i]
// (nil: no recheck function).
func (q *Queue[T]) finish(items []T, ready []bool) int {
	n := 0
	q.requeue = q.requeue[:0]
	for i, item := range items {
		e := q.items[item]
		if e == nil || !q.inFlight(e) {
			continue
		}
		n++
		q.inflight--
		back := q.returns(e)
		if back {
			q.aside.Add(-1)
		}
		switch {
		case e.flags&removed != 0:
			q.forget(item, e)
			continue
		case back:
			q.requeue = append(q.requeue, requeue[T]{e.mark, item, e})
			e.state = requeuing // a second Done of it in this call is ignored
		case e.mode == Level && !q.closed.Load() && (ready == nil || ready[i]):
			q.requeue = append(q.requeue, requeue[T]{levelKey + uint64(i), item, e})
			e.state = requeuing
		case e.mode == OneShot && e.flags&rearmed != 0:
			e.state = idle
		case e.mode == OneShot:
			e.state = disarmed // with its mark, if any, until Rearm
			q.disarmed++
		default:
			q.forget(item, e)
			continue
		}
		e.flags = 0
	}
	q.putBack()
	return n
}

// putBack queues Done's re-queued items in order (see Done).
func (q *Queue[T]) putBack() {
	r := q.requeue
	if !slices.IsSortedFunc(r, byKey) {
		slices.SortFunc(r, byKey)
	}
	for _, rq := range r {
		rq.e.state, rq.e.seq = active, q.list.push(rq.item)
		rq.e.mark = 0
	}
	clear(r) // keep no item alive
}

func byKey[T comparable](a, b requeue[T]) int {
	switch {
	case a.key < b.key:
		return -1
	case a.key > b.key:
		return 1
	}
	return 0
}

// Remove forgets item (EPOLL_CTL_DEL) and reports whether the queue knew
// it. A queued item is taken off the list: no hand-out after Remove
// returns it (until it is marked again). An item in flight stays in flight
// until its Done, which then forgets it; marks kept aside for it are
// dropped. A disarmed or idle one-shot item is forgotten with its mode.
// Remove works on a closed queue too.
func (q *Queue[T]) Remove(item T) bool {
	q.checkKey(item)
	q.mu.Lock()
	defer q.unlock()
	e := q.items[item]
	switch {
	case e == nil:
		return false
	case q.queued(e):
		q.list.kill(e.seq)
		q.forget(item, e)
	case e.state == active: // in flight
		if e.flags&removed != 0 {
			return false
		}
		if q.returns(e) {
			q.aside.Add(-1)
		}
		e.flags = removed
		e.mark = 0
	default:
		if e.state == disarmed {
			q.disarmed--
		}
		q.forget(item, e)
	}
	q.settle()
	return true
}

// Rearm re-arms a one-shot item and reports whether it was disarmed. A
// disarmed item that was marked since it was handed out is queued at once;
// otherwise the next mark queues it. An item still in flight is re-armed
// for its Done, which then queues it if it was marked meanwhile. Rearm
// returns false and changes nothing for an item that is not one-shot, not
// known, already armed, or after Close (re-arming would be a new mark).
func (q *Queue[T]) Rearm(item T) bool {
	q.checkKey(item)
	if q.closed.Load() {
		return false
	}
	q.mu.Lock()
	defer q.unlock()
	e := q.items[item]
	if e == nil || e.mode != OneShot || q.closed.Load() {
		return false
	}
	switch {
	case e.state == disarmed:
		q.disarmed--
		e.state = idle
		if e.mark != 0 {
			e.state, e.seq = active, q.list.push(item)
			e.mark = 0
		}
	case q.inFlight(e) && e.flags&(removed|rearmed) == 0:
		e.flags |= rearmed
		if q.returns(e) {
			q.aside.Add(1)
		}
	default:
		return false
	}
	q.settle()
	return true
}
