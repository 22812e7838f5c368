package model_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/evsync/evsync/model"
	"pgregory.net/rapid"
)

// setRig is a Set over signals named a, b, c, ... by their keys 0, 1, 2.
type setRig struct {
	t   *testing.T
	set *model.Set
	src []*model.Counter
}

func newSetRig(t *testing.T, n int) *setRig {
	r := &setRig{t: t, set: model.NewSet()}
	for range n {
		r.src = append(r.src, model.NewSignal(0))
	}
	return r
}

func (r *setRig) add(k int, ev model.Events, m model.Mode) {
	r.t.Helper()
	if err := r.set.Add(r.src[k], k, ev, m); err != nil {
		r.t.Fatalf("Add(%c) = %v", 'a'+k, err)
	}
}

func (r *setRig) write(k int, v uint64) {
	r.t.Helper()
	if err := r.src[k].Write(v); err != nil {
		r.t.Fatalf("Write(%c, %d) = %v", 'a'+k, v, err)
	}
}

// wait waits for up to max events with TryWait and compares their keys,
// named a, b, c, ..., with want, such as "c a b". Each event must have In
// if in is set, and Out otherwise.
func (r *setRig) wait(max int, want string, in bool) {
	r.t.Helper()
	evs := r.set.TryWait(max)
	var got []byte
	for _, e := range evs {
		if len(got) > 0 {
			got = append(got, ' ')
		}
		got = append(got, byte('a'+e.Key))
		if ev := map[bool]model.Events{true: model.In, false: model.Out}[in]; e.Events != ev {
			r.t.Fatalf("TryWait(%d): %c has %v, want %v", max, 'a'+e.Key, e.Events, ev)
		}
	}
	if string(got) != want {
		r.t.Fatalf("TryWait(%d) = [%s], want [%s]", max, got, want)
	}
	if err := r.set.Validate(); err != nil {
		r.t.Fatal(err)
	}
}

// The probes of the kernel's epoll over eventfds (the spec's
// kernel-epoll.md), one test each. The kernel differential
// (set_kernel_test.go) checks the same on random sequences.

func TestSetLevelReportsInWakeupOrderAgain(t *testing.T) {
	r := newSetRig(t, 3)
	for k := range 3 {
		r.add(k, model.In, model.Level)
	}
	for _, k := range []int{2, 0, 2, 1} {
		r.write(k, 1)
	}
	r.wait(8, "c a b", true)
	r.wait(8, "c a b", true)
}

func TestSetLevelRoundRobinUnderMax(t *testing.T) {
	r := newSetRig(t, 5)
	for k := range 5 {
		r.add(k, model.In, model.Level)
		r.write(k, 1)
	}
	for _, want := range []string{"a b", "c d", "e a", "b c", "d e"} {
		r.wait(2, want, true)
	}
}

func TestSetEdgeReportsEveryWriteEvenOfZero(t *testing.T) {
	r := newSetRig(t, 1)
	r.add(0, model.In, model.Edge)
	r.write(0, 1)
	r.wait(8, "a", true)
	r.wait(8, "", true)
	r.write(0, 0)
	r.wait(8, "a", true)
	r.write(0, 1)
	r.wait(8, "a", true)
	if _, err := r.src[0].Read(); err != nil {
		t.Fatal(err)
	}
	r.wait(8, "", true)
}

func TestSetEdgeOutIsWokenByARead(t *testing.T) {
	r := newSetRig(t, 1)
	r.add(0, model.Out, model.Edge)
	r.wait(8, "a", false)
	r.write(0, 1)
	r.wait(8, "", false)
	if _, err := r.src[0].Read(); err != nil {
		t.Fatal(err)
	}
	r.wait(8, "a", false)
}

func TestSetOneShotIsDeafUntilModify(t *testing.T) {
	r := newSetRig(t, 1)
	r.add(0, model.In, model.OneShot)
	r.write(0, 1)
	r.wait(8, "a", true)
	r.wait(8, "", true)
	r.write(0, 1)
	r.wait(8, "", true)
	if err := r.set.Modify(r.src[0], 0, model.In, model.OneShot); err != nil {
		t.Fatal(err)
	}
	r.wait(8, "a", true)
	r.wait(8, "", true)
}

