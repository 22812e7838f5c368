//go:build linux

// Package epolltest is the kernel's side of the poll differentials:
// eventfds in a real epoll instance (golang.org/x/sys/unix), with the
// kernel's errors mapped to evsync's and its events to model.SetEvent.
package epolltest

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/evsync/evsync/internal/evserr"
	"github.com/evsync/evsync/model"
	"golang.org/x/sys/unix"
	"pgregory.net/rapid"
)

// Fataler is what a Kernel needs of a *testing.T or a *rapid.T.
type Fataler interface {
	Fatalf(format string, args ...any)
}

// A Kernel is eventfds in an epoll instance. The eventfd i is registered
// with i as its data, so a wait reports it under key i.
type Kernel struct {
	ep  int
	fds []int
}

// New makes an epoll instance and a non-blocking eventfd for each entry
// of sems: with EFD_SEMAPHORE if it is true, without if not. It fails t
// if the kernel refuses.
func New(t Fataler, sems []bool) *Kernel {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		t.Fatalf("epoll_create1: %v", err)
	}
	k := &Kernel{ep: ep}
	for _, sem := range sems {
		flags := unix.EFD_NONBLOCK | unix.EFD_CLOEXEC
		if sem {
			flags |= unix.EFD_SEMAPHORE
		}
		fd, err := unix.Eventfd(0, flags)
		if err != nil {
			k.Close()
			t.Fatalf("eventfd: %v", err)
		}
		k.fds = append(k.fds, fd)
	}
	return k
}

// Close closes the eventfds and the epoll instance.
func (k *Kernel) Close() {
	for _, fd := range k.fds {
		unix.Close(fd)
	}
	unix.Close(k.ep)
}

// The epoll_ctl operations.
const (
	Add    = unix.EPOLL_CTL_ADD
	Modify = unix.EPOLL_CTL_MOD
	Remove = unix.EPOLL_CTL_DEL
)

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

// Ctl makes an epoll_ctl call op (Add, Modify, Remove) for the eventfd i.
func (k *Kernel) Ctl(op, i int, events model.Events, m model.Mode) error {
	ev := &unix.EpollEvent{Events: flags(events, m), Fd: int32(i)}
	if op == Remove {
		ev = nil
	}
	return errOf(unix.EpollCtl(k.ep, op, k.fds[i], ev))
}

// errOf maps the kernel's errors to evsync's, which are model's.
func errOf(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.EAGAIN):
		return evserr.ErrWouldBlock
	case errors.Is(err, unix.EINVAL):
		return evserr.ErrInvalid
	case errors.Is(err, unix.EEXIST):
		return evserr.ErrExists
	case errors.Is(err, unix.ENOENT):
		return evserr.ErrNotFound
	}
	return err
}

// Write writes v to the eventfd i.
func (k *Kernel) Write(i int, v uint64) error {
	_, err := unix.Write(k.fds[i], binary.NativeEndian.AppendUint64(nil, v))
	return errOf(err)
}

// Read reads the eventfd i.
func (k *Kernel) Read(i int) (uint64, error) {
	var b [8]byte
	if _, err := unix.Read(k.fds[i], b[:]); err != nil {
		return 0, errOf(err)
	}
	return binary.NativeEndian.Uint64(b[:]), nil
}

