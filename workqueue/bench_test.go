package workqueue_test

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evsync/evsync/internal/testsupport/rqtest"
	"github.com/evsync/evsync/workqueue"
)

// The ready-list benchmarks against the anchors (BenchmarkReadyQueue,
// BenchmarkAddLatency, BenchmarkAddQueued), which measure workqueue as
// impl=wq next to readyq and the mutex queue, are readyq's
// (readyq/readyq_bench_test.go). These measure what only workqueue has.

// BenchmarkStatsObserved measures Add+TryTake+Done with a goroutine
// calling String in a loop (on) and without (off): observers must not
// slow the queue.
func BenchmarkStatsObserved(b *testing.B) {
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("impl=evsync-observer-%v", on), func(b *testing.B) {
			q := workqueue.New[int]()
			stop := func() {}
			if on {
				stop = rqtest.Observe(q)
			}
			buf := make([]int, 0, 1)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				q.Add(i & 1023)
				buf = q.TryTakeAppend(buf[:0], 1)
				q.Done(buf...)
			}
			b.StopTimer()
			stop()
		})
	}
}

// BenchmarkDoneRecheck measures Done of n level items with a recheck
// function, and the TryTake that hands them out again; ns/item is per
// item. Done rechecks all n outside the lock (into a stack array up to
// 64, a pooled buffer above), then finishes them in one locked section.
func BenchmarkDoneRecheck(b *testing.B) {
	for _, n := range []int{16, 64, 256, 4096} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			q := workqueue.NewWithConfig(workqueue.Config[int]{Mode: workqueue.Level, Recheck: func(int) bool { return true }})
			for i := range n {
				q.Add(i)
			}
			buf := q.TryTake(n)
			b.ReportAllocs()
			for b.Loop() {
				q.Done(buf...)
				buf = q.TryTakeAppend(buf[:0], n)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/item")
		})
	}
}

// BenchmarkItemType measures Add+TryTake+Done of one item by item type.
// Queues of a type that is or holds an interface probe each item before
// they lock (internal/rq/keys.go); queues of other types must not pay for that.
func BenchmarkItemType(b *testing.B) {
	b.Run("T=int", func(b *testing.B) { benchItems(b, func(i int) int { return i }) })
	b.Run("T=string", func(b *testing.B) { benchItems(b, func(i int) string { return fmt.Sprint(i) }) })
	b.Run("T=any", func(b *testing.B) { benchItems(b, func(i int) any { return i }) })
	b.Run("T=struct-with-any", func(b *testing.B) { benchItems(b, func(i int) struct{ k any } { return struct{ k any }{i} }) })
}

func benchItems[T comparable](b *testing.B, key func(int) T) {
	keys := make([]T, 1024) // made before the loop: converting to any may allocate
	for i := range keys {
		keys[i] = key(i)
	}
	q := workqueue.New[T]()
	buf := make([]T, 0, 1)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		q.Add(keys[i&1023])
		buf = q.TryTakeAppend(buf[:0], 1)
		q.Done(buf...)
	}
}

// BenchmarkMetrics measures Add+TryTake+Done of one item, without and
// with metrics (hooks that do nothing), at priority 0 (the ready list)
// and 1 (a lane). Without metrics the queue must not pay for them.
// parallel=4 runs four goroutines at once, each with its own items,
// so that the depth reports contend.
func BenchmarkMetrics(b *testing.B) {
	for _, metrics := range []bool{false, true} {
		for _, p := range []int{0, 1} {
			for _, par := range []int{1, 4} {
				name := fmt.Sprintf("impl=evsync/metrics=%v/prio=%d/parallel=%d", metrics, p, par)
				b.Run(name, func(b *testing.B) { benchMetrics(b, metrics, p, par) })
			}
		}
	}
}

func benchMetrics(b *testing.B, metrics bool, p, par int) {
	var c workqueue.Config[int]
	if metrics {
		c.Metrics = noMetrics{}
	}
	q := workqueue.NewWithConfig(c)
	var next atomic.Int64
	b.ReportAllocs()
	b.SetParallelism(par) // par × GOMAXPROCS goroutines
	if par == 1 {
		cycleItems(q, p, 0, b.Loop)
		return
	}
	b.RunParallel(func(pb *testing.PB) {
		cycleItems(q, p, int(next.Add(1))<<10, pb.Next)
	})
}

// cycleItems adds, takes and finishes items base to base+1023 in turn
// while more says so. One item stays queued between the steps, so that a
// lane is not made and dropped at every step.
func cycleItems(q *workqueue.Queue[int], p, base int, more func() bool) {
	buf := make([]int, 0, 1)
	o := workqueue.AddOpts{Priority: p}
	q.AddWith(base+1023, o)
	for i := 0; more(); i++ {
		q.AddWith(base+i&1023, o)
		buf = q.TryTakeAppend(buf[:0], 1)
		q.Done(buf...)
	}
}

// noMetrics is a Metrics whose hooks do nothing.
type noMetrics struct{}

func (noMetrics) Depth(_, _, _ int)    {}
func (noMetrics) Added()               {}
func (noMetrics) Waited(time.Duration) {}
func (noMetrics) Worked(time.Duration) {}
func (noMetrics) Retried()             {}
