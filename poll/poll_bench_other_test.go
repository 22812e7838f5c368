//go:build !linux

package poll_test

import (
	"testing"
	"time"
)

// skipFewFiles does nothing: without epoll, no benchmark opens files.
func skipFewFiles(b *testing.B, n int) {}

// cpuTime reports false: the benchmarks report no CPU figures here.
func cpuTime() (time.Duration, bool) { return 0, false }

// threadTime reports false, as cpuTime does.
func threadTime() (time.Duration, bool) { return 0, false }

// pause sleeps for d on a Go timer.
func pause(d time.Duration) { time.Sleep(d) }
