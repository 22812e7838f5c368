package model_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/evsync/evsync/model"
)

// wantEvents fails t unless a TryWait(8) on set reports want.
func wantEvents(t *testing.T, set *model.Set, want ...model.SetEvent) {
	t.Helper()
	if got := set.TryWait(8); !slices.Equal(got, want) {
		t.Fatalf("TryWait = %v, want %v", got, want)
	}
	if err := set.Validate(); err != nil {
		t.Fatal(err)
	}
}

// wantStats fails t unless set's Stats are want.
func wantStats(t *testing.T, set *model.Set, want model.SetStats) {
	t.Helper()
	if got := set.Stats(); got != want {
		t.Fatalf("Stats = %+v, want %+v", got, want)
	}
}

// TestSetSourceNotifyWakesWhatItAsksFor: a Source's Notify queues an
// armed registration that asks for one of its events, and the harvest
// polls what the Source reports then.
func TestSetSourceNotifyWakesWhatItAsksFor(t *testing.T) {
	set, src := model.NewSet(), model.NewSource()
	if err := set.Add(src, 1, model.In, model.Edge); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, set) // reports nothing yet
	src.SetEvents(model.In)
	wantEvents(t, set) // a change with no Notify wakes nothing
	src.Notify(model.Out)
	src.Notify(0)
	wantEvents(t, set) // nor a Notify of what it does not ask for, or of nothing
	wantStats(t, set, model.SetStats{Registered: 1, Armed: 1})
	src.Notify(model.In)
	wantStats(t, set, model.SetStats{Registered: 1, Queued: 1, Wakeups: 1})
	src.Notify(model.In) // queued already: absorbed
	wantStats(t, set, model.SetStats{Registered: 1, Queued: 1, Wakeups: 1})
	wantEvents(t, set, model.SetEvent{Key: 1, Events: model.In})
	src.Notify(model.In | model.Out)
	src.SetEvents(model.Out) // changed back before the harvest
	wantEvents(t, set)
	wantStats(t, set, model.SetStats{Registered: 1, Armed: 1, Wakeups: 2, Drops: 1})
}

// TestSetSourceHupAlwaysCounts: a Notify of Hup wakes a registration
// that asks for Out alone, and Hup is reported whether asked for or not.
// Bits other than In, Out and Hup are ignored.
func TestSetSourceHupAlwaysCounts(t *testing.T) {
	set, src := model.NewSet(), model.NewSource()
	if err := set.Add(src, 2, model.Out, model.Level); err != nil {
		t.Fatal(err)
	}
	src.SetEvents(model.In | 0x08)
	src.Notify(model.In | 0x08)
	wantEvents(t, set)
	src.SetEvents(model.In | model.Hup)
	src.Notify(model.Hup)
	wantEvents(t, set, model.SetEvent{Key: 2, Events: model.Hup})
	wantEvents(t, set, model.SetEvent{Key: 2, Events: model.Hup}) // level: still there
	src.SetEvents(model.Out | 0x10)
	wantEvents(t, set, model.SetEvent{Key: 2, Events: model.Out})
}

// TestSetSourceInTwoSets: a Notify wakes every Set the Source is in, and
// none it has left.
func TestSetSourceInTwoSets(t *testing.T) {
	a, b, src := model.NewSet(), model.NewSet(), model.NewSource()
	for _, s := range []*model.Set{a, b} {
		if err := s.Add(src, 3, model.In, model.Edge); err != nil {
			t.Fatal(err)
		}
	}
	src.SetEvents(model.In)
	src.Notify(model.In)
	wantEvents(t, a, model.SetEvent{Key: 3, Events: model.In})
	if err := b.Remove(src); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, b)
	src.Notify(model.In)
	wantEvents(t, a, model.SetEvent{Key: 3, Events: model.In})
	wantStats(t, b, model.SetStats{Wakeups: 1}) // the first Notify, before Remove
}

// TestSetDoneSourceEnds: a DoneSource reports In|Hup once End has
// happened, and End wakes its Sets. Stop before End keeps it silent.
func TestSetDoneSourceEnds(t *testing.T) {
	set, d, stopped := model.NewSet(), model.NewDoneSource(), model.NewDoneSource()
	if err := set.Add(d, 4, model.In, model.Edge); err != nil {
		t.Fatal(err)
	}
	if err := set.Add(stopped, 5, model.Out, model.Edge); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, set)
	if !stopped.Stop() || stopped.Stop() {
		t.Fatal("Stop before End: want true, then false")
	}
	stopped.End()
	d.End()
	d.End() // a second End changes nothing
	if !d.Ended() || stopped.Ended() {
		t.Fatalf("Ended = %v, %v, want true, false", d.Ended(), stopped.Ended())
	}
	wantEvents(t, set, model.SetEvent{Key: 4, Events: model.In | model.Hup})
	if d.Stop() {
		t.Fatal("Stop after End = true")
	}
	wantStats(t, set, model.SetStats{Registered: 2, Armed: 2, Wakeups: 1})
	ended := model.NewDoneSource() // of a context done already
	ended.End()
	if err := set.Add(ended, 6, model.Out, model.OneShot); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, set, model.SetEvent{Key: 6, Events: model.Hup})
}

// TestSetRefusesWhatIsNoSource: Add, Modify and Remove refuse what poll
// refuses, and change nothing.
func TestSetRefusesWhatIsNoSource(t *testing.T) {
	set := model.NewSet()
	for _, src := range []any{nil, (*model.Counter)(nil), (*model.Source)(nil), (*model.Deadline)(nil), (*model.DoneSource)(nil), new(model.Source), new(model.DoneSource), 42, model.Counter{}} {
		if err := set.Add(src, 0, model.In, model.Level); !errors.Is(err, model.ErrInvalid) {
			t.Errorf("Add(%T) = %v, want ErrInvalid", src, err)
		}
		if err := set.Modify(src, 0, model.In, model.Level); !errors.Is(err, model.ErrInvalid) {
			t.Errorf("Modify(%T) = %v, want ErrInvalid", src, err)
		}
		if err := set.Remove(src); !errors.Is(err, model.ErrInvalid) {
			t.Errorf("Remove(%T) = %v, want ErrInvalid", src, err)
		}
	}
	wantStats(t, set, model.SetStats{})
	zero := new(model.Deadline) // its time, 0, has come
	if err := set.Add(zero, 7, model.In, model.Level); err != nil {
		t.Fatalf("Add(a zero Deadline) = %v", err)
	}
	wantEvents(t, set, model.SetEvent{Key: 7, Events: model.In})
}

// TestSetModifyTakesTheNewKey: a queued registration keeps its place
// and is reported with the key Modify gave it.
func TestSetModifyTakesTheNewKey(t *testing.T) {
	set, a, b := model.NewSet(), model.NewSignal(1), model.NewSignal(1)
	for k, c := range []*model.Counter{a, b} {
		if err := set.Add(c, k, model.In, model.Level); err != nil {
			t.Fatal(err)
		}
	}
	if err := set.Modify(a, 10, model.In, model.Level); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, set, model.SetEvent{Key: 10, Events: model.In}, model.SetEvent{Key: 1, Events: model.In})
}
