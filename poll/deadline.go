package poll

import (
	"time"

	"github.com/evsync/evsync/internal/watch"
)

// A Deadline is a source that reports In from its time on, as a timerfd
// that has expired. Before its time it reports nothing. It never reports
// Out or Hup.
//
// The time is read on the clock of each Set that holds the Deadline: the
// wall clock, or the one given with WithClock. So a Deadline for a Set on
// a fake clock takes that clock's time, such as fake.Now().Add(d). Inside
// a testing/synctest bubble, time.Now is the bubble's.
//
// A Set keeps its armed Deadlines in a heap and arms one timer for the
// earliest. So a Set holds many Deadlines at the cost of one timer, and
// an expiry costs a heap step. Deadlines whose time has come together
// are queued together, in time order, before a waiter is served: one
// Wait takes up to its max of them. A Deadline costs nothing outside a
// Set.
//
// A Deadline's time never changes. To move it, Remove it and Add a new
// one, or Modify the registration to re-arm a one-shot one.
type Deadline struct{ at time.Time }

// NewDeadline returns a Deadline that reports In from at on.
func NewDeadline(at time.Time) *Deadline { return &Deadline{at} }

// Time returns the Deadline's time, or the zero time for a nil
// *Deadline.
func (d *Deadline) Time() time.Time {
	if d == nil {
		return time.Time{}
	}
	return d.at
}

// deadlineSource is a Deadline as a watch.Source. A Set handles it
// itself (its timing), so it has no watch list and counts no arms.
type deadlineSource struct{ d *Deadline }

// Watchers returns nil: nothing but a Set's timer wakes a Deadline's
// registration.
func (deadlineSource) Watchers() *watch.List { return nil }

// Arm does nothing: the Set puts an armed registration in its heap.
func (deadlineSource) Arm(int) {}

// Poll reports In if the time has come on the wall clock. A Set does not
// call it: it reads its own clock (reg.has).
func (x deadlineSource) Poll() watch.Events {
	if !time.Now().Before(x.d.at) {
		return watch.In
	}
	return 0
}
