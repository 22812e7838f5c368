// Package rq is the queues' core, which readyq and workqueue share. It
// holds what a queue knows about each item (Entry), where it keeps the
// entries (Slab), how it finds them (Index), its ready list (Fifo) and
// the key check (Keys). Locked is a queue's guarded state and its
// steps, with the decision table of Done: readyq runs on it alone, and
// workqueue holds one and adds its lanes, delays and extra parts. Everything
// here is used only with the owning queue's lock held, unless its doc
// says otherwise.
package rq

// An Entry is what a queue knows about one item. It is kept by value in
// the queue's slab (slab.go), and forgotten entries are recycled. Only
// with the lock held. Its fields come in three groups.
//
//   - the item and its slots
//   - where it is (State and Seq)
//   - what it carries (Mode, Flags, Retried, Mark)
//
// X, Retried and Mark's At and Seq are the work queue's. The ready list
// leaves them zero.
type Entry[T comparable] struct {
	Item T      // the item, or the zero value once forgotten
	Hash uint32 // the item's hash bits in the index (index.go)
	ID   int32  // its slot in the slab
	X    int32  // its extra part's number in the work queue's extras, 0 until it needs one

	State Place  // where it is as Where reads it, either Listed (on the queue's Fifo) or the place itself
	Seq   uint64 // its number on a Fifo, or once released the free list's next (slab.go)

	Mode    Mode
	Flags   Flags    // Removed or Rearmed, in flight
	Retried bool     // AddRateLimited was called for it, so the limiter forgets it with the item
	Mark    KeptMark // a mark kept aside for Done or Rearm, in flight or disarmed
}

// Kept reports whether e is a kept entry: an edge or level item that the
// queue forgot, whose entry it keeps, idle, for the item's next mark
// (Config.Keep). Idle one-shot items are armed, not kept.
func (e *Entry[T]) Kept() bool { return e.State == Idle && e.Mode != OneShot }

// A KeptMark is a mark made while its item is in flight or disarmed. It
// is kept aside until Done or Rearm acts on it (epoll's overflow list).
type KeptMark struct {
	N   uint64 // its arrival number, the order Done queues marks in, or 0 for no mark
	At  int64  // its ready time, or 0 if due at once (the work queue's)
	Seq uint64 // the order At was set, for ties when it becomes a delay
}

// A Place is where an item a queue knows is. The places are the nodes of
// the diagrams in the packages' docs. Where reads it from an entry's
// State.
type Place uint8

const (
	Queued   Place = iota // on the list (or a work queue's lane), to be handed out
	InFlight              // handed out, not yet Done
	Delayed               // waiting for its ready time (the work queue's)
	Idle                  // one-shot, armed, not queued, and known until Remove
	Disarmed              // one-shot, Done, waiting for Rearm
	Listed                // stored, never returned, for an entry on the list, queued or in flight (see Where)
)

// The Flags are properties of an item in flight, not places.
type Flags uint8

const (
	Removed Flags = 1 << iota // Removed, so Done forgets it
	Rearmed                   // one-shot and re-armed, so Done may queue it
)

// A Mode is an entry's trigger mode. Its values are those of the public
// Mode, which converts to it.
type Mode uint8

const (
	Edge Mode = iota
	Level
	OneShot
)
