package poll_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/evsync/evsync/poll"
	"github.com/evsync/evsync/signal"
)

// TestASetInASet: an outer Set reports an inner one when a source is
// queued on it, as an epoll instance reports another that has events.
func TestASetInASet(t *testing.T) {
	var inner poll.Set[int]
	var outer poll.Set[string]
	defer outer.Close()
	a := signal.New(0)
	if err := inner.Add(a, 1, poll.In, poll.Edge); err != nil {
		t.Fatal(err)
	}
	if err := outer.Add(&inner, "inner", poll.In, poll.Edge); err != nil {
		t.Fatal(err)
	}
	want := func(got, want []poll.Event[string]) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Fatalf("outer TryWait = %v, want %v", got, want)
		}
	}
	want(outer.TryWait(nil, 4), nil) // nothing queued inside
	a.Add(1)
	want(outer.TryWait(nil, 4), []poll.Event[string]{{Key: "inner", Events: poll.In}})
	want(outer.TryWait(nil, 4), nil) // edge: once per wakeup
	if evs := inner.TryWait(nil, 4); len(evs) != 1 || evs[0].Key != 1 {
		t.Fatalf("inner TryWait = %v, want a", evs)
	}
	a.Add(1) // queued inside again: a new wakeup of the outer Set
	want(outer.TryWait(nil, 4), []poll.Event[string]{{Key: "inner", Events: poll.In}})
	inner.Close()
	want(outer.TryWait(nil, 4), []poll.Event[string]{{Key: "inner", Events: poll.In | poll.Hup}})
}

// TestSetsMakeNoLoop: a Set cannot hold itself, nor a Set that holds it.
func TestSetsMakeNoLoop(t *testing.T) {
	var a, b, c poll.Set[int]
	defer a.Close()
	defer b.Close()
	defer c.Close()
	if err := a.Add(&a, 0, poll.In, poll.Level); !errors.Is(err, poll.ErrInvalid) {
		t.Fatalf("a.Add(a) = %v, want ErrInvalid", err)
	}
	if err := b.Add(&a, 0, poll.In, poll.Level); err != nil { // b holds a
		t.Fatal(err)
	}
	if err := c.Add(&b, 0, poll.In, poll.Level); err != nil { // c holds b
		t.Fatal(err)
	}
	if err := a.Add(&c, 0, poll.In, poll.Level); !errors.Is(err, poll.ErrInvalid) {
		t.Fatalf("a.Add(c), c holding a through b = %v, want ErrInvalid", err)
	}
	var nilSet *poll.Set[int]
	if err := a.Add(nilSet, 0, poll.In, poll.Level); !errors.Is(err, poll.ErrInvalid) {
		t.Fatalf("Add of a nil *Set = %v, want ErrInvalid", err)
	}
	if err := c.Remove(&b); err != nil {
		t.Fatal(err)
	}
	if err := a.Add(&c, 0, poll.In, poll.Level); err != nil { // no loop any more
		t.Fatalf("a.Add(c) once c no longer holds b = %v", err)
	}
}

// TestNoWakeupLostThroughANestedSet: writers add to signals in an inner
// Set; a consumer waits on the outer Set, then takes what the inner one
// reports. Every unit written is taken.
func TestNoWakeupLostThroughANestedSet(t *testing.T) {
	const sources, writers, each = 16, 4, 300
	var inner poll.Set[int]
	var outer poll.Set[string]
	defer outer.Close()
	defer inner.Close()
	sigs := make([]*signal.Signal, sources)
	for i := range sigs {
		sigs[i] = signal.New(0)
		if err := inner.Add(sigs[i], i, poll.In, poll.Edge); err != nil {
			t.Fatal(err)
		}
	}
	if err := outer.Add(&inner, "inner", poll.In, poll.Edge); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for j := range each {
				sigs[(w*each+j)%sources].Add(1)
			}
		})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var taken uint64
	var outerBuf []poll.Event[string]
	var innerBuf []poll.Event[int]
	for taken < writers*each {
		var err error
		if outerBuf, err = outer.Wait(ctx, outerBuf[:0], 1); err != nil {
			t.Fatalf("outer Wait with %d of %d units taken: %v", taken, writers*each, err)
		}
		for innerBuf = inner.TryWait(innerBuf[:0], sources); len(innerBuf) > 0; innerBuf = inner.TryWait(innerBuf[:0], sources) {
			for _, e := range innerBuf {
				taken += sigs[e.Key].Take()
			}
		}
	}
	wg.Wait()
}
