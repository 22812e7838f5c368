package rq

import (
	"slices"

	"github.com/evsync/evsync/internal/waitq"
)

// Locked is the state a queue's lock guards, and the steps that change
// it. readyq's Queue is a Locked, a lock and its waiters. workqueue's
// state holds the same Locked and adds the lanes, the delays, the extra
// parts and the metrics. So both queues know an item in one index, with
// one entry, and one decision table moves it at Done (Decide).
//
// Every step is a method on *Locked, so a step runs only with the state
// in hand, and only the owner's lock hands the state out. The exceptions
// are the waitq calls that are made without the lock by design: a
// waiter's Sleep and Finish.
//
// The work queue's parts show in an entry as fields the ready list
// leaves zero (X, Retried, Mark.At). A step tests them with plain loads,
// never through an interface or a func value. So the ready list's steps
// make no indirect call, and the work queue's rows are never reached on
// its paths. Where a step meets a part it does not hold (a lane, a heap,
// an extra part, a retry), it leaves the entry to its owner in a list:
// Timed, Gone.
//
// A step that changes nothing reports so (Mark, Remove and Rearm return
// false), so that the owner's unlock can skip the publishing and the
// wake-ups.
type Locked[T comparable] struct {
	Items    Index[T] // every item the queue knows, mapped to its entry's slot
	Slab     Slab[T]  // the entries
	List     Fifo[T]  // the queued items that are on no lane (all of the ready list's)
	marks    uint64   // kept-aside marks so far, which number their arrivals
	inflight int      // items handed out, not yet Done
	disarmed int      // one-shot items waiting for Rearm
	aside    int      // items in flight with a mark Done will queue (keeps Wait waiting after Close)
	closed   bool
	discard  bool      // closed dropping delays: marks still to come are forgotten at Done (the work queue's)
	requeue  []Requeue // Done's items to queue again, for Requeued

	// Timed are the slots of the entries Done delayed: marked for a ready
	// time still to come (the work queue's). Their owner puts them in its
	// heap, then empties Timed. Their state is already Delayed.
	Timed []Timed

	// Gone are the forgotten items whose owner keeps more of them than
	// the entry: a retry count (Retried) or an extra part (X). The owner
	// settles them, then empties Gone. The ready list's items never go
	// there.
	Gone []Gone[T]

	// Keep is Config.Keep: Done keeps the entry of an item it would
	// forget, idle, for the item's next mark (drop). Set before first use.
	Keep bool

	Waiters  waitq.Queue[Take[T]]  // blocked Wait callers
	Drainers waitq.Queue[struct{}] // blocked Drain callers
	Ready    waitq.Notifier        // the Ready channel
}

// A Timed is an entry Done delayed, with the time and tie-break number
// of its kept-aside mark.
type Timed struct {
	E   int32
	At  int64
	Seq uint64
}

