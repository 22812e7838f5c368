package semaphore_test

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/poll"
	"github.com/evsync/evsync/semaphore"
)

// wantEvents fails t unless a TryWait of set reports key with ev, or
// nothing for ev 0.
func wantEvents(t *testing.T, set *poll.Set[string], key string, ev poll.Events) {
	t.Helper()
	got := set.TryWait(nil, 4)
	var want []poll.Event[string]
	if ev != 0 {
		want = []poll.Event[string]{{Key: key, Events: ev}}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("TryWait = %v, want %v", got, want)
	}
}

// TestGroupIsAPollSource: a Group is readable while slots are free and
// writable while functions run. A Set waiting on a full Group wakes when
// a function ends, and a TryGo after that In starts its function.
func TestGroupIsAPollSource(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGroup(1)
		set := poll.New[string]()
		defer set.Close()
		testkit.MustNil(t, set.Add(g, "g", poll.In|poll.Out, poll.Edge))
		wantEvents(t, set, "g", poll.In) // a slot free, nothing running
		finish := make(chan struct{})
		if !g.TryGo(func() error { <-finish; return nil }) {
			t.Fatal("TryGo on an idle group did not start")
		}
		wantEvents(t, set, "g", poll.Out) // the start: no slot free, one running
		woken := testkit.Park(func() []poll.Event[string] {
			events, _ := set.Wait(context.Background(), nil, 4)
			return events
		})
		synctest.Wait()
		testkit.Pending(t, woken)
		close(finish)
		if got, want := <-woken, []poll.Event[string]{{Key: "g", Events: poll.In}}; !slices.Equal(got, want) {
			t.Fatalf("Wait after the function ended = %v, want %v", got, want)
		}
		ran := make(chan bool, 1)
		if !g.TryGo(func() error { ran <- true; return nil }) {
			t.Fatal("TryGo after In did not start")
		}
		testkit.MustNil(t, g.Wait())
		if !<-ran {
			t.Fatal("the function TryGo started did not run")
		}
		wantEvents(t, set, "g", poll.In) // the start woke it, the end too: nothing runs now
		wantEvents(t, set, "g", 0)       // edge: reported once
		testkit.MustNil(t, g.SetLimit(2))
		wantEvents(t, set, "g", poll.In) // a SetLimit wakes it; nothing runs, so no Out
	})
}

// TestGroupSourceIsTheGroupItself: a value that embeds a *Group is not a
// source; a nil *Group is not one either.
func TestGroupSourceIsTheGroupItself(t *testing.T) {
	type pool struct{ *semaphore.Group }
	var set poll.Set[string]
	defer set.Close()
	testkit.SameErr(t, "Add of a struct embedding a *Group",
		set.Add(pool{newGroup(1)}, "p", poll.In, poll.Edge), poll.ErrInvalid)
	testkit.SameErr(t, "Add of a nil *Group", set.Add((*semaphore.Group)(nil), "n", poll.In, poll.Edge), poll.ErrInvalid)
	testkit.SameErr(t, "Add of a *Group", set.Add(newGroup(1), "g", poll.In, poll.Edge), nil)
}
