package readyq_test

import (
	"fmt"
	"testing"

	"github.com/evsync/evsync/internal/testsupport/anchor"
	"github.com/evsync/evsync/internal/testsupport/anchor/anchortest"
)

// Benchmarks against the anchors (internal/testsupport/anchor and its
// anchortest): readyq (impl=evsync), workqueue making the same calls
// (impl=wq) and the mutex+slice+map queue. The nested module bench/ runs
// the first two plus client-go's workqueue. Compare with
//
//	go test -run='^$' -bench=. -benchmem -count=6 ./readyq > bench.txt
//	benchstat -col /impl bench.txt

// BenchmarkReadyQueue runs producers marking 1,000 keys round-robin and
// consumers taking and finishing batches; an op is one key handed out.
// items/s is keys handed out per second, adds/s the producers' Add calls.
func BenchmarkReadyQueue(b *testing.B) {
	for _, shape := range [][2]int{{1, 1}, {4, 2}} {
		b.Run(fmt.Sprintf("p=%d,c=%d", shape[0], shape[1]), func(b *testing.B) {
			for _, impl := range anchor.ReadyQueues() {
				b.Run("impl="+impl.Name, func(b *testing.B) {
					load := anchor.ReadyQueueLoad{Producers: shape[0], Consumers: shape[1], Batch: impl.Batch, Keys: 1000}
					anchortest.BenchReadyQueue(b, load, impl.New())
				})
			}
		})
	}
}

// BenchmarkAddLatency measures how long an Add takes while a consumer
// hands out a batch of 100,000 items at once ("splice100k"), against the
// same Adds with no hand-out under way ("idle"), on a queue holding the
// same 100,000 items. ns/add is the mean time of one Add.
func BenchmarkAddLatency(b *testing.B) {
	for _, impl := range []struct {
		name string
		new  func() anchor.ReadyQueue
	}{{"evsync", anchor.NewEvsyncQueue}, {"wq", anchor.NewWorkQueue}, {"mutex", anchor.NewMutexQueue}} {
		for _, splice := range []bool{false, true} {
			name := impl.name + "-idle"
			if splice {
				name = impl.name + "-splice100k"
			}
			b.Run("impl="+name, func(b *testing.B) { anchortest.AddLatency(b, impl.new(), splice) })
		}
	}
}

// BenchmarkAddQueued is one goroutine adding 1,000 keys round-robin that
// are all queued already: every Add is a duplicate, found and dropped.
// No consumer runs, so no cache line moves between cores. It isolates
// what one Add costs from ReadyQueue's contention.
func BenchmarkAddQueued(b *testing.B) {
	for _, impl := range []struct {
		name string
		new  func() anchor.ReadyQueue
	}{{"evsync", anchor.NewEvsyncQueue}, {"wq", anchor.NewWorkQueue}, {"mutex", anchor.NewMutexQueue}} {
		b.Run("impl="+impl.name, func(b *testing.B) {
			q := impl.new()
			defer q.Close()
			const keys = 1000
			for k := range keys {
				q.Add(k)
			}
			k := 0
			for b.Loop() {
				q.Add(k)
				if k++; k == keys {
					k = 0
				}
			}
			if buf, ok := q.Take(nil, 2*keys); !ok || len(buf) != keys {
				b.Fatalf("Take = %d keys, %v; want %d, true: an Add was not a duplicate", len(buf), ok, keys)
			}
		})
	}
}
