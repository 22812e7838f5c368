package poll_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/evsync/evsync/coalesce"
	"github.com/evsync/evsync/model"
	"github.com/evsync/evsync/poll"
	"github.com/evsync/evsync/readyq"
	"github.com/evsync/evsync/semaphore"
	"github.com/evsync/evsync/signal"
	"pgregory.net/rapid"
)

var bg = context.Background()

// A source is a real source and the model's Counter for it, with the
// calls that map an eventfd's write and read onto both (model.Counter's
// table).
type source struct {
	sig *signal.Signal       // a signal: Add, Take
	sem *semaphore.Semaphore // or a semaphore: Release, TryAcquire(1)
	m   *model.Counter
	res []reservation // a semaphore's reservations, real and modelled
}

// A reservation is a semaphore's Reservation and the model's.
type reservation struct {
	r *semaphore.Reservation
	m *model.Reservation
}

// state describes a reservation as Done and Err show it.
func (r reservation) state() (real, modelled string) {
	done := false
	select {
	case <-r.r.Done():
		done = true
	default:
	}
	return fmt.Sprint(done, r.r.Err()), fmt.Sprint(r.m.Done(), r.m.Err())
}

func newSource(sem bool) *source {
	if sem {
		return &source{sem: semaphore.New(0), m: model.NewSemaphore(0, model.Max)}
	}
	return &source{sig: signal.New(0), m: model.NewSignal(0)}
}

// real returns the real source, as Add takes it.
func (s *source) real() any {
	if s.sig != nil {
		return s.sig
	}
	return s.sem
}

// write writes v to the real source (Add, Release), and returns its error
// as errors.Is sees it.
func (s *source) write(v uint64) error {
	var err error
	if s.sig != nil {
		err = s.sig.Add(v)
	} else {
		err = s.sem.Release(v)
	}
	for _, e := range []error{model.ErrInvalid, model.ErrWouldBlock, model.ErrClosed} {
		if errors.Is(err, e) {
			return e
		}
	}
	return err
}

// read is a non-blocking read of the real source (Take, TryAcquire(1)):
// the units read, or 0 and ErrWouldBlock, as model.Counter.Read.
func (s *source) read() (uint64, error) {
	if s.sig != nil {
		if v := s.sig.Take(); v != 0 {
			return v, nil
		}
	} else if s.sem.TryAcquire(1) {
		return 1, nil
	}
	return 0, model.ErrWouldBlock
}

func (s *source) close() {
	if s.sig != nil {
		s.sig.Close()
	} else {
		s.sem.Close()
	}
	s.m.Close()
}

// events converts a Wait's events to the model's.
func events(evs []poll.Event[int]) []model.SetEvent {
	var out []model.SetEvent
	for _, e := range evs {
		out = append(out, model.SetEvent{Key: e.Key, Events: model.Events(e.Events)})
	}
	return out
}

var (
	anyEvents = rapid.SampledFrom([]poll.Events{poll.In, poll.Out, poll.In | poll.Out})
	anyMode   = rapid.SampledFrom([]poll.Mode{poll.Edge, poll.Level, poll.OneShot})
)

