package poll

import (
	"sync/atomic"

	"github.com/evsync/evsync/internal/watch"
)

// A Source makes a program's own type a source of Sets, as the built-in
// sources are (mio 0.6's Registration and SetReadiness, in one value). The
// type keeps a *Source, made by NewSource with a function that reports
// its events, and passes it to Add, Modify and Remove. The type keeps two
// rules:
//   - its poll function returns the events that hold now: In if a read
//     would not block, Out if a write would not, Hup once it is closed
//   - after each change that can make an event hold, it calls Notify with
//     the events of the change, once the change is visible to the poll
//     function and with none of its own locks held
//
// That is all a Set needs to lose no wakeup. A Set arms a registration,
// then polls the source. So a change either shows in that poll, or comes
// after the arming and its Notify wakes the registration.
//
// Cost:
//   - Add, Modify and Remove are O(1), and no goroutine runs for a Source
//   - a Notify that no armed registration waits for is one atomic load
//   - a Notify that wakes one costs what a built-in source's wakeup costs
//
// A Set calls the poll function with its own lock held, and a Notify
// takes that lock. So the poll function must not block, must not call
// the Set, must not panic, and must not take a lock that is held around
// Notify. A poll function that takes the type's own lock is fine, if
// Notify is called after that lock is released.
//
// A Source must not be copied after first use. A value of a type that
// embeds a Source or a *Source is not a source: pass the *Source.
type Source struct {
	_     noCopy
	list  watch.List
	armed atomic.Int32
	poll  func() Events
}

// NewSource returns a Source whose events poll reports. A nil poll makes
// a Source that Add refuses with ErrInvalid.
func NewSource(poll func() Events) *Source { return &Source{poll: poll} }

// Notify tells the Sets that hold s of a change with the events ev: In
// for a write, Out for a read, Hup for a close, or a union of them. A
// registration that waits for one of them (Hup always counts) is queued,
// and its Set polls s again when a Wait takes it. Bits other than In, Out
// and Hup are ignored.
//
// Call it after the change, with none of your own locks held. It costs
// one atomic load while no registration waits for a change of s. Notify
// of a nil *Source does nothing.
func (s *Source) Notify(ev Events) {
	if s == nil || s.armed.Load() == 0 {
		return
	}
	if ev &= In | Out | Hup; ev != 0 {
		s.list.Wake(watch.Events(ev))
	}
}

// userSource is a Source as a watch.Source.
type userSource struct{ s *Source }

// Watchers returns the Source's watch list.
func (u userSource) Watchers() *watch.List { return &u.s.list }

// Arm counts the Source's armed registrations, which Notify reads.
func (u userSource) Arm(d int) { u.s.armed.Add(int32(d)) }

// Poll calls the Source's poll function and keeps the events it knows.
func (u userSource) Poll() watch.Events { return watch.Events(u.s.poll() & (In | Out | Hup)) }

// Sources of the user's own, deadlines and contexts are found by their
// exact types.
func init() {
	watch.Register(func(v any) (watch.Source, bool) {
		switch x := v.(type) {
		case *Source:
			if x == nil {
				return nil, true
			}
			return userSource{x}, true
		case *Deadline:
			if x == nil {
				return nil, true
			}
			return deadlineSource{x}, true
		case *Done:
			if x == nil {
				return nil, true
			}
			return doneSource{x}, true
		}
		return nil, false
	})
}
