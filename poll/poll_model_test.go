package poll_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/evsync/evsync/internal/testsupport/fakeclock"
	"github.com/evsync/evsync/model"
	"github.com/evsync/evsync/poll"
	"github.com/evsync/evsync/semaphore"
	"github.com/evsync/evsync/signal"
)

// A source is a real source and the model's for it. It is one of:
//   - a signal or a semaphore and its Counter, with the calls that map an
//     eventfd's write and read onto both (model.Counter's table)
//   - a program's own poll.Source and a model.Source
//   - a poll.Deadline and a model.Deadline
//   - a poll.Done and a model.DoneSource
type source struct {
	sig *signal.Signal       // a signal: Add, Take
	sem *semaphore.Semaphore // or a semaphore: Release, TryAcquire(1)
	m   *model.Counter
	res []reservation // a semaphore's reservations, real and modelled

	user  *poll.Source // or a program's own source
	ev    poll.Events  // what user's poll function reports
	muser *model.Source

	dl  *poll.Deadline // or a Deadline
	mdl *model.Deadline

	done   *poll.Done // or a context's Done
	cancel context.CancelFunc
	mdone  *model.DoneSource
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

// newSource returns a semaphore and its Counter if sem is set, and a
// signal and its Counter if not.
func newSource(sem bool) *source {
	if sem {
		return &source{sem: semaphore.New(0), m: model.NewSemaphore(0, model.Max)}
	}
	return &source{sig: signal.New(0), m: model.NewSignal(0)}
}

// newUserSource returns a poll.Source whose poll function reports the
// source's ev, and a model.Source, both reporting nothing.
func newUserSource() *source {
	s := &source{muser: model.NewSource()}
	s.user = poll.NewSource(func() poll.Events { return s.ev })
	return s
}

// newDeadline returns a Deadline at at on a clock that starts at base,
// and the model's at at.
func newDeadline(base time.Time, at time.Duration) *source {
	return &source{dl: poll.NewDeadline(base.Add(at)), mdl: model.NewDeadline(at)}
}

// newDone returns a Done of a context of its own, ended already if ended
// is set, and a DoneSource that has not ended. The context ends with the
// source's cancel.
func newDone(ended bool) *source {
	ctx, cancel := context.WithCancel(context.Background())
	if ended {
		cancel()
	}
	return &source{done: poll.OnDone(ctx), cancel: cancel, mdone: model.NewDoneSource()}
}

// real returns the real source, as Add takes it.
func (s *source) real() any {
	switch {
	case s.sig != nil:
		return s.sig
	case s.sem != nil:
		return s.sem
	case s.user != nil:
		return s.user
	case s.dl != nil:
		return s.dl
	}
	return s.done
}

// modelled returns the model's source, as model.Set's Add takes it.
func (s *source) modelled() any {
	switch {
	case s.m != nil:
		return s.m
	case s.muser != nil:
		return s.muser
	case s.mdl != nil:
		return s.mdl
	}
	return s.mdone
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

// close closes a counter on both sides.
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

// notSources are values Add, Modify and Remove refuse, each with the
// model's value that model.Set refuses for the same reason.
var notSources = []struct {
	name        string
	real, model any
}{
	{"nil", nil, nil},
	{"nil *Signal", (*signal.Signal)(nil), (*model.Counter)(nil)},
	{"nil *Semaphore", (*semaphore.Semaphore)(nil), (*model.Counter)(nil)},
	{"nil *Source", (*poll.Source)(nil), (*model.Source)(nil)},
	{"zero Source", new(poll.Source), new(model.Source)},
	{"nil *Deadline", (*poll.Deadline)(nil), (*model.Deadline)(nil)},
	{"nil *Done", (*poll.Done)(nil), (*model.DoneSource)(nil)},
	{"zero Done", new(poll.Done), new(model.DoneSource)},
	{"an int", 42, 42},
}

// TestADeadlineForOutAloneAbsorbsItsTime: a Deadline's time is a wakeup
// with In, so a registration that asks for Out alone absorbs it, as
// Stats' doc says and as the kernel's timerfd does (ep_poll_callback
// ignores a wakeup that meets no event asked for). It is not queued, it
// fires no Ready channel, and no wakeup is counted. model.Set agrees
// (TestSetDeadlineForOutAloneAbsorbsItsTime there).
func TestADeadlineForOutAloneAbsorbsItsTime(t *testing.T) {
	fake := fakeclock.New(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	set := poll.New[int](poll.WithClock(fake))
	defer set.Close()
	d := poll.NewDeadline(fake.Now().Add(time.Millisecond))
	if err := set.Add(d, 1, poll.Out, poll.Edge); err != nil {
		t.Fatal(err)
	}
	ready := set.Ready()
	fake.Step(2 * time.Millisecond)
	if got, want := set.Stats(), (poll.Stats{Registered: 1, Armed: 1}); got != want {
		t.Errorf("Stats after the Deadline's time = %+v, want %+v", got, want)
	}
	select {
	case <-ready:
		t.Error("the Ready channel fired for a Deadline asked for Out alone")
	default:
	}
	if err := set.Modify(d, 1, poll.In, poll.Edge); err != nil {
		t.Fatal(err)
	}
	if got := set.TryWait(nil, 4); !slices.Equal(got, []poll.Event[int]{{Key: 1, Events: poll.In}}) {
		t.Fatalf("TryWait after Modify for In = %v, want [{1 in}]", got)
	}
}

// TestOnDoneOfAnEndedContextIsDoneAtOnce: OnDone's doc says a Done of a
// context done already reports In|Hup at once, so a TryWait right after
// Add reports it, with no goroutine to wait for.
func TestOnDoneOfAnEndedContextIsDoneAtOnce(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for i := range 100 {
		var set poll.Set[int]
		if err := set.Add(poll.OnDone(ctx), i, poll.In, poll.Edge); err != nil {
			t.Fatal(err)
		}
		got := set.TryWait(nil, 4)
		set.Close()
		if !slices.Equal(got, []poll.Event[int]{{Key: i, Events: poll.In | poll.Hup}}) {
			t.Fatalf("try %d: TryWait right after Add = %v, want [{%d in|hup}]", i, got, i)
		}
	}
}
