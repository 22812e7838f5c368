package anchor

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"unsafe"

	"github.com/evsync/evsync/internal/testsupport/eventfd"
	"golang.org/x/sys/unix"
)

// pollTick is how often, in milliseconds, a wait on an eventfd with a
// cancellable context looks at the context: a blocking read cannot be
// interrupted, so such waits poll the descriptor instead.
const pollTick = 10

// efd is a kernel eventfd (internal/testsupport/eventfd) opened in blocking mode: read
// blocks at 0. Non-blocking reads use preadv2 with RWF_NOWAIT on the same
// descriptor, which eventfd honours, so that the blocking waits the
// anchors measure stay plain read calls; internal/testsupport/eventfd wraps neither
// that nor a poll with a timeout, so the anchor makes those calls itself.
//
// The race detector treats blocking reads and writes as synchronising (x/sys
// annotates them) but not the raw non-blocking reads.
type efd struct{ fd *eventfd.FD }

// openEfd opens a blocking eventfd holding initial (at most eventfd.Max).
func openEfd(initial uint64, flags eventfd.Flag) (efd, error) {
	fd, err := eventfd.Open(initial, flags)
	if err != nil {
		return efd{}, err
	}
	return efd{fd}, nil
}

// write adds n to the counter (blocking while it would pass the maximum).
func (e efd) write(n uint64) {
	if n == 0 {
		return // a write of 0 changes nothing: spare the system call
	}
	check(e.fd.Write(n))
}

// read blocks until the counter is non-zero and returns what read(2)
// returns: the whole count, or 1 in semaphore mode.
func (e efd) read() uint64 {
	v, err := e.fd.Read()
	check(err)
	return v
}

// tryRead is read without blocking: 0 if the counter is 0.
func (e efd) tryRead() uint64 {
	var b [8]byte
	iov := unix.Iovec{Base: &b[0]}
	iov.SetLen(len(b))
	for {
		// Offset -1 (both halves set) means the current position.
		_, _, errno := unix.Syscall6(unix.SYS_PREADV2, uintptr(e.fd.Fd()),
			uintptr(unsafe.Pointer(&iov)), 1, ^uintptr(0), ^uintptr(0), unix.RWF_NOWAIT)
		switch errno {
		case 0:
			return binary.NativeEndian.Uint64(b[:])
		case unix.EAGAIN:
			return 0
		case unix.EINTR:
			continue
		}
		check(os.NewSyscallError("preadv2", errno))
	}
}

// readCtx is read that gives up when ctx ends. Without a cancellable
// context it is a plain blocking read; otherwise it polls every pollTick.
func (e efd) readCtx(ctx context.Context) (uint64, error) {
	if ctx.Done() == nil {
		return e.read(), nil
	}
	for {
		if v := e.tryRead(); v != 0 {
			return v, nil
		}
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		fds := [1]unix.PollFd{{Fd: int32(e.fd.Fd()), Events: unix.POLLIN}}
		if _, err := unix.Poll(fds[:], pollTick); err != unix.EINTR {
			check(os.NewSyscallError("poll", err))
		}
	}
}

// Close closes the descriptor with eventfd.FD's Close.
func (e efd) Close() error { return e.fd.Close() }

// check panics on an error the anchors never expect (a bad descriptor).
func check(err error) {
	if err != nil {
		panic("anchor: eventfd: " + err.Error())
	}
}

// eventfdSemaphore is an eventfd opened with EFD_SEMAPHORE, holding limit
// units at first. Each read takes one unit, so it serves n ≤ 1 only.
// Blocked readers are all woken by a write and race for the units.
type eventfdSemaphore struct{ efd }

// errMultiUnit is returned by the eventfd semaphore for n > 1.
var errMultiUnit = fmt.Errorf("anchor: the eventfd semaphore takes one unit at a time: %w",
	errors.ErrUnsupported)

// NewEventfdSemaphore returns an eventfd semaphore holding limit units
// (1 ≤ limit ≤ 1<<64-2). Acquire and TryAcquire support n ≤ 1 only:
// Acquire returns an error wrapping errors.ErrUnsupported and TryAcquire
// false for more. Release does not check the limit. Close it when done.
func NewEventfdSemaphore(limit uint64) (Semaphore, error) {
	if limit == 0 || limit > eventfd.Max {
		return nil, errLimit("eventfd", limit)
	}
	e, err := openEfd(limit, eventfd.Semaphore)
	if err != nil {
		return nil, err
	}
	return eventfdSemaphore{e}, nil
}

// Acquire takes one unit with a (cancellable) read; n = 0 takes nothing
// and n > 1 returns errMultiUnit.
func (s eventfdSemaphore) Acquire(ctx context.Context, n uint64) error {
	switch {
	case n == 0:
		return nil
	case n > 1:
		return errMultiUnit
	}
	_, err := s.readCtx(ctx)
	return err
}

// TryAcquire takes one unit with a non-blocking read; it reports true for
// n = 0 and false for n > 1.
func (s eventfdSemaphore) TryAcquire(n uint64) bool {
	return n == 0 || n == 1 && s.tryRead() == 1
}

// Release writes n to the eventfd.
func (s eventfdSemaphore) Release(n uint64) { s.write(n) }

// eventfdSignal is a plain eventfd: a read takes the whole count.
type eventfdSignal struct{ efd }

// NewEventfdSignal returns a plain eventfd signal with a count of 0. Close
// it when done.
func NewEventfdSignal() (Signal, error) {
	e, err := openEfd(0, 0)
	if err != nil {
		return nil, err
	}
	return eventfdSignal{e}, nil
}

// Add writes n to the eventfd.
func (s eventfdSignal) Add(n uint64) { s.write(n) }

// Wait reads the whole count, blocking (or polling, for a cancellable ctx)
// at 0.
func (s eventfdSignal) Wait(ctx context.Context) (uint64, error) { return s.readCtx(ctx) }

// Take reads the whole count without blocking.
func (s eventfdSignal) Take() uint64 { return s.tryRead() }
