package readyq

import "github.com/evsync/evsync/internal/watch"

// A *Queue is a source of poll sets: readable while items are queued, or
// once it is closed with nothing left to hand out (a Wait would not
// block); closed (Hup) once Close ran. A locked section that leaves items
// queued wakes the sets with In, and Close with Hup. A queue in a set is
// observed: from its registration on, every unlock publishes the counts,
// as after the first Stats.
func init() {
	watch.Register(func(v any) (watch.Source, bool) {
		if q, ok := v.(interface{ pollSource(v any) watch.Source }); ok {
			s := q.pollSource(v)
			return s, s != nil
		}
		return nil, false
	})
}

// pollSource returns q as a watch.Source if v is q itself, and nil for a
// nil q. A type that embeds a *Queue has this method too, promoted, and
// then v is the embedding value: it is not a source, since a Set keys its
// registrations by the queue. The comparison cannot panic: v's dynamic
// type is not q's, or it is the pointer type *Queue[T].
func (q *Queue[T]) pollSource(v any) watch.Source {
	if q == nil || v != any(q) {
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
