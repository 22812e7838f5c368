package rq

import (
	"slices"

	"github.com/evsync/evsync/internal/waitq"
)

// Locked is the state a ready list's lock guards, and the steps that
// change it. Every step is a method on *Locked, so a step runs only with
// the state in hand, and only the owner's lock hands the state out (see
// readyq's lock). The exceptions are the waitq calls that are made
// without the lock by design: a waiter's Sleep and Finish.
//
// A step that changes nothing reports so (Mark, Remove and Rearm return
// false), so that the owner's unlock can skip the publishing and the
// wake-ups.
type Locked[T comparable] struct {
	items    Index[T] // every item the list knows, mapped to its entry's slot
	slab     Slab[T]  // the entries
	list     Fifo[T]  // the queued items
	marks    uint64   // kept-aside marks so far, which number their arrivals
	inflight int      // items handed out, not yet Done
	disarmed int      // one-shot items waiting for Rearm
	aside    int      // items in flight with a mark Done will queue (keeps Wait waiting after Close)
	closed   bool
	requeue  []Requeue // Finish's scratch space

	// Keep is Config.Keep: Done keeps the entry of an item it would
	// forget, idle, for the item's next mark (drop). Set before first use.
	Keep bool

	Waiters  waitq.Queue[Take[T]]  // blocked Wait callers
	Drainers waitq.Queue[struct{}] // blocked Drain callers
	Ready    waitq.Notifier        // the Ready channel
}

// A Take is a blocked Wait caller's payload. The granter appends up to Max
// items to Buf under the lock, and the caller gets Buf back after waking.
type Take[T comparable] struct {
	Buf []T
	Max int
}

// A Requeue is an item Done queues again, with its order key. The key is
// the arrival number of its kept-aside mark. For a level item that is
// still ready, it is LevelKey plus its index in Done's arguments.
type Requeue struct {
	Key uint64
	E   int32 // the item's slot
}

// LevelKey orders level items after every kept-aside mark in Done.
const LevelKey = 1 << 63

// SortRequeues sorts r by key, unless it is sorted already (the common
// case: one item, or marks in arrival order).
func SortRequeues(r []Requeue) {
	if !slices.IsSortedFunc(r, byKey) {
		slices.SortFunc(r, byKey)
	}
}

func byKey(a, b Requeue) int {
	switch {
	case a.Key < b.Key:
		return -1
	case a.Key > b.Key:
		return 1
	}
	return 0
}

// Mark is Add's step. It marks item in mode m and reports whether the mark
// is new:
//
//   - true for an item not known (or idle), which is queued, or handed
//     straight to a blocked Wait caller if nothing is queued
//   - false for a queued item
//   - true for the first mark of an item in flight or disarmed, which is
//     kept aside; false for later ones
//   - false once closed
//
// A false return means that nothing changed.
func (l *Locked[T]) Mark(item T, m Mode) bool {
	if l.closed {
		return false
	}
	e, added := l.items.FindOrAdd(&l.slab, item) // a new item gets a recycled entry, or one in a new slot
	if added {
		e.Mode = m
		l.enqueue(e)
		return true
	}
	switch l.where(e) {
	case Queued:
		return false
	case Idle:
		if e.Kept() { // known again, in mode m, as if new
			e.Mode = m
		}
		l.enqueue(e)
		return true
	}
	switch { // in flight or disarmed
	case e.Flags&Removed != 0: // in flight and Removed: known again, in mode m
		e.Mode, e.Flags = m, 0
	case e.Mark.N != 0:
		return false // marked already: absorbed
	}
	l.keepAside(e)
	return true
}

// where returns the place of e. An entry on the list stores Listed. It is
// queued while its Seq is at or past the list's head, and in flight once a
// hand-out has moved the head past it. So a hand-out of any size moves one
// index.
func (l *Locked[T]) where(e *Entry[T]) Place {
	if e.State != Listed {
		return e.State
	}
	if e.Seq < l.list.Head {
		return InFlight
	}
	return Queued
}

