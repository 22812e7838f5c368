package readyq_test

import (
	"fmt"
	"testing"

	"github.com/evsync/evsync/internal/anchor"
	"github.com/evsync/evsync/readyq"
)

// Benchmarks against the anchors (internal/anchor); the nested module
// bench/ runs the same ones plus client-go's workqueue. Compare with
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
					anchor.BenchReadyQueue(b, load, impl.New())
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
	}{{"evsync", anchor.NewEvsyncQueue}, {"mutex", anchor.NewMutexQueue}} {
		for _, splice := range []bool{false, true} {
			name := impl.name + "-idle"
			if splice {
				name = impl.name + "-splice100k"
			}
			b.Run("impl="+name, func(b *testing.B) { anchor.AddLatency(b, impl.new(), splice) })
		}
	}
}

// BenchmarkStatsObserved measures Add+TryTake+Done with a goroutine
// calling String in a loop (on) and without (off): observers must not
// slow the queue.
func BenchmarkStatsObserved(b *testing.B) {
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("impl=evsync-observer-%v", on), func(b *testing.B) {
			q := readyq.New[int]()
			stop := func() {}
			if on {
				stop = observe(q)
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
