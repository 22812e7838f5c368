package anchor

import (
	"context"
	"sync"

	"github.com/evsync/evsync/signal"
)

// This file holds the pieces of benchmark drivers that the packages'
// benchmarks and cmd/evbench share.

// Split starts g goroutines that share total calls among them: each runs
// f(n) once with its share n, the shares summing to total and differing by
// at most one. They all wait for start, so that a benchmark can reset its
// timer in between and release them together; wait waits until every one
// has returned. Call start exactly once, then wait.
func Split(g, total int, f func(n int)) (start, wait func()) {
	var wg sync.WaitGroup
	ready := make(chan struct{})
	for i := range g {
		n := total / g
		if i < total%g {
			n++
		}
		wg.Go(func() {
			<-ready
			f(n)
		})
	}
	return func() { close(ready) }, wg.Wait
}

// Cancellable returns a context that can end (context.WithCancel) and the
// function that ends it, for the benchmarks' ctx=cancel cases: a blocking
// call must then select on its Done channel, as it must for real callers.
// The channel is made here, not lazily by the first Done call inside the
// timed run, so that it is no allocation of the run.
func Cancellable() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	_ = ctx.Done()
	return ctx, cancel
}

// ObserverModes lists the modes of Observe, in the order the benchmarks
// run them: "off" (no observer, the reference), "on" and "control".
func ObserverModes() []string { return []string{"off", "on", "control"} }

// Observe starts a goroutine that, until stop is called, calls s.String in
// a loop (mode "on"), formats a constant signal.Stats in a loop instead
// (mode "control": the same CPU use and allocations, without touching s)
// or does nothing (mode "off"). It is the observer of the benchmarks that
// measure what reading a signal's stats costs its writers and reader.
//
// stop ends the goroutine, waits for it and returns the length of all it
// formatted, so that the work is not optimised away. Observe panics on an
// unknown mode.
func Observe(s *signal.Signal, mode string) (stop func() int) {
	var st signal.Stats
	return ObserveWith(s.String, st.String, mode)
}

// ObserveWith is Observe for any primitive. Mode "on" calls on in a loop,
// and mode "control" calls control, which formats a constant value of the
// same type without touching the primitive.
func ObserveWith(on, control func() string, mode string) (stop func() int) {
	f := on
	switch mode {
	case "off":
		f = nil
	case "control":
		f = control
	case "on":
	default:
		panic("anchor: unknown observer mode " + mode)
	}
	quit, done := make(chan struct{}), make(chan int)
	go func() { done <- observeLoop(f, quit) }()
	return func() int {
		close(quit)
		return <-done
	}
}

// observeLoop is ObserveWith's goroutine. It calls f, if not nil, until
// quit is closed and returns the length of what f formatted.
func observeLoop(f func() string, quit <-chan struct{}) int {
	n := 0
	for f != nil {
		select {
		case <-quit:
			return n
		default:
		}
		n += len(f())
	}
	<-quit
	return n
}
