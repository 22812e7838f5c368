//go:build linux

package model_test

import (
	"encoding/binary"
	"errors"
	"slices"
	"testing"

	"github.com/evsync/evsync/model"
	"golang.org/x/sys/unix"
	"pgregory.net/rapid"
)

// kernelSet is the kernel's side of the differential: eventfds in an
// epoll instance, each registered with its index as its data.
type kernelSet struct {
	ep  int
	fds []int
}

func newKernelSet(t fataler, sems []bool) *kernelSet {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		t.Fatalf("epoll_create1: %v", err)
	}
	k := &kernelSet{ep: ep}
	for _, sem := range sems {
		flags := unix.EFD_NONBLOCK | unix.EFD_CLOEXEC
		if sem {
			flags |= unix.EFD_SEMAPHORE
		}
		fd, err := unix.Eventfd(0, flags)
		if err != nil {
			k.close()
			t.Fatalf("eventfd: %v", err)
		}
		k.fds = append(k.fds, fd)
	}
	return k
}

func (k *kernelSet) close() {
	for _, fd := range k.fds {
		unix.Close(fd)
	}
	unix.Close(k.ep)
}

// flags returns epoll's event mask for events and mode m.
func flags(events model.Events, m model.Mode) uint32 {
	var f uint32
	if events&model.In != 0 {
		f |= unix.EPOLLIN
	}
	if events&model.Out != 0 {
		f |= unix.EPOLLOUT
	}
	switch m {
	case model.Edge:
		f |= unix.EPOLLET
	case model.OneShot:
		f |= unix.EPOLLONESHOT
	}
	return f
}

// ctl makes an epoll_ctl call for the eventfd i.
func (k *kernelSet) ctl(op, i int, events model.Events, m model.Mode) error {
	ev := &unix.EpollEvent{Events: flags(events, m), Fd: int32(i)}
	if op == unix.EPOLL_CTL_DEL {
		ev = nil
	}
	return k.errOf(unix.EpollCtl(k.ep, op, k.fds[i], ev))
}

// errOf maps the kernel's errors to the model's.
func (k *kernelSet) errOf(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.EAGAIN):
		return model.ErrWouldBlock
	case errors.Is(err, unix.EINVAL):
		return model.ErrInvalid
	case errors.Is(err, unix.EEXIST):
		return model.ErrExists
	case errors.Is(err, unix.ENOENT):
		return model.ErrNotFound
	}
	return err
}

func (k *kernelSet) write(i int, v uint64) error {
	_, err := unix.Write(k.fds[i], binary.NativeEndian.AppendUint64(nil, v))
	return k.errOf(err)
}

func (k *kernelSet) read(i int) (uint64, error) {
	var b [8]byte
	if _, err := unix.Read(k.fds[i], b[:]); err != nil {
		return 0, k.errOf(err)
	}
	return binary.NativeEndian.Uint64(b[:]), nil
}

// wait is epoll_wait with maxevents max and a timeout of 0.
func (k *kernelSet) wait(t fataler, max int) []model.SetEvent {
	buf := make([]unix.EpollEvent, max)
	var n int
	for {
		var err error
		if n, err = unix.EpollWait(k.ep, buf, 0); !errors.Is(err, unix.EINTR) {
			if err != nil {
				t.Fatalf("epoll_wait: %v", err)
			}
			break
		}
	}
	var evs []model.SetEvent
	for _, e := range buf[:n] {
		var ev model.Events
		if e.Events&unix.EPOLLIN != 0 {
			ev |= model.In
		}
		if e.Events&unix.EPOLLOUT != 0 {
			ev |= model.Out
		}
		if e.Events&unix.EPOLLHUP != 0 {
			ev |= model.Hup
		}
		evs = append(evs, model.SetEvent{Key: int(e.Fd), Events: ev})
	}
	return evs
}

// The values a write tries: 0 (which wakes too), small ones, and those at
// and past the counter's maximum.
var kernelWrites = []uint64{0, 1, 2, 3, model.Max - 1, model.Max, model.Max + 1}

// fataler is what the differential needs of a *testing.T or *rapid.T.
type fataler interface {
	Fatalf(format string, args ...any)
}

// A setOp is one step of the differential.
type setOp struct {
	kind   int // 0, 1, 2: ADD, MOD, DEL; 3: write; 4: read; 5: wait
	i      int // the eventfd's index
	events model.Events
	mode   model.Mode
	v      uint64 // a write's value
	max    int    // a wait's maxevents
}

// kernelDiff is both sides of the differential: eventfds in a real epoll
// instance, and Counters in a Set.
type kernelDiff struct {
	k        *kernelSet
	set      *model.Set
	src      []*model.Counter
	reported int // events the waits reported, on both sides
}

