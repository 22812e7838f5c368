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

// source is a Queue as a watch.Source. Arm counts with an atomic add after
// the queue is observed, and unlock loads the count after it published,
// so a set that arms, then polls, sees the items or is woken.
type source[T comparable] struct{ q *Queue[T] }

// Watchers returns the queue's watch list.
func (s source[T]) Watchers() *watch.List { return &s.q.pub.watchers }

// Arm makes the queue observed, then changes the count of armed
// registrations by d.
func (s source[T]) Arm(d int) {
	s.q.watch()
	if s.q.pub.armed.Add(int32(d)) < 0 {
		panic("readyq: more watchers disarmed than armed")
	}
}

// Poll reads the published counts: In while items are queued, or once
// closed with nothing aside; Hup once closed.
func (s source[T]) Poll() watch.Events {
	p := &s.q.pub
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
