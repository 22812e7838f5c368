package bench_test

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// Controller work-queue benchmarks: evsync's workqueue (impl=evsync) against
// client-go's rate-limiting workqueue (impl=clientgo) and
// controller-runtime's priority queue (impl=ctrlruntime), through
// ctrlQueue (ctrlqueue_test.go). Every benchmark reports allocations.
// Compare with
//
//	go test -run='^$' -bench=Ctrl -benchmem -count=6 . > ctrl.txt
//	benchstat -col /impl ctrl.txt
//
// The impl= key is the last element of every name, so one implementation
// runs with two filters (a pattern with more levels than a name runs it
// without reporting it):
//
//	-bench='Ctrl/impl=clientgo'         the two-level benchmarks
//	-bench='Ctrl/(n|state)=/impl=clientgo'  the three-level ones

// delayedSizes are the numbers of delayed items the delay benchmarks hold.
var delayedSizes = []int{1_000, 100_000, 1_000_000}

// settleEvery is how often (in adds) the timed loops call Settle, so that
// work an implementation defers to a goroutine of its own is counted in
// the benchmark's time, up to at most this many adds.
const settleEvery = 1024

// farDelays are the delays of the standing delayed population: an hour
// or two, so none of it becomes ready during a run.
var farDelays = newDelayTable(time.Hour, 2*time.Hour)

// eachCtrl runs f as a sub-benchmark per implementation.
func eachCtrl(b *testing.B, f func(b *testing.B, newQ func() ctrlQueue)) {
	for _, impl := range ctrlImpls() {
		b.Run("impl="+impl.name, func(b *testing.B) { f(b, impl.new) })
	}
}

// eachSize runs f per delayed-population size, then per implementation.
// With -short only the smallest size runs: CI's smoke run, under -race,
// where filling a million items takes most of a minute.
func eachSize(b *testing.B, f func(b *testing.B, newQ func() ctrlQueue, n int)) {
	for _, n := range delayedSizes {
		if testing.Short() && n > delayedSizes[0] {
			continue
		}
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			eachCtrl(b, func(b *testing.B, newQ func() ctrlQueue) { f(b, newQ, n) })
		})
	}
}

// fillDelayed returns a new queue holding the keys 0..n-1, each delayed
// by a far delay, with all of it settled.
func fillDelayed(newQ func() ctrlQueue, n int) ctrlQueue {
	q := newQ()
	for k := range n {
		q.AddAfter(k, farDelays.at(k))
	}
	q.Settle()
	return q
}

// BenchmarkCtrlAddAfter measures AddAfter throughput: an op is one
// AddAfter of a key the queue does not hold, with a delay of one to two
// hours (random, the same for every implementation), into a queue that
// already holds n delayed items: what an informer's handlers do when a
// controller requeues many objects for later. Keys are never repeated, so
// every call inserts (no deduplication shortcut); once the queue has
// doubled to 2n it is replaced by a fresh one holding n, off the clock,
// so it always holds between n and 2n delayed items. ns/op includes
// Settle every 1,024 adds (see ctrlQueue.Settle). Allocations include the
// growth of each implementation's map and heap or tree from n to 2n.
func BenchmarkCtrlAddAfter(b *testing.B) {
	eachSize(b, func(b *testing.B, newQ func() ctrlQueue, n int) {
		q := fillDelayed(newQ, n)
		defer func() { q.ShutDown() }()
		key := n
		b.ReportAllocs()
		for b.Loop() {
			if key == 2*n {
				q.Settle()
				b.StopTimer()
				q.ShutDown()
				q, key = fillDelayed(newQ, n), n
				b.StartTimer()
			}
			q.AddAfter(key, farDelays.at(key))
			if key++; key%settleEvery == 0 {
				q.Settle()
			}
		}
	})
}

// workingSet is the number of keys the Get benchmark cycles through the
// delay structure. Each is requeued with a delay below a millisecond and
// the Go runtime fires timers with about a millisecond's resolution when
// it has nothing else to run, so the set must hold more than a
// millisecond of consumer work at the fastest implementation's rate:
// then a ready key is (almost) always there and the benchmark measures
// the queue, not the timer resolution.
const workingSet = 10_000

// nearDelays are the working set's requeue delays.
var nearDelays = newDelayTable(0, time.Millisecond)

// BenchmarkCtrlGetDelayed measures a worker's cycle while n items are
// delayed and items become ready continuously: an op is one Get, the
// Done of the key it returned, and an AddAfter of that key with a random
// delay below a millisecond (a reconcile that asks to be requeued
// shortly: RequeueAfter). Besides the n items delayed for an hour or two,
// which stay in the delay structure throughout, the queue holds a
// working set of 10,000 keys, each either queued or waiting out its
// short delay, so every op moves one key through the delay structure and
// back (insert, timer, promotion, hand-out) next to n others. One
// goroutine does it all, so allocs/op is the steady-state cost of one
// delayed item.
func BenchmarkCtrlGetDelayed(b *testing.B) {
	eachSize(b, func(b *testing.B, newQ func() ctrlQueue, n int) {
		q := fillDelayed(newQ, n)
		defer q.ShutDown()
		q.AddBatch(keyRange(n, n+workingSet))
		q.Settle()
		get := q.Worker()
		i := 0
		b.ReportAllocs()
		for b.Loop() {
			k, ok := get()
			if !ok {
				b.Fatal("Get reported a shut-down queue")
			}
			q.Done(k)
			q.AddAfter(k, nearDelays.at(i))
			if i++; i%settleEvery == 0 {
				q.Settle()
			}
		}
	})
}

