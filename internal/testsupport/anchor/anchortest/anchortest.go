// Package anchortest holds the benchmark bodies that the readyq
// benchmarks and the nested bench module share. They take a *testing.B,
// so they live apart from package anchor: cmd/evbench builds on anchor,
// and a command must not link package testing.
package anchortest

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/evsync/evsync/internal/testsupport/anchor"
)

// spliceItems is the size of the batch AddLatency hands out.
const spliceItems = 100_000

// AddLatency is the body of the Add-latency benchmarks. Each of its b.N
// rounds fills q with spliceItems keys, then times Adds of
// new keys: with splice set, while another goroutine takes all
// spliceItems keys in one Take (only the Adds made before that Take
// returns count); without, 256 Adds with nothing else under way; then it
// empties q. It reports the mean (ns/add) and the largest (max-ns/add)
// time of an Add; ns/op is the time of a whole round, filling included.
func AddLatency(b *testing.B, q anchor.ReadyQueue, splice bool) {
	var total, worst time.Duration
	var count int64
	buf := make([]int, 0, spliceItems)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N { // the timer runs throughout: ns/op is a whole round
		for k := range spliceItems {
			q.Add(k)
		}
		t, w, n := timeAdds(q, &buf, splice)
		total, worst, count = total+t, max(worst, w), count+n
		cleanUp(q, buf, n)
	}
	if count > 0 {
		b.ReportMetric(float64(total.Nanoseconds())/float64(count), "ns/add")
		b.ReportMetric(float64(worst.Nanoseconds()), "max-ns/add")
	}
}

// timeAdds makes the timed Adds of one round (keys from spliceItems on)
// and returns their total and largest time and their number. With
// splice, the batch taken ends up in *buf.
func timeAdds(q anchor.ReadyQueue, buf *[]int, splice bool) (total, worst time.Duration, n int64) {
	limit, done := int64(256), &atomic.Bool{}
	started := make(chan struct{})
	finished := make(chan struct{})
	if splice {
		limit = 1 << 20
		go func() {
			close(started)
			*buf, _ = q.Take((*buf)[:0], spliceItems)
			done.Store(true)
			close(finished)
		}()
		<-started
	}
	for ; n < limit && !done.Load(); n++ {
		t0 := time.Now()
		q.Add(spliceItems + int(n))
		d := time.Since(t0)
		total, worst = total+d, max(worst, d)
	}
	if splice {
		<-finished
	}
	return total, worst, n
}

// cleanUp empties q after a round: Done for the batch taken (if any),
// then take and finish everything left.
func cleanUp(q anchor.ReadyQueue, batch []int, adds int64) {
	q.Done(batch)
	left := spliceItems + int(adds)
	if len(batch) != 0 {
		left = int(adds)
	}
	for left > 0 {
		rest, _ := q.Take(nil, left)
		q.Done(rest)
		left -= len(rest)
	}
}

// BenchReadyQueue runs load on q for b.N keys handed out and reports
// items/s (keys handed out per second) and adds/s (Add calls per second).
func BenchReadyQueue(b *testing.B, load anchor.ReadyQueueLoad, q anchor.ReadyQueue) {
	var never atomic.Bool
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	items, adds := load.Run(q, int64(b.N), &never)
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(items)/elapsed.Seconds(), "items/s")
	b.ReportMetric(float64(adds)/elapsed.Seconds(), "adds/s")
}
