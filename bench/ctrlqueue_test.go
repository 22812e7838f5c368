package bench_test

import (
	"context"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evsync/evsync/workqueue"
	clientgo "k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
)

// This file holds the controller work queues that the controller
// benchmarks (ctrlqueue_bench_test.go) compare: evsync's workqueue with its delays,
// client-go's rate-limiting workqueue (a delaying queue under it) and
// controller-runtime's priority queue, each as a ctrlQueue of int keys,
// configured the way a controller gets it (default rate limiter, no
// metrics: every implementation is unnamed or built without Metrics).

// ctrlQueue is a controller work queue cut down to what the benchmarks
// call: the calls of client-go's TypedRateLimitingInterface that a
// controller's event handlers and workers make.
type ctrlQueue interface {
	// Add queues k now (deduplicated).
	Add(k int)
	// AddAfter queues k once d has passed.
	AddAfter(k int, d time.Duration)
	// AddBatch adds every key now, in the fastest way the queue has; it
	// fills queues before a benchmark's clock starts.
	AddBatch(keys []int)
	// Worker returns a Get for one worker goroutine: it blocks until a key
	// is handed out and returns it with true; it returns false once the
	// queue is shut down (client-go's only when nothing is queued, so
	// worker loops also check their own stop flag).
	Worker() func() (int, bool)
	// Done ends the processing of a key that a Get returned.
	Done(k int)
	// Settle returns once every add made so far has reached the queue's
	// own structures. controller-runtime appends adds to a buffer that a
	// goroutine of its own flushes, so its Add returns before the work is
	// done; Settle makes that work count in a benchmark's time. client-go
	// hands AddAfter to its waiting goroutine through a channel of 1,000,
	// which bounds the lag, and has no way to wait for it; evsync's workqueue does all
	// its work in the call.
	Settle()
	// ShutDown stops the queue and releases blocked Gets. What was queued
	// is dropped or left to the garbage collector.
	ShutDown()
}

// ctrlImpl names a controller work queue: the impl= key.
type ctrlImpl struct {
	name string
	new  func() ctrlQueue
}

// ctrlImpls is every implementation, evsync's workqueue first.
func ctrlImpls() []ctrlImpl {
	return []ctrlImpl{
		{"evsync", newEvsyncCtrl},
		{"clientgo", newClientgoCtrl},
		{"ctrlruntime", newCtrlruntimeCtrl},
	}
}

// evsyncCtrl is evsync's workqueue used as a controller work queue: AddAfter for
// delays, WaitAppend with max 1 as Get (one key per worker, like the
// others), Close and a cancelled context as ShutDown.
type evsyncCtrl struct {
	q      *workqueue.Queue[int]
	ctx    context.Context
	cancel context.CancelFunc
}

func newEvsyncCtrl() ctrlQueue {
	ctx, cancel := context.WithCancel(context.Background())
	return &evsyncCtrl{q: workqueue.New[int](), ctx: ctx, cancel: cancel}
}

func (e *evsyncCtrl) Add(k int)                       { e.q.Add(k) }
func (e *evsyncCtrl) AddAfter(k int, d time.Duration) { e.q.AddAfter(k, d) }
func (e *evsyncCtrl) Done(k int)                      { e.q.Done(k) }
func (e *evsyncCtrl) Settle()                         {}

func (e *evsyncCtrl) AddBatch(keys []int) {
	for _, k := range keys {
		e.q.Add(k)
	}
}

// Worker reuses one buffer per worker, so a Get allocates nothing.
func (e *evsyncCtrl) Worker() func() (int, bool) {
	buf := make([]int, 0, 1)
	return func() (int, bool) {
		var err error
		buf, err = e.q.WaitAppend(e.ctx, buf[:0], 1)
		if err != nil {
			return 0, false
		}
		return buf[0], true
	}
}

// ShutDown cancels the workers' context first: a closed evsync workqueue still
// hands out what is queued (and queues what is delayed), as client-go's
// does, and the context is how a controller's workers stop regardless.
func (e *evsyncCtrl) ShutDown() {
	e.cancel()
	e.q.Close()
}

// clientgoCtrl is client-go's rate-limiting queue with the controller
// default rate limiter, as controller-runtime's default NewQueue builds it.
type clientgoCtrl struct {
	q clientgo.TypedRateLimitingInterface[int]
}

func newClientgoCtrl() ctrlQueue {
	return clientgoCtrl{clientgo.NewTypedRateLimitingQueueWithConfig(
		clientgo.DefaultTypedControllerRateLimiter[int](),
		clientgo.TypedRateLimitingQueueConfig[int]{})}
}

func (c clientgoCtrl) Add(k int)                       { c.q.Add(k) }
func (c clientgoCtrl) AddAfter(k int, d time.Duration) { c.q.AddAfter(k, d) }
func (c clientgoCtrl) Done(k int)                      { c.q.Done(k) }
func (c clientgoCtrl) Settle()                         {}
func (c clientgoCtrl) ShutDown()                       { c.q.ShutDown() }

