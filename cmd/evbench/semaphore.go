package main

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/evsync/evsync/internal/anchor"
)

// errFailedTry reports a TryAcquire that failed with nobody else around.
var errFailedTry = errors.New("a try-acquire failed on an idle semaphore")

// A semDriver runs a semaphore workload until stop is set.
type semDriver func(s anchor.Semaphore, stop *atomic.Bool) (tally, error)

// semWorkload runs drive on a semaphore of limit units of every
// implementation.
func semWorkload(name string, limit uint64, wakeups bool, drive semDriver) workload {
	w := workload{name: name, wakeups: wakeups}
	for _, impl := range anchor.Semaphores() {
		w.cases = append(w.cases, bench{impl.Name, func(stop *atomic.Bool) (tally, error) {
			s, err := impl.New(limit)
			if err != nil {
				return tally{}, err
			}
			defer s.Close()
			return drive(s, stop)
		}})
	}
	return w
}

// acquireRelease is one goroutine taking and giving back a unit.
func acquireRelease(s anchor.Semaphore, stop *atomic.Bool) (tally, error) {
	ctx := context.Background()
	var n tally
	for !stop.Load() {
		for range batch {
			if err := s.Acquire(ctx, 1); err != nil {
				return n, err
			}
			s.Release(1)
		}
		n.ops += batch
	}
	return n, nil
}

// tryAcquireRelease is acquireRelease with TryAcquire.
func tryAcquireRelease(s anchor.Semaphore, stop *atomic.Bool) (tally, error) {
	var n tally
	for !stop.Load() {
		for range batch {
			if !s.TryAcquire(1) {
				return n, errFailedTry
			}
			s.Release(1)
		}
		n.ops += batch
	}
	return n, nil
}

// contended has g goroutines take and give back one unit each in a loop.
func contended(g int) semDriver {
	return func(s anchor.Semaphore, stop *atomic.Bool) (tally, error) {
		return fanOut(g, func() (tally, error) { return acquireLoop(s, stop) })
	}
}

// acquireLoop tries TryAcquire first so that it can count the Acquire
// calls that had to wait (the wakeups).
func acquireLoop(s anchor.Semaphore, stop *atomic.Bool) (tally, error) {
	ctx := context.Background()
	var n tally
	// The first round comes before the look at stop: a goroutine that
	// starts late on a loaded machine still completes one.
	for first := true; first || !stop.Load(); first = false {
		if !s.TryAcquire(1) {
			if err := s.Acquire(ctx, 1); err != nil {
				return n, err
			}
			n.wakeups++
		}
		s.Release(1)
		n.ops++
	}
	return n, nil
}
