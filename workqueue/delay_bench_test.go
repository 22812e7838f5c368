package workqueue_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/evsync/evsync/workqueue"
)

// The delay and retry paths on the wall clock: each reads the queue's
// clock and sets its timer, so they show what the clock costs a queue
// without WithClock. Compare two builds with benchstat.

// BenchmarkAddAfter measures an AddAfter of a new item for an hour and
// its Remove. With delayed=0 the item is the only one, so each op arms
// the timer and stops it. With delayed=1024 the earliest time stays
// another item's, so the timer is left alone.
func BenchmarkAddAfter(b *testing.B) {
	for _, n := range []int{0, 1024} {
		b.Run(fmt.Sprintf("delayed=%d", n), func(b *testing.B) {
			q := workqueue.New[int]()
			defer q.Close()
			for k := range n {
				q.AddAfter(k, time.Minute+time.Duration(k))
			}
			b.ReportAllocs()
			for b.Loop() {
				q.AddAfter(n, time.Hour)
				q.Remove(n)
			}
		})
	}
}

// BenchmarkRetry measures a controller's failing cycle: TryTake of a
// queued item, AddRateLimited while it is in flight, and Done, which
// delays it by the limiter's hour. An Add then queues it again. So each
// op reads the clock twice and arms and stops the timer.
func BenchmarkRetry(b *testing.B) {
	lim := workqueue.ExponentialRateLimiter[int](time.Hour, time.Hour)
	q := workqueue.NewWithConfig(workqueue.Config[int]{RateLimiter: lim})
	defer q.Close()
	q.Add(1)
	buf := make([]int, 0, 1)
	b.ReportAllocs()
	for b.Loop() {
		buf = q.TryTakeAppend(buf[:0], 1)
		q.AddRateLimited(1)
		q.Done(buf...)
		q.Add(1)
	}
	if st := q.Stats(); st.Queued != 1 || st.Delayed != 0 {
		b.Fatalf("Stats = %+v, want the item queued", st)
	}
}

// BenchmarkPostpone measures how a controller postpones a delayed check
// among 1024 others: AddWith with Replace (impl=replace), or Remove then
// AddAfter (impl=remove-add), the way without Replace, which a worker can
// come between. The item's time swings from before every other to after
// every other and back, so each op moves it the height of the heap.
func BenchmarkPostpone(b *testing.B) {
	const n = 1024
	for _, impl := range []string{"replace", "remove-add"} {
		b.Run("impl="+impl, func(b *testing.B) {
			q := workqueue.New[int]()
			defer q.Close()
			for k := range n {
				q.AddAfter(k, time.Minute+time.Duration(k))
			}
			q.AddAfter(n, time.Hour)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				d := 30 * time.Second
				if i++; i&1 == 0 {
					d = time.Hour
				}
				if impl == "replace" {
					q.AddWith(n, workqueue.AddOpts{After: d, Replace: true})
				} else {
					q.Remove(n)
					q.AddAfter(n, d)
				}
			}
			if st := q.Stats(); st.Delayed != n+1 {
				b.Fatalf("Stats = %+v, want %d delayed", st, n+1)
			}
		})
	}
}
