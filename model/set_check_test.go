package model_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evsync/evsync/model"
	"pgregory.net/rapid"
)

// view describes what a test can see of a Set over the sources srcs, by
// their index in srcs: each source's state and its registration, then
// the Set's clock, ready list and figures.
func view(s *model.Set, srcs []any) string {
	var b strings.Builder
	for i, src := range srcs {
		fmt.Fprintf(&b, "%d: ", i)
		switch x := src.(type) {
		case *model.Counter:
			fmt.Fprintf(&b, "count=%d closed=%v queue=%v", x.Count(), x.Closed(), x.Queue())
		case *model.Source:
			fmt.Fprintf(&b, "source %v", x.Events())
		case *model.DoneSource:
			fmt.Fprintf(&b, "done ended=%v", x.Ended())
		case *model.Deadline:
			fmt.Fprintf(&b, "deadline %v", x.Time())
		}
		if r, ok := s.Registration(src); ok {
			fmt.Fprintf(&b, " reg=%+v", r)
		}
		b.WriteString("; ")
	}
	fmt.Fprintf(&b, "now=%v closed=%v ready=[", s.Now(), s.Closed())
	for _, src := range s.ReadyList() {
		fmt.Fprintf(&b, " %d", slices.Index(srcs, src))
	}
	fmt.Fprintf(&b, " ] stats=%+v", s.Stats())
	return b.String()
}

// mute and unmute are model.Mute and Unmute of a source of cloneRig that
// wakes its Sets itself; they do nothing for a Deadline.
func mute(src any) {
	switch x := src.(type) {
	case *model.Counter:
		model.Mute(x)
	case *model.Source:
		model.Mute(x)
	case *model.DoneSource:
		model.Mute(x)
	}
}

func unmute(src any) model.Events {
	switch x := src.(type) {
	case *model.Counter:
		return model.Unmute(x)
	case *model.Source:
		return model.Unmute(x)
	case *model.DoneSource:
		return model.Unmute(x)
	}
	return 0
}

// A cloneOp is one call on a Set over cloneRig's sources, drawn before
// it is made, so that the same call can be made on a Set and its copy.
type cloneOp struct {
	op, k, key, max int
	events          model.Events
	mode            model.Mode
	v               uint64
}

var cloneOps = rapid.Custom(func(t *rapid.T) cloneOp {
	return cloneOp{
		op:     rapid.IntRange(0, 40).Draw(t, "op"),
		k:      rapid.IntRange(0, 7).Draw(t, "k"),
		key:    rapid.IntRange(0, 2).Draw(t, "key"),
		max:    rapid.IntRange(1, 4).Draw(t, "max"),
		events: rapid.SampledFrom([]model.Events{model.In, model.Out, model.In | model.Out}).Draw(t, "events"),
		mode:   rapid.SampledFrom([]model.Mode{model.Edge, model.Level, model.OneShot}).Draw(t, "mode"),
		v:      rapid.Uint64Range(0, 2).Draw(t, "v"),
	}
})

// cloneRig is a Set over a source of every kind: two signals, two
// semaphores (one with a unit), a Source, a DoneSource and two
// Deadlines. A removed source stays in the list.
func cloneRig() (*model.Set, []any) {
	return model.NewSet(), []any{
		model.NewSignal(0), model.NewSemaphore(0, 3), model.NewSignal(0), model.NewSemaphore(1, 2),
		model.NewSource(), model.NewDoneSource(), model.NewDeadline(3), model.NewDeadline(5),
	}
}

