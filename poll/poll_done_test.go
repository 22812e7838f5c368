package poll_test

// Tests of Done (done.go): a context as a source.

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/evsync/evsync/poll"
)

// inHup is what a Done reports once its context has ended.
const inHup = poll.In | poll.Hup

// wantEvents fails t unless evs are want, in order.
func wantEvents[K comparable](t *testing.T, what string, evs []poll.Event[K], want ...poll.Event[K]) {
	t.Helper()
	if !slices.Equal(evs, want) {
		t.Fatalf("%s = %v, want %v", what, evs, want)
	}
}

// TestDoneOfADoneContextReportsAtOnce: OnDone of a context that is done
// already reports In|Hup at once. The first TryWait after Add sees it,
// with no goroutine left to run first, and an edge registration reports
// it once, not once more when a late AfterFunc would run.
func TestDoneOfADoneContextReportsAtOnce(t *testing.T) {
	ctx, cancel := context.WithCancel(bg)
	cancel()
	for i := range 200 {
		set := poll.New[int]()
		d := poll.OnDone(ctx)
		if err := set.Add(d, i, poll.In, poll.Edge); err != nil {
			t.Fatal(err)
		}
		wantEvents(t, "TryWait after Add", set.TryWait(nil, 4), poll.Event[int]{Key: i, Events: inHup})
		if d.Stop() {
			t.Fatal("Stop of a Done of a done context = true, want false: there was no function to keep from running")
		}
		wantEvents(t, "the second TryWait", set.TryWait(nil, 4))
		set.Close()
	}
}

// TestDoneReportsOnceTheContextEnds: before its context ends a Done
// reports nothing, and then In|Hup, whatever the registration asked for
// (Hup always counts). Each mode applies: an edge registration reports it
// once, a level one at every Wait, a one-shot one once until Modify.
func TestDoneReportsOnceTheContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(bg)
		var set poll.Set[string]
		defer set.Close()
		regs := []struct {
			key    string
			events poll.Events
			mode   poll.Mode
		}{{"edge", poll.In, poll.Edge}, {"level", poll.In, poll.Level}, {"oneshot", poll.In, poll.OneShot}, {"out", poll.Out, poll.Edge}}
		dones := map[string]*poll.Done{}
		for _, r := range regs {
			dones[r.key] = poll.OnDone(ctx)
			if err := set.Add(dones[r.key], r.key, r.events, r.mode); err != nil {
				t.Fatal(err)
			}
		}
		synctest.Wait()
		wantEvents(t, "TryWait before the end", set.TryWait(nil, 8))
		if st := set.Stats(); st.Armed != 4 || st.Queued != 0 {
			t.Fatalf("Stats before the end = %+v, want 4 armed, none queued", st)
		}
		cancel()
		synctest.Wait() // every end has run, each in its own goroutine, in no set order
		evs := set.TryWait(nil, 8)
		slices.SortFunc(evs, func(a, b poll.Event[string]) int { return strings.Compare(a.Key, b.Key) })
		wantEvents(t, "TryWait after the end", evs,
			poll.Event[string]{Key: "edge", Events: inHup},
			poll.Event[string]{Key: "level", Events: inHup},
			poll.Event[string]{Key: "oneshot", Events: inHup},
			poll.Event[string]{Key: "out", Events: poll.Hup})
		wantEvents(t, "the next TryWait", set.TryWait(nil, 8), poll.Event[string]{Key: "level", Events: inHup})
		if err := set.Modify(dones["oneshot"], "again", poll.In, poll.OneShot); err != nil {
			t.Fatal(err)
		}
		wantEvents(t, "TryWait after Modify", set.TryWait(nil, 8),
			poll.Event[string]{Key: "level", Events: inHup},
			poll.Event[string]{Key: "again", Events: inHup})
		if st := set.Stats(); st.Wakeups != 4 {
			t.Fatalf("Stats().Wakeups = %d, want the 4 ends", st.Wakeups)
		}
	})
}

