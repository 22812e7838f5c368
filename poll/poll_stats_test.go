package poll_test

// Tests of Stats (stats.go) and New (options.go).

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/poll"
	"github.com/evsync/evsync/signal"
)

// TestStatsFields: each field of Stats follows the calls that change it.
//   - Registered is Len.
//   - Queued counts the ready list, Armed the registrations waiting for a
//     wakeup: neither queued nor one-shot and reported.
//   - Waiters counts the blocked Wait and WaitTimeout callers, Timer the
//     one timer.
//   - Wakeups counts the wakeups that queued a registration; those
//     absorbed by a queued registration are not counted.
//   - Drops counts the queued registrations found with no event left.
func TestStatsFields(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		set := poll.New[int]()
		if st := set.Stats(); st != (poll.Stats{}) {
			t.Fatalf("Stats of a new Set = %+v, want zero", st)
		}
		sigs := []*signal.Signal{signal.New(0), signal.New(0), signal.New(0)}
		modes := []poll.Mode{poll.Edge, poll.Edge, poll.OneShot}
		for i, s := range sigs {
			if err := set.Add(s, i, poll.In, modes[i]); err != nil {
				t.Fatal(err)
			}
		}
		want := func(what string, w poll.Stats) {
			t.Helper()
			if st := set.Stats(); st != w {
				t.Fatalf("Stats %s = %+v, want %+v", what, st, w)
			}
		}
		want("after Add", poll.Stats{Registered: 3, Armed: 3})
		sigs[0].Add(1)
		sigs[0].Add(1) // absorbed: the registration is queued
		want("after two writes", poll.Stats{Registered: 3, Queued: 1, Armed: 2, Wakeups: 1})
		sigs[1].Add(1)
		sigs[1].Take() // queued, and no longer ready
		sigs[2].Add(1)
		want("after three more", poll.Stats{Registered: 3, Queued: 3, Wakeups: 3})
		wantEvents(t, "TryWait", set.TryWait(nil, 8), poll.Event[int]{Key: 0, Events: poll.In}, poll.Event[int]{Key: 2, Events: poll.In})
		want("after TryWait", poll.Stats{Registered: 3, Armed: 2, Wakeups: 3, Drops: 1}) // the one-shot one is deaf
		done := make(chan struct{}, 2)
		go func() { set.Wait(bg, nil, 4); done <- struct{}{} }()
		go func() { set.WaitTimeout(nil, 4, time.Hour); done <- struct{}{} }()
		synctest.Wait()
		want("with two callers blocked", poll.Stats{Registered: 3, Armed: 2, Waiters: 2, Timer: true, Wakeups: 3, Drops: 1})
		if err := set.Remove(sigs[1]); err != nil {
			t.Fatal(err)
		}
		want("after Remove", poll.Stats{Registered: 2, Armed: 1, Waiters: 2, Timer: true, Wakeups: 3, Drops: 1})
		set.Close()
		<-done
		<-done
		want("after Close", poll.Stats{Registered: 2, Wakeups: 3, Drops: 1})
	})
}

// TestStatsOfTheZeroSet: the zero Set and New without options are the
// same: empty, open, and their Stats are zero.
func TestStatsOfTheZeroSet(t *testing.T) {
	var zero poll.Set[string]
	for name, set := range map[string]*poll.Set[string]{"zero": &zero, "New()": poll.New[string](), "New(nil)": poll.New[string](nil)} {
		if st := set.Stats(); st != (poll.Stats{}) {
			t.Errorf("Stats of %s = %+v, want zero", name, st)
		}
		sig := signal.New(1)
		if err := set.Add(sig, name, poll.In, poll.Edge); err != nil {
			t.Fatal(err)
		}
		wantEvents(t, name+".TryWait", set.TryWait(nil, 4), poll.Event[string]{Key: name, Events: poll.In})
		set.Close()
	}
}
