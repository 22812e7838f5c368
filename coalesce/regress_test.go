package coalesce_test

import (
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/evsync/evsync/coalesce"
)

// TestCloseAfterStaleTimerRunsReturns: Close returns after timer runs
// that Flush came too late to stop, whatever the scheduler does with them.
//
// Regression test (found by the signal cancellation storm of
// internal/testsupport/faults, fixed in commit 350eeac by one timer slot per run in
// the air): Close could wait forever for a timer run that would never
// come, because the count of stale runs could end up one too high. The
// timer's callback told a stale run (one that Flush or Close could not
// stop) from the timer's own run by comparing time.Now() with the
// deadline set computed before Reset. A timer fires at the earliest at
// its deadline, but may fire later, so:
//
//  1. Wake arms the timer (deadline D1); it fires and its callback A waits
//     for the lock.
//  2. Flush stops the timer too late: stale = 1.
//  3. A Wake arms the timer again: deadline D2, Reset reschedules T.
//  4. A gets the lock at a time ≥ D2, before T has fired: it sees the
//     timer armed and its deadline passed, and takes T's role. stale is
//     still 1, which now stands for T's pending run.
//  5. Another Wake arms the timer: D3, and Reset finds T still pending, so
//     it reschedules it instead of adding a run.
//  6. T fires after D3: a genuine run. Nothing ever decrements stale.
//  7. Close waits for the last stale run: forever.
//
// This stress test (8 goroutines Waking and Flushing a Waker with a delay
// of a few microseconds, then Close) hung within a second on two cores
// against the old code; the deterministic cousin is
// TestFlushRacingTheTimerThenNewWindow.
func TestCloseAfterStaleTimerRunsReturns(t *testing.T) {
	deadline := time.Now().Add(time.Second)
	r := rand.New(rand.NewPCG(41, 42))
	for i := 0; time.Now().Before(deadline); i++ {
		w := coalesce.New(time.Duration(1+r.IntN(30))*time.Microsecond, coalesce.WithMaxBatch(4))
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Go(func() { wakeAndFlush(w, rand.New(rand.NewPCG(uint64(i), uint64(g)))) })
		}
		wg.Wait()
		closed := make(chan struct{})
		go func() { defer close(closed); w.Close() }()
		select {
		case <-closed:
		case <-time.After(watchdog):
			t.Fatalf("round %d: Close has not returned after %v (%v); waiting for a stale timer run that will never come?", i, watchdog, w)
		}
	}
}

// wakeAndFlush makes 200 Wake calls, with Flush calls, yields and
// Events calls in between.
func wakeAndFlush(w *coalesce.Waker, r *rand.Rand) {
	for range 200 {
		w.Wake()
		if r.IntN(3) == 0 {
			w.Flush()
		}
		if r.IntN(2) == 0 {
			runtime.Gosched()
		}
		w.Events() // consume, so that the tokens do not pile up
	}
}