// The loaded-Add benchmark's shape, controller-runtime#3415's: a million
// queued items and a thousand workers each taking one, working on it for
// a millisecond and calling Done, while an event handler adds.
const (
	loadedItems   = 1_000_000
	loadedWorkers = 1_000
	loadedWork    = time.Millisecond
	loadedKeys    = 1_000 // the handler adds the keys 0..999 round-robin
)

// latencySamples is how many of the latest Add latencies are kept for
// the percentiles: enough for a stable p99, and allocated before the
// clock starts.
const latencySamples = 1 << 20

// BenchmarkCtrlAddLoaded measures the latency of Add as an event handler
// sees it while the queue is under a controller's full load: a queue of
// a million items, a thousand workers (Get, a millisecond's sleep as the
// reconcile, Done), and the benchmark goroutine adding the keys 0..999
// round-robin (controller-runtime#3415's BenchmarkAddLockContended, one
// Add per op). The workers take about as many items a second as two
// cores allow, so the queue stays in the hundreds of thousands. p50-ns
// and p99-ns are percentiles of the Adds' own times (each timed alone,
// the last 2^20 of them), the handler's view; ns/op is the mean op with
// Settle every 1,024 adds, so work controller-runtime defers to its
// flushing goroutine, which contends for the same lock as the workers'
// Gets, is counted there. The million-item fill is one AddBatch; with
// -short (CI's smoke run) it is a thousandth of it.
func BenchmarkCtrlAddLoaded(b *testing.B) {
	items := loadedItems
	if testing.Short() {
		items /= 1000
	}
	eachCtrl(b, func(b *testing.B, newQ func() ctrlQueue) {
		q := newQ()
		q.AddBatch(keyRange(0, items))
		q.Settle()
		stop := startWorkers(q, loadedWorkers, loadedWork)
		defer stop()
		lat := make([]time.Duration, latencySamples)
		i := 0
		b.ReportAllocs()
		for b.Loop() {
			start := time.Now()
			q.Add(i % loadedKeys)
			lat[i%latencySamples] = time.Since(start)
			if i++; i%settleEvery == 0 {
				q.Settle()
			}
		}
		p50, p99 := percentiles(lat[:min(i, latencySamples)])
		b.ReportMetric(float64(p50), "p50-ns")
		b.ReportMetric(float64(p99), "p99-ns")
	})
}

// percentiles returns the 50th and 99th percentiles of samples (nearest
// rank), sorting them in place.
func percentiles(samples []time.Duration) (p50, p99 time.Duration) {
	if len(samples) == 0 {
		return 0, 0
	}
	slices.Sort(samples)
	rank := func(p int) time.Duration { return samples[(len(samples)*p+99)/100-1] }
	return rank(50), rank(99)
}

// idleQueues is how many idle queues the goroutine count is taken over.
const idleQueues = 100

// BenchmarkCtrlIdleQueue measures what an idle queue costs: an op is
// making a queue (with one key delayed for an hour, for state=delayed)
// and shutting it down, and goroutines/queue is the number of goroutines
// each of 100 such queues keeps while it stays idle (taken before the
// timed loop, once earlier queues' goroutines have exited). A controller
// manager makes one queue per controller, and tests make thousands.
func BenchmarkCtrlIdleQueue(b *testing.B) {
	for _, delayed := range []bool{false, true} {
		state := "empty"
		if delayed {
			state = "delayed"
		}
		b.Run("state="+state, func(b *testing.B) {
			eachCtrl(b, func(b *testing.B, newQ func() ctrlQueue) {
				newIdle := func() ctrlQueue {
					q := newQ()
					if delayed {
						q.AddAfter(1, time.Hour)
						q.Settle()
					}
					return q
				}
				perQueue := goroutinesPerQueue(newIdle)
				b.ReportAllocs()
				for b.Loop() {
					newIdle().ShutDown()
				}
				b.ReportMetric(perQueue, "goroutines/queue") // after the loop: its start drops metrics
			})
		})
	}
}

// goroutinesPerQueue makes idleQueues queues with newIdle and returns how
// many goroutines they added, per queue; it shuts them down again.
func goroutinesPerQueue(newIdle func() ctrlQueue) float64 {
	before := quiesce()
	qs := [idleQueues]ctrlQueue{}
	for i := range qs {
		qs[i] = newIdle()
	}
	after := quiesce()
	for _, q := range qs {
		q.ShutDown()
	}
	return float64(after-before) / idleQueues
}

// BenchmarkCtrlSteadyState measures one item's trip through a queue in
// steady state without delays: an op is Get, Done and Add of the same key
// on a queue holding 1,000 keys, on one goroutine. allocs/op is the
// allocations per item a controller pays in its steady state
// (BenchmarkCtrlGetDelayed gives the same with a delay on every trip).
func BenchmarkCtrlSteadyState(b *testing.B) {
	eachCtrl(b, func(b *testing.B, newQ func() ctrlQueue) {
		q := newQ()
		defer q.ShutDown()
		q.AddBatch(keyRange(0, 1000))
		q.Settle()
		get := q.Worker()
		i := 0
		b.ReportAllocs()
		for b.Loop() {
			k, ok := get()
			if !ok {
				b.Fatal("Get reported a shut-down queue")
			}
			q.Done(k)
			q.Add(k)
			if i++; i%settleEvery == 0 {
				q.Settle()
			}
		}
	})
}
