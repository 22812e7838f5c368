package readyq_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/internal/testkit"
	"github.com/evsync/evsync/readyq"
)

// TestNewWithConfigPanicsForAnUnknownMode: the one setting the compiler
// cannot check.
func TestNewWithConfigPanicsForAnUnknownMode(t *testing.T) {
	testkit.WantPanic(t, "readyq: Config.Mode is not a Mode", func() {
		readyq.NewWithConfig(readyq.Config[int]{Mode: readyq.Mode(3)})
	})
}

// TestTheZeroConfigIsNew: a nil field is a field not set. NewWithConfig
// of the zero Config is the default queue, whose limiter is
// DefaultRateLimiter's (5 ms first).
func TestTheZeroConfigIsNew(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for name, q := range map[string]*readyq.Queue[int]{
			"New":           readyq.New[int](),
			"NewWithConfig": readyq.NewWithConfig(readyq.Config[int]{}),
		} {
			q.Add(1)
			q.Add(2)
			q.Done(q.TryTake(2)...) // edge: forgotten, no recheck asked for
			q.AddRateLimited(3)
			sleep(5*time.Millisecond - 1)
			if q.Len() != 0 {
				t.Fatalf("%s: %v before the default limiter's first delay", name, q)
			}
			sleep(1)
			wantItems(t, name, q.TryTake(8), 3)
			if n := q.NumRequeues(3); n != 1 {
				t.Fatalf("%s: NumRequeues = %d, want 1", name, n)
			}
			if u, l := q.Running(); u != 0 || l != 0 {
				t.Fatalf("%s: Running = %v, %v without metrics", name, u, l)
			}
		}
	})
}
