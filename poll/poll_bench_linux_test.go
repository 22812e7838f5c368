//go:build linux

package poll_test

import (
	"encoding/binary"
	"testing"

	"golang.org/x/sys/unix"
)

// benchEpoll is BenchmarkWaitOneReady's impl=epoll: n non-blocking
// eventfds in an epoll instance, edge-triggered, with a write(2),
// epoll_wait(2) with maxevents 1, and a read(2) per op. It skips the run
// if the process may not open n files.
func benchEpoll(b *testing.B, n int) {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil || lim.Cur < uint64(n)+64 {
		b.Skipf("RLIMIT_NOFILE is %d: too few files for %d eventfds", lim.Cur, n)
	}
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		b.Fatal(err)
	}
	defer unix.Close(ep)
	fds := make([]int, n)
	for i := range fds {
		fd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
		if err != nil {
			b.Fatal(err)
		}
		defer unix.Close(fd)
		fds[i] = fd
		ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLET, Fd: int32(i)}
		if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
			b.Fatal(err)
		}
	}
	one := binary.NativeEndian.AppendUint64(nil, 1)
	var got [8]byte
	events := make([]unix.EpollEvent, 1)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := unix.Write(fds[i], one); err != nil {
			b.Fatal(err)
		}
		k, err := unix.EpollWait(ep, events, -1)
		if err != nil || k != 1 || int(events[0].Fd) != i {
			b.Fatalf("epoll_wait = %d, %v, %v after a write to %d", k, events, err, i)
		}
		if _, err := unix.Read(fds[i], got[:]); err != nil {
			b.Fatal(err)
		}
		if i++; i == n {
			i = 0
		}
	}
}
