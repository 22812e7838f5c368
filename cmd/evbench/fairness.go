package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/evsync/evsync/internal/testsupport/anchor"
	"github.com/evsync/evsync/semaphore"
)

// evsync's two modes side by side. Strict FIFO, the default, serves
// waiters in arrival order: under contention each take hands the units
// to a parked waiter, which then has to be scheduled. Eventual fairness
// (semaphore.WithEventualFairness) lets a running caller take free units
// ahead of the queue while its oldest waiter has waited at most the
// bound, and is strict after that. The eventual row is the evsync row's
// Semaphore built with the option, so that the two rows differ in the
// mode alone; a Limiter is the same counter.

// eventualBound is the bound of the eventual row: sync.Mutex's, after
// which a starving waiter gets the lock handed to it.
const eventualBound = time.Millisecond

// eventualImpl names the eventual row. It is an evsync variant, compared
// with the strict evsync row like any other.
var eventualImpl = "evsync/eventual=" + eventualBound.String()

// eventualSemaphore is evsync's Semaphore in eventual-fairness mode, with
// the same methods as the strict row's adapter (anchor's), so that only
// the mode differs.
type eventualSemaphore struct{ s *semaphore.Semaphore }

// newEventual returns evsync's Semaphore with count and limit both set
// to limit (1 ≤ limit ≤ semaphore.Max), in eventual-fairness mode.
func newEventual(limit uint64) (anchor.Semaphore, error) {
	if limit == 0 || limit > semaphore.Max {
		return nil, fmt.Errorf("%s cannot hold a limit of %d", eventualImpl, limit)
	}
	return eventualSemaphore{semaphore.New(limit, semaphore.WithLimit(limit), semaphore.WithEventualFairness(eventualBound))}, nil
}

// Acquire is the Semaphore's Acquire.
func (a eventualSemaphore) Acquire(ctx context.Context, n uint64) error { return a.s.Acquire(ctx, n) }

// TryAcquire is the Semaphore's TryAcquire.
func (a eventualSemaphore) TryAcquire(n uint64) bool { return a.s.TryAcquire(n) }

// Close closes the Semaphore, which never fails.
func (a eventualSemaphore) Close() error { a.s.Close(); return nil }

// Release panics on the error evsync reports for units that are not
// held, as the anchors do.
func (a eventualSemaphore) Release(n uint64) {
	if err := a.s.Release(n); err != nil {
		panic("evbench: eventual release: " + err.Error())
	}
}

// withEventual adds the eventual row to w, right after the strict evsync
// row, running drive on a semaphore of limit units.
func withEventual(w workload, limit uint64, drive semDriver) workload {
	i := slices.IndexFunc(w.cases, func(c bench) bool { return c.impl == "evsync" })
	w.cases = slices.Insert(slices.Clone(w.cases), i+1, bench{impl: eventualImpl, run: semRun(newEventual, limit, drive)})
	w.about += fmt.Sprintf("; %s: evsync with WithEventualFairness(%v)", eventualImpl, eventualBound)
	return w
}

// The ReleaseThenWork workload: callers that hold a unit while they wait
// for something (a sleep, as a query to a database), release it, then
// keep a core busy before they ask again. jackc/puddle's issue 46 found
// it on x/sync's semaphore: a release hands the unit to a parked waiter,
// whose wakeup waits for a core while the releaser works on, so the unit
// sits idle. In eventual mode a running caller may take the free unit
// instead, but only while the oldest waiter has waited at most the
// bound. With 100 callers on 4 units, each round 1.5 ms long, a caller
// waits about 25 ms at the floor's rate (Little's law), far past 1 ms:
// the row shows whether the mode still helps in such a queue. The floor
// is the limit's own: no limiter of rtwLimit units held rtwHold each
// completes a take faster than rtwHold ÷ rtwLimit.
//
// At the floor's rate, a take every 250 µs, the 500 µs of work of each
// take needs two cores: on 2 cores, every core is busy. eventfd is left
// out: a system call per take would not decide at a quarter of a
// millisecond, and each row costs the default run 0.36 s.
const (
	rtwLimit      = 4
	rtwGoroutines = 100
	rtwHold       = time.Millisecond
	rtwWork       = 500 * time.Microsecond
)

