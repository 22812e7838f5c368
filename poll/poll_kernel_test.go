//go:build linux

package poll_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/evsync/evsync/internal/testsupport/epolltest"
	"github.com/evsync/evsync/internal/testsupport/fakeclock"
	"github.com/evsync/evsync/poll"
)

// kernelDiff is both sides of the kernel differential: eventfds and
// timerfds in a real epoll instance, and signals (an eventfd), semaphores
// (one with EFD_SEMAPHORE) and Deadlines in a Set on a fake clock.
type kernelDiff struct {
	k    *epolltest.Kernel
	set  *poll.Set[int]
	fake *fakeclock.Clock
	base time.Time // the fake clock's time at the differential's 0
	src  []*source
}

func newKernelDiff(t epolltest.Fataler, c epolltest.Config) epolltest.Diff {
	fake := fakeclock.New(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	d := &kernelDiff{k: epolltest.New(t, c), set: poll.New[int](poll.WithClock(fake)), fake: fake, base: fake.Now()}
	for _, sem := range c.Sems {
		d.src = append(d.src, newSource(sem))
	}
	for i := len(c.Sems); i < d.k.Sources(); i++ {
		d.src = append(d.src, newDeadline(d.base, d.k.Time(i)))
	}
	return d
}

// Kernel returns the kernel's side.
func (d *kernelDiff) Kernel() *epolltest.Kernel { return d.k }

// Close closes both sides.
func (d *kernelDiff) Close() {
	d.k.Close()
	d.set.Close()
}

// Step makes op on both sides and fails unless both return the same.
func (d *kernelDiff) Step(t epolltest.Fataler, n int, op epolltest.Op) {
	k, set, s, i := d.k, d.set, d.src[op.I], op.I
	ev, m := poll.Events(op.Events), poll.Mode(op.Mode)
	var got, want any
	switch op.Kind {
	case epolltest.OpAdd:
		got, want = set.Add(s.real(), i, ev, m), k.Ctl(epolltest.Add, i, op.Events, op.Mode)
	case epolltest.OpModify:
		got, want = set.Modify(s.real(), i, ev, m), k.Ctl(epolltest.Modify, i, op.Events, op.Mode)
	case epolltest.OpRemove:
		got, want = set.Remove(s.real()), k.Ctl(epolltest.Remove, i, 0, 0)
	case epolltest.OpWrite:
		got, want = s.write(op.V), k.Write(i, op.V)
	case epolltest.OpRead:
		v, err := s.read()
		kv, kerr := k.Read(i)
		got, want = fmt.Sprint(v, err), fmt.Sprint(kv, kerr)
	case epolltest.OpWait:
		evs, kevs := events(set.TryWait(nil, op.Max)), k.Wait(t, op.Max)
		if !slices.Equal(evs, kevs) {
			t.Fatalf("step %d: TryWait(%d) = %v, epoll_wait's %v", n, op.Max, evs, kevs)
		}
		return
	case epolltest.OpAdvance:
		// Stats does what is due on the fake clock before the next call,
		// whether or not the timer's goroutine has run.
		d.fake.Step(op.D)
		set.Stats()
		k.Advance(t, op.D)
		return
	case epolltest.OpRenew:
		// Closing the timerfd takes it out of the epoll instance; the
		// Deadline must be removed.
		_ = set.Remove(s.real())
		d.src[i] = newDeadline(d.base, k.Renew(t, i, op.D))
		return
	}
	if got != want {
		t.Fatalf("step %d: %+v = %v, the kernel's %v", n, op, got, want)
	}
}

// TestSetMatchesTheKernel runs one random sequence on both sides: K
// eventfds (with and without EFD_SEMAPHORE) and up to 3 timerfds in a
// real epoll instance, and K signals and semaphores and as many
// Deadlines in a Set on a fake clock. The sequence mixes writes (write(0)
// included), reads, ADD/MOD/DEL with IN and OUT interest in edge, level
// and one-shot mode, waits with a maxevents, steps of the clock that
// make timerfds expire and Deadlines come due, and new timerfds and
// Deadlines in the place of old ones. Every call must return the same on
// both sides, and every wait the same events in the same order.
//
// What the two do differently is left out of the sequence, as in
// model.Set's differential: a source's Close (a closed eventfd leaves its
// epoll set, a closed source reports Hup), a read of a timerfd (which
// makes it unreadable; a Deadline stays ready), and Deadlines of one time
// (among which the Set promises no order).
func TestSetMatchesTheKernel(t *testing.T) { epolltest.Check(t, newKernelDiff) }

// FuzzSetMatchesTheKernel is TestSetMatchesTheKernel driven by bytes
// (epolltest.Decode). The seeds are the probes of the spec's
// kernel-epoll.md, and of timerfds.
func FuzzSetMatchesTheKernel(f *testing.F) { epolltest.Fuzz(f, newKernelDiff) }
