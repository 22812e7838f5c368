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
	watch.Register(func(v any) (watch.Source, bool) {
		if !watch.Is(v, pkgPath, "Queue") {
			return nil, false // an embedding type too: not a source
		}
		return v.(interface{ pollSource() watch.Source }).pollSource(), true
	})
}

// pkgPath is this package's import path, for watch.Is.
var pkgPath = reflect.TypeFor[Queue[int]]().PkgPath()

// pollSource returns q as a watch.Source, or nil for a nil q. Only the
// finder above calls it, on a *Queue[T] itself: a type that embeds one
// has the method too, promoted, and a call through a nil pointer it
// embeds would panic.
func (q *Queue[T]) pollSource() watch.Source {
	if q == nil {
		return nil
	}
	return source[T]{q}
}

// source is a Queue as a watch.Source. Arm counts with an atomic add, and
// publish loads the count after it stored the counters, so a set that
// arms, then polls, sees the items or is woken (by the unlock).
type source[T comparable] struct{ q *Queue[T] }

// Watchers returns the queue's watch list.
func (s source[T]) Watchers() *watch.List { return &s.q.s.pub.watchers }

// Arm changes the count of armed registrations by d. A queue publishes
// its counters at every unlock, so it need not be told it is observed.
func (s source[T]) Arm(d int) {
	if s.q.s.pub.armed.Add(int32(d)) < 0 {
		panic("workqueue: more watchers disarmed than armed")
	}
}

// Poll reads the published counters: In while items are queued, or once
// closed with nothing aside; Hup once closed.
func (s source[T]) Poll() watch.Events {
	p := &s.q.s.pub
	closed := p.closed.Load()
	var ev watch.Events
	if p.queued.Load() > 0 || closed && p.aside.Load() == 0 {
		ev |= watch.In
	}
	if closed {
		ev |= watch.Hup
	}
	return ev
}

// hangUp wakes the poll sets with Hup, after the unlock of the section
// that closed the queue. That section stored closed first, so a set that
// arms, then polls, sees it or is woken.
func (s *state[T]) hangUp() {
	if s.pub.armed.Load() != 0 {
		s.pub.watchers.Wake(watch.Hup)
	}
}
