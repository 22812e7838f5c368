package watch_test

import (
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
