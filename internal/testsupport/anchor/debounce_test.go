package anchor_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/internal/testsupport/anchor"
)

// TestDebounceWakesAfterDelay checks that the AfterFunc debouncer wakes
// a blocked reader one delay after the first add, with every add of the
// window, and that Close stops a pending timer.
func TestDebounceWakesAfterDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, _ := anchor.NewDebounceSignal(5 * time.Millisecond)
		defer s.Close()
		start := time.Now()
		s.Add(1)
		time.Sleep(time.Millisecond)
		s.Add(2)
		v, err := s.Wait(context.Background())
		if err != nil || v != 3 {
			t.Fatalf("Wait = %d, %v; want 3, nil", v, err)
		}
		if got := time.Since(start); got != 5*time.Millisecond {
			t.Fatalf("woke after %v, want 5ms", got)
		}
		s.Add(1) // arms a timer that Close stops
	})
}
