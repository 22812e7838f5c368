package anchor

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// pollTick is how often, in milliseconds, a wait on an eventfd with a
// cancellable context looks at the context: a blocking read cannot be
// interrupted, so such waits poll the descriptor instead.
const pollTick = 10

// eventfd is a kernel eventfd opened in blocking mode: read blocks at 0.
// Non-blocking reads use preadv2 with RWF_NOWAIT, which eventfd honours,
// so that the blocking waits the anchors measure stay plain read calls.
//
// The race detector treats blocking reads and writes as synchronising (x/sys
// annotates them) but not the raw non-blocking reads.
type eventfd struct{ fd int }

func openEventfd(initial uint64, flags int) (eventfd, error) {
	fd, err := unix.Eventfd(0, flags|unix.EFD_CLOEXEC)
	if err != nil {
		return eventfd{}, err
	}
	e := eventfd{fd}
	e.write(initial) // eventfd(2) takes an unsigned int; write allows 64 bits
	return e, nil
}

// write adds n to the counter (blocking while it would pass the maximum).
func (e eventfd) write(n uint64) {
	if n == 0 {
		return
	}
	var b [8]byte
	binary.NativeEndian.PutUint64(b[:], n)
	for {
		_, err := unix.Write(e.fd, b[:])
		if err != unix.EINTR {
			check("write", err)
			return
		}
	}
}

// read blocks until the counter is non-zero and returns what read(2)
// returns: the whole count, or 1 in semaphore mode.
func (e eventfd) read() uint64 {
	var b [8]byte
	for {
		_, err := unix.Read(e.fd, b[:])
		if err != unix.EINTR {
			check("read", err)
			return binary.NativeEndian.Uint64(b[:])
		}
	}
}

// tryRead is read without blocking: 0 if the counter is 0.
func (e eventfd) tryRead() uint64 {
	var b [8]byte
	iov := unix.Iovec{Base: &b[0]}
	iov.SetLen(len(b))
	for {
		// Offset -1 (both halves set) means the current position.
		_, _, errno := unix.Syscall6(unix.SYS_PREADV2, uintptr(e.fd),
			uintptr(unsafe.Pointer(&iov)), 1, ^uintptr(0), ^uintptr(0), unix.RWF_NOWAIT)
		switch errno {
		case 0:
			return binary.NativeEndian.Uint64(b[:])
		case unix.EAGAIN:
			return 0
		case unix.EINTR:
			continue
		}
		check("preadv2", errno)
	}
}

// readCtx is read that gives up when ctx ends. Without a cancellable
// context it is a plain blocking read; otherwise it polls every pollTick.
func (e eventfd) readCtx(ctx context.Context) (uint64, error) {
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
		fds := [1]unix.PollFd{{Fd: int32(e.fd), Events: unix.POLLIN}}
		if _, err := unix.Poll(fds[:], pollTick); err != unix.EINTR {
			check("poll", err)
		}
	}
}

func (e eventfd) Close() error { return unix.Close(e.fd) }

// check panics on an error the anchors never expect (a bad descriptor).
func check(op string, err error) {
	if err != nil {
		panic("anchor: eventfd " + op + ": " + err.Error())
	}
}

// eventfdSemaphore is an eventfd opened with EFD_SEMAPHORE, holding limit
// units at first. Each read takes one unit, so it serves n ≤ 1 only.
// Blocked readers are all woken by a write and race for the units.
type eventfdSemaphore struct{ eventfd }

// errMultiUnit is returned by the eventfd semaphore for n > 1.
var errMultiUnit = fmt.Errorf("anchor: the eventfd semaphore takes one unit at a time: %w",
	errors.ErrUnsupported)

// NewEventfdSemaphore returns an eventfd semaphore holding limit units
// (1 ≤ limit ≤ 1<<64-2). Acquire and TryAcquire support n ≤ 1 only:
// Acquire returns an error wrapping errors.ErrUnsupported and TryAcquire
// false for more. Release does not check the limit. Close it when done.
func NewEventfdSemaphore(limit uint64) (Semaphore, error) {
	if limit == 0 || limit > 1<<64-2 {
		return nil, errLimit("eventfd", limit)
	}
	e, err := openEventfd(limit, unix.EFD_SEMAPHORE)
	if err != nil {
		return nil, err
	}
	return eventfdSemaphore{e}, nil
}

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

func (s eventfdSemaphore) TryAcquire(n uint64) bool {
	return n == 0 || n == 1 && s.tryRead() == 1
}

func (s eventfdSemaphore) Release(n uint64) { s.write(n) }

// eventfdSignal is a plain eventfd: a read takes the whole count.
type eventfdSignal struct{ eventfd }

// NewEventfdSignal returns a plain eventfd signal with a count of 0. Close
// it when done.
func NewEventfdSignal() (Signal, error) {
	e, err := openEventfd(0, 0)
	if err != nil {
		return nil, err
	}
	return eventfdSignal{e}, nil
}

func (s eventfdSignal) Add(n uint64)                             { s.write(n) }
func (s eventfdSignal) Wait(ctx context.Context) (uint64, error) { return s.readCtx(ctx) }
func (s eventfdSignal) Take() uint64                             { return s.tryRead() }