func TestSetRemoveAndAddAgain(t *testing.T) {
	r := newSetRig(t, 2)
	for k := range 2 {
		r.add(k, model.In, model.Level)
		r.write(k, 1)
	}
	if err := r.set.Remove(r.src[0]); err != nil {
		t.Fatal(err)
	}
	r.wait(8, "b", true)
	r.add(0, model.In, model.Level)
	r.wait(8, "b a", true)
	if err := r.set.Add(r.src[0], 0, model.In, model.Level); !errors.Is(err, model.ErrExists) {
		t.Fatalf("second Add = %v, want ErrExists", err)
	}
}

func TestSetDropsWhatIsNoLongerReady(t *testing.T) {
	r := newSetRig(t, 2)
	r.add(0, model.In, model.Edge)
	r.add(1, model.In, model.Level)
	r.write(0, 1)
	r.write(1, 1)
	if _, err := r.src[0].Read(); err != nil { // a's wakeup is stale now
		t.Fatal(err)
	}
	if n := r.set.Queued(); n != 2 {
		t.Fatalf("Queued = %d, want 2", n)
	}
	r.wait(8, "b", true)
	if n := r.set.Queued(); n != 1 {
		t.Fatalf("Queued after the Wait = %d, want 1 (b, level)", n)
	}
	if _, err := r.set.Wait(model.Live, 8); err != nil {
		t.Fatalf("Wait with b level and ready = %v", err)
	}
	if _, err := r.src[1].Read(); err != nil {
		t.Fatal(err)
	}
	if evs, err := r.set.Wait(model.Live, 8); !errors.Is(err, model.ErrWouldBlock) || evs != nil {
		t.Fatalf("Wait with nothing ready = %v, %v, want ErrWouldBlock", evs, err)
	}
	if n := r.set.Queued(); n != 1 {
		t.Fatalf("Queued = %d after a Wait that would block, want 1: it changes nothing", n)
	}
	r.wait(8, "", true) // TryWait drops b, which has no event left
	if n := r.set.Queued(); n != 0 {
		t.Fatalf("Queued = %d after a TryWait that found nothing, want 0", n)
	}
}

func TestSetReportsTheEventsAskedForThatHold(t *testing.T) {
	r := newSetRig(t, 1)
	r.add(0, model.In|model.Out, model.Level)
	want := func(ev model.Events) {
		t.Helper()
		got := r.set.TryWait(1)
		if !slices.Equal(got, []model.SetEvent{{Key: 0, Events: ev}}) {
			t.Fatalf("TryWait = %v, want [{0 %v}]", got, ev)
		}
	}
	want(model.Out)
	r.write(0, 1)
	want(model.In | model.Out)
	r.write(0, model.Max-1) // at the limit: not writable
	want(model.In)
}

func TestSetCloseOfASourceReportsHup(t *testing.T) {
	r := newSetRig(t, 2)
	r.add(0, model.In, model.Edge)
	r.add(1, model.Out, model.OneShot)
	r.src[1].Close()
	r.src[0].Close()
	got := r.set.TryWait(8)
	want := []model.SetEvent{{Key: 1, Events: model.Hup}, {Key: 0, Events: model.In | model.Hup}} // a closed source reads at once
	if !slices.Equal(got, want) {
		t.Fatalf("TryWait after the sources' Close = %v, want %v", got, want)
	}
}