// enqueue queues e at the tail. If nothing is queued and a Wait caller is
// blocked, it hands e to that caller instead, in flight at once. A caller
// only blocks while nothing is queued, so that is the order a queue and a
// grant would give, without the round trip through the list.
func (l *Locked[T]) enqueue(e *Entry[T]) {
	if l.list.Live == 0 && l.Waiters.Len() != 0 {
		w := l.Waiters.Head() // a live head in line, else Front's loop
		if w == nil {
			w = l.Waiters.Front()
		}
		if w != nil {
			e.State = InFlight
			l.inflight++
			p := w.P
			p.Buf = append(p.Buf, e.Item)
			l.Waiters.Grant(w, p)
			return
		}
	}
	e.Seq, e.State = l.list.Push(e.Item), Listed
	l.Ready.Fire(true)
}

// keepAside gives e, in flight or disarmed, a kept-aside mark.
func (l *Locked[T]) keepAside(e *Entry[T]) {
	l.marks++
	e.Mark.N = l.marks
	if l.where(e) == InFlight && l.returns(e) {
		l.aside++
	}
}

// returns reports whether Done will queue the in-flight item e again
// because of a kept-aside mark. That is what keeps Wait waiting after
// Close.
func (l *Locked[T]) returns(e *Entry[T]) bool {
	return e.Mark.N != 0 && e.Flags&Removed == 0 && (e.Mode != OneShot || e.Flags&Rearmed != 0)
}

// forget deletes e's item and recycles e.
func (l *Locked[T]) forget(e *Entry[T]) {
	l.items.Del(e)
	l.slab.Release(e)
}

// Splice hands out up to max queued items, at least one of which must be
// queued. They are in flight at once. It returns the array and the range
// that holds them, for Array.CopyOut.
func (l *Locked[T]) Splice(max int) (arr *Array[T], lo, hi int) {
	k := min(max, l.list.Live)
	arr = l.list.Arr
	lo, hi = l.list.Splice(k)
	l.inflight += k
	return arr, lo, hi
}

// Finish is Done's step and returns how many items were in flight. Its
// ready[i] is the recheck of items[i], and ready is nil without a recheck
// function. Each item in flight goes where decide sends it. Those queued
// again go to the tail in key order. A repeat of an item in the same call
// finds it no longer in flight and is ignored.
func (l *Locked[T]) Finish(items []T, ready []bool) int {
	n := 0
	l.requeue = l.requeue[:0]
	for i, item := range items {
		e, _ := l.items.Find(&l.slab, item)
		if e == nil || l.where(e) != InFlight {
			continue
		}
		n++
		l.inflight--
		l.decide(e, uint64(i), ready == nil || ready[i])
	}
	SortRequeues(l.requeue)
	for _, r := range l.requeue {
		e := l.slab.Entry(r.E)
		e.Mark = KeptMark{}
		e.Seq, e.State = l.list.Push(e.Item), Listed
	}
	return n
}

// decide moves e, Done, to its next place by the first row of readyq's
// table that fits it, testing the rows in the same order. The argument i
// is the item's index in Done's arguments, and still is whether a level
// item is still ready.
func (l *Locked[T]) decide(e *Entry[T], i uint64, still bool) {
	back := l.returns(e) // marked, in the table's sense
	if back {
		l.aside--
	}
	switch {
	case e.Flags&Removed != 0: // removed: forgotten
		l.forget(e)
	case back: // marked: queued
		l.putLater(e, e.Mark.N)
	case e.Mode == Level && !l.closed && still: // level, still ready: queued
		l.putLater(e, LevelKey+i)
	case e.Mode == OneShot && e.Flags&Rearmed != 0: // one-shot, re-armed: idle
		e.State, e.Flags = Idle, 0
	case e.Mode == OneShot: // one-shot: disarmed, with its mark if any
		e.State, e.Flags = Disarmed, 0
		l.disarmed++
	default: // anything else: forgotten
		l.drop(e)
	}
}

// drop forgets e, Done and not marked again, or with Keep keeps it idle.
// A kept entry saves the item's next mark an insertion into the index
// and the slab, and this Done their deletion. Its mode is an edge or
// level item's, which tells it from an armed one-shot item (Entry.Kept).
func (l *Locked[T]) drop(e *Entry[T]) {
	if l.Keep || KeepAll {
		e.State, e.Flags = Idle, 0
		return
	}
	l.forget(e)
}

// putLater notes e for Finish to queue in key order. Until then e stores
// Queued, not InFlight.
func (l *Locked[T]) putLater(e *Entry[T], key uint64) {
	l.requeue = append(l.requeue, Requeue{key, e.ID})
	e.State, e.Flags = Queued, 0
}

