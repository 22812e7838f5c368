package poll_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/coalesce"
	"github.com/evsync/evsync/internal/testsupport/fakeclock"
	"github.com/evsync/evsync/model"
	"github.com/evsync/evsync/poll"
	"github.com/evsync/evsync/readyq"
	"github.com/evsync/evsync/semaphore"
	"github.com/evsync/evsync/signal"
	"pgregory.net/rapid"
)

var bg = context.Background()

var (
	anyEvents = rapid.SampledFrom([]poll.Events{poll.In, poll.Out, poll.In | poll.Out})
	anyMode   = rapid.SampledFrom([]poll.Mode{poll.Edge, poll.Level, poll.OneShot})
)

// TestSetMatchesTheModel drives a Set and model.Set with the same random
// calls, one at a time, and compares every result: errors, the events
// of every Wait, WaitTimeout and TryWait in order, Ready channels, Len
// and Stats after every step. The sources are signals and semaphores
// (with model.Counters), a program's own Sources, Deadlines and the
// Dones of contexts, some made as the test goes. The calls include:
//   - the Set's Add, Modify (with a new key or the same), Remove and
//     Close, and its calls with what is no source
//   - the counters' writes, reads and Close, a semaphore's Reserve and
//     Cancel
//   - a Source's change of its events, with a Notify of them, of others,
//     of none (0) or no Notify at all
//   - the fake clock's Step, to a Deadline's time or by a drawn step
//   - the end of a Done's context, and its Stop
//   - WaitTimeout with d ≤ 0, and with d > 0: the fake clock moves on
//     from timer to timer until the call returns, and must have moved as
//     far as the model's
//
// It runs in a testing/synctest bubble, so that a step can wait for the
// goroutines it starts (a Done's AfterFunc, the clock's timer, a
// WaitTimeout) to finish or block before the next.
func TestSetMatchesTheModel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) { rapid.Check(inBubble{t}, checkSetMatchesTheModel) })
}

// inBubble is a bubble's *testing.T, hidden from rapid: rapid asks a
// *testing.T for its Deadline, on which a bubble's T panics.
type inBubble struct{ *testing.T }

func checkSetMatchesTheModel(t *rapid.T) {
	mc := newMachine(t)
	defer mc.close()
	for step := range rapid.IntRange(1, 200).Draw(t, "steps") {
		mc.step = step
		mc.stepOnce()
	}
}

// A machine is a Set on a fake clock and a model.Set, with their sources
// and the Ready channels handed out.
type machine struct {
	t       *rapid.T
	set     *poll.Set[int]
	m       *model.Set
	fake    *fakeclock.Clock
	base    time.Time // the fake clock's time at the model's 0
	srcs    []*source
	times   map[time.Duration]bool // the Deadlines' times, each used once
	readies []ready
	step    int
}

// A ready is a Ready channel and the model's ticket for it.
type ready struct {
	ch <-chan struct{}
	tk model.Ticket
}

// maxSources caps the sources a machine makes as it goes.
const maxSources = 10

