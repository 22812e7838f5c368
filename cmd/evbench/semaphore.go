package main

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"

	"github.com/evsync/evsync/internal/testsupport/anchor"
)

// errFailedTry reports a TryAcquire that failed with nobody else around.
var errFailedTry = errors.New("a try-acquire failed on an idle semaphore")

// A semDriver runs a semaphore workload until stop is set.
type semDriver func(s anchor.Semaphore, stop *atomic.Bool) (tally, error)

// semaphoreWorkloads is the semaphore group: one goroutine alone, then g
// goroutines contending for limits of 1 and 4, then the standing queues,
// then callers that release and go on working (ReleaseThenWork). The
// workloads where takes queue have a row of evsync in eventual-fairness
// mode beside the strict one.
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
	for _, c := range semaphoreContended {
		w := contendedWorkload("semaphore", "semaphore contended", "SemaphoreContended", c.limit, c.g, c.hold)
		if c.eventual {
			w = withEventual(w, uint64(c.limit), contended(c.g, c.hold))
		}
		ws = append(ws, w)
	}
	return append(ws, releaseThenWorkWorkload())
}

// semaphoreContended are the semaphore group's contended workloads.
//
// Without work while they hold a unit, many goroutines make no standing
// queue on a few cores. A goroutine takes and gives back the unit many
// times in its time slice, and the others wait for a processor, not for
// the semaphore. So few of their takes wait, or a run flips into a convoy
// where almost all do: limit 4 with 64 goroutines flips from run to run,
// and is measured with hold instead. The hold workloads make the queue on
// purpose, as semaphore's BenchmarkContended does (hold=yield): each
// holder yields the processor while it holds its unit, so that the others
// run, find no unit free and queue. The scaling group keeps every
// goroutine count without hold.
//
// With eventual, a workload also runs evsync in eventual-fairness mode
// (eventualImpl): at limit 1 with 8 goroutines, where most takes wait,
// and in the two standing queues. The others have units to spare or
// repeat limit 1 with 8 goroutines, and each row costs the default run
// 0.36 s.
var semaphoreContended = []struct {
	limit, g       int
	hold, eventual bool
}{
	{1, 2, false, false}, {1, 8, false, true}, {1, 64, false, false},
	{4, 2, false, false}, {4, 8, false, false},
	{1, 8, true, true}, {4, 64, true, true},
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
			w := contendedWorkload("scaling", "semaphore scaling", "SemaphoreScaling", limit, g, false)
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
// units. With hold, each holder yields the processor while it holds its
// unit: a standing queue on purpose.
func contendedWorkload(group, title, benchName string, limit, g int, hold bool) workload {
	params := []param{intParam("limit", limit), intParam("g", g)}
	holding := ""
	if hold {
		params = append(params, param{key: "hold", value: "yield"})
		holding = ", yielding the processor while holding it,"
	}
	w := semWorkload(group, title, benchName, params,
		fmt.Sprintf("%s %s one unit (TryAcquire; Acquire when that fails)%s and %s it back; limit %d; wakeups/op: the share of takes that had to wait",
			count(g, "goroutine"), plural(g, "takes", "each take"), holding, plural(g, "gives", "give"), limit),
		uint64(limit), contended(g, hold))
	w.wakeups = true
	w.byWaits = true
	return w
}

// The situations the semaphore workloads stand for in the advice. The
// contended workloads go by the share of takes that waited (see
// waitSituation).
const (
	useLimiterAlone = "a limiter one goroutine takes and gives back, no contention"
	useLimiterQueue = "a limiter under a standing queue (most takes wait)"
	useLimiterSome  = "a limiter under light contention (some takes wait)"
	useLimiterSpare = "a limiter with units to spare (few takes wait)"
)

// semWorkload runs drive on a semaphore of limit units of every
// implementation.
func semWorkload(group, title, benchName string, params []param, about string, limit uint64, drive semDriver) workload {
	w := workload{group: group, title: title, bench: benchName, params: params, about: about,
		anchor: "xsync", why: whyXSync}
	for _, impl := range anchor.Semaphores() {
		w.cases = append(w.cases, bench{impl: impl.Name, run: semRun(impl.New, limit, drive)})
	}
	return w
}

// semRun runs drive on a semaphore of limit units that newSem builds.
func semRun(newSem func(uint64) (anchor.Semaphore, error), limit uint64, drive semDriver) func(*atomic.Bool) (tally, error) {
	return func(stop *atomic.Bool) (tally, error) {
		s, err := newSem(limit)
		if err != nil {
			return tally{}, err
		}
		defer s.Close()
		return drive(s, stop)
	}
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

// contended has g goroutines take and give back one unit each in a loop,
// yielding while they hold it if hold is set.
func contended(g int, hold bool) semDriver {
	return func(s anchor.Semaphore, stop *atomic.Bool) (tally, error) {
		return fanOut(g, func() (tally, error) { return acquireLoop(s, stop, hold) })
	}
}

// acquireLoop tries TryAcquire first so that it can count the Acquire
// calls that had to wait (the wakeups). With hold, it yields the
// processor (runtime.Gosched) between the take and the give.
func acquireLoop(s anchor.Semaphore, stop *atomic.Bool, hold bool) (tally, error) {
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
		if hold {
			runtime.Gosched()
		}
		s.Release(1)
		n.ops++
	}
	return n, nil
}
