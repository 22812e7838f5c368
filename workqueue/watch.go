package workqueue

import (
	"reflect"

	"github.com/evsync/evsync/internal/watch"
)

// A *Queue is a source of poll sets, as a *readyq.Queue is. It is
// readable (In) while items are queued, or once it is closed with nothing
// left to hand out (a Wait would not block). It is closed (Hup) once
// Close or CloseDiscardingDelays ran.
//
// A locked section that leaves items queued wakes the sets with In. That
// includes delayed items that become due, when the queue's timer or any
// call moves them to the queue. Close wakes the sets with Hup.
//
// A set reads the queue with atomic loads only, and reads no clock. On a
// user's clock (WithClock), a delayed item whose time the clock has
// passed is queued when the queue next moves it: when the clock fires the
// queue's timer (a fake clock does so at the Step that passes it), or at
// the next call of the queue (Len, Stats, TryTake or any other). The set
// sees it then, not before.
func init() {
	watch.RegisterGeneric(reflect.TypeFor[*Queue[int]](), func(v any) watch.Source {
		return v.(interface{ pollSource() watch.Source }).pollSource()
	})
}

// pollSource returns q as a watch.Source: the counters it publishes.
// Only the finder above calls it, on a non-nil *Queue[T] itself
// (watch.RegisterGeneric).
func (q *Queue[T]) pollSource() watch.Source { return &q.s.pub }

// The published counters are the queue as a watch.Source. Arm counts with
// an atomic add, and publish loads the count after it stored the
// counters, so a set that arms, then polls, sees the items or is woken
// (by the unlock). A queue publishes its counters at every unlock, so it
// need not be told it is observed.

// Watchers returns the queue's watch list.
func (p *published) Watchers() *watch.List { return &p.Sets }

// Arm changes the count of armed registrations by d.
func (p *published) Arm(d int) { watch.Count(&p.Armed, d, "workqueue") }

// Poll reads the published counters: In while items are queued, or once
// closed with nothing aside; Hup once closed.
func (p *published) Poll() watch.Events {
	return watch.QueueEvents(p.Closed.Load(), &p.Queued, &p.Aside)
}

// hangUp wakes the poll sets with Hup, after the unlock of the section
// that closed the queue. That section stored closed first, so a set that
// arms, then polls, sees it or is woken.
func (s *state[T]) hangUp() {
	if s.pub.Armed.Load() != 0 {
		s.pub.Sets.Wake(watch.Hup)
	}
}
