package watch

import (
	"reflect"
	"strings"
	"sync/atomic"
)

// RegisterGeneric registers a generic source type G, given by one of its
// pointer types (reflect.TypeFor[*G[int]]()). Its finder takes a *G[T]
// of every T by its exact type (Is), never a type that embeds one. It
// gives nil for a nil pointer, and otherwise src(v). src asserts v to an
// interface of an unexported method of G that returns the Source: a
// *G[T] of every T has that method, and only this finder calls it.
func RegisterGeneric(ptr reflect.Type, src func(v any) Source) {
	t := ptr.Elem()
	pkg, name := t.PkgPath(), t.Name()
	if i := strings.IndexByte(name, '['); i >= 0 {
		name = name[:i]
	}
	Register(func(v any) (Source, bool) {
		switch {
		case !Is(v, pkg, name):
			return nil, false
		case reflect.ValueOf(v).IsNil():
			return nil, true
		}
		return src(v), true
	})
}

// QueueEvents returns the events of a queue (readyq, workqueue) from the
// counters it publishes, loaded in this order by the caller:
//   - closed: Close has been called;
//   - queued: the items queued;
//   - aside: the items in flight with a mark that Done will queue.
//
// The queue is readable (In) while items are queued, or once it is
// closed with nothing aside: then a Wait would not block. It is closed
// (Hup) once Close ran.
func QueueEvents(closed bool, queued, aside *atomic.Int64) Events {
	var ev Events
	if queued.Load() > 0 || closed && aside.Load() == 0 {
		ev |= In
	}
	if closed {
		ev |= Hup
	}
	return ev
}

// Count changes a source's count of armed registrations by d (its Arm).
// It panics, saying so with the prefix pkg, if the count goes below 0: a
// set disarmed more than it armed.
func Count(armed *atomic.Int32, d int, pkg string) {
	if armed.Add(int32(d)) < 0 {
		panic(pkg + ": more watchers disarmed than armed")
	}
}
