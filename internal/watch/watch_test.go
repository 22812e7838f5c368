package watch_test

import (
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/evsync/evsync/internal/watch"
)

// tape records the wakeups of the watchers that share it, by name.
type tape struct {
	mu  sync.Mutex
	got []string
}

type named struct {
	name string
	t    *tape
}

func (n *named) Wake(ev watch.Events) {
	n.t.mu.Lock()
	n.t.got = append(n.t.got, n.name+":"+string('0'+byte(ev)))
	n.t.mu.Unlock()
}

func TestListWakesItsWatchersNewestFirst(t *testing.T) {
	var l watch.List
	l.Wake(watch.In) // an empty List wakes nobody
	tp := new(tape)
	a, b, c := &named{"a", tp}, &named{"b", tp}, &named{"c", tp}
	l.Add(a)
	l.Add(b)
	l.Add(c)
	l.Wake(watch.In)
	if !l.Remove(b) || l.Remove(b) {
		t.Fatal("Remove(b) did not report true, then false")
	}
	l.Wake(watch.Out | watch.Hup)
	want := []string{"c:1", "b:1", "a:1", "c:6", "a:6"} // the newest first
	if !slices.Equal(tp.got, want) {
		t.Fatalf("wakeups %q, want %q", tp.got, want)
	}
	if n := l.Len(); n != 2 {
		t.Fatalf("Len = %d, want 2", n)
	}
	l.Remove(a)
	l.Remove(c)
	if n := l.Len(); n != 0 {
		t.Fatalf("Len = %d after removing all, want 0", n)
	}
}

// TestListWakesWhileWatchersComeAndGo: a Wake running while Add and
// Remove change the List sees one version of it whole, never a torn one
// (run with -race).
func TestListWakesWhileWatchersComeAndGo(t *testing.T) {
	var l watch.List
	tp := new(tape)
	stay := &named{"stay", tp}
	l.Add(stay)
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 1000 {
			w := &named{"go", tp}
			l.Add(w)
			if i%2 == 0 {
				l.Wake(watch.In)
			}
			l.Remove(w)
		}
	})
	wg.Go(func() {
		for range 1000 {
			l.Wake(watch.Out)
		}
	})
	wg.Wait()
	stays := 0
	for _, g := range tp.got {
		if g[:4] == "stay" {
			stays++
		}
	}
	if stays != 1500 {
		t.Fatalf("the watcher that stayed was woken %d times, want 1500", stays)
	}
}

// Box is a generic type of this test package, and Boxes a type whose
// name begins with Box's.
type (
	Box[T any] struct{ V T }
	Boxes      struct{}
	boxOwner   struct {
		Name string
		*Box[int]
	}
)

var testPkg = reflect.TypeFor[Boxes]().PkgPath()

func TestIsTakesTheExactTypeOnly(t *testing.T) {
	for _, c := range []struct {
		v    any
		want bool
	}{
		{&Box[int]{}, true},
		{&Box[string]{}, true},
		{(*Box[int])(nil), true},
		{Box[int]{}, false},    // not a pointer
		{&Boxes{}, false},      // another name that begins with Box
		{&boxOwner{}, false},   // embeds one
		{boxOwner{}, false},    // by value too
		{nil, false},           // no type at all
		{new(int), false},      // another package's type
		{&[]Box[int]{}, false}, // a pointer to something unnamed
	} {
		if got := watch.Is(c.v, testPkg, "Box"); got != c.want {
			t.Errorf("Is(%T) = %v, want %v", c.v, got, c.want)
		}
	}
}

func init() {
	watch.Register(func(v any) (watch.Source, bool) {
		if !watch.Is(v, testPkg, "Box") {
			return nil, false
		}
		return nil, true // no Source is needed: Embedded only asks the type
	})
}

func TestEmbeddedNamesTheSourceAValueEmbeds(t *testing.T) {
	for _, v := range []any{boxOwner{}, &boxOwner{}, (*boxOwner)(nil)} {
		if typ, ok := watch.Embedded(v); !ok || typ != reflect.TypeFor[*Box[int]]() {
			t.Errorf("Embedded(%T) = %v, %v; want *Box[int]", v, typ, ok)
		}
	}
	for _, v := range []any{nil, 3, &Boxes{}, struct{ b *Box[int] }{}} {
		if typ, ok := watch.Embedded(v); ok {
			t.Errorf("Embedded(%T) = %v, want none", v, typ)
		}
	}
}

// TestRemoveOfAnOlderWatcherWhileWaking removes watchers that are not the
// newest while another goroutine wakes the List over and over. Remove
// copies the nodes in front of the one it takes out, so a Wake walks the
// version it loaded whole. Run under -race: a Remove that unlinked a node
// in place would write what the Wake reads.
func TestRemoveOfAnOlderWatcherWhileWaking(t *testing.T) {
	var l watch.List
	tp := new(tape)
	ws := []*named{{"a", tp}, {"b", tp}, {"c", tp}, {"d", tp}}
	for _, w := range ws {
		l.Add(w)
	}
	stop, started, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		l.Wake(watch.In)
		close(started)
		for {
			select {
			case <-stop:
				return
			default:
				l.Wake(watch.In)
			}
		}
	}()
	<-started
	for _, w := range []*named{ws[1], ws[0]} { // b, then a: the oldest ones
		if !l.Remove(w) {
			t.Fatalf("Remove(%s) = false", w.name)
		}
	}
	close(stop)
	<-done
	tp.got = nil
	l.Wake(watch.Out)
	if want := []string{"d:2", "c:2"}; !slices.Equal(tp.got, want) {
		t.Fatalf("Wake after the Removes = %v, want %v", tp.got, want)
	}
}
