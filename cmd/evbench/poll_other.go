//go:build !linux

package main

import (
	"errors"
	"fmt"
	"sync/atomic"
)

// pollEpollCase is the kernel's epoll, which only Linux has.
func pollEpollCase(int) prep {
	return func() (func(*atomic.Bool) (tally, error), func(), error) {
		return nil, nil, fmt.Errorf("epoll: %w", errors.ErrUnsupported)
	}
}

// epollWaiter is the kernel's epoll, which only Linux has.
func epollWaiter(int) func() (crossWaiter, error) {
	return func() (crossWaiter, error) {
		return crossWaiter{}, fmt.Errorf("epoll: %w", errors.ErrUnsupported)
	}
}
