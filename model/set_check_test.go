package model_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/evsync/evsync/model"
	"pgregory.net/rapid"
)

// view describes what a test can see of a Set over the Counters cs, by
// their index in cs: each Counter's count, whether it is closed, its
// pending reservations and its registration, then the ready list.
func view(s *model.Set, cs []*model.Counter) string {
	var b strings.Builder
	for i, c := range cs {
		fmt.Fprintf(&b, "%d: count=%d closed=%v queue=%v", i, c.Count(), c.Closed(), c.Queue())
		if r, ok := s.Registration(c); ok {
			fmt.Fprintf(&b, " reg=%+v", r)
		}
		b.WriteString("; ")
	}
	fmt.Fprintf(&b, "closed=%v ready=[", s.Closed())
	for _, c := range s.ReadyList() {
		fmt.Fprintf(&b, " %d", slices.Index(cs, c))
	}
	b.WriteString(" ]")
	return b.String()
}

// A cloneOp is one call on a Set over cloneRig's Counters, drawn before
// it is made, so that the same call can be made on a Set and its Clone.
type cloneOp struct {
	op, k, key, max int
	events          model.Events
	mode            model.Mode
	v               uint64
}

var cloneOps = rapid.Custom(func(t *rapid.T) cloneOp {
	return cloneOp{
		op:     rapid.IntRange(0, 30).Draw(t, "op"),
		k:      rapid.IntRange(0, 3).Draw(t, "k"),
		key:    rapid.IntRange(0, 2).Draw(t, "key"),
		max:    rapid.IntRange(1, 4).Draw(t, "max"),
		events: rapid.SampledFrom([]model.Events{model.In, model.Out, model.In | model.Out}).Draw(t, "events"),
		mode:   rapid.SampledFrom([]model.Mode{model.Edge, model.Level, model.OneShot}).Draw(t, "mode"),
		v:      rapid.Uint64Range(0, 2).Draw(t, "v"),
	}
})

// cloneRig is a Set over two signals and two semaphores, one of them with
// a unit; a removed Counter stays in the list.
func cloneRig() (*model.Set, []*model.Counter) {
	return model.NewSet(), []*model.Counter{model.NewSignal(0), model.NewSemaphore(0, 3), model.NewSignal(0), model.NewSemaphore(1, 2)}
}

// apply makes the call o on s over cs and returns what it returned.
func (o cloneOp) apply(s *model.Set, cs []*model.Counter) string {
	c := cs[o.k]
	switch {
	case o.op < 4:
		return fmt.Sprint(s.Add(c, 10*o.k, o.events, o.mode))
	case o.op < 8:
		return fmt.Sprint(s.Modify(c, 10*o.k+o.key, o.events, o.mode))
	case o.op < 10:
		return fmt.Sprint(s.Remove(c))
	case o.op < 16:
		return fmt.Sprint(c.Write(o.v))
	case o.op < 20:
		return fmt.Sprint(c.Read())
	case o.op < 26:
		return fmt.Sprint(s.TryWait(o.max))
	case o.op < 28 && c.Limit() < model.Max: // a semaphore: a reservation to copy
		r, err := c.Reserve(min(o.v, c.Limit()))
		return fmt.Sprint(r != nil && r.Done(), err)
	case o.op == 28:
		c.Close()
	case o.op == 29:
		s.Close()
	}
	return ""
}

