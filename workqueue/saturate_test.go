package workqueue_test

import (
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/workqueue"
	"golang.org/x/time/rate"
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
		q := workqueue.NewWithConfig(workqueue.Config[int]{Metrics: &metrics{}})
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

func wantRunning(t *testing.T, q *workqueue.Queue[int], unfinished, longest time.Duration) {
	t.Helper()
	if u, l := q.Running(); u != unfinished || l != longest {
		t.Fatalf("Running() = %v, %v, want %v, %v", u, l, unfinished, longest)
	}
}

// TestAddAfterHugeDelay marks items, through every call that takes a
// delay, with ready times past the end of int64 nanoseconds on the
// queue's clock. Each saturates at the clock's end: the item waits for
// ages, and is not queued at once as if now+d had wrapped into the past.
// Close then queues them in the order their times were set.
func TestAddAfterHugeDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		never := workqueue.BucketRateLimiter[int](rate.NewLimiter(1, 0)) // no token ever: its wait is rate.InfDuration
		q := workqueue.NewWithConfig(workqueue.Config[int]{RateLimiter: never})
		q.AddAfter(0, 1) // starts the queue's clock
		sleep(time.Second)
		mustWait(t, q, 8, 0)
		q.Done(0)
		q.AddAfter(1, math.MaxInt64)
		q.AddWith(2, workqueue.AddOpts{After: math.MaxInt64 - 1, Priority: 1})
		q.Add(3)
		mustWait(t, q, 8, 3)
		q.AddAfter(3, math.MaxInt64)   // kept aside while in flight
		q.AddAfter(3, math.MaxInt64-1) // saturates too: no sooner
		q.Done(3)
		q.AddRateLimited(4)
		q.AddAfter(5, time.Millisecond)
		sleep(time.Hour)
		wantItems(t, "TryTake an hour later", q.TryTake(8), 5)
		if st := q.Stats(); st.Delayed != 4 {
			t.Fatalf("Stats = %+v, want 4 delayed", st)
		}
		q.Close()
		wantItems(t, "TryTake after Close", q.TryTake(8), 2, 1, 3, 4) // 2 has the higher priority
	})
}