// apply makes the call o on s over srcs and returns what it returned.
func (o cloneOp) apply(s *model.Set, srcs []any) string {
	src := srcs[o.k]
	switch {
	case o.op < 4:
		return fmt.Sprint(s.Add(src, 10*o.k, o.events, o.mode))
	case o.op < 8:
		return fmt.Sprint(s.Modify(src, 10*o.k+o.key, o.events, o.mode))
	case o.op < 10:
		return fmt.Sprint(s.Remove(src))
	case o.op < 24:
		return o.applySource(src)
	case o.op < 29:
		return fmt.Sprint(s.TryWait(o.max))
	case o.op < 31:
		s.Advance(time.Duration(o.v))
	case o.op < 33:
		evs, err := s.WaitTimeout(o.max, time.Duration(o.v))
		return fmt.Sprint(evs, err)
	case o.op < 35:
		mute(src)
	case o.op < 37:
		return fmt.Sprint(unmute(src))
	case o.op == 37:
		s.Wake(src, o.events|model.Events(o.v)<<2) // v = 1: with Hup
	case o.op == 38:
		t := s.Ready()
		return fmt.Sprint(t, s.Fired(t))
	case o.op == 39:
		s.Close()
	}
	return ""
}

// applySource makes a call of the source's own.
func (o cloneOp) applySource(src any) string {
	switch x := src.(type) {
	case *model.Counter:
		switch {
		case o.op < 14:
			return fmt.Sprint(x.Write(o.v))
		case o.op < 18:
			return fmt.Sprint(x.Read())
		case o.op < 22 && x.Limit() < model.Max: // a semaphore: a reservation to copy
			r, err := x.Reserve(min(o.v, x.Limit()))
			return fmt.Sprint(r != nil && r.Done(), err)
		case o.op == 23:
			x.Close()
		}
	case *model.Source:
		if o.op < 16 {
			x.SetEvents(o.events | model.Events(o.v)<<2)
		} else {
			x.Notify(o.events)
		}
	case *model.DoneSource:
		if o.op < 20 {
			x.End()
		} else {
			return fmt.Sprint(x.Stop())
		}
	}
	return ""
}