func (c clientgoCtrl) AddBatch(keys []int) {
	for _, k := range keys {
		c.q.Add(k)
	}
}

func (c clientgoCtrl) Worker() func() (int, bool) {
	return func() (int, bool) {
		k, shutdown := c.q.Get()
		return k, !shutdown
	}
}

// ctrlruntimeCtrl is controller-runtime's priority queue, unnamed (no
// metrics) with its default rate limiter.
type ctrlruntimeCtrl struct {
	q priorityqueue.PriorityQueue[int]
}

func newCtrlruntimeCtrl() ctrlQueue { return ctrlruntimeCtrl{priorityqueue.New[int]("")} }

func (c ctrlruntimeCtrl) Add(k int)                       { c.q.Add(k) }
func (c ctrlruntimeCtrl) AddAfter(k int, d time.Duration) { c.q.AddAfter(k, d) }
func (c ctrlruntimeCtrl) Done(k int)                      { c.q.Done(k) }
func (c ctrlruntimeCtrl) ShutDown()                       { c.q.ShutDown() }

// AddBatch is one AddWithOpts call: one buffer entry, flushed in one
// locked section.
func (c ctrlruntimeCtrl) AddBatch(keys []int) { c.q.AddWithOpts(priorityqueue.AddOpts{}, keys...) }

// Settle calls Len, which flushes the add buffer under the queue's lock.
func (c ctrlruntimeCtrl) Settle() { c.q.Len() }

func (c ctrlruntimeCtrl) Worker() func() (int, bool) {
	return func() (int, bool) {
		k, shutdown := c.q.Get()
		return k, !shutdown
	}
}

// startWorkers starts n controller workers on q, each looping Get, work
// (a sleep standing for the reconcile), Done. stop sets the workers' stop
// flag, shuts q down and returns once every worker has returned.
func startWorkers(q ctrlQueue, n int, work time.Duration) (stop func()) {
	var (
		quit atomic.Bool
		wg   sync.WaitGroup
	)
	for range n {
		get := q.Worker()
		wg.Go(func() {
			for !quit.Load() {
				k, ok := get()
				if !ok {
					return
				}
				time.Sleep(work)
				q.Done(k)
			}
		})
	}
	return func() {
		quit.Store(true)
		q.ShutDown()
		wg.Wait()
	}
}

// delayTable is a fixed table of random delays, drawn once from a seeded
// source so every implementation and every run sees the same delays, and
// read in the loops by index (no random-number cost in the timed code).
type delayTable [1 << 16]time.Duration

func newDelayTable(lo, hi time.Duration) *delayTable {
	r := rand.New(rand.NewPCG(1, 2))
	t := new(delayTable)
	for i := range t {
		t[i] = lo + time.Duration(r.Int64N(int64(hi-lo)))
	}
	return t
}

// at returns the i'th delay, cycling.
func (t *delayTable) at(i int) time.Duration { return t[i&(len(t)-1)] }

// keyRange returns the keys lo, lo+1, ..., hi-1.
func keyRange(lo, hi int) []int {
	keys := make([]int, hi-lo)
	for i := range keys {
		keys[i] = lo + i
	}
	return keys
}

// quiesce gives goroutines that are on their way out (those of queues
// shut down earlier) the chance to exit, so that a goroutine count taken
// next counts only live ones: it yields until the count has been steady
// for a while, or gives up after a bounded number of tries.
func quiesce() int {
	last, steady := runtime.NumGoroutine(), 0
	for range 10_000 {
		runtime.Gosched()
		n := runtime.NumGoroutine()
		if n == last {
			if steady++; steady == 100 {
				break
			}
			continue
		}
		last, steady = n, 0
	}
	return last
}

// TestCtrlQueues checks each adapter with the calls the benchmarks make:
// a delayed key arrives after one added now, Done lets a key be handed
// out again, and ShutDown releases a blocked worker.
func TestCtrlQueues(t *testing.T) {
	for _, impl := range ctrlImpls() {
		t.Run("impl="+impl.name, func(t *testing.T) {
			q := impl.new()
			q.AddAfter(1, time.Millisecond)
			q.AddBatch([]int{2})
			get := q.Worker()
			if k, ok := get(); !ok || k != 2 {
				t.Fatalf("first Get = %d, %v; want 2, true", k, ok)
			}
			q.Done(2)
			if k, ok := get(); !ok || k != 1 {
				t.Fatalf("second Get = %d, %v; want the delayed 1, true", k, ok)
			}
			q.Done(1)
			q.Add(1)
			if k, ok := get(); !ok || k != 1 {
				t.Fatalf("Get after Done and Add = %d, %v; want 1, true", k, ok)
			}
			q.Done(1)
			stop := startWorkers(q, 4, 0)
			stop() // returns only if ShutDown released the blocked workers
		})
	}
}