func newMachine(t *rapid.T) *machine {
	fake := fakeclock.New(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	mc := &machine{t: t, set: poll.New[int](poll.WithClock(fake)), m: model.NewSet(), fake: fake, base: fake.Now(), times: map[time.Duration]bool{}}
	for range rapid.IntRange(1, 5).Draw(t, "sources") {
		mc.newSource()
	}
	return mc
}

// close closes the Set and ends the contexts, and waits for what that
// starts to finish.
func (mc *machine) close() {
	mc.set.Close()
	for _, s := range mc.srcs {
		if s.cancel != nil {
			s.cancel()
		}
	}
	synctest.Wait()
}

// check fails the test unless got and want print the same.
func (mc *machine) check(what string, got, want any) {
	if fmt.Sprint(got) != fmt.Sprint(want) {
		mc.t.Fatalf("step %d: %s = %v, the model's %v", mc.step, what, got, want)
	}
}

// stepOnce draws a call, makes it on both sides, and compares what both
// can observe.
func (mc *machine) stepOnce() {
	t := mc.t
	i := rapid.IntRange(0, len(mc.srcs)-1).Draw(t, "i")
	s := mc.srcs[i]
	switch op := rapid.IntRange(0, 16).Draw(t, "op"); op {
	case 0:
		ev, md := anyEvents.Draw(t, "events"), anyMode.Draw(t, "mode")
		mc.check(fmt.Sprintf("Add(%d, %v, %v)", i, ev, md), mc.set.Add(s.real(), i, ev, md), mc.m.Add(s.modelled(), i, model.Events(ev), model.Mode(md)))
	case 1:
		ev, md := anyEvents.Draw(t, "events"), anyMode.Draw(t, "mode")
		key := rapid.SampledFrom([]int{i, i + 100}).Draw(t, "key") // a new key, or the same
		mc.check(fmt.Sprintf("Modify(%d, %d, %v, %v)", i, key, ev, md), mc.set.Modify(s.real(), key, ev, md), mc.m.Modify(s.modelled(), key, model.Events(ev), model.Mode(md)))
	case 2:
		mc.check(fmt.Sprintf("Remove(%d)", i), mc.set.Remove(s.real()), mc.m.Remove(s.modelled()))
	case 3, 4:
		mc.change(i, s)
	case 5:
		if s.m == nil {
			break
		}
		v, err := s.read()
		mv, merr := s.m.Read()
		mc.check(fmt.Sprintf("read(%d)", i), fmt.Sprint(v, err), fmt.Sprint(mv, merr))
	case 6, 7:
		max := rapid.IntRange(1, len(mc.srcs)+1).Draw(t, "max")
		mc.check(fmt.Sprintf("TryWait(%d)", max), events(mc.set.TryWait(nil, max)), mc.m.TryWait(max))
	case 8:
		if s.m != nil && rapid.IntRange(0, 9).Draw(t, "close a source") == 0 {
			s.close()
			break
		}
		mc.wait()
	case 9:
		if rapid.IntRange(0, 4).Draw(t, "close the set") == 0 {
			mc.set.Close()
			mc.m.Close()
		}
	case 10:
		if s.sem == nil {
			break
		}
		n := rapid.Uint64Range(0, 3).Draw(t, "reserve")
		r, err := s.sem.Reserve(n)
		mr, merr := s.m.Reserve(n)
		mc.check(fmt.Sprintf("Reserve(%d, %d)", i, n), err, merr)
		if err == nil && merr == nil {
			s.res = append(s.res, reservation{r, mr})
		}
	case 11:
		if len(s.res) == 0 {
			break
		}
		r := s.res[rapid.IntRange(0, len(s.res)-1).Draw(t, "cancel")]
		mc.check(fmt.Sprintf("Cancel(%d, need %d)", i, r.m.Need()), r.r.Cancel(), r.m.Cancel())
	case 12:
		// What is no source, as Add, Modify and Remove refuse it, open or
		// closed.
		x := rapid.SampledFrom(notSources).Draw(t, "not a source")
		ev, md := anyEvents.Draw(t, "events"), anyMode.Draw(t, "mode")
		mc.check("Add("+x.name+")", errors.Is(mc.set.Add(x.real, i, ev, md), poll.ErrInvalid), errors.Is(mc.m.Add(x.model, i, model.Events(ev), model.Mode(md)), model.ErrInvalid))
		mc.check("Modify("+x.name+")", errors.Is(mc.set.Modify(x.real, 0, ev, md), poll.ErrInvalid), errors.Is(mc.m.Modify(x.model, 0, model.Events(ev), model.Mode(md)), model.ErrInvalid))
		mc.check("Remove("+x.name+")", errors.Is(mc.set.Remove(x.real), poll.ErrInvalid), errors.Is(mc.m.Remove(x.model), model.ErrInvalid))
	case 13:
		mc.readies = append(mc.readies, ready{mc.set.Ready(), mc.m.Ready()})
	case 14:
		mc.advance(rapid.SampledFrom([]time.Duration{0, 1, time.Millisecond - 1, time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond}).Draw(t, "step"))
	case 15:
		if len(mc.srcs) < maxSources {
			mc.newSource()
		}
	case 16:
		mc.waitTimeout()
	}
	mc.compare(s)
}

// compare compares what both sides show after a step: the Ready
// channels, the reservations of s, Len and Stats.
func (mc *machine) compare(s *source) {
	for k, r := range mc.readies {
		closed := false
		select {
		case <-r.ch:
			closed = true
		default:
		}
		mc.check(fmt.Sprintf("Ready channel %d closed", k), closed, mc.m.Fired(r.tk))
	}
	for _, r := range s.res {
		got, want := r.state()
		mc.check(fmt.Sprintf("a reservation (need %d)", r.m.Need()), got, want)
	}
	mc.check("Len", mc.set.Len(), mc.m.Len())
	mc.check("Stats", fmt.Sprintf("%+v", model.SetStats(mc.set.Stats())), fmt.Sprintf("%+v", mc.m.Stats()))
	if err := mc.m.Validate(); err != nil {
		mc.t.Fatal(err)
	}
}

// newSource makes a source of a drawn kind: a signal, a semaphore, a
// program's own Source, a Deadline k after now (k small), or a Done, of
// a context that may have ended already.
func (mc *machine) newSource() {
	t := mc.t
	var s *source
	switch kind := rapid.SampledFrom([]string{"signal", "semaphore", "source", "deadline", "done"}).Draw(t, "kind"); kind {
	case "signal", "semaphore":
		s = newSource(kind == "semaphore")
	case "source":
		s = newUserSource()
	case "deadline":
		s = mc.newDeadline()
	case "done":
		ended := rapid.IntRange(0, 3).Draw(t, "ended already") == 0
		s = newDone(ended)
		if ended {
			// The Done of a context done already. Its AfterFunc runs
			// before the next step (TestOnDoneOfAnEndedContextIsDoneAtOnce
			// asks for more).
			synctest.Wait()
			s.mdone.End()
		}
	}
	mc.srcs = append(mc.srcs, s)
}

// newDeadline makes a Deadline a drawn k after now, k small, at a time
// no other Deadline has: poll promises no order among Deadlines of one
// time.
func (mc *machine) newDeadline() *source {
	at := mc.m.Now() + rapid.SampledFrom([]time.Duration{0, 1, time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond}).Draw(mc.t, "at")
	for mc.times[at] {
		at++
	}
	mc.times[at] = true
	return newDeadline(mc.base, at)
}

// change changes the source i, as its kind allows:
//   - a counter: a write
//   - a Source: new events, then a Notify of them, of others, of none or
//     no Notify at all
//   - a Deadline: the clock moves on to its time, if it is to come; if
//     not, a new Deadline takes its place (Remove, then Add)
//   - a Done: its context ends, or Stop
func (mc *machine) change(i int, s *source) {
	t := mc.t
	switch {
	case s.m != nil:
		v := rapid.SampledFrom([]uint64{0, 1, 2, model.Max - 1, model.Max + 1}).Draw(t, "v")
		mc.check(fmt.Sprintf("write(%d, %d)", i, v), s.write(v), s.m.Write(v))
	case s.user != nil:
		ev := poll.Events(rapid.IntRange(0, 15).Draw(t, "source events")) // 8: a bit that is no event
		s.ev = ev
		s.muser.SetEvents(model.Events(ev))
		switch rapid.IntRange(0, 3).Draw(t, "notify") {
		case 0: // no Notify: a Set misses the change
		case 1:
			s.user.Notify(ev)
			s.muser.Notify(model.Events(ev))
		default:
			n := poll.Events(rapid.IntRange(0, 15).Draw(t, "notified"))
			s.user.Notify(n)
			s.muser.Notify(model.Events(n))
		}
	case s.dl != nil:
		if d := s.mdl.Time() - mc.m.Now(); d > 0 {
			mc.advance(d)
			break
		}
		// Its time has come: a new Deadline takes its place, and its key.
		mc.check(fmt.Sprintf("Remove(%d)", i), mc.set.Remove(s.real()), mc.m.Remove(s.modelled()))
		*s = *mc.newDeadline()
		ev, md := anyEvents.Draw(t, "events"), anyMode.Draw(t, "mode")
		mc.check(fmt.Sprintf("Add(%d, %v, %v)", i, ev, md), mc.set.Add(s.real(), i, ev, md), mc.m.Add(s.modelled(), i, model.Events(ev), model.Mode(md)))
	case rapid.IntRange(0, 3).Draw(t, "stop") == 0:
		mc.check(fmt.Sprintf("Stop(%d)", i), s.done.Stop(), s.mdone.Stop())
	default:
		mc.end(s)
	}
}

// end ends the context of the Done s, waits for its AfterFunc to run,
// and ends the model's.
func (mc *machine) end(s *source) {
	s.cancel()
	synctest.Wait()
	s.mdone.End()
}

// advance moves both clocks on by d, and waits for the Set's timer to
// run.
func (mc *machine) advance(d time.Duration) {
	mc.fake.Step(d)
	synctest.Wait()
	mc.m.Advance(d)
}

// wait makes a Wait that the model says does not block.
func (mc *machine) wait() {
	max := rapid.IntRange(1, len(mc.srcs)+1).Draw(mc.t, "max")
	want, err := mc.m.Wait(model.Live, max)
	if errors.Is(err, model.ErrWouldBlock) {
		return
	}
	// A Wait the model says returns at once must not block: a deadline
	// turns a lost event into a failure.
	ctx, cancel := context.WithTimeout(bg, 10*time.Second)
	got, gerr := mc.set.Wait(ctx, nil, max)
	cancel()
	mc.check(fmt.Sprintf("Wait(%d)", max), fmt.Sprint(events(got), gerr), fmt.Sprint(want, err))
}

// waitTimeout makes a WaitTimeout. Where the model's clock ran while it
// waited, the real call waits in a goroutine of its own, and the fake
// clock moves on from timer to timer, as time passes, until it returns.
// Both clocks must have moved as far.
func (mc *machine) waitTimeout() {
	t := mc.t
	max := rapid.IntRange(1, len(mc.srcs)+1).Draw(t, "max")
	d := rapid.SampledFrom([]time.Duration{-1, 0, 1, time.Millisecond, 3 * time.Millisecond, 10 * time.Millisecond}).Draw(t, "timeout")
	before := mc.m.Now()
	want, werr := mc.m.WaitTimeout(max, d)
	what := fmt.Sprintf("WaitTimeout(%d, %v)", max, d)
	if mc.m.Now() == before {
		got, err := mc.set.WaitTimeout(nil, max, d)
		mc.check(what, fmt.Sprint(events(got), err), fmt.Sprint(want, werr))
		return
	}
	type result struct {
		evs []poll.Event[int]
		err error
	}
	done := make(chan result, 1)
	go func() {
		evs, err := mc.set.WaitTimeout(nil, max, d)
		done <- result{evs, err}
	}()
	synctest.Wait()
	mc.check(what+" waiting: Stats().Waiters", mc.set.Stats().Waiters, 1)
	var moved time.Duration
	for {
		select {
		case r := <-done:
			mc.check(what, fmt.Sprint(events(r.evs), r.err), fmt.Sprint(want, werr))
			mc.check(what+": the clock moved", moved, mc.m.Now()-before)
			return
		default:
		}
		next, ok := mc.fake.Next()
		if !ok || moved+next > d {
			mc.t.Fatalf("step %d: %s waits after %v, with the next timer in %v (%v)", mc.step, what, moved, next, ok)
		}
		mc.fake.Step(next)
		moved += next
		synctest.Wait()
	}
}

// TestSetBadArguments: bad arguments return ErrInvalid and change
// nothing.
func TestSetBadArguments(t *testing.T) {
	var set poll.Set[string]
	sig := signal.New(1)
	var nilSig *signal.Signal
	for _, c := range []struct {
		name string
		err  error
		want error
	}{
		{"Add of a value that is not a source", set.Add(make(chan int), "c", poll.In, poll.Level), poll.ErrInvalid},
		{"Add of a nil *Signal", set.Add(nilSig, "n", poll.In, poll.Level), poll.ErrInvalid},
		{"Add of nil", set.Add(nil, "n", poll.In, poll.Level), poll.ErrInvalid},
		{"Add asking for nothing", set.Add(sig, "s", 0, poll.Level), poll.ErrInvalid},
		{"Add asking for Hup", set.Add(sig, "s", poll.In|poll.Hup, poll.Level), poll.ErrInvalid},
		{"Add with a bad mode", set.Add(sig, "s", poll.In, poll.OneShot+1), poll.ErrInvalid},
		{"Modify of a source not in the set", set.Modify(sig, "", poll.In, poll.Level), poll.ErrNotFound},
		{"Remove of a source not in the set", set.Remove(sig), poll.ErrNotFound},
	} {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.err, c.want)
		}
	}
	if _, err := set.Wait(bg, nil, 0); !errors.Is(err, poll.ErrInvalid) {
		t.Errorf("Wait(max 0) = %v, want ErrInvalid", err)
	}
	//lint:ignore SA1012 the nil context is the bad argument under test
	if _, err := set.Wait(nil, nil, 1); !errors.Is(err, poll.ErrInvalid) { //nolint:staticcheck
		t.Errorf("Wait(nil ctx) = %v, want ErrInvalid", err)
	}
	ctx, cancel := context.WithCancel(bg)
	cancel()
	if _, err := set.Wait(ctx, nil, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait(done ctx) = %v, want context.Canceled", err)
	}
	if n := set.Len(); n != 0 {
		t.Fatalf("Len = %d after calls that failed", n)
	}
}

