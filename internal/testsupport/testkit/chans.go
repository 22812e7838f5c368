package testkit

import "testing/synctest"

// Park calls f in a new goroutine and returns once f is durably blocked
// (parked in a call under test) or has returned; f's result arrives on the
// returned channel, which is buffered so that the goroutine never waits
// for a receiver. It must be called inside a synctest bubble, whose
// synctest.Wait is what tells that f is blocked.
func Park[T any](f func() T) <-chan T {
	ch := make(chan T, 1)
	go func() { ch <- f() }()
	synctest.Wait()
	return ch
}

// Pending fails t if a value has arrived on ch: the call behind it, which
// the test expects to be still waiting, has settled.
func Pending[T any](t Fataler, ch <-chan T) {
	t.Helper()
	select {
	case v := <-ch:
		t.Fatalf("a call that should be waiting settled: %v", v)
	default:
	}
}

// IsClosed reports, without blocking, whether ch (a Ready or Done channel,
// which is only ever closed) is closed.
func IsClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
