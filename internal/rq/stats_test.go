package rq_test

import (
	"sync/atomic"
	"testing"

	"github.com/evsync/evsync/internal/rq"
)

// TestCountsFormat checks Format's text: delayed only when not 0, closed
// at the end.
func TestCountsFormat(t *testing.T) {
	for _, c := range []struct {
		c    rq.Counts
		want string
	}{
		{rq.Counts{Queued: 3, InFlight: 2, Aside: 1}, "q{queued=3 inflight=2 aside=1 disarmed=0 waiting=0 draining=0}"},
		{rq.Counts{Queued: 1, Delayed: 4, Waiting: 5, Draining: 6, Disarmed: 7, Closed: true},
			"q{queued=1 delayed=4 inflight=0 aside=0 disarmed=7 waiting=5 draining=6 closed}"},
	} {
		if got := c.c.Format("q"); got != c.want {
			t.Errorf("Format = %q, want %q", got, c.want)
		}
	}
}

// TestStoreSkipsSameValue checks that Store writes a changed value and
// leaves an unchanged one alone.
func TestStoreSkipsSameValue(t *testing.T) {
	var a atomic.Int64
	rq.Store(&a, 5)
	if a.Load() != 5 {
		t.Fatalf("after Store 5: %d", a.Load())
	}
	rq.Store(&a, 5)
	if a.Load() != 5 {
		t.Fatalf("after Store 5 again: %d", a.Load())
	}
}
