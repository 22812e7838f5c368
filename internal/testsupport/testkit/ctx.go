package testkit

import (
	"context"
	"math/rand/v2"
	"runtime"
)

// NilContext is a nil context, for the calls that must refuse one with
// ErrInvalid. It is a variable so that vet and staticcheck let tests pass
// it.
var NilContext context.Context

// Cancelled returns a context that is already cancelled.
func Cancelled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// CancelSoon returns a context that another goroutine cancels after a
// random number of runtime.Gosched yields (fewer than 20, drawn from r), so
// that cancellation lands at every point of a blocking call. stop must be
// called: it cancels the context and waits for that goroutine.
func CancelSoon(r *rand.Rand) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	yields := r.IntN(20)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range yields {
			runtime.Gosched()
		}
		cancel()
	}()
	return ctx, func() { cancel(); <-done }
}

// CancelSoonOrNever is CancelSoon, except that one time in three (drawn
// from r first) the context is context.Background, which never ends. Use
// it only where some other goroutine is sure to end the wait.
func CancelSoonOrNever(r *rand.Rand) (ctx context.Context, stop func()) {
	if r.IntN(3) == 0 {
		return context.Background(), func() {}
	}
	return CancelSoon(r)
}
