package coalesce

import "github.com/evsync/evsync/internal/watch"

// A *Waker is a source of poll sets: readable while a wakeup is pending
// (delivered, and not yet reported by Wait or Events), closed once Close
// ran. Each wakeup it delivers wakes the sets with In, and Close with
// Hup. Wake itself does not: a set hears the Waker's wakeups, not the
// events they coalesce. A poll loop consumes a reported wakeup with
// Events, which also takes its token off C (see the Waker doc).
func init() {
	watch.Register(func(v any) (watch.Source, bool) {
		w, ok := v.(*Waker)
		if !ok || w == nil {
			return nil, ok
		}
		return source{&w.out}, true
	})
}

// source is a Waker's outbox as a watch.Source. Arm counts with an atomic
// add, and Deliver loads the count after it stores what it delivers, so a
// set that arms, then polls, sees the wakeup or is woken by it.
type source struct{ b *outbox }

// Watchers returns the Waker's watch list.
func (s source) Watchers() *watch.List { return &s.b.watch }

// Arm changes the count of armed registrations by d.
func (s source) Arm(d int) {
	if s.b.armed.Add(int32(d)) < 0 {
		panic("coalesce: more watchers disarmed than armed")
	}
}

// Poll reports In while a wakeup is pending, In|Hup once closed.
func (s source) Poll() watch.Events {
	switch {
	case s.b.closed.Load():
		return watch.In | watch.Hup
	case s.b.delivered.Load() != 0:
		return watch.In
	}
	return 0
}