func TestEventsString(t *testing.T) {
	for ev, want := range map[poll.Events]string{0: "none", poll.In: "in", poll.In | poll.Out: "in|out", poll.Out | poll.Hup: "out|hup", poll.In | 8: "in|0x8", 0x30: "0x30"} {
		if got := ev.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", ev, got, want)
		}
	}
}

// TestASourceInTwoSets: each Set hears the source's wakeups, and one
// Set's registration being queued does not keep the other deaf.
func TestASourceInTwoSets(t *testing.T) {
	sig := signal.New(0)
	var a, b poll.Set[int]
	if err := a.Add(sig, 1, poll.In, poll.Edge); err != nil {
		t.Fatal(err)
	}
	if err := b.Add(sig, 2, poll.In, poll.Edge); err != nil {
		t.Fatal(err)
	}
	sig.Add(1)
	want := func(s *poll.Set[int], key int, n int) {
		t.Helper()
		if got := s.TryWait(nil, 8); len(got) != n || (n == 1 && got[0].Key != key) {
			t.Fatalf("TryWait = %v, want %d event(s) of %d", got, n, key)
		}
	}
	want(&a, 1, 1)
	sig.Add(1) // b is queued still; a is armed again
	want(&a, 1, 1)
	want(&b, 2, 1)
	want(&b, 2, 0)
	a.Close()
	sig.Add(1)
	want(&b, 2, 1)
	b.Close()
}

