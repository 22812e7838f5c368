//go:build !linux

package poll_test

import "testing"

// benchEpoll has no kernel epoll to measure on this system.
func benchEpoll(b *testing.B, n int) { b.Skip("epoll is Linux's") }