// Wait is epoll_wait with maxevents max and a timeout of 0.
func (k *Kernel) Wait(t Fataler, max int) []model.SetEvent {
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

// Writes are the values a differential writes: 0 (which wakes too), small
// ones, and those at and past the counter's maximum.
var Writes = []uint64{0, 1, 2, 3, model.Max - 1, model.Max, model.Max + 1}

// The kinds of Op.
const (
	OpAdd    = iota // epoll_ctl ADD, Set.Add
	OpModify        // MOD, Set.Modify
	OpRemove        // DEL, Set.Remove
	OpWrite         // write(2), a source's write
	OpRead          // read(2), a source's read
	OpWait          // epoll_wait with a timeout of 0, Set.TryWait
	opKinds
)

// An Op is one step of a differential, on the eventfd (or source) I.
type Op struct {
	Kind   int
	I      int
	Events model.Events // OpAdd, OpModify
	Mode   model.Mode   // OpAdd, OpModify
	V      uint64       // OpWrite
	Max    int          // OpWait
}

var (
	anyEvents = []model.Events{model.In, model.Out, model.In | model.Out}
	anyModes  = []model.Mode{model.Edge, model.Level, model.OneShot}
)

// Draw draws an Op on one of n eventfds. Writes are drawn twice as often
// as the other kinds.
func Draw(t *rapid.T, n int) Op {
	op := Op{I: rapid.IntRange(0, n-1).Draw(t, "i")}
	switch kind := rapid.IntRange(0, opKinds).Draw(t, "op"); kind {
	case OpAdd, OpModify:
		op.Kind, op.Events, op.Mode = kind, rapid.SampledFrom(anyEvents).Draw(t, "events"), rapid.SampledFrom(anyModes).Draw(t, "mode")
	case OpRemove, OpRead:
		op.Kind = kind
	case OpWrite, opKinds:
		op.Kind, op.V = OpWrite, rapid.SampledFrom(Writes).Draw(t, "v")
	case OpWait:
		op.Kind, op.Max = OpWait, rapid.IntRange(1, n+1).Draw(t, "max")
	}
	return op
}

// Decode reads a fuzz target's bytes. The first byte's low bits choose
// the kinds of up to 5 eventfds (bit set: EFD_SEMAPHORE), and its top
// bits how many. Then every 2 bytes are an Op: the first chooses the
// kind and the eventfd, the second the argument (events and mode, the
// value written, or maxevents).
func Decode(data []byte) (sems []bool, ops []Op) {
	if len(data) == 0 {
		return nil, nil
	}
	sems = make([]bool, 1+int(data[0]>>5)%5)
	for j := range sems {
		sems[j] = data[0]>>j&1 != 0
	}
	for n := 0; 2*n+2 < len(data); n++ {
		b, arg := data[1+2*n], data[2+2*n]
		op := Op{Kind: int(b>>5) % opKinds, I: int(b&0x1f) % len(sems)}
		switch op.Kind {
		case OpAdd, OpModify:
			op.Events, op.Mode = anyEvents[arg%3], model.Mode(arg/3%3)
		case OpWrite:
			op.V = Writes[int(arg)%len(Writes)]
		case OpWait:
			op.Max = 1 + int(arg)%8
		}
		ops = append(ops, op)
	}
	return sems, ops
}

// Seeds are fuzz inputs for Decode: the probes of the spec's
// kernel-epoll.md, on one eventfd (a) or five (a to e).
var Seeds = [][]byte{
	{0x00, 0x00, 0x03, 0x60, 0x01, 0xa0, 0x07, 0xa0, 0x07},                                                                                                                                     // level a: write; two waits report a
	{0x00, 0x00, 0x00, 0x60, 0x01, 0xa0, 0x07, 0xa0, 0x07, 0x60, 0x00, 0xa0, 0x07, 0x80, 0x00, 0xa0, 0x07},                                                                                     // edge a: write(0) wakes it, a read does not
	{0x00, 0x00, 0x06, 0x60, 0x01, 0xa0, 0x07, 0xa0, 0x07, 0x60, 0x01, 0xa0, 0x07, 0x20, 0x06, 0xa0, 0x07, 0xa0, 0x07},                                                                         // one-shot a: deaf until MOD
	{0x80, 0x00, 0x03, 0x01, 0x03, 0x02, 0x03, 0x03, 0x03, 0x04, 0x03, 0x60, 0x01, 0x61, 0x01, 0x62, 0x01, 0x63, 0x01, 0x64, 0x01, 0xa0, 0x01, 0xa0, 0x01, 0xa0, 0x01, 0xa0, 0x01, 0xa0, 0x01}, // level a to e: round-robin under maxevents 2
}

// A Diff is both sides of a differential: the kernel's and evsync's.
// Step makes op on both and fails t unless both return the same; it
// counts the events the waits report. Close frees both sides.
type Diff interface {
	Step(t Fataler, n int, op Op)
	Reported() int
	Close()
}

// Check runs random sequences of Ops on Diffs that newDiff makes with
// 1 to 5 eventfds, and logs the steps and events compared. It fails t if
// no wait reported an event, since the differential then compared
// nothing.
func Check(t *testing.T, newDiff func(t Fataler, sems []bool) Diff) {
	var steps, reported int
	rapid.Check(t, func(t *rapid.T) {
		sems := rapid.SliceOfN(rapid.Bool(), 1, 5).Draw(t, "semaphores")
		d := newDiff(t, sems)
		defer d.Close()
		n := rapid.IntRange(1, 300).Draw(t, "steps")
		steps += n
		for step := range n {
			d.Step(t, step, Draw(t, len(sems)))
		}
		reported += d.Reported()
	})
	t.Logf("%d steps, %d events reported alike", steps, reported)
	if reported == 0 {
		t.Fatal("no wait reported an event: the differential compared nothing")
	}
}

// Fuzz runs the sequences Decode reads from the fuzzer's bytes on Diffs
// that newDiff makes, with Seeds as the seed corpus.
func Fuzz(f *testing.F, newDiff func(t Fataler, sems []bool) Diff) {
	for _, seed := range Seeds {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sems, ops := Decode(data)
		if len(sems) == 0 {
			return
		}
		d := newDiff(t, sems)
		defer d.Close()
		for n, op := range ops {
			d.Step(t, n, op)
		}
	})
}