// TestSetEventsAreModelEvents pins the numbering that TestSetMatchesTheModel
// relies on: a poll.Events converts to a model.Events.
func TestSetEventsAreModelEvents(t *testing.T) {
	for _, c := range []struct {
		p poll.Events
		m model.Events
	}{{poll.In, model.In}, {poll.Out, model.Out}, {poll.Hup, model.Hup}} {
		if model.Events(c.p) != c.m {
			t.Errorf("model.Events(%v) = %v, want %v", c.p, model.Events(c.p), c.m)
		}
	}
	if !slices.Equal([]poll.Mode{poll.Edge, poll.Level, poll.OneShot}, []poll.Mode{poll.Mode(model.Edge), poll.Mode(model.Level), poll.Mode(model.OneShot)}) {
		t.Error("the modes are not model's")
	}
}

// TestALimiterIsASource: a Limiter is readable while it has free units,
// and a Release that frees one wakes it.
func TestALimiterIsASource(t *testing.T) {
	l := semaphore.NewLimiter(2)
	var set poll.Set[string]
	defer set.Close()
	if err := set.Add(l, "l", poll.In|poll.Out, poll.Edge); err != nil {
		t.Fatal(err)
	}
	want := func(ev poll.Events) { t.Helper(); wantOne(t, &set, "l", ev) }
	want(poll.In) // all free: readable, nothing held to release
	if !l.TryAcquire(2) {
		t.Fatal("TryAcquire(2) of 2 free failed")
	}
	want(poll.Out) // the acquire woke it: nothing free, all held
	if err := l.Release(1); err != nil {
		t.Fatal(err)
	}
	want(poll.In | poll.Out)
	want(0)
	l.Close()
	want(poll.In | poll.Hup)
}

