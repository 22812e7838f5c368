//go:build linux

package eventfd

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/evsync/evsync/internal/evserr"
	"golang.org/x/sys/unix"
)

// Flag selects how an eventfd is opened; flags combine with |.
type Flag int

const (
	// Semaphore is EFD_SEMAPHORE: a read takes 1 and returns 1. Without
	// it a read takes the whole count and returns it.
	Semaphore Flag = unix.EFD_SEMAPHORE
	// NonBlock is EFD_NONBLOCK: a read at 0 and a write that would pass
	// the maximum return evserr.ErrWouldBlock. Without it they block.
	NonBlock Flag = unix.EFD_NONBLOCK
)

// Max is the largest count an eventfd holds, 1<<64-2.
const Max uint64 = 1<<64 - 2

// An FD is an open eventfd. Construct it with Open and close it with
// Close. Its methods may be called from several goroutines at once, as
// the kernel serialises them, but Close only once no call is under way
// (the descriptor's number may be reused at once).
type FD struct{ fd int }

// Open opens an eventfd holding initial, with close-on-exec set. Counts
// above 32 bits, which eventfd(2) does not take, are written after opening,
// so initial may be anything up to Max; 1<<64-1 is ErrInvalid. Flags other
// than Semaphore and NonBlock are ErrInvalid.
func Open(initial uint64, flags Flag) (*FD, error) {
	if flags&^(Semaphore|NonBlock) != 0 || initial > Max {
		return nil, evserr.ErrInvalid
	}
	first := min(initial, math.MaxUint32)
	fd, err := unix.Eventfd(uint(first), int(flags)|unix.EFD_CLOEXEC)
	if err != nil {
		return nil, mapErr("eventfd", err)
	}
	e := &FD{fd}
	if initial > first {
		// Cannot block: the count is at most 1<<32-1, so the sum fits.
		if err := e.Write(initial - first); err != nil {
			e.Close()
			return nil, err
		}
	}
	return e, nil
}

// Fd returns the descriptor, for calls this package does not wrap (a poll
// with a timeout, a read with RWF_NOWAIT). It stays owned by e.
func (e *FD) Fd() int { return e.fd }

// Write adds v to the count. Without NonBlock it waits while the sum
// would pass Max; with it, it returns ErrWouldBlock instead. v = 1<<64-1
// is ErrInvalid. A failed Write changes nothing.
func (e *FD) Write(v uint64) error {
	var b [8]byte
	binary.NativeEndian.PutUint64(b[:], v)
	n, err := retryEINTR(func() (int, error) { return unix.Write(e.fd, b[:]) })
	if err != nil {
		return mapErr("write", err)
	}
	if n != len(b) {
		return fmt.Errorf("eventfd: short write: %d bytes", n)
	}
	return nil
}

// Read takes from the count and returns what it took: 1 in Semaphore mode,
// the whole count otherwise. At 0 it waits for a Write without NonBlock,
// and returns ErrWouldBlock (taking nothing) with it.
func (e *FD) Read() (uint64, error) {
	var b [8]byte
	n, err := retryEINTR(func() (int, error) { return unix.Read(e.fd, b[:]) })
	if err != nil {
		return 0, mapErr("read", err)
	}
	if n != len(b) {
		return 0, fmt.Errorf("eventfd: short read: %d bytes", n)
	}
	return binary.NativeEndian.Uint64(b[:]), nil
}

// Poll reports, without waiting, whether a Read would not block (in: the
// count is above 0) and whether a Write of 1 would not block (out: the
// count is below Max).
func (e *FD) Poll() (in, out bool, err error) {
	fds := []unix.PollFd{{Fd: int32(e.fd), Events: unix.POLLIN | unix.POLLOUT}}
	if _, err := retryEINTR(func() (int, error) { return unix.Poll(fds, 0) }); err != nil {
		return false, false, mapErr("poll", err)
	}
	return fds[0].Revents&unix.POLLIN != 0, fds[0].Revents&unix.POLLOUT != 0, nil
}

// Count returns the count as the kernel shows it in /proc/self/fdinfo,
// without taking from it or waking anyone.
func (e *FD) Count() (uint64, error) {
	info, err := os.ReadFile("/proc/self/fdinfo/" + strconv.Itoa(e.fd))
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(info)) {
		if v, ok := strings.CutPrefix(line, "eventfd-count:"); ok {
			n, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			if err != nil {
				return 0, fmt.Errorf("eventfd: fdinfo eventfd-count %q: %w", v, err)
			}
			return n, nil
		}
	}
	return 0, fmt.Errorf("eventfd: no eventfd-count in fdinfo:\n%s", info)
}

// Close closes the descriptor. e must not be used afterwards.
func (e *FD) Close() error { return mapErr("close", unix.Close(e.fd)) }

// retryEINTR calls f again for as long as it fails with EINTR: a signal
// that interrupted a blocking call (or, rarely, a poll) is no failure.
func retryEINTR(f func() (int, error)) (int, error) {
	for {
		n, err := f()
		if err != unix.EINTR {
			return n, err
		}
	}
}

// mapErr gives an errno in evsync's terms (see the package doc).
func mapErr(op string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.EAGAIN):
		return evserr.ErrWouldBlock
	case errors.Is(err, unix.EINVAL):
		return evserr.ErrInvalid
	}
	return os.NewSyscallError(op, err)
}
