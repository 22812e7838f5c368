// Package testkit holds the helpers that the evsync test suites share: the
// checks and channel probes of the behaviour tests, the random cancellation
// and watchdog of the hammer tests, the edge-value generators and context
// choices of the rapid state-machine tests, and the driver and failure
// report of the kernel eventfd differential tests (Linux only).
//
// It is imported only by _test.go files: nothing in the module's non-test
// code may depend on it, and it depends on no package under test (only on
// model, internal/testsupport/eventfd and internal/waitq).
package testkit
