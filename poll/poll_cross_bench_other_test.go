//go:build !linux

package poll_test

import "testing"

// crossEpoll has no kernel epoll to measure on this system.
func crossEpoll(b *testing.B, n int) crossWaiter {
	b.Skip("epoll is Linux's")
	return crossWaiter{}
}
