package watch_test

import (
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/evsync/evsync/internal/watch"
)

// gen is a generic source type for RegisterGeneric, as a readyq.Queue is.
type gen[T any] struct{ list watch.List }

// genSource is a *gen[T] as a Source.
type genSource[T any] struct{ g *gen[T] }

func (s genSource[T]) Watchers() *watch.List { return &s.g.list }
func (genSource[T]) Arm(int)                 {}
func (genSource[T]) Poll() watch.Events      { return watch.In }

func (g *gen[T]) asTestSource() watch.Source { return genSource[T]{g} }

// embedsGen embeds a *gen, and so has its method, promoted.
type embedsGen struct{ *gen[string] }

func init() {
	watch.RegisterGeneric(reflect.TypeFor[*gen[int]](), func(v any) watch.Source {
		return v.(interface{ asTestSource() watch.Source }).asTestSource()
	})
}

// TestRegisterGenericFinds checks the finder RegisterGeneric adds: a
// *gen[T] of any T is a source, a nil one gives nil without a call
// through it, and a type that embeds one is not a source.
func TestRegisterGenericFinds(t *testing.T) {
	g := new(gen[string])
	if s, ok := watch.Of(g); !ok || s.Watchers() != &g.list {
		t.Fatalf("Of(*gen[string]) = %v, %v; want its source, true", s, ok)
	}
	if s, ok := watch.Of((*gen[float64])(nil)); !ok || s != nil {
		t.Fatalf("Of(nil *gen) = %v, %v; want nil, true", s, ok)
	}
	if s, ok := watch.Of(&embedsGen{}); ok {
		t.Fatalf("Of(*embedsGen) = %v, true; want not a source", s)
	}
	if s, ok := watch.Of(gen[int]{}); ok {
		t.Fatalf("Of(gen[int]) = %v, true; want not a source (not a pointer)", s)
	}
}

// TestQueueEvents checks each row of a queue's events.
func TestQueueEvents(t *testing.T) {
	for _, c := range []struct {
		closed        bool
		queued, aside int64
		want          watch.Events
	}{
		{false, 0, 0, 0},
		{false, 0, 1, 0},
		{false, 2, 0, watch.In},
		{true, 0, 0, watch.In | watch.Hup},
		{true, 0, 1, watch.Hup}, // a mark aside: a Wait would block until its Done
		{true, 1, 1, watch.In | watch.Hup},
	} {
		var queued, aside atomic.Int64
		queued.Store(c.queued)
		aside.Store(c.aside)
		if got := watch.QueueEvents(c.closed, &queued, &aside); got != c.want {
			t.Errorf("QueueEvents(closed=%v, queued=%d, aside=%d) = %v, want %v", c.closed, c.queued, c.aside, got, c.want)
		}
	}
}

// TestCountPanicsBelowZero checks that Count counts and that a disarm
// below zero panics with the package's prefix.
func TestCountPanicsBelowZero(t *testing.T) {
	var armed atomic.Int32
	watch.Count(&armed, 2, "pkg")
	watch.Count(&armed, -2, "pkg")
	if n := armed.Load(); n != 0 {
		t.Fatalf("armed = %d, want 0", n)
	}
	defer func() {
		r := recover()
		if s, _ := r.(string); !strings.HasPrefix(s, "pkg: ") {
			t.Fatalf("recovered %v, want a panic starting with %q", r, "pkg: ")
		}
	}()
	watch.Count(&armed, -1, "pkg")
}
