//go:build linux

package model_test

import (
	"slices"
	"testing"

	"github.com/evsync/evsync/internal/testsupport/epolltest"
	"github.com/evsync/evsync/model"
)

// kernelDiff is both sides of the differential: eventfds and timerfds in
// a real epoll instance, and Counters and Deadlines in a Set.
type kernelDiff struct {
	k   *epolltest.Kernel
	set *model.Set
	src []any // a *model.Counter for an eventfd, a *model.Deadline for a timerfd
}

// Kernel returns the kernel's side.
func (d *kernelDiff) Kernel() *epolltest.Kernel { return d.k }

// Close closes the kernel's side.
func (d *kernelDiff) Close() { d.k.Close() }

// newKernelDiff makes both sides: an eventfd and a Counter for each entry
// of c.Sems, with EFD_SEMAPHORE (a semaphore's Counter) if it is true,
// without (a signal's) if not; and a timerfd and a Deadline at its time
// for each entry of c.Deadlines.
func newKernelDiff(t epolltest.Fataler, c epolltest.Config) epolltest.Diff {
	d := &kernelDiff{k: epolltest.New(t, c), set: model.NewSet()}
	for _, sem := range c.Sems {
		if sem {
			d.src = append(d.src, model.NewSemaphore(0, model.Max))
		} else {
			d.src = append(d.src, model.NewSignal(0))
		}
	}
	for i := len(c.Sems); i < d.k.Sources(); i++ {
		d.src = append(d.src, model.NewDeadline(d.k.Time(i)))
	}
	return d
}

// Step makes op on both sides and fails unless both return the same.
func (d *kernelDiff) Step(t epolltest.Fataler, n int, op epolltest.Op) {
	k, set, src, i := d.k, d.set, d.src, op.I
	switch op.Kind {
	case epolltest.OpAdd, epolltest.OpModify, epolltest.OpRemove:
		var got, want error
		switch op.Kind {
		case epolltest.OpAdd:
			got, want = k.Ctl(epolltest.Add, i, op.Events, op.Mode), set.Add(src[i], i, op.Events, op.Mode)
		case epolltest.OpModify:
			got, want = k.Ctl(epolltest.Modify, i, op.Events, op.Mode), set.Modify(src[i], i, op.Events, op.Mode)
		case epolltest.OpRemove:
			got, want = k.Ctl(epolltest.Remove, i, 0, 0), set.Remove(src[i])
		}
		if got != want {
			t.Fatalf("step %d: epoll_ctl(%d, fd %d, %v, mode %d) = %v, the model's %v", n, op.Kind, i, op.Events, op.Mode, got, want)
		}
	case epolltest.OpWrite:
		if got, want := k.Write(i, op.V), src[i].(*model.Counter).Write(op.V); got != want {
			t.Fatalf("step %d: write(fd %d, %d) = %v, the model's %v", n, i, op.V, got, want)
		}
	case epolltest.OpRead:
		got, gerr := k.Read(i)
		want, werr := src[i].(*model.Counter).Read()
		if got != want || gerr != werr {
			t.Fatalf("step %d: read(fd %d) = %d, %v, the model's %d, %v", n, i, got, gerr, want, werr)
		}
	case epolltest.OpWait:
		got, want := k.Wait(t, op.Max), set.TryWait(op.Max)
		if !slices.Equal(got, want) {
			t.Fatalf("step %d: epoll_wait(max %d) = %v, the model's %v", n, op.Max, got, want)
		}
	case epolltest.OpAdvance:
		k.Advance(t, op.D)
		set.Advance(op.D)
	case epolltest.OpRenew:
		// Closing the timerfd takes it out of the epoll instance; the
		// Deadline, a Go value, must be removed.
		_ = set.Remove(src[i])
		src[i] = model.NewDeadline(k.Renew(t, i, op.D))
	}
	if k.Now() != set.Now() {
		t.Fatalf("step %d: the clock is at %v, the model's at %v", n, k.Now(), set.Now())
	}
	if err := set.Validate(); err != nil {
		t.Fatalf("step %d: %v", n, err)
	}
}

// TestSetMatchesTheKernel runs one random sequence on both sides:
// eventfds (with and without EFD_SEMAPHORE) and timerfds in a real epoll
// instance, and Counters and Deadlines in a Set. The sequence mixes
// writes (write(0) included), reads, ADD/MOD/DEL with IN and OUT
// interest, edge, level and one-shot, waits with a maxevents, steps of
// the clock that make timerfds expire, and new timerfds in the place of
// old ones. Every call must return the same on both sides, and every
// wait the same events in the same order.
//
// Where the two differ, the sequence leaves it out:
//   - A closed eventfd leaves its epoll set, a closed Counter reports Hup
//     (TestSetCloseOfASourceReportsHup). Close is not in the sequence.
//   - A read of a timerfd takes its expirations, and it is not readable
//     until it expires again. A Deadline stays ready. No timerfd is read.
//   - A timerfd closed leaves the epoll set; a Deadline must be removed.
//     A new timerfd's step does both.
//   - The Set promises no order among Deadlines of one time. The
//     timerfds' times differ.
func TestSetMatchesTheKernel(t *testing.T) { epolltest.Check(t, newKernelDiff) }

// FuzzSetMatchesTheKernel is TestSetMatchesTheKernel driven by bytes
// (epolltest.Decode). The seeds are the probes of the spec's
// kernel-epoll.md, and of timerfds.
func FuzzSetMatchesTheKernel(f *testing.F) { epolltest.Fuzz(f, newKernelDiff) }
