package faults_test

import (
	"fmt"
	"testing"
)

// errConsumer is what the panicking callbacks panic with.
var errConsumer = fmt.Errorf("consumer panic")

// recovered calls f and returns what it panicked with, or nil.
func recovered(f func()) (p any) {
	defer func() { p = recover() }()
	f()
	return nil
}

// wantPanic calls f, which must panic with errConsumer (the callback's
// panic reaches the caller unchanged).
func wantPanic(t *testing.T, what string, f func()) {
	t.Helper()
	if p := recovered(f); p != errConsumer {
		t.Fatalf("%s: recovered %v, want the callback's panic %v", what, p, errConsumer)
	}
}