// A Gone is what a forgotten item leaves its owner to settle: its retry
// state (the limiter forgets Item) and its extra part X (0 for none).
type Gone[T comparable] struct {
	Item    T
	X       int32
	Retried bool
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
	e, added := l.Items.FindOrAdd(&l.Slab, item) // a new item gets a recycled entry, or one in a new slot
	if added {
		e.Mode = m
		l.enqueue(e)
		return true
	}
	switch l.Where(e) {
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
	l.KeepAside(e)
	return true
}

// Lookup returns the entry of item, or nil if the queue does not know it.
func (l *Locked[T]) Lookup(item T) *Entry[T] {
	e, _ := l.Items.Find(&l.Slab, item)
	return e
}

// Where returns the place of e. An entry on List stores Listed. It is
// queued while its Seq is at or past the list's head, and in flight once a
// hand-out has moved the head past it. So a hand-out of any size moves one
// index. An entry elsewhere (on a lane, in a heap) stores its place.
func (l *Locked[T]) Where(e *Entry[T]) Place {
	if e.State != Listed {
		return e.State
	}
	if e.Seq < l.List.Head {
		return InFlight
	}
	return Queued
}

// enqueue queues e at the tail. If nothing is queued and a Wait caller is
// blocked, it hands e to that caller instead, in flight at once. A caller
// only blocks while nothing is queued, so that is the order a queue and a
// grant would give, without the round trip through the list.
func (l *Locked[T]) enqueue(e *Entry[T]) {
	if l.List.Live == 0 && l.Waiters.Len() != 0 {
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
	e.Seq, e.State = l.List.Push(e.Item), Listed
	l.Ready.Fire(true)
}

// KeepAside gives e, in flight or disarmed, a kept-aside mark. Its ready
// time, if any, is the caller's to set.
func (l *Locked[T]) KeepAside(e *Entry[T]) {
	l.marks++
	e.Mark = KeptMark{N: l.marks}
	if l.Where(e) == InFlight && Returns(e) {
		l.aside++
	}
}

// Returns reports whether Done will queue (or delay) the in-flight item e
// again because of a kept-aside mark. That is what keeps Wait waiting
// after Close. It is whether e is marked, in the sense of the packages'
// tables.
func Returns[T comparable](e *Entry[T]) bool {
	return e.Mark.N != 0 && e.Flags&Removed == 0 && (e.Mode != OneShot || e.Flags&Rearmed != 0)
}

// Forget deletes e's item and recycles e. What the owner keeps besides
// the entry goes to Gone.
func (l *Locked[T]) Forget(e *Entry[T]) {
	if e.Retried || e.X != 0 {
		l.Gone = append(l.Gone, Gone[T]{e.Item, e.X, e.Retried})
	}
	l.Items.Del(e)
	l.Slab.Release(e)
}

// Splice hands out up to max items of List, at least one of which must
// be queued. They are in flight at once. It returns the array and the
// range that holds them, for Array.CopyOut.
func (l *Locked[T]) Splice(max int) (arr *Array[T], lo, hi int) {
	k := min(max, l.List.Live)
	arr = l.List.Arr
	lo, hi = l.List.Splice(k)
	l.inflight += k
	return arr, lo, hi
}

// Lent counts k items handed out from elsewhere than List (the work
// queue's lanes), in flight from now on.
func (l *Locked[T]) Lent(k int) { l.inflight += k }

// Finish is Done's step and returns how many items were in flight. Its
// ready[i] is the recheck of items[i], and ready is nil without a recheck
// function. Each item in flight goes where decide sends it. Those queued
// again go to the tail in key order. A repeat of an item in the same call
// finds it no longer in flight and is ignored.
func (l *Locked[T]) Finish(items []T, ready []bool) int {
	n := 0
	l.requeue = l.requeue[:0]
	for i, item := range items {
		e := l.Ends(item)
		if e == nil {
			continue
		}
		n++
		l.Decide(e, uint64(i), ready == nil || ready[i], 0)
	}
	for _, r := range l.Requeued() {
		e := l.Slab.Entry(r.E)
		e.Mark = KeptMark{}
		e.Seq, e.State = l.List.Push(e.Item), Listed
	}
	return n
}

// Ends ends the hand-out of item and returns its entry, or returns nil if
// item is not in flight (unknown, never handed out, already Done).
func (l *Locked[T]) Ends(item T) *Entry[T] {
	e, _ := l.Items.Find(&l.Slab, item)
	if e == nil || l.Where(e) != InFlight {
		return nil
	}
	l.inflight--
	return e
}

// Requeued returns the items the Decide calls since the last Requeued
// sent back to the queue, sorted by key, for the owner to push. Each
// stores Queued until then.
func (l *Locked[T]) Requeued() []Requeue {
	r := l.requeue
	l.requeue = l.requeue[:0]
	SortRequeues(r)
	return r
}

// Decide moves e, Done, to its next place by the first row of the
// packages' tables that fits it, testing the rows in the same order. The
// argument i is the item's index in Done's arguments, and still is whether
// a level item is still ready. The argument now is the queue's time if
// e's mark has a ready time (Mark.At ≠ 0), and is not read otherwise.
//
// The rows of marks with a ready time are the work queue's. An entry of
// the ready list never has one, so for it they are a test of Mark.At.
func (l *Locked[T]) Decide(e *Entry[T], i uint64, still bool, now int64) {
	back := Returns(e) // marked, in the table's sense
	if back {
		l.aside--
	}
	later := back && e.Mark.At > now && !l.closed // marked for a ready time to come
	switch {
	case e.Flags&Removed != 0: // removed: forgotten
		l.Forget(e)
	case back && l.discard && e.Mark.At > now: // marked, its time to come, delays dropped: forgotten
		l.Forget(e)
	case later && (e.Mode != Level || !still): // marked for later, unless level and still ready: delayed
		l.Timed = append(l.Timed, Timed{e.ID, e.Mark.At, e.Mark.Seq})
		e.State, e.Mark, e.Flags = Delayed, KeptMark{}, 0
	case back && !later: // marked, due now: queued
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
// A kept entry is the item and its slot only: what the owner kept besides
// goes to Gone, as for a forgotten item.
func (l *Locked[T]) drop(e *Entry[T]) {
	if !l.Keep && !KeepAll {
		l.Forget(e)
		return
	}
	if e.Retried || e.X != 0 {
		l.Gone = append(l.Gone, Gone[T]{e.Item, e.X, e.Retried})
		e.Retried, e.X = false, 0
	}
	e.State, e.Flags, e.Mark = Idle, 0, KeptMark{}
}

// putLater notes e for Requeued, which the owner queues in key order.
// Until then e stores Queued, not InFlight.
func (l *Locked[T]) putLater(e *Entry[T], key uint64) {
	l.requeue = append(l.requeue, Requeue{key, e.ID})
	e.State, e.Flags = Queued, 0
}

// Remove is Remove's step: it forgets item and reports whether it was
// known. An item in flight stays so until its Done, which forgets it, and
// its kept-aside mark is dropped.
func (l *Locked[T]) Remove(item T) bool {
	e := l.Lookup(item)
	if e == nil {
		return false
	}
	p := l.Where(e)
	if p == Queued {
		l.List.Kill(e.Seq)
	}
	return l.Unknow(e, p)
}

// Unknow is the rest of Remove's step for e, known at place p, once the
// owner has taken a queued or delayed e off its list, lane or heap. It
// reports whether the item was known.
//
//   - In flight, it is Removed, for its Done to forget it. Its kept-aside
//     mark is dropped, and its retry state goes to Gone.
//   - A kept entry (not known) is freed.
//   - Anything else is forgotten.
func (l *Locked[T]) Unknow(e *Entry[T], p Place) bool {
	switch p {
	case InFlight:
		if e.Flags&Removed != 0 {
			return false
		}
		if Returns(e) {
			l.aside--
		}
		e.Flags, e.Mark = Removed, KeptMark{}
		if e.Retried { // gone from the queue, and so is its retry state
			l.Gone = append(l.Gone, Gone[T]{Item: e.Item, Retried: true})
			e.Retried = false
		}
		return true
	case Disarmed:
		l.disarmed--
	case Idle:
		if e.Kept() { // not known: its entry is freed, and Remove reports so
			l.Forget(e)
			return false
		}
	}
	l.Forget(e)
	return true
}

// Rearm is Rearm's step: it re-arms a one-shot item and reports whether it
// was disarmed or in flight and not yet re-armed. A disarmed item with a
// kept-aside mark is queued.
func (l *Locked[T]) Rearm(item T) bool {
	if l.closed {
		return false
	}
	e := l.Lookup(item)
	m, ok := l.Rearms(e)
	if m.N != 0 {
		l.enqueue(e)
	}
	return ok
}

// Rearms is Rearm's step for e, nil if not known. It re-arms e if it is
// one-shot and disarmed, or in flight and not yet re-armed, and reports
// whether it did. For a disarmed e with a kept-aside mark it returns the
// mark, now taken off e, for the owner to queue e (or delay it, for a
// mark with a ready time); e is then idle.
func (l *Locked[T]) Rearms(e *Entry[T]) (m KeptMark, ok bool) {
	if e == nil || e.Mode != OneShot {
		return KeptMark{}, false
	}
	switch p := l.Where(e); {
	case p == Disarmed:
		l.disarmed--
		m, e.State, e.Mark = e.Mark, Idle, KeptMark{}
	case p == InFlight && e.Flags&(Removed|Rearmed) == 0:
		e.Flags |= Rearmed
		if Returns(e) {
			l.aside++
		}
	default:
		return KeptMark{}, false
	}
	return m, true
}

// Close is Close's step. It reports whether the list was open.
func (l *Locked[T]) Close() bool {
	if l.closed {
		return false
	}
	l.closed = true
	return true
}

// CloseDiscarding is Close's step for a queue that drops delays: marks
// whose time is still to come are then forgotten at Done.
func (l *Locked[T]) CloseDiscarding() bool {
	l.discard = !l.closed
	return l.Close()
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
		for l.List.Live > 0 {
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
func (l *Locked[T]) Exhausted() bool { return l.closed && l.List.Live == 0 && l.aside == 0 }

// Idle reports whether nothing is queued or in flight (Drain).
func (l *Locked[T]) Idle() bool { return l.List.Live == 0 && l.inflight == 0 }

// ReadyNow reports whether a Wait would return at once.
func (l *Locked[T]) ReadyNow() bool { return l.List.Live > 0 || l.Exhausted() }

// Queued returns the number of queued items.
func (l *Locked[T]) Queued() int { return l.List.Live }

// InFlight returns the number of items handed out and not yet Done.
func (l *Locked[T]) InFlight() int { return l.inflight }

// Disarmed returns the number of one-shot items waiting for Rearm.
func (l *Locked[T]) Disarmed() int { return l.disarmed }

// Aside returns the number of items in flight that Done will queue again.
func (l *Locked[T]) Aside() int { return l.aside }

// Closed reports whether Close was called.
func (l *Locked[T]) Closed() bool { return l.closed }

// Slots returns the size of the list's array, for tests (0 before the
// first item).
func (l *Locked[T]) Slots() int {
	if l.List.Arr == nil {
		return 0
	}
	return l.List.Arr.Len()
}
