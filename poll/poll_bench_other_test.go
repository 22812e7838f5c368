//go:build !linux

package poll_test

import (
	"testing"
	"time"
)

// benchEpoll has no kernel epoll to measure on this system.
func benchEpoll(b *testing.B, n int) { b.Skip("epoll is Linux's") }

// cpuTime reports false: the benchmarks report no CPU figures here.
func cpuTime() (time.Duration, bool) { return 0, false }

// threadTime reports false, as cpuTime does.
func threadTime() (time.Duration, bool) { return 0, false }

// pause sleeps for d on a Go timer.
func pause(d time.Duration) { time.Sleep(d) }
