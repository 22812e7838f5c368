package faults_test

import (
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evsync/evsync/coalesce"
)

// Regression tests for two coalesce bugs that these fault tests found and
// that commit 350eeac fixed.

// TestCoalesceWithFuncCloseKeepsFiredEvents: in WithFunc mode, events
// that a wakeup has already taken from pending when Close runs still
// reach fn (or Events after Close): Close loses nothing.
//
// Regression test: before commit 350eeac, a wakeup that had taken the
// events (fireLocked) but not yet called fn when Close marked the Waker
// closed skipped fn and dropped them. The window is between fireLocked
// and the call; this test holds it open by keeping fn busy in an earlier
// call (from Flush), so that the timer's wakeup comes while that call
// runs and Close comes before it ends. Both Wake calls return before
// Close is called. Found by TestCoalesceCloseStopsCallbacks, where the
// timer races Close.
func TestCoalesceWithFuncCloseKeepsFiredEvents(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	var reported atomic.Uint64
	first := true // only touched by fn, whose calls never overlap
	w := coalesce.New(time.Millisecond, coalesce.WithFunc(func(n uint64) {
		reported.Add(n)
		if first {
			first = false
			close(entered)
			<-release
		}
	}))

	// A Flush's call of fn is under way: the timer's wakeup will queue
	// behind it.
	w.Wake()
	flushed := make(chan struct{})
	go func() { defer close(flushed); w.Flush() }()
	<-entered

	// A second event arms the timer; when it fires, its wakeup takes the
	// event while the first call is still running.
	w.Wake()
	waitUntil(t, "the timer's wakeup", func() bool { return w.Stats().Wakeups == 2 })

	// Close marks the Waker closed, then waits for the call to end.
	closed := make(chan struct{})
	go func() { defer close(closed); w.Close() }()
	waitUntil(t, "Close marking the Waker closed", func() bool { return w.Stats().Closed })

	close(release)
	<-flushed
	<-closed
	if got := reported.Load() + w.Events(); got != 2 {
		t.Fatalf("2 Wake calls returned before Close; fn was passed %d events and Events after Close reports %d",
			reported.Load(), got-reported.Load())
	}
}

// waitUntil yields until cond holds, for hand-shakes on state that only a
// snapshot (Stats) shows; it fails t after the watchdog.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(watchdog)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", watchdog, what)
		}
		runtime.Gosched()
	}
}

// TestCoalesceCloseAfterStaleTimerRunsReturns: Close returns after
// timer runs that Flush came too late to stop, whatever the scheduler
// does with them.
//
// Regression test: before commit 350eeac (one timer slot per run in the
// air), Close could wait forever for a timer run that would never come,
// because the count of stale runs (Waker.stale) could end up one too
// high. expire told a stale run (one that Flush or Close could not stop) from
// the timer's own run by comparing time.Now() with w.deadline, which set
// computes just before it calls Reset. A timer fires at the earliest at
// its deadline, but it may fire later (the runtime runs timers at its
// scheduling points). So this happens:
//
//  1. Wake arms the timer (deadline D1); it fires and its callback A waits
//     for w.mu.
//  2. Flush (or a Wake reaching WithMaxBatch) calls stop: Stop reports
//     false, so stale = 1.
//  3. A Wake arms the timer again: deadline D2, Reset reschedules T.
//  4. A gets mu at a time ≥ D2, before T has actually fired: it sees
//     armed and a deadline that has passed and takes T's role (armed =
//     false, fire). stale is still 1, which now stands for T's pending run.
//  5. Another Wake arms the timer: D3, and Reset finds T still pending, so
//     it reschedules it instead of adding a run.
//  6. T fires after D3: armed, deadline passed: a genuine run. Nothing
//     will ever decrement stale.
//  7. Close: stale > 0, so it waits on cbDone, which only the last stale
//     run closes: forever.
//
// Found by TestSignalCancellationStormConserves, whose final Close hung
// in about one run in twenty: the dump showed Close blocked at the <-wait
// of coalesce.go and no timer goroutine left. This stress test (8
// goroutines Waking and Flushing a Waker with a delay of a few
// microseconds, then Close) hung within a second on two cores, with or
// without -race, against the old code.
func TestCoalesceCloseAfterStaleTimerRunsReturns(t *testing.T) {
	deadline := time.Now().Add(3 * time.Second)
	r := rand.New(rand.NewPCG(41, 42))
	for i := 0; time.Now().Before(deadline); i++ {
		w := coalesce.New(time.Duration(1+r.IntN(30))*time.Microsecond, coalesce.WithMaxBatch(4))
		var c crew
		for g := range 8 {
			c.Go(func() {
				r := rand.New(rand.NewPCG(uint64(i), uint64(g)))
				for range 200 {
					w.Wake()
					if r.IntN(3) == 0 {
						w.Flush()
					}
					if r.IntN(2) == 0 {
						runtime.Gosched()
					}
					for range w.Events() {
						// consume, so that the channel's token does not pile up
					}
				}
			})
		}
		c.Wait(t, w, func() {})
		closed := make(chan struct{})
		go func() { defer close(closed); w.Close() }()
		select {
		case <-closed:
		case <-time.After(5 * time.Second):
			t.Fatalf("round %d: Close has not returned after 5s (%v); waiting for a stale timer run that will never come?", i, w)
		}
	}
}
