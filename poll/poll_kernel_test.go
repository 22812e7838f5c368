//go:build linux

package poll_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/evsync/evsync/internal/testsupport/epolltest"
	"github.com/evsync/evsync/poll"
)

// kernelDiff is both sides of the kernel differential: eventfds in a
// real epoll instance, and signals (an eventfd) and semaphores (one with
// EFD_SEMAPHORE) in a Set.
type kernelDiff struct {
	k        *epolltest.Kernel
	set      *poll.Set[int]
	src      []*source
	reported int // events the waits reported, on both sides
}

func newKernelDiff(t epolltest.Fataler, sems []bool) epolltest.Diff {
	d := &kernelDiff{k: epolltest.New(t, sems), set: poll.New[int]()}
	for _, sem := range sems {
		d.src = append(d.src, newSource(sem))
	}
	return d
}

// Close closes both sides.
func (d *kernelDiff) Close() {
	d.k.Close()
	d.set.Close()
}

// Reported returns the events the waits reported.
func (d *kernelDiff) Reported() int { return d.reported }

// step makes op on both sides and fails unless both return the same.
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
		d.reported += len(kevs)
		if !slices.Equal(evs, kevs) {
			t.Fatalf("step %d: TryWait(%d) = %v, epoll_wait's %v", n, op.Max, evs, kevs)
		}
		return
	}
	if got != want {
		t.Fatalf("step %d: %+v = %v, the kernel's %v", n, op, got, want)
	}
}

// TestSetMatchesTheKernel runs one random sequence on both sides: K
// eventfds (with and without EFD_SEMAPHORE) in a real epoll instance,
// and K signals and semaphores in a Set. The sequence mixes writes
// (write(0) included), reads, ADD/MOD/DEL with IN and OUT interest in
// edge, level and one-shot mode, and waits with a maxevents. Every call
// must return the same on both sides, and every wait the same events in
// the same order.
//
// A source's Close is not in the sequence: a closed eventfd leaves its
// epoll set, a closed source reports Hup (TestSetMatchesTheModel).
func TestSetMatchesTheKernel(t *testing.T) { epolltest.Check(t, newKernelDiff) }

// FuzzSetMatchesTheKernel is TestSetMatchesTheKernel driven by bytes
// (epolltest.Decode). The seeds are the probes of the spec's
// kernel-epoll.md.
func FuzzSetMatchesTheKernel(f *testing.F) { epolltest.Fuzz(f, newKernelDiff) }