// TestSetCloneStepsAsTheOriginal: a Clone taken at any point looks the
// same as the original and returns what it returns, call for call; and
// stepping one leaves the other as it was.
func TestSetCloneStepsAsTheOriginal(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s, cs := cloneRig()
		for _, o := range rapid.SliceOfN(cloneOps, 0, 60).Draw(t, "before") {
			o.apply(s, cs)
		}
		before := view(s, cs)
		s2, cs2 := s.Clone(cs)
		if got := view(s2, cs2); got != before {
			t.Fatalf("clone:\n%s\nwant\n%s", got, before)
		}
		ops := rapid.SliceOfN(cloneOps, 1, 60).Draw(t, "after")
		var got, want []string
		for _, o := range ops {
			got = append(got, o.apply(s2, cs2))
		}
		if v := view(s, cs); v != before {
			t.Fatalf("stepping the clone changed the original:\n%s\nwas\n%s", v, before)
		}
		for _, o := range ops {
			want = append(want, o.apply(s, cs))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("clone returned %q, original %q", got, want)
		}
		if a, b := view(s2, cs2), view(s, cs); a != b {
			t.Fatalf("clone ends in\n%s\noriginal in\n%s", a, b)
		}
		for _, x := range []*model.Set{s, s2} {
			if err := x.Validate(); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestSetCloneOfAWakeupReachesOnlyTheCopy: a Counter in two Sets is
// cloned with one of them. The copy's writes queue it in the copy of that
// Set only, and the original's in the two originals only.
func TestSetCloneOfAWakeupReachesOnlyTheCopy(t *testing.T) {
	s, other, c := model.NewSet(), model.NewSet(), model.NewSignal(0)
	for _, x := range []*model.Set{s, other} {
		if err := x.Add(c, 1, model.In, model.Edge); err != nil {
			t.Fatal(err)
		}
	}
	s2, cs2 := s.Clone([]*model.Counter{c})
	if err := cs2[0].Write(1); err != nil {
		t.Fatal(err)
	}
	if s.Queued() != 0 || other.Queued() != 0 || s2.Queued() != 1 {
		t.Fatalf("after the copy's write: queued %d, %d, copy %d; want 0, 0, 1", s.Queued(), other.Queued(), s2.Queued())
	}
	if err := c.Write(1); err != nil {
		t.Fatal(err)
	}
	if s.Queued() != 1 || other.Queued() != 1 || c.Count() != 1 || cs2[0].Count() != 1 {
		t.Fatalf("after the original's write: queued %d, %d; counts %d, copy %d; want 1, 1; 1, 1",
			s.Queued(), other.Queued(), c.Count(), cs2[0].Count())
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
	_, cs := s.Clone([]*model.Counter{sem})
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

// TestSetClonePanicsWithoutItsCounters: a Counter in the Set that cs
// leaves out has no copy to register, so Clone panics.
func TestSetClonePanicsWithoutItsCounters(t *testing.T) {
	s, a, b := model.NewSet(), model.NewSignal(0), model.NewSignal(0)
	_ = s.Add(a, 0, model.In, model.Edge)
	_ = s.Add(b, 1, model.In, model.Edge)
	defer func() {
		if r := recover(); r != "model: Clone needs every Counter in the Set" {
			t.Fatalf("recovered %v", r)
		}
	}()
	s.Clone([]*model.Counter{a})
	t.Fatal("Clone without b did not panic")
}

// TestSetRegistrationAndReadyList: Registration reports the key, events,
// mode and state of a registration, and ReadyList the queued Counters in
// the order a Wait polls them, stale ones included.
func TestSetRegistrationAndReadyList(t *testing.T) {
	s := model.NewSet()
	a, b, c := model.NewSignal(0), model.NewSemaphore(0, 1), model.NewSignal(0)
	_ = s.Add(a, 1, model.In, model.OneShot)
	_ = s.Add(b, 2, model.Out, model.Level) // queued at once: below its limit
	_ = a.Write(1)
	if got := s.ReadyList(); !slices.Equal(got, []*model.Counter{b, a}) {
		t.Fatalf("ReadyList = %v, want [b a]", got)
	}
	if evs := s.TryWait(1); len(evs) != 1 || evs[0].Key != 2 {
		t.Fatalf("TryWait(1) = %v, want b", evs)
	}
	if got := s.ReadyList(); !slices.Equal(got, []*model.Counter{a, b}) {
		t.Fatalf("ReadyList after b was reported = %v, want [a b]: level b at the tail", got)
	}
	a.Take() // a stays queued, with no event left
	if got := s.ReadyList(); !slices.Equal(got, []*model.Counter{a, b}) {
		t.Fatalf("ReadyList after a's Take = %v, want [a b]", got)
	}
	_ = a.Write(1)
	s.TryWait(2)
	want := model.SetRegistration{Key: 1, Events: model.In, Mode: model.OneShot, Disarmed: true}
	if r, ok := s.Registration(a); !ok || r != want {
		t.Fatalf("Registration(a) = %+v, %v; want %+v", r, ok, want)
	}
	want = model.SetRegistration{Key: 2, Events: model.Out, Mode: model.Level, Queued: true}
	if r, ok := s.Registration(b); !ok || r != want {
		t.Fatalf("Registration(b) = %+v, %v; want %+v", r, ok, want)
	}
	if r, ok := s.Registration(c); ok || r != (model.SetRegistration{}) {
		t.Fatalf("Registration of a Counter not in the Set = %+v, %v", r, ok)
	}
}

// A linearizability checker steps a copy of the state it is at, and
// keeps the state for the next call it tries.
func ExampleSet_Clone() {
	set, a := model.NewSet(), model.NewSignal(0)
	_ = set.Add(a, 1, model.In, model.Edge)
	_ = a.Write(1)

	next, cs := set.Clone([]*model.Counter{a})
	fmt.Println(next.TryWait(8), cs[0].Take())
	fmt.Println(set.TryWait(8), a.Count()) // the original is as it was
	// Output:
	// [{1 in}] 1
	// [{1 in}] 1
}

// TestSetMutedCallsWakeWhenTold: a call on a muted Counter changes it,
// tells its Set nothing and holds its events; Set.Wake delivers them
// later under the usual rule.
func TestSetMutedCallsWakeWhenTold(t *testing.T) {
	s, a := model.NewSet(), model.NewSignal(0)
	_ = s.Add(a, 1, model.In, model.Edge)
	a.Mute()
	_ = a.Write(1)
	if a.Count() != 1 || s.Queued() != 0 {
		t.Fatalf("muted Write(1): count %d, queued %d; want 1, 0", a.Count(), s.Queued())
	}
	if ev := a.Unmute(); ev != model.In {
		t.Fatalf("Unmute after Write = %v, want in", ev)
	}
	if evs := s.TryWait(4); len(evs) != 0 {
		t.Fatalf("TryWait before the wakeup = %v, want nothing", evs)
	}
	s.Wake(a, model.In)
	if evs := s.TryWait(4); !slices.Equal(evs, []model.SetEvent{{Key: 1, Events: model.In}}) {
		t.Fatalf("TryWait after Wake = %v, want [{1 in}]", evs)
	}
	_ = a.Write(1) // unmuted: tells the Set at once
	if s.Queued() != 1 {
		t.Fatalf("unmuted Write: queued %d, want 1", s.Queued())
	}
}

// TestSetMutedEventsAddUp: Unmute returns the events of every call since
// Mute, none for a call that wakes nothing, and forgets them.
func TestSetMutedEventsAddUp(t *testing.T) {
	a, b := model.NewSignal(0), model.NewSemaphore(2, 2)
	for _, c := range []struct {
		name string
		c    *model.Counter
		do   func()
		want model.Events
	}{
		{"Write and Take", a, func() { _ = a.Write(2); a.Take() }, model.In | model.Out},
		{"a Take of 0", a, func() { a.Take() }, 0},
		{"a refused Write", b, func() { _ = b.Write(1) }, 0},
		{"Close", b, b.Close, model.Hup},
	} {
		c.c.Mute()
		c.do()
		if ev := c.c.Unmute(); ev != c.want {
			t.Errorf("%s: Unmute = %v, want %v", c.name, ev, c.want)
		}
		if ev := c.c.Unmute(); ev != 0 {
			t.Errorf("%s: a second Unmute = %v, want none", c.name, ev)
		}
	}
}

// TestSetLateWakeAfterAPollReportsAnEdgeAgain is the window Mute models:
// a Modify polls a write whose wakeup has not come yet, and queues the
// source; a Wait reports it; the wakeup then queues it again.
func TestSetLateWakeAfterAPollReportsAnEdgeAgain(t *testing.T) {
	s, a := model.NewSet(), model.NewSignal(0)
	_ = s.Add(a, 1, model.In, model.Edge)
	a.Mute()
	_ = a.Write(1)
	ev := a.Unmute()
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
// a fired one-shot, or in a closed Set.
func TestSetWakeFollowsTheRule(t *testing.T) {
	for _, c := range []struct {
		name   string
		setup  func(s *model.Set, a *model.Counter)
		ev     model.Events
		queued int
	}{
		{"In to an In registration", func(*model.Set, *model.Counter) {}, model.In, 1},
		{"Out to an In registration", func(*model.Set, *model.Counter) {}, model.Out, 0},
		{"Hup to an In registration", func(*model.Set, *model.Counter) {}, model.Hup, 1},
		{"In after Remove", func(s *model.Set, a *model.Counter) { _ = s.Remove(a) }, model.In, 0},
		{"In to a fired one-shot", func(s *model.Set, a *model.Counter) {
			_ = s.Modify(a, 1, model.In, model.OneShot)
			_ = a.Write(1)
			s.TryWait(1)
		}, model.In, 0},
		{"In after Close", func(s *model.Set, a *model.Counter) { s.Close() }, model.In, 0},
	} {
		s, a := model.NewSet(), model.NewSignal(0)
		_ = s.Add(a, 1, model.In, model.Edge)
		c.setup(s, a)
		s.Wake(a, c.ev)
		if s.Queued() != c.queued {
			t.Errorf("%s: queued %d, want %d", c.name, s.Queued(), c.queued)
		}
	}
}

// TestSetCloneOfManyCounters: Clone takes a long list of Counters, some
// in the Set and some listed twice, and a copy removed from the copy of
// the Set leaves the other copies in it.
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
		s2, cs2 := s.Clone(cs)
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