func TestSetBadArgumentsChangeNothing(t *testing.T) {
	r := newSetRig(t, 1)
	c := r.src[0]
	for _, tc := range []struct {
		name string
		err  error
		want error
	}{
		{"Add(nil)", r.set.Add(nil, 0, model.In, model.Level), model.ErrInvalid},
		{"Add with no events", r.set.Add(c, 0, 0, model.Level), model.ErrInvalid},
		{"Add asking for Hup", r.set.Add(c, 0, model.In|model.Hup, model.Level), model.ErrInvalid},
		{"Add with a bad mode", r.set.Add(c, 0, model.In, model.OneShot+1), model.ErrInvalid},
		{"Modify of a source not in the set", r.set.Modify(c, 0, model.In, model.Level), model.ErrNotFound},
		{"Remove of a source not in the set", r.set.Remove(c), model.ErrNotFound},
		{"Remove(nil)", r.set.Remove(nil), model.ErrInvalid},
	} {
		if !errors.Is(tc.err, tc.want) {
			t.Errorf("%s = %v, want %v", tc.name, tc.err, tc.want)
		}
	}
	if _, err := r.set.Wait(model.Live, 0); !errors.Is(err, model.ErrInvalid) {
		t.Errorf("Wait(max 0) = %v, want ErrInvalid", err)
	}
	if _, err := r.set.Wait(model.Done, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait(Done) = %v, want context.Canceled", err)
	}
	if r.set.Len() != 0 || r.set.Queued() != 0 {
		t.Fatalf("Len, Queued = %d, %d after failed calls", r.set.Len(), r.set.Queued())
	}
}

func TestSetCloseEndsWaitsOnceNothingIsReady(t *testing.T) {
	r := newSetRig(t, 2)
	r.add(0, model.In, model.Edge)
	r.add(1, model.In, model.Level)
	ready := r.set.Ready()
	if r.set.Fired(ready) {
		t.Fatal("Ready fired on an empty set")
	}
	r.write(0, 1)
	if !r.set.Fired(ready) {
		t.Fatal("Ready did not fire at a wakeup")
	}
	r.write(1, 1) // b: level, queued before Close
	r.set.Close()
	if err := r.set.Add(model.NewSignal(1), 1, model.In, model.Level); !errors.Is(err, model.ErrClosed) {
		t.Fatalf("Add after Close = %v, want ErrClosed", err)
	}
	r.write(0, 1) // a wakeup after Close queues nothing more
	if evs, err := r.set.Wait(model.Live, 8); err != nil || len(evs) != 2 {
		t.Fatalf("Wait after Close with a and b queued = %v, %v, want [a b]", evs, err)
	}
	if _, err := r.set.Wait(model.Live, 8); !errors.Is(err, model.ErrClosed) { // b, level, is not queued again
		t.Fatalf("Wait after Close with nothing queued = %v, want ErrClosed", err)
	}
	if !r.set.Fired(r.set.Ready()) {
		t.Fatal("Ready of a closed set did not fire")
	}
}

func TestSetSemaphoreWakeups(t *testing.T) {
	s := model.NewSet()
	c := model.NewSemaphore(0, 2)
	if err := s.Add(c, 7, model.In|model.Out, model.Edge); err != nil {
		t.Fatal(err)
	}
	step := func(name string, f func(), want []model.SetEvent) {
		t.Helper()
		f()
		if got := s.TryWait(8); !slices.Equal(got, want) {
			t.Fatalf("after %s: TryWait = %v, want %v", name, got, want)
		}
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
	}
	step("Add", func() {}, []model.SetEvent{{7, model.Out}})
	step("Write(2)", func() { _ = c.Write(2) }, []model.SetEvent{{7, model.In}})
	step("TryAcquire(1)", func() { c.TryAcquire(1) }, []model.SetEvent{{7, model.In | model.Out}})
	res, err := c.Reserve(2) // queued: the count stays 1
	if err != nil {
		t.Fatal(err)
	}
	step("a queued Reserve", func() {}, nil)
	step("Cancel of the queued Reserve", func() { res.Cancel() }, nil)
	step("SetLimit(3)", func() { _ = c.SetLimit(3) }, []model.SetEvent{{7, model.In | model.Out}})
}

