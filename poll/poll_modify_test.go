package poll_test

// Tests of Modify's key (poll.go): EPOLL_CTL_MOD with epoll_data.

import (
	"testing"

	"github.com/evsync/evsync/poll"
	"github.com/evsync/evsync/signal"
)

// TestModifyKeyOfAQueuedSource: Modify of a queued registration keeps its
// place on the ready list, and the Wait reports it with the new key and
// events.
func TestModifyKeyOfAQueuedSource(t *testing.T) {
	var set poll.Set[string]
	defer set.Close()
	sigs := map[string]*signal.Signal{}
	for _, key := range []string{"a", "b", "c"} {
		sigs[key] = signal.New(0)
		if err := set.Add(sigs[key], key, poll.In, poll.Edge); err != nil {
			t.Fatal(err)
		}
	}
	for _, key := range []string{"a", "b", "c"} {
		sigs[key].Add(1)
	}
	if err := set.Modify(sigs["b"], "B", poll.In|poll.Out, poll.Edge); err != nil {
		t.Fatal(err)
	}
	if st := set.Stats(); st.Queued != 3 {
		t.Fatalf("Stats after Modify = %+v, want the 3 still queued", st)
	}
	wantEvents(t, "TryWait", set.TryWait(nil, 8),
		poll.Event[string]{Key: "a", Events: poll.In},
		poll.Event[string]{Key: "B", Events: poll.In | poll.Out},
		poll.Event[string]{Key: "c", Events: poll.In})
}

// TestModifyKeyOfAnArmedOrDeafSource: an armed registration, and a
// one-shot one that was reported, take the new key too, for their next
// report.
func TestModifyKeyOfAnArmedOrDeafSource(t *testing.T) {
	var set poll.Set[int]
	defer set.Close()
	armed, deaf := signal.New(0), signal.New(1)
	if err := set.Add(armed, 1, poll.In, poll.Edge); err != nil {
		t.Fatal(err)
	}
	if err := set.Add(deaf, 2, poll.In, poll.OneShot); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, "TryWait", set.TryWait(nil, 4), poll.Event[int]{Key: 2, Events: poll.In})
	if err := set.Modify(armed, 10, poll.In, poll.Edge); err != nil {
		t.Fatal(err)
	}
	armed.Add(1)
	if err := set.Modify(deaf, 20, poll.In, poll.OneShot); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, "TryWait after Modify", set.TryWait(nil, 4), poll.Event[int]{Key: 10, Events: poll.In}, poll.Event[int]{Key: 20, Events: poll.In})
}