// newKernelDiff makes both sides with an eventfd and a Counter for each
// entry of sems: with EFD_SEMAPHORE (a semaphore's Counter) if it is
// true, without (a signal's) if not.
func newKernelDiff(t fataler, sems []bool) *kernelDiff {
	d := &kernelDiff{k: newKernelSet(t, sems), set: model.NewSet()}
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
func (d *kernelDiff) step(t fataler, n int, op setOp) {
	k, set, src, i := d.k, d.set, d.src, op.i
	switch op.kind {
	case 0, 1, 2:
		var got, want error
		switch op.kind {
		case 0:
			got, want = k.ctl(unix.EPOLL_CTL_ADD, i, op.events, op.mode), set.Add(src[i], i, op.events, op.mode)
		case 1:
			got, want = k.ctl(unix.EPOLL_CTL_MOD, i, op.events, op.mode), set.Modify(src[i], op.events, op.mode)
		case 2:
			got, want = k.ctl(unix.EPOLL_CTL_DEL, i, 0, 0), set.Remove(src[i])
		}
		if got != want {
			t.Fatalf("step %d: epoll_ctl(%d, fd %d, %v, mode %d) = %v, the model's %v", n, op.kind, i, op.events, op.mode, got, want)
		}
	case 3:
		if got, want := k.write(i, op.v), src[i].Write(op.v); got != want {
			t.Fatalf("step %d: write(fd %d, %d) = %v, the model's %v", n, i, op.v, got, want)
		}
	case 4:
		got, gerr := k.read(i)
		want, werr := src[i].Read()
		if got != want || gerr != werr {
			t.Fatalf("step %d: read(fd %d) = %d, %v, the model's %d, %v", n, i, got, gerr, want, werr)
		}
	case 5:
		got, want := k.wait(t, op.max), set.TryWait(op.max)
		d.reported += len(got)
		if !slices.Equal(got, want) {
			t.Fatalf("step %d: epoll_wait(max %d) = %v, the model's %v", n, op.max, got, want)
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
func TestSetMatchesTheKernel(t *testing.T) {
	var steps, reported int
	rapid.Check(t, func(t *rapid.T) {
		sems := rapid.SliceOfN(rapid.Bool(), 1, 5).Draw(t, "semaphores")
		d := newKernelDiff(t, sems)
		defer d.k.close()
		events := rapid.SampledFrom([]model.Events{model.In, model.Out, model.In | model.Out})
		mode := rapid.SampledFrom([]model.Mode{model.Edge, model.Level, model.OneShot})
		n := rapid.IntRange(1, 300).Draw(t, "steps")
		steps += n
		for step := range n {
			op := setOp{i: rapid.IntRange(0, len(sems)-1).Draw(t, "i")}
			switch kind := rapid.IntRange(0, 6).Draw(t, "op"); kind {
			case 0, 1, 2:
				op.kind, op.events, op.mode = kind, events.Draw(t, "events"), mode.Draw(t, "mode")
			case 3, 4:
				op.kind, op.v = 3, rapid.SampledFrom(kernelWrites).Draw(t, "v")
			case 5:
				op.kind = 4
			case 6:
				op.kind, op.max = 5, rapid.IntRange(1, len(sems)+1).Draw(t, "max")
			}
			d.step(t, step, op)
		}
		reported += d.reported
	})
	t.Logf("%d steps, %d events reported alike", steps, reported)
	if reported == 0 {
		t.Fatal("no wait reported an event: the differential compared nothing")
	}
}

// FuzzSetMatchesTheKernel is TestSetMatchesTheKernel driven by bytes. The
// first byte's low bits choose the kinds of up to 5 eventfds (bit set:
// EFD_SEMAPHORE), and its top bits how many. Then every 2 bytes are a
// step: the first chooses the call and the eventfd, the second its
// argument (events and mode, the value written, or maxevents). The seeds
// are the probes of the spec's kernel-epoll.md.
func FuzzSetMatchesTheKernel(f *testing.F) {
	// The probes of the spec's kernel-epoll.md, one eventfd (a) or five (a to e).
	f.Add([]byte{0x00, 0x00, 0x03, 0x60, 0x01, 0xa0, 0x07, 0xa0, 0x07})                                                                                                                                     // level a: write; two waits report a
	f.Add([]byte{0x00, 0x00, 0x00, 0x60, 0x01, 0xa0, 0x07, 0xa0, 0x07, 0x60, 0x00, 0xa0, 0x07, 0x80, 0x00, 0xa0, 0x07})                                                                                     // edge a: write(0) wakes it, a read does not
	f.Add([]byte{0x00, 0x00, 0x06, 0x60, 0x01, 0xa0, 0x07, 0xa0, 0x07, 0x60, 0x01, 0xa0, 0x07, 0x20, 0x06, 0xa0, 0x07, 0xa0, 0x07})                                                                         // one-shot a: deaf until MOD
	f.Add([]byte{0x80, 0x00, 0x03, 0x01, 0x03, 0x02, 0x03, 0x03, 0x03, 0x04, 0x03, 0x60, 0x01, 0x61, 0x01, 0x62, 0x01, 0x63, 0x01, 0x64, 0x01, 0xa0, 0x01, 0xa0, 0x01, 0xa0, 0x01, 0xa0, 0x01, 0xa0, 0x01}) // level a to e: round-robin under maxevents 2
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		sems := make([]bool, 1+int(data[0]>>5)%5)
		for j := range sems {
			sems[j] = data[0]>>j&1 != 0
		}
		d := newKernelDiff(t, sems)
		defer d.k.close()
		for n := 0; 2*n+2 < len(data); n++ {
			b, arg := data[1+2*n], data[2+2*n]
			op := setOp{kind: int(b>>5) % 6, i: int(b&0x1f) % len(sems)}
			switch op.kind {
			case 0, 1, 2:
				op.events = []model.Events{model.In, model.Out, model.In | model.Out}[arg%3]
				op.mode = model.Mode(arg / 3 % 3)
			case 3:
				op.v = kernelWrites[int(arg)%len(kernelWrites)]
			case 5:
				op.max = 1 + int(arg)%8
			}
			d.step(t, n, op)
		}
	})
}
