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

func newKernelSet(t *rapid.T, sems []bool) *kernelSet {
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
func (k *kernelSet) wait(t *rapid.T, max int) []model.SetEvent {
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
		k := newKernelSet(t, sems)
		defer k.close()
		set := model.NewSet()
		var src []*model.Counter
		for _, sem := range sems {
			if sem {
				src = append(src, model.NewSemaphore(0, model.Max))
			} else {
				src = append(src, model.NewSignal(0))
			}
		}
		events := rapid.SampledFrom([]model.Events{model.In, model.Out, model.In | model.Out})
		mode := rapid.SampledFrom([]model.Mode{model.Edge, model.Level, model.OneShot})
		n := rapid.IntRange(1, 300).Draw(t, "steps")
		steps += n
		for step := range n {
			i := rapid.IntRange(0, len(src)-1).Draw(t, "i")
			switch op := rapid.IntRange(0, 6).Draw(t, "op"); op {
			case 0, 1, 2:
				ev, m := events.Draw(t, "events"), mode.Draw(t, "mode")
				var got, want error
				switch op {
				case 0:
					got, want = k.ctl(unix.EPOLL_CTL_ADD, i, ev, m), set.Add(src[i], i, ev, m)
				case 1:
					got, want = k.ctl(unix.EPOLL_CTL_MOD, i, ev, m), set.Modify(src[i], ev, m)
				case 2:
					got, want = k.ctl(unix.EPOLL_CTL_DEL, i, 0, 0), set.Remove(src[i])
				}
				if got != want {
					t.Fatalf("step %d: epoll_ctl(%d, fd %d, %v, mode %d) = %v, the model's %v", step, op, i, ev, m, got, want)
				}
			case 3, 4:
				v := rapid.SampledFrom(kernelWrites).Draw(t, "v")
				if got, want := k.write(i, v), src[i].Write(v); got != want {
					t.Fatalf("step %d: write(fd %d, %d) = %v, the model's %v", step, i, v, got, want)
				}
			case 5:
				got, gerr := k.read(i)
				want, werr := src[i].Read()
				if got != want || gerr != werr {
					t.Fatalf("step %d: read(fd %d) = %d, %v, the model's %d, %v", step, i, got, gerr, want, werr)
				}
			case 6:
				max := rapid.IntRange(1, len(src)+1).Draw(t, "max")
				got, want := k.wait(t, max), set.TryWait(max)
				reported += len(got)
				if !slices.Equal(got, want) {
					t.Fatalf("step %d: epoll_wait(max %d) = %v, the model's %v", step, max, got, want)
				}
			}
			if err := set.Validate(); err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
		}
	})
	t.Logf("%d steps, %d events reported alike", steps, reported)
	if reported == 0 {
		t.Fatal("no wait reported an event: the differential compared nothing")
	}
}
