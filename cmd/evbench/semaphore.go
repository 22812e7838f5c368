package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/evsync/evsync/internal/testsupport/anchor"
)

// errFailedTry reports a TryAcquire that failed with nobody else around.
var errFailedTry = errors.New("a try-acquire failed on an idle semaphore")

// A semDriver runs a semaphore workload until stop is set.
type semDriver func(s anchor.Semaphore, stop *atomic.Bool) (tally, error)

// semaphoreWorkloads is the semaphore group: one goroutine alone, then g
// goroutines contending for limits of 1 and 4.
func semaphoreWorkloads() []workload {
	ws := []workload{
		semWorkload("semaphore", "semaphore acquire+release", "SemaphoreAcquireRelease", nil,
			"one goroutine: Acquire(1), then Release(1); limit 1", 1, acquireRelease),
		semWorkload("semaphore", "semaphore tryacquire+release", "SemaphoreTryAcquireRelease", nil,
			"one goroutine: TryAcquire(1), then Release(1); limit 1", 1, tryAcquireRelease),
	}
	for i := range ws {
		ws[i].use = useLimiterAlone
	}
	for _, limit := range []int{1, 4} {
		for _, g := range []int{2, 8, 64} {
			ws = append(ws, contendedWorkload("semaphore", "semaphore contended", "SemaphoreContended", limit, g))
		}
	}
	return ws
}

// scalingWorkloads is the scaling group: the contended workload from 1 to
// 128 goroutines, the data of the semaphore charts.
//
// With cpus (-cpu), each workload runs once per value, at that
// GOMAXPROCS, and has a cpu parameter: "limit=4 g=64 cpu=8". Those rows
// show how contention behaves as cores grow. To keep such a run short,
// it covers 8 and 64 goroutines only: a few per unit, and a standing
// queue.
func scalingWorkloads(cpus []int) []workload {
	gs := []int{1, 2, 4, 8, 16, 32, 64, 128}
	if cpus != nil {
		gs = cpuGoroutines
	}
	var ws []workload
	for _, limit := range []int{1, 4} {
		for _, g := range gs {
			w := contendedWorkload("scaling", "semaphore scaling", "SemaphoreScaling", limit, g)
			if cpus == nil {
				ws = append(ws, w)
				continue
			}
			for _, n := range cpus {
				wn := w
				wn.params = append(slices.Clip(w.params), intParam("cpu", n))
				wn.cases = slices.Clone(w.cases) // each copy's own, as every other workload's
				wn.procs = n
				wn.about += fmt.Sprintf("; GOMAXPROCS %d", n)
				ws = append(ws, wn)
			}
		}
	}
	return ws
}

// cpuGoroutines are the goroutine counts of the scaling group with -cpu.
var cpuGoroutines = []int{8, 64}

// contendedWorkload has g goroutines contend for a semaphore of limit
// units.
func contendedWorkload(group, title, benchName string, limit, g int) workload {
	w := semWorkload(group, title, benchName, []param{intParam("limit", limit), intParam("g", g)},
		fmt.Sprintf("%s %s one unit (TryAcquire; Acquire when that fails) and %s it back; limit %d; wakeups/op: the share of takes that had to wait",
			count(g, "goroutine"), plural(g, "takes", "each take"), plural(g, "gives", "give"), limit),
		uint64(limit), contended(g))
	w.wakeups = true
	w.use = useLimiterSpare
	if g > limit {
		w.use = useLimiterQueue
	}
	return w
}

// The situations the semaphore workloads stand for in the advice.
const (
	useLimiterAlone = "a limiter one goroutine takes and gives back, no contention"
	useLimiterQueue = "a limiter under a standing queue (more goroutines than units)"
	useLimiterSpare = "a limiter with units to spare (no more goroutines than units)"
)

// semWorkload runs drive on a semaphore of limit units of every
// implementation.
func semWorkload(group, title, benchName string, params []param, about string, limit uint64, drive semDriver) workload {
	w := workload{group: group, title: title, bench: benchName, params: params, about: about,
		anchor: "xsync", why: whyXSync}
	for _, impl := range anchor.Semaphores() {
		w.cases = append(w.cases, bench{impl: impl.Name, run: func(stop *atomic.Bool) (tally, error) {
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
	for first := true; first || !stop.Load(); first = false { // one round even if a short run is stopped before it starts
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
	for first := true; first || !stop.Load(); first = false { // one round even if a short run is stopped before it starts
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
