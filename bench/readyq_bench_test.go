package bench_test

import (
	"fmt"
	"testing"

	"github.com/evsync/evsync/internal/testsupport/anchor"
	"github.com/evsync/evsync/internal/testsupport/anchor/anchortest"
	"k8s.io/client-go/util/workqueue"
)

// workqueueQueue is client-go's typed workqueue as an anchor.ReadyQueue:
// one key per Get, whatever the batch.
type workqueueQueue struct{ q workqueue.TypedInterface[int] }

func newWorkqueue() anchor.ReadyQueue { return workqueueQueue{workqueue.NewTyped[int]()} }

func (w workqueueQueue) Add(k int) { w.q.Add(k) }
func (w workqueueQueue) Take(buf []int, _ int) ([]int, bool) {
	k, shutdown := w.q.Get()
	if shutdown {
		return buf[:0], false
	}
	return append(buf[:0], k), true
}
func (w workqueueQueue) Done(keys []int) {
	for _, k := range keys {
		w.q.Done(k)
	}
}
func (w workqueueQueue) Next(done []int, max int) ([]int, bool) {
	w.Done(done)
	return w.Take(done, max)
}
func (w workqueueQueue) Close() { w.q.ShutDown() }

// impls is every implementation: the main module's anchors and client-go's
// workqueue (impl=clientgo).
func impls() []anchor.ReadyQueueImpl {
	return append(anchor.ReadyQueues(), anchor.ReadyQueueImpl{Name: "clientgo", Batch: 1, New: newWorkqueue})
}

// BenchmarkReadyQueue is readyq's BenchmarkReadyQueue with workqueue
// added: producers mark 1,000 keys round-robin, consumers take and finish
// batches; an op is one key handed out. items/s is keys handed out per
// second, adds/s the producers' Add calls.
func BenchmarkReadyQueue(b *testing.B) {
	for _, shape := range [][2]int{{1, 1}, {4, 2}} {
		b.Run(fmt.Sprintf("p=%d,c=%d", shape[0], shape[1]), func(b *testing.B) {
			for _, impl := range impls() {
				b.Run("impl="+impl.Name, func(b *testing.B) {
					load := anchor.ReadyQueueLoad{Producers: shape[0], Consumers: shape[1], Batch: impl.Batch, Keys: 1000}
					anchortest.BenchReadyQueue(b, load, impl.New())
				})
			}
		})
	}
}

// BenchmarkAddLatency measures an Add while a consumer takes 100,000 items
// in one batch (splice100k) against the same Adds with nothing under way
// (idle); see anchortest.AddLatency. workqueue has no batch take, so it only
// has the idle case.
func BenchmarkAddLatency(b *testing.B) {
	b.Run("impl=evsync-idle", func(b *testing.B) { anchortest.AddLatency(b, anchor.NewEvsyncQueue(), false) })
	b.Run("impl=evsync-splice100k", func(b *testing.B) { anchortest.AddLatency(b, anchor.NewEvsyncQueue(), true) })
	b.Run("impl=mutex-idle", func(b *testing.B) { anchortest.AddLatency(b, anchor.NewMutexQueue(), false) })
	b.Run("impl=mutex-splice100k", func(b *testing.B) { anchortest.AddLatency(b, anchor.NewMutexQueue(), true) })
	b.Run("impl=clientgo-idle", func(b *testing.B) { anchortest.AddLatency(b, newWorkqueue(), false) })
}

// TestWorkqueueAnchorDrains checks the workqueue adapter: what was queued
// before ShutDown is still handed out, then Take reports the end.
func TestWorkqueueAnchorDrains(t *testing.T) {
	q := newWorkqueue()
	q.Add(1)
	q.Add(1)
	q.Add(2)
	q.Close()
	var got []int
	for {
		b, ok := q.Take(nil, 1)
		if !ok {
			break
		}
		got = append(got, b...)
		q.Done(b)
	}
	if len(got) != 2 {
		t.Fatalf("handed out %v, want [1 2]", got)
	}
}
