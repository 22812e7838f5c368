//go:build !linux

package anchor

import (
	"errors"
	"fmt"
)

// NewEpollPoller returns errors.ErrUnsupported: epoll is Linux's.
func NewEpollPoller(n int) (Poller, error) {
	return Poller{}, fmt.Errorf("anchor: epoll: %w", errors.ErrUnsupported)
}
