package anchor

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/evsync/evsync/readyq"
	"github.com/evsync/evsync/workqueue"
)

// This file holds the ready queues readyq is measured against, and the
// driver that the readyq benchmarks, the nested bench module (which adds
// client-go's workqueue) and cmd/evbench share. The benchmark bodies,
// which take a *testing.B, are in package anchortest, so that evbench
// does not link package testing.

// ReadyQueue is a work queue of int keys as the readyq benchmarks see it:
// producers Add keys, consumers Take batches and call Done for them.
type ReadyQueue interface {
	// Add marks k as needing work. A deduplicating queue ignores a key
	// already queued and re-queues a key marked while in flight at Done.
	Add(k int)
	// Take waits until at least one key is queued, then appends up to max
	// of them to buf[:0] and returns it with true; it returns false once
	// the queue is closed and empty.
	Take(buf []int, max int) ([]int, bool)
	// Done ends the processing of keys taken earlier.
	Done(keys []int)
	// Next is Done(done) then Take(done, max), in one step where the
	// implementation can: the consumer loop's call.
	Next(done []int, max int) ([]int, bool)
	// Close refuses further keys and releases consumers once the queue is
	// empty. Nobody may Add after Close.
	Close()
}

// ReadyQueueImpl names a ready-queue implementation and the batch its
// consumers take.
type ReadyQueueImpl struct {
	Name  string // the impl= key: "evsync-b1", "mutex-b64", "chan", ...
	Batch int    // max per Take
	New   func() ReadyQueue
}

// ReadyQueues returns the implementations in the main module: evsync's
// readyq, evsync's workqueue ("wq", the same calls on the controller
// queue) and a mutex+slice+map queue, each with batches of 1 and 64, and
// a buffered channel (no deduplication, one key per Take).
func ReadyQueues() []ReadyQueueImpl {
	return []ReadyQueueImpl{
		{"evsync-b1", 1, newEvsyncQueue},
		{"evsync-b64", 64, newEvsyncQueue},
		{"wq-b1", 1, newWorkQueue},
		{"wq-b64", 64, newWorkQueue},
		{"mutex-b1", 1, newMutexQueue},
		{"mutex-b64", 64, newMutexQueue},
		{"chan", 1, newChanQueue},
	}
}

type evsyncQueue struct{ q *readyq.Queue[int] }

func newEvsyncQueue() ReadyQueue { return evsyncQueue{readyq.New[int]()} }

// Add marks k ready.
func (e evsyncQueue) Add(k int) { e.q.Add(k) }

// Take waits for a batch, reusing buf.
func (e evsyncQueue) Take(buf []int, max int) ([]int, bool) {
	buf, err := e.q.WaitAppend(context.Background(), buf[:0], max)
	return buf, err == nil
}

// Done finishes keys.
func (e evsyncQueue) Done(keys []int) { e.q.Done(keys...) }

// Next finishes done and waits for the next batch in one call.
func (e evsyncQueue) Next(done []int, max int) ([]int, bool) {
	buf, err := e.q.Next(context.Background(), done, max)
	return buf, err == nil
}

// Close closes the queue.
func (e evsyncQueue) Close() { e.q.Close() }

// wqQueue is evsyncQueue on the controller work queue, with no delay,
// limiter or metrics in use: what its ready-list calls cost.
type wqQueue struct{ q *workqueue.Queue[int] }

func newWorkQueue() ReadyQueue { return wqQueue{workqueue.New[int]()} }

// Add marks k ready.
func (e wqQueue) Add(k int) { e.q.Add(k) }

// Take waits for a batch, reusing buf.
func (e wqQueue) Take(buf []int, max int) ([]int, bool) {
	buf, err := e.q.WaitAppend(context.Background(), buf[:0], max)
	return buf, err == nil
}

// Done finishes keys.
func (e wqQueue) Done(keys []int) { e.q.Done(keys...) }

// Next finishes done and waits for the next batch in one call.
func (e wqQueue) Next(done []int, max int) ([]int, bool) {
	buf, err := e.q.Next(context.Background(), done, max)
	return buf, err == nil
}

// Close closes the queue.
func (e wqQueue) Close() { e.q.Close() }

// mutexQueue is the hand-written deduplicating queue: a slice FIFO, a map
// of key states and a sync.Cond, the way client-go's workqueue is built
// (dirty and processing sets), plus batch takes.
type mutexQueue struct {
	mu     sync.Mutex
	cond   sync.Cond
	fifo   []int
	head   int
	state  map[int]uint8 // dirty, processing bits
	closed bool
}

const (
	dirty uint8 = 1 << iota
	processing
)

func newMutexQueue() ReadyQueue {
	q := &mutexQueue{state: make(map[int]uint8)}
	q.cond.L = &q.mu
	return q
}

