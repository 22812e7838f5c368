//go:build linux

package model_test

import (
	"slices"
	"testing"

	"github.com/evsync/evsync/internal/testsupport/epolltest"
	"github.com/evsync/evsync/model"
)

// kernelDiff is both sides of the differential: eventfds in a real epoll
// instance, and Counters in a Set.
type kernelDiff struct {
	k        *epolltest.Kernel
	set      *model.Set
	src      []*model.Counter
	reported int // events the waits reported, on both sides
}

// Reported returns the events the waits reported.
func (d *kernelDiff) Reported() int { return d.reported }

// Close closes the kernel's side.
func (d *kernelDiff) Close() { d.k.Close() }

// newKernelDiff makes both sides with an eventfd and a Counter for each
// entry of sems: with EFD_SEMAPHORE (a semaphore's Counter) if it is
// true, without (a signal's) if not.
func newKernelDiff(t epolltest.Fataler, sems []bool) epolltest.Diff {
	d := &kernelDiff{k: epolltest.New(t, sems), set: model.NewSet()}
	for _, sem := range sems {
		if sem {
			d.src = append(d.src, model.NewSemaphore(0, model.Max))
		} else {
			d.src = append(d.src, model.NewSignal(0))
		}
	}
	return d
}

// step makes op on both sides and fails unless both return the same.
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
		if got, want := k.Write(i, op.V), src[i].Write(op.V); got != want {
			t.Fatalf("step %d: write(fd %d, %d) = %v, the model's %v", n, i, op.V, got, want)
		}
	case epolltest.OpRead:
		got, gerr := k.Read(i)
		want, werr := src[i].Read()
		if got != want || gerr != werr {
			t.Fatalf("step %d: read(fd %d) = %d, %v, the model's %d, %v", n, i, got, gerr, want, werr)
		}
	case epolltest.OpWait:
		got, want := k.Wait(t, op.Max), set.TryWait(op.Max)
		d.reported += len(got)
		if !slices.Equal(got, want) {
			t.Fatalf("step %d: epoll_wait(max %d) = %v, the model's %v", n, op.Max, got, want)
		}
	}
	if err := set.Validate(); err != nil {
		t.Fatalf("step %d: %v", n, err)
	}
}

// TestSetMatchesTheKernel runs one random sequence on both sides: eventfds
// (with and without EFD_SEMAPHORE) in a real epoll instance, and Counters
// in a Set. The sequence mixes writes (write(0) included), reads,
// ADD/MOD/DEL with IN and OUT interest, edge, level and one-shot, and
// waits with a maxevents. Every call must return the same on both sides,
// and every wait the same events in the same order.
//
// Close is not in the sequence: a closed eventfd leaves its epoll set, a
// closed Counter reports Hup (TestSetCloseOfASourceReportsHup).
func TestSetMatchesTheKernel(t *testing.T) { epolltest.Check(t, newKernelDiff) }

// FuzzSetMatchesTheKernel is TestSetMatchesTheKernel driven by bytes
// (epolltest.Decode). The seeds are the probes of the spec's
// kernel-epoll.md.
func FuzzSetMatchesTheKernel(f *testing.F) { epolltest.Fuzz(f, newKernelDiff) }
