package workqueue_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/workqueue"
)

// wantUnhashable calls f, which must panic with the runtime's own error
// for a map key that cannot be hashed.
func wantUnhashable(t *testing.T, what string, f func()) {
	t.Helper()
	p := func() (p any) {
		defer func() { p = recover() }()
		f()
		return nil
	}()
	if err, ok := p.(runtime.Error); !ok || !strings.Contains(err.Error(), "hash of unhashable type") {
		t.Fatalf("%s panicked with %#v, want the runtime's \"hash of unhashable type\" error", what, p)
	}
}

// wantUnchanged fails t if the call that just panicked left q's lock held
// or changed its counts.
func wantUnchanged[T comparable](t *testing.T, what string, q *workqueue.Queue[T], before workqueue.Stats) {
	t.Helper()
	if workqueue.Locked(q) {
		t.Fatalf("%s panicked with the queue's lock held: every later call would block", what)
	}
	if st := q.Stats(); st != before {
		t.Fatalf("%s panicked after changing the queue: %v, was %v", what, st, before)
	}
}

// onOther runs f on a goroutine of its own (in the synctest bubble) and
// returns its result.
func onOther[R any](f func() R) R { return <-testkit.Park(f) }

// TestUnhashableAddLeavesQueueUsable: in a Queue[any], Add of a []int
// panics with the runtime's error, as a map index would, and leaves the
// queue unlocked and unchanged: Add, Wait, Done, TryTake and Close from
// other goroutines still work, with the right counts. (Add used to panic
// with the lock held, so that every later call blocked for good.)
func TestUnhashableAddLeavesQueueUsable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New[any]()
		q.Add(1)
		q.Add("two")
		held := q.TryTake(1)
		before := q.Stats()
		wantUnhashable(t, "Add([]int)", func() { q.Add([]int{3}) })
		wantUnchanged(t, "Add([]int)", q, before)
		got := onOther(func() []any { items, _ := q.Wait(bg, 4); return items })
		if len(got) != 1 || got[0] != "two" {
			t.Fatalf("Wait after the panic = %v, want [two]", got)
		}
		if n := onOther(func() int { return q.Done(append(held, got...)...) }); n != 2 || q.InFlight() != 0 {
			t.Fatalf("Done after the panic = %d, want 2 (%v)", n, q)
		}
		parked := testkit.Park(func() []any { items, _ := q.Wait(bg, 4); return items })
		if !onOther(func() bool { return q.Add(3) }) {
			t.Fatal("Add after the panic = false")
		}
		if got := <-parked; len(got) != 1 || got[0] != 3 || q.InFlight() != 1 || q.Len() != 0 {
			t.Fatalf("parked Wait after the panic = %v, want [3] (%v)", got, q)
		}
		if items := onOther(func() []any { return q.TryTake(4) }); len(items) != 0 {
			t.Fatalf("TryTake = %v, want nothing queued", items)
		}
		onOther(func() int { q.Close(); return q.Done(3) })
		if _, err := q.Wait(bg, 1); err != workqueue.ErrClosed || q.Len() != 0 || q.InFlight() != 0 {
			t.Fatalf("Wait after Close = %v (%v)", err, q)
		}
	})
}

// stringers is an unhashable fmt.Stringer.
type stringers []string

func (stringers) String() string { return "stringers" }

// anyField is an item type that holds an interface in a field.
type anyField struct{ K any }

