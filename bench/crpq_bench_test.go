package bench_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evsync/evsync/kube"
	clientgo "k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
)

// controller-runtime's own benchmarks of its priority queue, ported from
// pkg/controller/priorityqueue/priorityqueue_test.go of
// sigs.k8s.io/controller-runtime v0.25.2 (the version this module
// requires): BenchmarkAddGetDone, BenchmarkAddOnly and
// BenchmarkAddLockContended. Each keeps the original's shape: the same
// item counts, loops and worker count. A comment marked "Changed:" names
// each difference from the original. Changes common to all three:
//   - Changed: each runs once per implementation, as a sub-benchmark
//     impl=evsync, impl=crpq or impl=clientgo (see crpqImpls).
//   - Changed: each calls b.ReportAllocs, so B/op and allocs/op show
//     without -benchmem.
//
// The three use only Add, Get, Done and ShutDown. Those are client-go's
// calls too, so every benchmark has an impl=clientgo row; none calls a
// priority-specific method.
//
// Run them with scripts/bench-crpq.sh.

// crpqImpl names one queue of the ported benchmarks: the impl= key.
type crpqImpl struct {
	name string
	new  func() clientgo.TypedRateLimitingInterface[int]
}

// crpqImpls is every queue the ported benchmarks run, each built as a
// controller gets it:
//   - evsync: kube.NewQueue, the controller.Options.NewQueue that kube's
//     documentation gives, with no name and the default rate limiter;
//   - crpq: controller-runtime's priorityqueue.New with no name (no
//     metrics), as the original benchmarks build it;
//   - clientgo: client-go's typed rate-limiting workqueue with the
//     controller default rate limiter and no name (no metrics).
func crpqImpls() []crpqImpl {
	return []crpqImpl{
		{"evsync", func() clientgo.TypedRateLimitingInterface[int] {
			return kube.NewQueue[int]("", nil)
		}},
		{"crpq", func() clientgo.TypedRateLimitingInterface[int] {
			return priorityqueue.New[int]("")
		}},
		{"clientgo", func() clientgo.TypedRateLimitingInterface[int] {
			return clientgo.NewTypedRateLimitingQueueWithConfig(
				clientgo.DefaultTypedControllerRateLimiter[int](),
				clientgo.TypedRateLimitingQueueConfig[int]{})
		}},
	}
}

// eachCrpq runs f as a sub-benchmark per implementation, with a new
// queue. f shuts it down, once: controller-runtime's ShutDown panics when
// called twice.
func eachCrpq(b *testing.B, f func(b *testing.B, q clientgo.TypedRateLimitingInterface[int])) {
	for _, impl := range crpqImpls() {
		b.Run("impl="+impl.name, func(b *testing.B) {
			b.ReportAllocs()
			f(b, impl.new())
		})
	}
}

// crpqItems is the number of keys each op adds: 1,000 in all three
// originals.
const crpqItems = 1000

// BenchmarkAddGetDone is controller-runtime's BenchmarkAddGetDone: an op
// adds the keys 0..999 to an empty queue, then takes each with Get and
// calls Done, all on one goroutine. allocs/op ÷ 1,000 is the allocations
// per item.
func BenchmarkAddGetDone(b *testing.B) {
	eachCrpq(b, func(b *testing.B, q clientgo.TypedRateLimitingInterface[int]) {
		defer q.ShutDown()
		for b.Loop() {
			for i := range crpqItems {
				q.Add(i)
			}
			for range crpqItems {
				item, _ := q.Get()
				q.Done(item)
			}
		}
	})
}

// BenchmarkAddOnly is controller-runtime's BenchmarkAddOnly: an op adds
// the keys 0..999. Nothing takes them, so from the second op on every Add
// finds its key queued. For impl=crpq, an Add only appends to a buffer
// that a goroutine of the queue's own moves into the queue, so ns/op
// counts that goroutine's work only as far as it slows the adds. That is
// the original's shape, kept as it is.
func BenchmarkAddOnly(b *testing.B) {
	eachCrpq(b, func(b *testing.B, q clientgo.TypedRateLimitingInterface[int]) {
		defer q.ShutDown()
		for b.Loop() {
			for i := range crpqItems {
				q.Add(i)
			}
		}
	})
}

// The shape of BenchmarkAddLockContended: a queue filled with a million
// keys, and a thousand workers, each looping Get, a millisecond's sleep
// (the reconcile) and Done.
const (
	contendedFill    = 1_000_000
	contendedWorkers = 1_000
	contendedWork    = time.Millisecond
)

// BenchmarkAddLockContended is controller-runtime's
// BenchmarkAddLockContended: the queue holds the keys 0..999,999, 1,000
// workers take from it, and an op adds the keys 0..999 on the benchmark's
// goroutine. It measures Add under contention for the queue's lock. The
// workers take at most a million keys a second (1,000 per millisecond),
// fewer on a small machine, so the queue stays large through a run of a
// second or so. B/op and allocs/op count the workers' allocations too,
// as in the original.
func BenchmarkAddLockContended(b *testing.B) {
	fill := contendedFill
	if testing.Short() {
		// Changed: with -short (CI's smoke run, under -race) the fill is a
		// thousandth: a million adds there take seconds per implementation.
		fill /= 1000
	}
	eachCrpq(b, func(b *testing.B, q clientgo.TypedRateLimitingInterface[int]) {
		for i := range fill {
			q.Add(i)
		}
		stop := startContendedWorkers(q, contendedWorkers)
		// Changed: the original's workers never stop. These stop when the
		// benchmark ends, so no goroutine outlives it: stop, after the
		// timed loop, shuts the queue down (the original's deferred
		// ShutDown) and waits for every worker to return.
		defer stop()
		for b.Loop() {
			for i := range crpqItems {
				q.Add(i)
			}
		}
	})
}

// startContendedWorkers starts n workers on q, each looping Get, a
// millisecond's sleep and Done, as BenchmarkAddLockContended's do. stop
// shuts q down and returns once every worker has returned.
func startContendedWorkers(q clientgo.TypedInterface[int], n int) (stop func()) {
	var (
		quit atomic.Bool
		wg   sync.WaitGroup
	)
	for range n {
		wg.Go(func() {
			// Changed: the original loops forever and ignores shutdown.
			// Here a worker returns once Get reports shutdown, or once
			// quit is set: client-go's Get and kube's hand out what is
			// queued after ShutDown, so a full queue would keep them busy
			// for seconds.
			for !quit.Load() {
				item, shutdown := q.Get()
				if shutdown {
					return
				}
				time.Sleep(contendedWork)
				q.Done(item)
			}
		})
	}
	return func() {
		quit.Store(true)
		q.ShutDown()
		wg.Wait()
	}
}