// TestDoneStop: Stop before the context ends reports true, and then the
// Done never reports anything, the end included. Stop after the end
// reports false and changes nothing. A second Stop reports false.
func TestDoneStop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(bg)
		stopped, ended := poll.OnDone(ctx), poll.OnDone(ctx)
		var set poll.Set[string]
		defer set.Close()
		for key, d := range map[string]*poll.Done{"stopped": stopped, "ended": ended} {
			if err := set.Add(d, key, poll.In, poll.Level); err != nil {
				t.Fatal(err)
			}
		}
		if !stopped.Stop() {
			t.Fatal("Stop before the end = false, want true")
		}
		if stopped.Stop() {
			t.Fatal("a second Stop = true, want false")
		}
		cancel()
		synctest.Wait() // the end's function has run, for the Done not stopped
		wantEvents(t, "TryWait after the end", set.TryWait(nil, 8), poll.Event[string]{Key: "ended", Events: inHup})
		if ended.Stop() {
			t.Fatal("Stop after the end = true, want false")
		}
		wantEvents(t, "TryWait after a late Stop", set.TryWait(nil, 8), poll.Event[string]{Key: "ended", Events: inHup})
	})
}

// TestDoneOfAContextThatNeverEnds: a Done of context.Background reports
// nothing, runs no goroutine (goleak checks), and its Stop reports true:
// it releases the function, which would never have run.
func TestDoneOfAContextThatNeverEnds(t *testing.T) {
	d := poll.OnDone(context.Background())
	var set poll.Set[int]
	defer set.Close()
	if err := set.Add(d, 1, poll.In, poll.Level); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, "TryWait", set.TryWait(nil, 4))
	if !d.Stop() {
		t.Fatal("Stop = false, want true")
	}
}

// TestDoneInTwoSets: one end wakes a Wait blocked on each Set that holds
// the Done.
func TestDoneInTwoSets(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(bg)
		d := poll.OnDone(ctx)
		var a, b poll.Set[int]
		defer a.Close()
		defer b.Close()
		waited := make(chan []poll.Event[int], 2)
		for i, s := range []*poll.Set[int]{&a, &b} {
			if err := s.Add(d, i, poll.In, poll.Edge); err != nil {
				t.Fatal(err)
			}
			go func() {
				evs, err := s.Wait(bg, nil, 4)
				if err != nil {
					t.Error(err)
				}
				waited <- evs
			}()
		}
		synctest.Wait()
		if len(waited) != 0 {
			t.Fatal("a Wait returned before the context ended")
		}
		cancel()
		got := append(<-waited, <-waited...)
		slices.SortFunc(got, func(x, y poll.Event[int]) int { return x.Key - y.Key })
		wantEvents(t, "the Waits", got, poll.Event[int]{Key: 0, Events: inHup}, poll.Event[int]{Key: 1, Events: inHup})
	})
}

// A doneOwner is a user's type that embeds a Done. It is not a source.
type doneOwner struct{ *poll.Done }

// TestDoneBadArguments: a Done of a nil context, a zero Done, a nil *Done
// and a type that embeds a Done are refused by Add, Modify and Remove with
// ErrInvalid and a message that says why; none panics. Stop of a Done not
// made by OnDone, or made of a nil context, reports false.
func TestDoneBadArguments(t *testing.T) {
	var set poll.Set[int]
	defer set.Close()
	//lint:ignore SA1012 the nil context is the bad argument under test
	ofNil := poll.OnDone(nil) //nolint:staticcheck
	notMade := "a *poll.Done not made by OnDone, or made of a nil context"
	for _, c := range []struct {
		name string
		src  any
		want string
	}{
		{"OnDone(nil)", ofNil, notMade},
		{"a zero Done", &poll.Done{}, notMade},
		{"a nil *Done", (*poll.Done)(nil), "nil *poll.Done"},
		{"a Done by value", poll.Done{}, "poll.Done is not a source, *poll.Done is: pass a pointer"},
		{"a type embedding a Done", doneOwner{poll.OnDone(bg)}, "poll_test.doneOwner is not a source, though it embeds *poll.Done: pass that instead"},
	} {
		for op, err := range map[string]error{
			"add":    set.Add(c.src, 1, poll.In, poll.Level),
			"modify": set.Modify(c.src, 1, poll.In, poll.Level),
			"remove": set.Remove(c.src),
		} {
			want := "poll: " + op + ": " + c.want
			if !errors.Is(err, poll.ErrInvalid) || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("%s of %s = %v, want ErrInvalid saying %q", op, c.name, err, want)
			}
		}
	}
	if ofNil.Stop() || new(poll.Done).Stop() {
		t.Error("Stop of a Done of a nil context, or of a zero Done, = true, want false")
	}
	if n := set.Len(); n != 0 {
		t.Fatalf("Len = %d after calls that failed", n)
	}
}