// Random steps keep Validate happy and every report honest: an event
// reported holds at the time of the Wait.
func TestSetRandomStepsKeepItsInvariants(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := model.NewSet()
		src := []*model.Counter{model.NewSignal(0), model.NewSemaphore(0, 3), model.NewSignal(0), model.NewSemaphore(1, 1)}
		events := rapid.SampledFrom([]model.Events{model.In, model.Out, model.In | model.Out})
		mode := rapid.SampledFrom([]model.Mode{model.Edge, model.Level, model.OneShot})
		for range rapid.IntRange(1, 200).Draw(t, "steps") {
			k := rapid.IntRange(0, len(src)-1).Draw(t, "k")
			c := src[k]
			switch rapid.IntRange(0, 7).Draw(t, "op") {
			case 0:
				_ = s.Add(c, k, events.Draw(t, "events"), mode.Draw(t, "mode"))
			case 1:
				_ = s.Modify(c, k, events.Draw(t, "events"), mode.Draw(t, "mode"))
			case 2:
				_ = s.Remove(c)
			case 3, 4:
				_ = c.Write(rapid.Uint64Range(0, 2).Draw(t, "v"))
			case 5:
				_, _ = c.Read()
			case 6:
				for _, e := range s.TryWait(rapid.IntRange(1, 4).Draw(t, "max")) {
					in, out := src[e.Key].Poll()
					if e.Events == 0 || (e.Events&model.In != 0 && !in) || (e.Events&model.Out != 0 && !out) {
						t.Fatalf("reported %v, Poll = %v, %v", e, in, out)
					}
				}
			case 7:
				if rapid.IntRange(0, 19).Draw(t, "close") == 0 {
					c.Close()
				}
			}
			if err := s.Validate(); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func ExampleSet() {
	set := model.NewSet()
	a, b := model.NewSignal(0), model.NewSignal(0)
	_ = set.Add(a, 1, model.In, model.Edge)
	_ = set.Add(b, 2, model.In, model.Level)
	_ = b.Write(1)
	_ = a.Write(1)
	fmt.Println(set.TryWait(8)) // b level, a edge
	fmt.Println(set.TryWait(8)) // b again: still readable
	// Output:
	// [{2 in} {1 in}]
	// [{2 in}]
}

// reservationSet is a Set over one semaphore of limit 4, count 0, with
// the semaphore added with key 0, asking for events in edge mode.
func reservationSet(t *testing.T, events model.Events) (*model.Set, *model.Counter) {
	t.Helper()
	set, sem := model.NewSet(), model.NewSemaphore(0, 4)
	if err := set.Add(sem, 0, events, model.Edge); err != nil {
		t.Fatal(err)
	}
	set.TryWait(4) // what the Add queued: Out holds at count 0
	return set, sem
}

// TestSetAWriteThatGrantsAReservationWakesOut: a Write whose unit goes
// straight to a pending reservation is a write and a read. It wakes an
// Out registration, though the count ends where it began.
func TestSetAWriteThatGrantsAReservationWakesOut(t *testing.T) {
	set, sem := reservationSet(t, model.Out)
	r, err := sem.Reserve(1)
	if err != nil || r.Done() {
		t.Fatalf("Reserve(1) at count 0 = %v, done %v", err, r.Done())
	}
	if err := sem.Write(1); err != nil || !r.Done() {
		t.Fatalf("Write(1) = %v, reservation done %v", err, r.Done())
	}
	if evs := set.TryWait(4); !slices.Equal(evs, []model.SetEvent{{Key: 0, Events: model.Out}}) {
		t.Fatalf("TryWait after the grant = %v, want [{0 out}]", evs)
	}
}

// TestSetCancelOfAGrantedReserveZeroWakesIn: a Cancel that gives a
// granted reservation's units back is a write, of 0 units too, as an
// eventfd's write(0) wakes EPOLLIN.
func TestSetCancelOfAGrantedReserveZeroWakesIn(t *testing.T) {
	set, sem := reservationSet(t, model.In)
	if err := sem.Write(1); err != nil {
		t.Fatal(err)
	}
	if evs := set.TryWait(4); len(evs) != 1 {
		t.Fatalf("TryWait after Write(1) = %v", evs)
	}
	r, err := sem.Reserve(0)
	if err != nil || !r.Done() {
		t.Fatalf("Reserve(0) = %v, done %v", err, r.Done())
	}
	if evs := set.TryWait(4); len(evs) != 0 {
		t.Fatalf("TryWait after Reserve(0) = %v, want nothing: it took no units", evs)
	}
	if !r.Cancel() {
		t.Fatal("Cancel of a granted Reserve(0) = false")
	}
	if evs := set.TryWait(4); !slices.Equal(evs, []model.SetEvent{{Key: 0, Events: model.In}}) {
		t.Fatalf("TryWait after Cancel = %v, want [{0 in}]", evs)
	}
}
