package coalesce

import "testing"

// Lock and Unlock take and release w's lock, for tests that check that a
// call does not need it.
func Lock(w *Waker)   { w.mu.Lock() }
func Unlock(w *Waker) { w.mu.Unlock() }

// OnReceive makes f run in every Wait between its receive from C and its
// Events, until t ends, so that a test can land a call there. Tests that
// use it must not run in parallel.
func OnReceive(t testing.TB, f func()) {
	testHookReceived = f
	t.Cleanup(func() { testHookReceived = nil })
}
