// Package gates stops goroutines at the hook points of internal/counter,
// for the window tests that the evsynchooks build tag turns on (see
// internal/counter's points.go). A test arms a gate at a point, starts the
// call that will reach it, waits until the call is stopped there, runs
// the other side's operation, and opens the gate.
//
// It is imported only by _test.go files built with -tags evsynchooks.
// Without the tag the package is empty.
package gates