// TestAWakerIsASource: a coalesce.Waker is readable while a wakeup is
// pending. Each wakeup it delivers wakes its Sets, and Close too.
func TestAWakerIsASource(t *testing.T) {
	w := coalesce.New(0) // every Wake is a wakeup at once
	var set poll.Set[string]
	defer set.Close()
	if err := set.Add(w, "w", poll.In, poll.Edge); err != nil {
		t.Fatal(err)
	}
	want := func(ev poll.Events) { t.Helper(); wantOne(t, &set, "w", ev) }
	want(0)
	w.Wake()
	want(poll.In)
	want(0) // edge: the wakeup was reported
	w.Wake()
	if n := w.Events(); n != 2 {
		t.Fatalf("Events = %d, want 2", n)
	}
	want(0) // the wakeup was consumed before the Set polled it
	w.Close()
	want(poll.In | poll.Hup)
}

// TestAReadyqIsASource: a readyq.Queue is readable while items are
// queued; a section that leaves items queued wakes its Sets, and Close
// too.
func TestAReadyqIsASource(t *testing.T) {
	q := readyq.New[int]()
	var set poll.Set[string]
	defer set.Close()
	if err := set.Add(q, "q", poll.In, poll.Edge); err != nil {
		t.Fatal(err)
	}
	want := func(ev poll.Events) { t.Helper(); wantOne(t, &set, "q", ev) }
	want(0)
	q.Add(1)
	want(poll.In)
	want(0) // edge: reported once
	if items := q.TryTake(4); len(items) != 1 {
		t.Fatalf("TryTake = %v", items)
	}
	q.Done(1)
	want(0) // nothing queued
	q.Add(2)
	q.Close()
	want(poll.In | poll.Hup)
}

// wantOne fails t unless a TryWait on set reports key with events ev, or
// nothing if ev is 0.
func wantOne(t *testing.T, set *poll.Set[string], key string, ev poll.Events) {
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
