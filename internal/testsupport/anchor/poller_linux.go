package anchor

import (
	"encoding/binary"
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// NewEpollPoller waits with the kernel's epoll over n non-blocking,
// edge-triggered eventfds: Write is write(2), Wait is epoll_wait(2) with
// maxevents 1, Read is read(2). One more eventfd, key n, is End's: a
// write to it makes Wait return ErrEnded. Free closes them all.
func NewEpollPoller(n int) (Poller, error) {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return Poller{}, fmt.Errorf("anchor: epoll_create1: %w", err)
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
			return Poller{}, fmt.Errorf("anchor: eventfd %d of %d: %w", i, n+1, err)
		}
		fds = append(fds, fd)
		ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLET, Fd: int32(i)}
		if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
			free()
			return Poller{}, fmt.Errorf("anchor: epoll_ctl of eventfd %d: %w", i, err)
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
			return 0, fmt.Errorf("anchor: epoll_wait = %d, %v", k, err)
		case int(events[0].Fd) == n:
			return 0, ErrEnded
		}
		return int(events[0].Fd), nil
	}
	var got [8]byte
	read := func(i int) error {
		_, err := unix.Read(fds[i], got[:])
		return err
	}
	end := func() { _ = write(n) }
	return Poller{N: n, Write: write, Wait: wait, Read: read, End: end, Free: free}, nil
}