// Add marks k ready unless it is already marked; a key in processing is
// queued again at its Done.
func (q *mutexQueue) Add(k int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	s := q.state[k]
	if q.closed || s&dirty != 0 {
		return
	}
	q.state[k] = s | dirty
	if s&processing == 0 {
		q.push(k)
	}
}

func (q *mutexQueue) push(k int) {
	if q.head > len(q.fifo)/2 { // reuse the consumed front
		q.fifo = q.fifo[:copy(q.fifo, q.fifo[q.head:])]
		q.head = 0
	}
	q.fifo = append(q.fifo, k)
	q.cond.Signal()
}

// Take copies the batch under the lock, as a straightforward queue does.
func (q *mutexQueue) Take(buf []int, max int) ([]int, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.take(buf, max)
}

func (q *mutexQueue) take(buf []int, max int) ([]int, bool) {
	for q.head == len(q.fifo) && !q.closed {
		q.cond.Wait()
	}
	if q.head == len(q.fifo) {
		return buf[:0], false
	}
	n := min(max, len(q.fifo)-q.head)
	buf = append(buf[:0], q.fifo[q.head:q.head+n]...)
	q.head += n
	for _, k := range buf {
		q.state[k] = processing
	}
	return buf, true
}

// Done finishes keys, queuing again those marked meanwhile.
func (q *mutexQueue) Done(keys []int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.done(keys)
}

// Next finishes and takes under one lock, as Next does for evsync.
func (q *mutexQueue) Next(done []int, max int) ([]int, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.done(done)
	return q.take(done, max)
}

func (q *mutexQueue) done(keys []int) {
	for _, k := range keys {
		if q.state[k]&dirty != 0 {
			q.state[k] = dirty
			q.push(k)
		} else {
			delete(q.state, k)
		}
	}
}

// Close wakes every waiting Take, which then returns false once the queue
// is empty.
func (q *mutexQueue) Close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	q.cond.Broadcast()
}

// chanQueue is a buffered channel with room for every key: no
// deduplication, so every Add is a hand-out, and Add blocks when it is
// full.
type chanQueue chan int

func newChanQueue() ReadyQueue { return make(chanQueue, 1000) }

// Add sends k (a duplicate is a second hand-out).
func (c chanQueue) Add(k int) { c <- k }

// Take receives one key, whatever max is.
func (c chanQueue) Take(buf []int, max int) ([]int, bool) {
	k, ok := <-c
	if !ok {
		return buf[:0], false
	}
	return append(buf[:0], k), true
}

// Done does nothing: a channel has no in-flight state.
func (c chanQueue) Done([]int) {}

// Next is Take.
func (c chanQueue) Next(done []int, max int) ([]int, bool) { return c.Take(done, max) }

// Close closes the channel.
func (c chanQueue) Close() { close(c) }

// ReadyQueueLoad is one run of the ready-queue workload: Producers
// goroutines each Add the keys 0..Keys-1 round-robin (starting at
// different offsets) while Consumers goroutines Take batches of up to
// Batch, finishing each batch as they ask for the next (Next).
type ReadyQueueLoad struct {
	Producers, Consumers, Batch, Keys int
}

// Run runs the load on q until the consumers have been handed at least
// target keys or stop is set, whichever comes first; then the producers
// stop, q is closed and the consumers drain it. It returns how many keys
// were handed out and how many Adds were made.
func (l ReadyQueueLoad) Run(q ReadyQueue, target int64, stop *atomic.Bool) (items, adds int64) {
	var handed, added atomic.Int64
	var done atomic.Bool
	var pw, cw sync.WaitGroup
	for c := 0; c < l.Consumers; c++ {
		cw.Go(func() {
			buf := make([]int, 0, l.Batch)
			for {
				var ok bool
				if buf, ok = q.Next(buf, l.Batch); !ok {
					return
				}
				if handed.Add(int64(len(buf))) >= target {
					done.Store(true)
				}
			}
		})
	}
	for p := 0; p < l.Producers; p++ {
		pw.Go(func() {
			n := int64(0)
			for k := p * l.Keys / l.Producers; !done.Load() && !stop.Load(); k++ {
				if k == l.Keys {
					k = 0
				}
				q.Add(k)
				n++
			}
			added.Add(n)
		})
	}
	pw.Wait()
	q.Close()
	cw.Wait()
	return handed.Load(), added.Load()
}

// NewEvsyncQueue returns evsync's readyq as a ReadyQueue.
func NewEvsyncQueue() ReadyQueue { return newEvsyncQueue() }

// NewWorkQueue returns evsync's workqueue as a ReadyQueue.
func NewWorkQueue() ReadyQueue { return newWorkQueue() }

// NewMutexQueue returns the mutex+slice+map queue.
func NewMutexQueue() ReadyQueue { return newMutexQueue() }
