//go:build !linux

package fuzz_test

import "testing"

// runKernel stands in for the kernel differential run, which needs a
// Linux eventfd.
func runKernel(t *testing.T, _ []byte, _ tally) { t.Skip("kernel eventfd: Linux only") }