// TestUnhashableArgumentChangesNothing: Done, Next, Remove, Rearm and
// AddMode given an unhashable item among hashable ones panic before they
// change anything: the items before it are not half finished (Done used
// to leave them out of the queue for good), and the queue works on. For
// each kind of item type that holds an interface: the empty interface
// (also in a zero-value queue), a non-empty one, a struct field and an
// array element.
func TestUnhashableArgumentChangesNothing(t *testing.T) {
	t.Run("any", func(t *testing.T) { unhashableArgs[any](t, workqueue.New[any], []any{1, "2", 3.0}, []int{4}) })
	t.Run("zero value", func(t *testing.T) {
		unhashableArgs[any](t, func(...workqueue.Option) *workqueue.Queue[any] { return new(workqueue.Queue[any]) }, []any{1, 2, 3}, map[int]int{})
	})
	t.Run("Stringer", func(t *testing.T) {
		unhashableArgs[fmt.Stringer](t, workqueue.New[fmt.Stringer],
			[]fmt.Stringer{workqueue.Level, workqueue.Edge, workqueue.OneShot}, stringers{"x"})
	})
	t.Run("struct field", func(t *testing.T) {
		unhashableArgs(t, workqueue.New[anyField], []anyField{{1}, {2}, {3}}, anyField{func() {}})
	})
	t.Run("array element", func(t *testing.T) {
		unhashableArgs(t, workqueue.New[[2]any], [][2]any{{1}, {2}, {3}}, [2]any{1, []byte{}})
	})
}

// unhashableArgs runs the calls of TestUnhashableArgumentChangesNothing
// on a queue made by newQ, with three hashable items and a bad one.
func unhashableArgs[T comparable](t *testing.T, newQ func(...workqueue.Option) *workqueue.Queue[T], good []T, bad T) {
	q := newQ()
	for _, k := range good {
		q.AddMode(k, workqueue.OneShot)
	}
	held := q.TryTake(len(good))
	q.Add(good[0]) // kept aside: Done queues it again (once re-armed)
	q.Rearm(good[0])
	before := q.Stats()
	for _, c := range []struct {
		what string
		call func()
	}{
		{"Done", func() { q.Done(good[0], good[1], bad, good[2]) }},
		{"Next", func() { _, _ = q.Next(context.Background(), []T{good[0], good[1], bad}, 1) }},
		{"Remove", func() { q.Remove(bad) }},
		{"Rearm", func() { q.Rearm(bad) }},
		{"AddMode", func() { q.AddMode(bad, workqueue.Level) }},
	} {
		wantUnhashable(t, c.what, c.call)
		wantUnchanged(t, c.what, q, before)
	}
	if n := q.Done(held...); n != len(good) {
		t.Fatalf("Done of the items held = %d, want %d: a call that panicked finished some (%v)", n, len(good), q)
	}
	if got := q.TryTake(len(good)); len(got) != 1 || got[0] != good[0] {
		t.Fatalf("TryTake = %v, want the kept-aside mark's %v", got, good[0])
	}
	q.Close()
	before = q.Stats()
	wantUnhashable(t, "Add after Close", func() { q.Add(bad) }) // as a map would, whatever the state
	wantUnchanged(t, "Add after Close", q, before)
}

// TestOnlyInterfaceItemsAreProbed: the probe before the lock is made only
// for item types whose hash can panic, so that queues of other types pay
// nothing for it.
func TestOnlyInterfaceItemsAreProbed(t *testing.T) {
	for name, c := range map[string]struct{ got, want bool }{
		"int":                 {workqueue.Probes(workqueue.New[int]()), false},
		"string":              {workqueue.Probes(new(workqueue.Queue[string])), false},
		"pointer":             {workqueue.Probes(workqueue.New[*int]()), false},
		"struct of scalars":   {workqueue.Probes(workqueue.New[struct{ a, b int }]()), false},
		"array of strings":    {workqueue.Probes(workqueue.New[[2]string]()), false},
		"any":                 {workqueue.Probes(workqueue.New[any]()), true},
		"zero value of any":   {workqueue.Probes(new(workqueue.Queue[any])), true},
		"error":               {workqueue.Probes(workqueue.New[error]()), true},
		"struct with any":     {workqueue.Probes(workqueue.New[anyField]()), true},
		"nested struct":       {workqueue.Probes(workqueue.New[struct{ s struct{ e error } }]()), true},
		"array of interfaces": {workqueue.Probes(workqueue.New[[1]interface{ String() string }]()), true},
	} {
		if c.got != c.want {
			t.Errorf("Queue[%s] probes items = %v, want %v", name, c.got, c.want)
		}
	}
}