// Remove is Remove's step: it forgets item and reports whether it was
// known. An item in flight stays so until its Done, which forgets it, and
// its kept-aside mark is dropped.
func (l *Locked[T]) Remove(item T) bool {
	e, _ := l.items.Find(&l.slab, item)
	if e == nil {
		return false
	}
	switch l.where(e) {
	case Queued:
		l.list.Kill(e.Seq)
	case InFlight:
		if e.Flags&Removed != 0 {
			return false
		}
		if l.returns(e) {
			l.aside--
		}
		e.Flags, e.Mark = Removed, KeptMark{}
		return true
	case Disarmed:
		l.disarmed--
	case Idle:
		if e.Kept() { // not known: its entry is freed, and Remove reports so
			l.forget(e)
			return false
		}
	}
	l.forget(e)
	return true
}

// Rearm is Rearm's step: it re-arms a one-shot item and reports whether it
// was disarmed or in flight and not yet re-armed. A disarmed item with a
// kept-aside mark is queued.
func (l *Locked[T]) Rearm(item T) bool {
	if l.closed {
		return false
	}
	e, _ := l.items.Find(&l.slab, item)
	if e == nil || e.Mode != OneShot {
		return false
	}
	switch p := l.where(e); {
	case p == Disarmed:
		l.disarmed--
		e.State = Idle
		if e.Mark.N != 0 {
			e.Mark = KeptMark{}
			l.enqueue(e)
		}
	case p == InFlight && e.Flags&(Removed|Rearmed) == 0:
		e.Flags |= Rearmed
		if l.returns(e) {
			l.aside++
		}
	default:
		return false
	}
	return true
}

// Close is Close's step. It reports whether the list was open.
func (l *Locked[T]) Close() bool {
	if l.closed {
		return false
	}
	l.closed = true
	return true
}

// Settle serves blocked callers after a change that may have unblocked
// them. Each test is a plain read, so a change with nobody blocked and no
// Ready armed costs three loads.
//
//   - Queued items go to blocked Wait callers, oldest first.
//   - Once the list is exhausted, those callers get ErrClosed.
//   - Drain callers are released once nothing is queued or in flight.
//   - An armed Ready channel fires if a Wait would not block.
func (l *Locked[T]) Settle() {
	if l.Waiters.Len() != 0 {
		for l.list.Live > 0 {
			w := l.Waiters.Front()
			if w == nil {
				break
			}
			p := w.P
			arr, lo, hi := l.Splice(p.Max)
			p.Buf = arr.CopyOut(p.Buf, lo, hi)
			l.Waiters.Grant(w, p)
		}
		if l.Exhausted() {
			l.Waiters.RejectAll()
		}
	}
	if l.Drainers.Len() != 0 && l.Idle() {
		for w := l.Drainers.Front(); w != nil; w = l.Drainers.Front() {
			l.Drainers.Grant(w, struct{}{})
		}
	}
	if l.Ready.Armed() {
		l.Ready.Fire(l.ReadyNow())
	}
}

// Exhausted reports whether a closed list has nothing left to hand out:
// nothing is queued, and no Done could queue an item again.
func (l *Locked[T]) Exhausted() bool { return l.closed && l.list.Live == 0 && l.aside == 0 }

// Idle reports whether nothing is queued or in flight (Drain).
func (l *Locked[T]) Idle() bool { return l.list.Live == 0 && l.inflight == 0 }

// ReadyNow reports whether a Wait would return at once.
func (l *Locked[T]) ReadyNow() bool { return l.list.Live > 0 || l.Exhausted() }

// Queued returns the number of queued items.
func (l *Locked[T]) Queued() int { return l.list.Live }

// InFlight returns the number of items handed out and not yet Done.
func (l *Locked[T]) InFlight() int { return l.inflight }

// Disarmed returns the number of one-shot items waiting for Rearm.
func (l *Locked[T]) Disarmed() int { return l.disarmed }

// Aside returns the number of items in flight that Done will queue again.
func (l *Locked[T]) Aside() int { return l.aside }

// Closed reports whether Close was called.
func (l *Locked[T]) Closed() bool { return l.closed }

// Entries returns the number of entries the list holds, kept ones
// included, for tests.
func (l *Locked[T]) Entries() int { return l.slab.Live() }

// Slots returns the size of the list's array, for tests (0 before the
// first item).
func (l *Locked[T]) Slots() int {
	if l.list.Arr == nil {
		return 0
	}
	return l.list.Arr.Len()
}