// TestSetMatchesTheModel drives a Set over signals and semaphores and
// model.Set over their Counters with the same random calls, one at a
// time, and compares every result: errors, the events of every Wait and
// TryWait in order, Len. The calls include the sources' writes, reads
// and Close, a semaphore's Reserve and Cancel, the Set's calls with a
// nil source, and the Set's Close.
func TestSetMatchesTheModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var srcs []*source
		for _, sem := range rapid.SliceOfN(rapid.Bool(), 1, 5).Draw(t, "semaphores") {
			srcs = append(srcs, newSource(sem))
		}
		set, m := poll.New[int](), model.NewSet()
		defer set.Close()
		type ready struct { // a Ready channel and the model's ticket for it
			ch <-chan struct{}
			tk model.Ticket
		}
		var readies []ready
		for step := range rapid.IntRange(1, 200).Draw(t, "steps") {
			i := rapid.IntRange(0, len(srcs)-1).Draw(t, "i")
			s := srcs[i]
			check := func(what string, got, want any) {
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("step %d: %s = %v, the model's %v", step, what, got, want)
				}
			}
			switch op := rapid.IntRange(0, 13).Draw(t, "op"); op {
			case 0:
				ev, md := anyEvents.Draw(t, "events"), anyMode.Draw(t, "mode")
				check(fmt.Sprintf("Add(%d, %v, %v)", i, ev, md), set.Add(s.real(), i, ev, md), m.Add(s.m, i, model.Events(ev), model.Mode(md)))
			case 1:
				ev, md := anyEvents.Draw(t, "events"), anyMode.Draw(t, "mode")
				key := rapid.SampledFrom([]int{i, i + 100}).Draw(t, "key") // a new key, or the same
				check(fmt.Sprintf("Modify(%d, %d, %v, %v)", i, key, ev, md), set.Modify(s.real(), key, ev, md), m.Modify(s.m, key, model.Events(ev), model.Mode(md)))
			case 2:
				check(fmt.Sprintf("Remove(%d)", i), set.Remove(s.real()), m.Remove(s.m))
			case 3, 4:
				v := rapid.SampledFrom([]uint64{0, 1, 2, model.Max - 1, model.Max + 1}).Draw(t, "v")
				check(fmt.Sprintf("write(%d, %d)", i, v), s.write(v), s.m.Write(v))
			case 5:
				v, err := s.read()
				mv, merr := s.m.Read()
				check(fmt.Sprintf("read(%d)", i), fmt.Sprint(v, err), fmt.Sprint(mv, merr))
			case 6, 7:
				max := rapid.IntRange(1, len(srcs)+1).Draw(t, "max")
				check(fmt.Sprintf("TryWait(%d)", max), events(set.TryWait(nil, max)), m.TryWait(max))
			case 8:
				if rapid.IntRange(0, 9).Draw(t, "close a source") == 0 {
					s.close()
				} else {
					// A Wait that would not block: the model says so first.
					max := rapid.IntRange(1, len(srcs)+1).Draw(t, "max")
					want, err := m.Wait(model.Live, max)
					if errors.Is(err, model.ErrWouldBlock) {
						break
					}
					// A Wait the model says returns at once must not block:
					// a deadline turns a lost event into a failure.
					ctx, cancel := context.WithTimeout(bg, 10*time.Second)
					got, gerr := set.Wait(ctx, nil, max)
					cancel()
					check(fmt.Sprintf("Wait(%d)", max), fmt.Sprint(events(got), gerr), fmt.Sprint(want, err))
				}
			case 9:
				if rapid.IntRange(0, 4).Draw(t, "close the set") == 0 {
					set.Close()
					m.Close()
				}
			case 10:
				if s.sem == nil {
					break
				}
				n := rapid.Uint64Range(0, 3).Draw(t, "reserve")
				r, err := s.sem.Reserve(n)
				mr, merr := s.m.Reserve(n)
				check(fmt.Sprintf("Reserve(%d, %d)", i, n), err, merr)
				if err == nil && merr == nil {
					s.res = append(s.res, reservation{r, mr})
				}
			case 11:
				if len(s.res) == 0 {
					break
				}
				r := s.res[rapid.IntRange(0, len(s.res)-1).Draw(t, "cancel")]
				check(fmt.Sprintf("Cancel(%d, need %d)", i, r.m.Need()), r.r.Cancel(), r.m.Cancel())
			case 12:
				// The Set's calls with a nil source of either type: as Add,
				// Modify and Remove refuse them, open or closed.
				ev, md := anyEvents.Draw(t, "events"), anyMode.Draw(t, "mode")
				var nilSrc any = (*signal.Signal)(nil)
				if rapid.Bool().Draw(t, "nil semaphore") {
					nilSrc = (*semaphore.Semaphore)(nil)
				}
				check("Add(nil)", errors.Is(set.Add(nilSrc, i, ev, md), poll.ErrInvalid), errors.Is(m.Add(nil, i, model.Events(ev), model.Mode(md)), model.ErrInvalid))
				check("Modify(nil)", errors.Is(set.Modify(nilSrc, 0, ev, md), poll.ErrInvalid), errors.Is(m.Modify(nil, 0, model.Events(ev), model.Mode(md)), model.ErrInvalid))
				check("Remove(nil)", errors.Is(set.Remove(nilSrc), poll.ErrInvalid), errors.Is(m.Remove(nil), model.ErrInvalid))
			case 13:
				readies = append(readies, ready{set.Ready(), m.Ready()})
			}
			for k, r := range readies {
				closed := false
				select {
				case <-r.ch:
					closed = true
				default:
				}
				check(fmt.Sprintf("Ready channel %d closed", k), closed, m.Fired(r.tk))
			}
			for _, r := range s.res {
				got, want := r.state()
				check(fmt.Sprintf("reservation of %d (need %d)", i, r.m.Need()), got, want)
			}
			check("Len", set.Len(), m.Len())
			if err := m.Validate(); err != nil {
				t.Fatal(err)
			}
		}
	})
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
