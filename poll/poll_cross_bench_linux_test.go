//go:build linux

package poll_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"testing"

	"golang.org/x/sys/unix"
)

// crossEpoll is BenchmarkCrossWake's impl=epoll: n non-blocking,
// edge-triggered eventfds in an epoll instance, and one more, key n, that
// ends the wait. It skips the run if the process may not open them all.
func crossEpoll(b *testing.B, n int) crossWaiter {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil || lim.Cur < uint64(n)+64 {
		b.Skipf("RLIMIT_NOFILE is %d: too few files for %d eventfds", lim.Cur, n)
	}
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		b.Fatal(err)
	}
	fds := make([]int, 0, n+1)
	free := func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
		unix.Close(ep)
	}
	for i := range n + 1 {
		fd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
		if err != nil {
			free()
			b.Fatal(err)
		}
		fds = append(fds, fd)
		ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLET, Fd: int32(i)}
		if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
			free()
			b.Fatal(err)
		}
	}
	one := binary.NativeEndian.AppendUint64(nil, 1)
	write := func(i int) error {
		_, err := unix.Write(fds[i], one)
		return err
	}
	events := make([]unix.EpollEvent, 1)
	wait := func() (int, error) {
		k, err := unix.EpollWait(ep, events, -1)
		for errors.Is(err, unix.EINTR) {
			k, err = unix.EpollWait(ep, events, -1)
		}
		switch {
		case err != nil || k != 1:
			return 0, fmt.Errorf("epoll_wait = %d, %v", k, err)
		case int(events[0].Fd) == n:
			return 0, errEnded
		}
		return int(events[0].Fd), nil
	}
	var got [8]byte
	read := func(i int) error {
		_, err := unix.Read(fds[i], got[:])
		return err
	}
	end := func() { _ = write(n) }
	return crossWaiter{n: n, write: write, wait: wait, read: read, end: end, free: free}
}
