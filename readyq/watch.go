package readyq

import (
	"reflect"

	"github.com/evsync/evsync/internal/watch"
)

// A *Queue is a source of poll sets: readable while items are queued, or
// once it is closed with nothing left to hand out (a Wait would not
// block); closed (Hup) once Close ran. A locked section that leaves items
// queued wakes the sets with In, and Close with Hup. A queue in a set is
// observed: from its registration on, every unlock publishes the counts,
// as after the first Stats.
func init() {
	watch.RegisterGeneric(reflect.TypeFor[*Queue[int]](), func(v any) watch.Source {
		return v.(interface{ pollSource() watch.Source }).pollSource()
	})
}

// pollSource returns q as a watch.Source. Only the finder above calls
// it, on a non-nil *Queue[T] itself (watch.RegisterGeneric).
func (q *Queue[T]) pollSource() watch.Source { return source[T]{q} }

// source is a Queue as a watch.Source. Arm counts with an atomic add after
// the queue is observed, and unlock loads the count after it published,
// so a set that arms, then polls, sees the items or is woken.
type source[T comparable] struct{ q *Queue[T] }

// Watchers returns the queue's watch list.
func (s source[T]) Watchers() *watch.List { return &s.q.pub.Sets }

// Arm makes the queue observed, then changes the count of armed
// registrations by d.
func (s source[T]) Arm(d int) {
	s.q.watch()
	watch.Count(&s.q.pub.Armed, d, "readyq")
}

// Poll reads the published counts: In while items are queued, or once
// closed with nothing aside; Hup once closed.
func (s source[T]) Poll() watch.Events {
	p := &s.q.pub
	return watch.QueueEvents(p.Closed.Load(), &p.Queued, &p.Aside)
}
