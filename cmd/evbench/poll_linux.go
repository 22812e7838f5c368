package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// pollEpollCase waits with the kernel's epoll over n non-blocking,
// edge-triggered eventfds: write(2), epoll_wait(2) with maxevents 1 and
// read(2) per op.
func pollEpollCase(n int) prep {
	return func() (func(*atomic.Bool) (tally, error), func(), error) {
		ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
		if err != nil {
			return nil, nil, err
		}
		fds := make([]int, 0, n)
		free := func() {
			for _, fd := range fds {
				unix.Close(fd)
			}
			unix.Close(ep)
		}
		for i := range n {
			fd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
			if err != nil {
				free()
				return nil, nil, fmt.Errorf("eventfd %d of %d: %w", i, n, err)
			}
			fds = append(fds, fd)
			ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLET, Fd: int32(i)}
			if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
				free()
				return nil, nil, err
			}
		}
		one := binary.NativeEndian.AppendUint64(nil, 1)
		var got [8]byte
		events := make([]unix.EpollEvent, 1)
		run := func(stop *atomic.Bool) (tally, error) {
			return roundRobin(n, stop, func(i int) error {
				if _, err := unix.Write(fds[i], one); err != nil {
					return err
				}
				k, err := unix.EpollWait(ep, events, -1)
				for errors.Is(err, unix.EINTR) {
					k, err = unix.EpollWait(ep, events, -1)
				}
				if err != nil || k != 1 || int(events[0].Fd) != i {
					return fmt.Errorf("epoll_wait = %d, %v after a write to %d", k, err, i)
				}
				_, err = unix.Read(fds[i], got[:])
				return err
			})
		}
		return run, free, nil
	}
}

// epollWaiter waits with the kernel's epoll over n non-blocking,
// edge-triggered eventfds, in epoll_wait(2) with maxevents 1, and reads
// the eventfd it reports with read(2). One more eventfd, key n, ends the
// wait.
func epollWaiter(n int) func() (crossWaiter, error) {
	return func() (crossWaiter, error) {
		ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
		if err != nil {
			return crossWaiter{}, err
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
				return crossWaiter{}, fmt.Errorf("eventfd %d of %d: %w", i, n+1, err)
			}
			fds = append(fds, fd)
			ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLET, Fd: int32(i)}
			if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
				free()
				return crossWaiter{}, err
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
		return crossWaiter{n: n, write: write, wait: wait, read: read, end: end, free: free}, nil
	}
}