// TestSetCloneStepsAsTheOriginal: a copy taken at any point looks the
// same as the original and returns what it returns, call for call, over
// sources of every kind, muted or not, and the clock; and stepping one
// leaves the other as it was.
func TestSetCloneStepsAsTheOriginal(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s, srcs := cloneRig()
		for _, o := range rapid.SliceOfN(cloneOps, 0, 60).Draw(t, "before") {
			o.apply(s, srcs)
		}
		before := view(s, srcs)
		s2, srcs2 := model.CloneSet(s, srcs)
		if got := view(s2, srcs2); got != before {
			t.Fatalf("clone:\n%s\nwant\n%s", got, before)
		}
		ops := rapid.SliceOfN(cloneOps, 1, 60).Draw(t, "after")
		var got, want []string
		for _, o := range ops {
			got = append(got, o.apply(s2, srcs2))
		}
		if v := view(s, srcs); v != before {
			t.Fatalf("stepping the clone changed the original:\n%s\nwas\n%s", v, before)
		}
		for _, o := range ops {
			want = append(want, o.apply(s, srcs))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("clone returned %q, original %q", got, want)
		}
		if a, b := view(s2, srcs2), view(s, srcs); a != b {
			t.Fatalf("clone ends in\n%s\noriginal in\n%s", a, b)
		}
		for _, x := range []*model.Set{s, s2} {
			if err := x.Validate(); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestSetCloneOfAWakeupReachesOnlyTheCopy: a source in two Sets is
// copied with one of them. The copy's wakeup queues it in the copy of
// that Set only, and the original's in the two originals only, for each
// kind of source that wakes its Sets.
func TestSetCloneOfAWakeupReachesOnlyTheCopy(t *testing.T) {
	for _, c := range []struct {
		name string
		src  func() any
		wake func(src any)
	}{
		{"Counter", func() any { return model.NewSignal(0) }, func(src any) { _ = src.(*model.Counter).Write(1) }},
		{"Source", func() any { return model.NewSource() }, func(src any) {
			src.(*model.Source).SetEvents(model.In)
			src.(*model.Source).Notify(model.In)
		}},
		{"DoneSource", func() any { return model.NewDoneSource() }, func(src any) { src.(*model.DoneSource).End() }},
	} {
		s, other, src := model.NewSet(), model.NewSet(), c.src()
		for _, x := range []*model.Set{s, other} {
			if err := x.Add(src, 1, model.In, model.Edge); err != nil {
				t.Fatal(err)
			}
		}
		s2, cp := model.CloneSet(s, []any{src})
		c.wake(cp[0])
		if s.Queued() != 0 || other.Queued() != 0 || s2.Queued() != 1 {
			t.Errorf("%s: after the copy's wakeup: queued %d, %d, copy %d; want 0, 0, 1", c.name, s.Queued(), other.Queued(), s2.Queued())
		}
		c.wake(src)
		if s.Queued() != 1 || other.Queued() != 1 || s2.Queued() != 1 {
			t.Errorf("%s: after the original's wakeup: queued %d, %d, copy %d; want 1, 1, 1", c.name, s.Queued(), other.Queued(), s2.Queued())
		}
	}
}

// TestSetCloneCopiesPendingReservations: the copy of a semaphore keeps
// its queue. A write to the copy grants the copy's reservation; the one
// the caller holds stays pending until the original is written.
func TestSetCloneCopiesPendingReservations(t *testing.T) {
	s, sem := model.NewSet(), model.NewSemaphore(0, 4)
	res, err := sem.Reserve(2)
	if err != nil || res.Done() {
		t.Fatalf("Reserve(2) at count 0 = %v, done %v", err, res.Done())
	}
	_, cs := model.CloneSet(s, []*model.Counter{sem})
	cp := cs[0]
	if !slices.Equal(cp.Queue(), []uint64{2}) {
		t.Fatalf("copy's queue = %v, want [2]", cp.Queue())
	}
	if err := cp.Write(3); err != nil {
		t.Fatal(err)
	}
	if cp.Waiting() != 0 || cp.Count() != 1 || res.Done() || sem.Waiting() != 1 {
		t.Fatalf("after the copy's Write(3): copy waiting %d count %d; original done %v waiting %d; want 0 1 false 1",
			cp.Waiting(), cp.Count(), res.Done(), sem.Waiting())
	}
	if err := sem.Write(2); err != nil || !res.Done() {
		t.Fatalf("original Write(2) = %v, reservation done %v", err, res.Done())
	}
}

// TestSetCloneKeepsTheClock: the copy's clock reads the original's time,
// and the copy of a Deadline comes due on it alone.
func TestSetCloneKeepsTheClock(t *testing.T) {
	s, dl := model.NewSet(), model.NewDeadline(10)
	if err := s.Add(dl, 7, model.In, model.Edge); err != nil {
		t.Fatal(err)
	}
	s.Advance(4)
	s2, dls := model.CloneSet(s, []*model.Deadline{dl})
	if s2.Now() != 4 || dls[0] == dl || dls[0].Time() != 10 || s2.Stats() != s.Stats() {
		t.Fatalf("copy: now %v, deadline %v at %v, stats %+v; want 4, a new one at 10, %+v",
			s2.Now(), dls[0], dls[0].Time(), s2.Stats(), s.Stats())
	}
	evs, err := s2.WaitTimeout(4, time.Hour)
	if want := []model.SetEvent{{Key: 7, Events: model.In}}; !slices.Equal(evs, want) || err != nil || s2.Now() != 10 {
		t.Fatalf("copy's WaitTimeout = %v, %v at %v; want %v, nil at 10", evs, err, s2.Now(), want)
	}
	if s.Now() != 4 || s.Queued() != 0 {
		t.Fatalf("original: now %v, queued %d; want 4, 0", s.Now(), s.Queued())
	}
}

// TestSetClonePanicsWithoutItsSources: a source in the Set that srcs
// leaves out has no copy to register, and a value that is no source
// cannot be copied, so CloneSet panics.
func TestSetClonePanicsWithoutItsSources(t *testing.T) {
	s, a, b := model.NewSet(), model.NewSignal(0), model.NewSource()
	_ = s.Add(a, 0, model.In, model.Edge)
	_ = s.Add(b, 1, model.In, model.Edge)
	for _, c := range []struct {
		name string
		srcs []any
		want string
	}{
		{"b left out", []any{a}, "model: CloneSet needs every source in the Set"},
		{"nil", []any{a, b, nil}, "model: CloneSet of a value that is not a source"},
		{"a nil *Counter", []any{a, b, (*model.Counter)(nil)}, "model: CloneSet of a value that is not a source"},
		{"a Source not made by NewSource", []any{a, b, new(model.Source)}, "model: CloneSet of a value that is not a source"},
		{"an int", []any{a, b, 1}, "model: CloneSet of a value that is not a source"},
		{"a slice, past the scan", append(slices.Repeat([]any{a}, 20), b, []int{1}), "model: CloneSet of a value that is not a source"},
	} {
		func() {
			defer func() {
				if r := recover(); r != c.want {
					t.Errorf("%s: recovered %v, want %q", c.name, r, c.want)
				}
			}()
			model.CloneSet(s, c.srcs)
		}()
	}
}

// TestSetRegistrationAndReadyList: Registration reports the key, events,
// mode and state of a registration, and ReadyList the queued sources in
// the order a Wait polls them, stale ones included.
func TestSetRegistrationAndReadyList(t *testing.T) {
	s := model.NewSet()
	a, b, c := model.NewSignal(0), model.NewSemaphore(0, 1), model.NewSignal(0)
	src, dl := model.NewSource(), model.NewDeadline(1)
	_ = s.Add(a, 1, model.In, model.OneShot)
	_ = s.Add(b, 2, model.Out, model.Level) // queued at once: below its limit
	_ = s.Add(dl, 3, model.In, model.Edge)
	_ = s.Add(src, 4, model.In, model.Edge)
	_ = a.Write(1)
	s.Advance(1)
	src.Notify(model.In) // reports nothing: stale
	if got := s.ReadyList(); !slices.Equal(got, []any{b, a, dl, src}) {
		t.Fatalf("ReadyList = %v, want [b a dl src]", got)
	}
	if evs := s.TryWait(1); len(evs) != 1 || evs[0].Key != 2 {
		t.Fatalf("TryWait(1) = %v, want b", evs)
	}
	if got := s.ReadyList(); !slices.Equal(got, []any{a, dl, src, b}) {
		t.Fatalf("ReadyList after b was reported = %v, want [a dl src b]: level b at the tail", got)
	}
	a.Take() // a stays queued, with no event left
	if got := s.ReadyList(); !slices.Equal(got, []any{a, dl, src, b}) {
		t.Fatalf("ReadyList after a's Take = %v, want [a dl src b]", got)
	}
	_ = a.Write(1)
	s.TryWait(8)
	for _, c := range []struct {
		name string
		src  any
		want model.SetRegistration
	}{
		{"a", a, model.SetRegistration{Key: 1, Events: model.In, Mode: model.OneShot, Disarmed: true}},
		{"b", b, model.SetRegistration{Key: 2, Events: model.Out, Mode: model.Level, Queued: true}},
		{"dl", dl, model.SetRegistration{Key: 3, Events: model.In, Mode: model.Edge}},
		{"src", src, model.SetRegistration{Key: 4, Events: model.In, Mode: model.Edge}},
	} {
		if r, ok := s.Registration(c.src); !ok || r != c.want {
			t.Errorf("Registration(%s) = %+v, %v; want %+v", c.name, r, ok, c.want)
		}
	}
	for _, x := range []any{c, nil, 1, []int{1}, (*model.Counter)(nil)} {
		if r, ok := s.Registration(x); ok || r != (model.SetRegistration{}) {
			t.Errorf("Registration(%#v), not in the Set = %+v, %v", x, r, ok)
		}
	}
}

// A linearizability checker steps a copy of the state it is at, and
// keeps the state for the next call it tries.
func ExampleCloneSet() {
	set, a := model.NewSet(), model.NewSignal(0)
	_ = set.Add(a, 1, model.In, model.Edge)
	_ = a.Write(1)

	next, cs := model.CloneSet(set, []*model.Counter{a})
	fmt.Println(next.TryWait(8), cs[0].Take())
	fmt.Println(set.TryWait(8), a.Count()) // the original is as it was
	// Output:
	// [{1 in}] 1
	// [{1 in}] 1
}

// TestSetMutedCallsWakeWhenTold: a call on a muted source changes it,
// tells its Set nothing and holds its events; Set.Wake delivers them
// later under the usual rule. So for each kind that wakes its Sets.
func TestSetMutedCallsWakeWhenTold(t *testing.T) {
	sig, src, done := model.NewSignal(0), model.NewSource(), model.NewDoneSource()
	for _, c := range []struct {
		name   string
		src    any
		call   func()
		held   model.Events
		report model.Events
	}{
		{"Counter", sig, func() { _ = sig.Write(1) }, model.In, model.In},
		{"Source", src, func() { src.SetEvents(model.In); src.Notify(model.In) }, model.In, model.In},
		{"DoneSource", done, done.End, model.In | model.Hup, model.In | model.Hup},
	} {
		s := model.NewSet()
		_ = s.Add(c.src, 1, model.In, model.Edge)
		mute(c.src)
		c.call()
		if s.Queued() != 0 {
			t.Errorf("%s: muted call queued %d, want 0", c.name, s.Queued())
		}
		if ev := unmute(c.src); ev != c.held {
			t.Errorf("%s: Unmute = %v, want %v", c.name, ev, c.held)
		}
		if evs := s.TryWait(4); len(evs) != 0 {
			t.Errorf("%s: TryWait before the wakeup = %v, want nothing", c.name, evs)
		}
		s.Wake(c.src, c.held)
		if evs, want := s.TryWait(4), []model.SetEvent{{Key: 1, Events: c.report}}; !slices.Equal(evs, want) {
			t.Errorf("%s: TryWait after Wake = %v, want %v", c.name, evs, want)
		}
	}
	_ = sig.Write(1) // unmuted: tells its Sets at once
	s := model.NewSet()
	_ = s.Add(sig, 1, model.In, model.Edge)
	_ = sig.Write(1)
	if s.Queued() != 1 {
		t.Fatalf("unmuted Write: queued %d, want 1", s.Queued())
	}
}

// TestSetMutedEventsAddUp: Unmute returns the events of every call since
// Mute, none for a call that wakes nothing, and forgets them.
func TestSetMutedEventsAddUp(t *testing.T) {
	a, b, src := model.NewSignal(0), model.NewSemaphore(2, 2), model.NewSource()
	for _, c := range []struct {
		name string
		src  any
		do   func()
		want model.Events
	}{
		{"Write and Take", a, func() { _ = a.Write(2); a.Take() }, model.In | model.Out},
		{"a Take of 0", a, func() { a.Take() }, 0},
		{"a refused Write", b, func() { _ = b.Write(1) }, 0},
		{"Close", b, b.Close, model.Hup},
		{"two Notifies", src, func() { src.Notify(model.In); src.Notify(model.Out | 0x08) }, model.In | model.Out},
		{"a Notify of nothing", src, func() { src.Notify(0x10) }, 0},
	} {
		mute(c.src)
		c.do()
		if ev := unmute(c.src); ev != c.want {
			t.Errorf("%s: Unmute = %v, want %v", c.name, ev, c.want)
		}
		if ev := unmute(c.src); ev != 0 {
			t.Errorf("%s: a second Unmute = %v, want none", c.name, ev)
		}
	}
}

// TestSetCloneKeepsMuting: the copy of a muted source is muted, holds
// what the original held, and holds its own wakeups from then on; the
// original's Unmute leaves the copy's alone. So for each kind that wakes
// its Sets.
func TestSetCloneKeepsMuting(t *testing.T) {
	for _, c := range []struct {
		name       string
		src        any
		call, more func(src any)
		held, then model.Events
	}{
		{"Counter", model.NewSignal(0), func(x any) { _ = x.(*model.Counter).Write(1) },
			func(x any) { x.(*model.Counter).Take() }, model.In, model.In | model.Out},
		{"Source", model.NewSource(), func(x any) { x.(*model.Source).Notify(model.Out) },
			func(x any) { x.(*model.Source).Notify(model.In) }, model.Out, model.In | model.Out},
		{"DoneSource", model.NewDoneSource(), func(x any) { _ = x.(*model.DoneSource).Stop() },
			func(x any) { x.(*model.DoneSource).End() }, 0, 0},
		{"DoneSource that ends", model.NewDoneSource(), func(x any) { x.(*model.DoneSource).End() },
			func(any) {}, model.In | model.Hup, model.In | model.Hup},
	} {
		s := model.NewSet()
		_ = s.Add(c.src, 1, model.In|model.Out, model.Edge)
		s.TryWait(8) // the signal's Out: armed again
		mute(c.src)
		c.call(c.src)
		s2, cp := model.CloneSet(s, []any{c.src})
		c.more(cp[0])
		if s2.Queued() != 0 {
			t.Errorf("%s: the copy's call queued %d, want 0: the copy is muted", c.name, s2.Queued())
		}
		if ev := unmute(c.src); ev != c.held {
			t.Errorf("%s: the original's Unmute = %v, want %v", c.name, ev, c.held)
		}
		if ev := unmute(cp[0]); ev != c.then {
			t.Errorf("%s: the copy's Unmute = %v, want %v", c.name, ev, c.then)
		}
	}
}

// TestSetMuteOfANilSourcePanics: Mute and Unmute of a nil pointer panic,
// as a method would.
func TestSetMuteOfANilSourcePanics(t *testing.T) {
	for name, call := range map[string]func(){
		"Mute(nil *Counter)":      func() { model.Mute((*model.Counter)(nil)) },
		"Unmute(nil *Source)":     func() { model.Unmute((*model.Source)(nil)) },
		"Mute(nil *DoneSource)":   func() { model.Mute((*model.DoneSource)(nil)) },
		"Unmute(nil *DoneSource)": func() { model.Unmute((*model.DoneSource)(nil)) },
	} {
		func() {
			defer func() {
				if r := recover(); r != "model: Mute or Unmute of a nil source" {
					t.Errorf("%s: recovered %v", name, r)
				}
			}()
			call()
		}()
	}
}

// TestSetLateWakeAfterAPollReportsAnEdgeAgain is the window Mute models:
// a Modify polls a write whose wakeup has not come yet, and queues the
// source; a Wait reports it; the wakeup then queues it again.
func TestSetLateWakeAfterAPollReportsAnEdgeAgain(t *testing.T) {
	s, a := model.NewSet(), model.NewSignal(0)
	_ = s.Add(a, 1, model.In, model.Edge)
	model.Mute(a)
	_ = a.Write(1)
	ev := model.Unmute(a)
	_ = s.Modify(a, 2, model.In, model.Edge)
	want := []model.SetEvent{{Key: 2, Events: model.In}}
	if evs := s.TryWait(4); !slices.Equal(evs, want) {
		t.Fatalf("TryWait after Modify = %v, want %v", evs, want)
	}
	s.Wake(a, ev)
	if evs := s.TryWait(4); !slices.Equal(evs, want) {
		t.Fatalf("TryWait after the late wakeup = %v, want %v", evs, want)
	}
}

// TestSetWakeFollowsTheRule: Wake queues a registration only if it asks
// for one of the events or they hold Hup, and never one that is removed,
// a fired one-shot, or in a closed Set. A value that is no source, or
// not in the Set, wakes nothing.
func TestSetWakeFollowsTheRule(t *testing.T) {
	for _, c := range []struct {
		name   string
		setup  func(s *model.Set, a *model.Counter)
		src    func(a *model.Counter) any
		ev     model.Events
		queued int
	}{
		{"In to an In registration", nil, nil, model.In, 1},
		{"Out to an In registration", nil, nil, model.Out, 0},
		{"Hup to an In registration", nil, nil, model.Hup, 1},
		{"In after Remove", func(s *model.Set, a *model.Counter) { _ = s.Remove(a) }, nil, model.In, 0},
		{"In to a fired one-shot", func(s *model.Set, a *model.Counter) {
			_ = s.Modify(a, 1, model.In, model.OneShot)
			_ = a.Write(1)
			s.TryWait(1)
		}, nil, model.In, 0},
		{"In after Close", func(s *model.Set, a *model.Counter) { s.Close() }, nil, model.In, 0},
		{"In to a Counter not in the Set", nil, func(*model.Counter) any { return model.NewSignal(0) }, model.In, 0},
		{"In to a slice", nil, func(*model.Counter) any { return []int{1} }, model.In, 0},
		{"In to nil", nil, func(*model.Counter) any { return nil }, model.In, 0},
	} {
		s, a := model.NewSet(), model.NewSignal(0)
		_ = s.Add(a, 1, model.In, model.Edge)
		var src any = a
		if c.setup != nil {
			c.setup(s, a)
		}
		if c.src != nil {
			src = c.src(a)
		}
		s.Wake(src, c.ev)
		if s.Queued() != c.queued {
			t.Errorf("%s: queued %d, want %d", c.name, s.Queued(), c.queued)
		}
	}
}

// TestSetWakeOfADeadline: Wake queues a Deadline's registration as it
// does any other's, before its time too; the harvest then polls it and
// drops it, with nothing to report.
func TestSetWakeOfADeadline(t *testing.T) {
	s, dl := model.NewSet(), model.NewDeadline(time.Hour)
	_ = s.Add(dl, 2, model.In, model.Edge)
	s.Wake(dl, model.Out)
	wantStats(t, s, model.SetStats{Registered: 1, Armed: 1, Timer: true})
	s.Wake(dl, model.In)
	wantStats(t, s, model.SetStats{Registered: 1, Queued: 1, Wakeups: 1})
	wantEvents(t, s)
	wantStats(t, s, model.SetStats{Registered: 1, Armed: 1, Timer: true, Wakeups: 1, Drops: 1})
}

// TestSetCloneOfManyCounters: CloneSet takes a long list of Counters,
// some in the Set and some listed twice, and a copy removed from the
// copy of the Set leaves the other copies in it.
func TestSetCloneOfManyCounters(t *testing.T) {
	for _, n := range []int{3, 40} { // a short list and one past copyIndex's scan
		s := model.NewSet()
		var cs []*model.Counter
		for i := range n {
			c := model.NewSignal(0)
			cs = append(cs, c)
			if i%2 == 0 {
				_ = s.Add(c, i, model.In, model.Level)
			}
		}
		cs = append(cs, cs[0], cs[2]) // listed twice
		s2, cs2 := model.CloneSet(s, cs)
		if cs2[n] != cs2[0] || cs2[n+1] != cs2[2] || cs2[0] == cs[0] {
			t.Fatalf("n=%d: a Counter listed twice has two copies, or the copy is the original", n)
		}
		if err := s2.Remove(cs2[0]); err != nil {
			t.Fatal(err)
		}
		for i := 1; i < n; i++ {
			_ = cs2[i].Write(1)
		}
		if got, want := s2.Queued(), (n+1)/2-1; got != want {
			t.Errorf("n=%d: the copy has %d queued after the writes, want %d", n, got, want)
		}
		if s.Queued() != 0 || s.Len() != (n+1)/2 {
			t.Errorf("n=%d: the original has %d queued and %d sources, want 0 and %d", n, s.Queued(), s.Len(), (n+1)/2)
		}
		if err := s2.Validate(); err != nil {
			t.Error(err)
		}
	}
}
