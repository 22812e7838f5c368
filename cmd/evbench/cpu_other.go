//go:build !unix

package main

import "time"

// cpuTime is not measured on this platform: the cpu/wall column reads 0.
func cpuTime() time.Duration { return 0 }
