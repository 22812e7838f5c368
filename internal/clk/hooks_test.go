//go:build evsynchooks

package clk_test

import (
	"testing"
	"testing/synctest"

	"github.com/evsync/evsync/internal/clk"
	"github.com/evsync/evsync/internal/testsupport/fakeclock"
)

// TestHookFiredStopWins stops the run's goroutine after the fake timer
// fired and before it claims the fire. A Stop there wins: it reports
// true, and f never runs.
func TestHookFiredStopWins(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		in, out := make(chan struct{}), make(chan struct{})
		clk.SetHook(func() { in <- struct{}{}; <-out })
		defer clk.SetHook(nil)
		f := fakeclock.New(epoch)
		g, n := counting()
		tm := clk.Of(f).AfterFunc(ms, g)
		f.Step(ms)
		<-in // the goroutine holds the fire
		if !tm.Stop() {
			t.Fatal("Stop in the window reported false")
		}
		close(out)
		synctest.Wait()
		if got := n.Load(); got != 0 {
			t.Fatalf("f ran %d times after a Stop that reported true", got)
		}
	})
}

// TestHookFiredResetStartsAnotherRun resets the timer in the same window.
// The old fire is not taken for the new arming's.
func TestHookFiredResetStartsAnotherRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		in, out := make(chan struct{}), make(chan struct{})
		var first = true
		clk.SetHook(func() {
			if first {
				first = false
				in <- struct{}{}
				<-out
			}
		})
		defer clk.SetHook(nil)
		f := fakeclock.New(epoch)
		g, n := counting()
		tm := clk.Of(f).AfterFunc(ms, g)
		f.Step(ms)
		<-in
		if !tm.Reset(5 * ms) {
			t.Fatal("Reset in the window reported false")
		}
		close(out)
		synctest.Wait()
		if got := n.Load(); got != 0 {
			t.Fatalf("the old fire ran f %d times", got)
		}
		f.Step(5 * ms)
		synctest.Wait()
		if got := n.Load(); got != 1 {
			t.Fatalf("the new arming ran f %d times, want 1", got)
		}
	})
}