// useLimiterBusy is the situation ReleaseThenWork stands for.
const useLimiterBusy = "a limiter whose callers work on after each release, every core busy"

// releaseThenWorkWorkload is ReleaseThenWork with evsync in both modes,
// x/sync, a channel and sync.Cond, which lets any caller take free units
// at any time.
func releaseThenWorkWorkload() workload {
	w := workload{group: "semaphore", title: "semaphore release-then-work", bench: "SemaphoreReleaseThenWork",
		params: []param{intParam("limit", rtwLimit), intParam("g", rtwGoroutines),
			{key: "hold", value: rtwHold.String()}, {key: "work", value: rtwWork.String()}},
		about: fmt.Sprintf("%d goroutines each take one unit (TryAcquire; Acquire when that fails), hold it %v (a sleep, as a query), give it back, then work %v on the CPU; limit %d; wakeups/op: the share of takes that had to wait; %s: evsync with WithEventualFairness(%v)",
			rtwGoroutines, rtwHold, rtwWork, rtwLimit, eventualImpl, eventualBound),
		anchor: "xsync", why: whyXSync, use: useLimiterBusy, wakeups: true, floor: rtwHold / rtwLimit,
		floorOf: fmt.Sprintf("hold %v ÷ limit %d: no limiter does better, and as a sleep lasts a little longer than asked, one that never leaves a unit idle is a little above 1.00×", rtwHold, rtwLimit)}
	for _, impl := range anchor.Semaphores() {
		switch impl.Name {
		case "eventfd":
		case "evsync":
			w.cases = append(w.cases, rtwCase(impl.Name, impl.New), rtwCase(eventualImpl, newEventual))
		default:
			w.cases = append(w.cases, rtwCase(impl.Name, impl.New))
		}
	}
	return w
}

// rtwCase is ReleaseThenWork's case for a semaphore that newSem builds.
// Its prep measures the work's length on this machine, once, off the
// clock.
func rtwCase(impl string, newSem func(uint64) (anchor.Semaphore, error)) bench {
	return bench{impl: impl, prep: func() (func(*atomic.Bool) (tally, error), func(), error) {
		rounds := workRounds()
		s, err := newSem(rtwLimit)
		if err != nil {
			return nil, nil, err
		}
		return func(stop *atomic.Bool) (tally, error) { return releaseThenWork(s, stop, rounds) }, func() { s.Close() }, nil
	}}
}

// errSpun reports a work loop whose result was 0, which xorshift never
// gives from a non-zero start: the check keeps the loop from being
// optimised away.
var errSpun = errors.New("the work loop's xorshift reached 0")

// releaseThenWork runs ReleaseThenWork on s until stop is set; rounds of
// spin are rtwWork of CPU. A caller that gets its unit after stop gives
// it back at once and counts nothing. So a run ends with the rounds
// under way, not with a hold for each of up to 100 callers still queued;
// a run stopped before any round counts none, and measure runs again.
func releaseThenWork(s anchor.Semaphore, stop *atomic.Bool, rounds int) (tally, error) {
	return fanOut(rtwGoroutines, func() (tally, error) {
		ctx := context.Background()
		var n tally
		x := uint64(1)
		for {
			waited := !s.TryAcquire(1)
			if waited {
				if err := s.Acquire(ctx, 1); err != nil {
					return n, err
				}
			}
			if stop.Load() {
				s.Release(1)
				break
			}
			if waited {
				n.wakeups++
			}
			time.Sleep(rtwHold)
			s.Release(1)
			x = spin(x, rounds)
			n.ops++
		}
		if x == 0 {
			return n, errSpun
		}
		return n, nil
	})
}

// spin runs rounds of xorshift64 from x: CPU work that touches no memory.
func spin(x uint64, rounds int) uint64 {
	for range rounds {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

// workRounds is how many rounds of spin last rtwWork here, from the
// fastest of 20 timed trials: a trial slowed by another process would
// make the work too short.
var workRounds = sync.OnceValue(func() int {
	const trial = 1 << 16
	best := time.Duration(math.MaxInt64)
	x := uint64(1)
	for range 20 {
		start := time.Now()
		x = spin(x, trial)
		best = min(best, time.Since(start))
	}
	if x == 0 {
		panic("evbench: " + errSpun.Error())
	}
	return max(1, int(trial*float64(rtwWork)/float64(max(best, 1))))
})
