package readyq

import (
	"slices"
	"sync"
)

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
	q.keys.CheckAll(items)
	if q.recheck == nil {
		return q.finish(items, nil)
	}
	if len(items) > smallDone {
		return q.doneBig(items)
	}
	var ready [smallDone]bool // on the stack, so no allocation per Done
	for i, item := range items {
		ready[i] = q.recheck(item)
	}
	return q.finish(items, ready[:len(items)])
}

// finish is Done's locked section. It finishes all the Done's items at
// once. So the rule for repeats covers the whole call: finishing in
// several sections would let a repeat in a later one find the item
// handed to another consumer meanwhile, and end that consumer's
// hand-out.
func (q *Queue[T]) finish(items []T, ready []bool) int {
	l := q.lock()
	n := l.Finish(items, ready)
	l.Settle()
	q.unlock(l)
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

// doneBig is Done with a recheck function for more than smallDone items.
// A panicking recheck leaves the buffer to the collector.
func (q *Queue[T]) doneBig(items []T) int {
	p := readyBufs.Get().(*[]bool)
	ready := slices.Grow((*p)[:0], len(items))[:len(items)]
	for i, item := range items {
		ready[i] = q.recheck(item)
	}
	n := q.finish(items, ready)
	if cap(ready) <= maxPooled {
		*p = ready
		readyBufs.Put(p)
	}
	return n
}
