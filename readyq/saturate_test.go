package readyq_test

import (
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/readyq"
)

// century is a long time in flight, yet one a Duration holds.
const century = 100 * 365 * 24 * time.Hour

// TestRunningSaturates has Running add up more time in flight than a
// Duration holds. Three items in flight for a century each pass 2⁶³ ns,
// six pass 2⁶⁴ ns. The total stays at the largest Duration, where it used
// to wrap round to a negative figure. Below that it is exact, even when
// the sum of the start times behind it is past 2⁶³ ns.
func TestRunningSaturates(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := readyq.New[int](readyq.WithMetrics(&metrics{}))
		add(q, 1, 2, 3, 4, 5, 6)
		mustWait(t, q, 8, 1, 2, 3, 4, 5, 6)
		sleep(century)
		wantRunning(t, q, math.MaxInt64, century) // six centuries
		q.Done(1, 2, 3)
		wantRunning(t, q, math.MaxInt64, century) // three
		q.Done(4, 5)
		wantRunning(t, q, century, century)
		q.Done(6)
		add(q, 7, 8, 9) // started a century on: their start times add up past 2⁶³
		mustWait(t, q, 8, 7, 8, 9)
		sleep(time.Second)
		wantRunning(t, q, 3*time.Second, time.Second)
	})
}

func wantRunning(t *testing.T, q *readyq.Queue[int], unfinished, longest time.Duration) {
	t.Helper()
	if u, l := q.Running(); u != unfinished || l != longest {
		t.Fatalf("Running() = %v, %v, want %v, %v", u, l, unfinished, longest)
	}
}
