package semaphore_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/evsync/evsync/internal/anchor"
)

// Benchmarks against the anchors (internal/anchor); compare with
//
//	go test -run='^$' -bench=. -benchmem -count=6 ./semaphore > bench.txt
//	benchstat -col /impl bench.txt

// eachImpl runs f as a sub-benchmark impl=<name> for every semaphore
// implementation, on a fresh semaphore holding limit units.
func eachImpl(b *testing.B, limit uint64, f func(b *testing.B, s anchor.Semaphore)) {
	for _, impl := range anchor.Semaphores() {
		b.Run("impl="+impl.Name, func(b *testing.B) {
			s, err := impl.New(limit)
			if errors.Is(err, errors.ErrUnsupported) {
				b.Skip(err)
			}
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			b.ReportAllocs()
			f(b, s)
		})
	}
}

// BenchmarkAcquireRelease is one goroutine taking and giving back a unit:
// the uncontended fast path.
func BenchmarkAcquireRelease(b *testing.B) {
	eachImpl(b, 1, func(b *testing.B, s anchor.Semaphore) {
		ctx := context.Background()
		for b.Loop() {
			if err := s.Acquire(ctx, 1); err != nil {
				b.Fatal(err)
			}
			s.Release(1)
		}
	})
}

// BenchmarkTryAcquireRelease is BenchmarkAcquireRelease with TryAcquire.
func BenchmarkTryAcquireRelease(b *testing.B) {
	eachImpl(b, 1, func(b *testing.B, s anchor.Semaphore) {
		for b.Loop() {
			if !s.TryAcquire(1) {
				b.Fatal("TryAcquire failed on an idle semaphore")
			}
			s.Release(1)
		}
	})
}

// BenchmarkContended has g goroutines share b.N Acquire/Release pairs on a
// semaphore of limit units: with g > limit most acquirers have to wait.
func BenchmarkContended(b *testing.B) {
	for _, limit := range []uint64{1, 4} {
		for _, g := range []int{2, 8, 64} {
			b.Run(fmt.Sprintf("limit=%d/g=%d", limit, g), func(b *testing.B) {
				eachImpl(b, limit, func(b *testing.B, s anchor.Semaphore) {
					contend(b, s, g)
				})
			})
		}
	}
}

// contend splits b.N Acquire/Release pairs among g goroutines, started
// together once the timer is reset, and waits for all of them.
func contend(b *testing.B, s anchor.Semaphore, g int) {
	start, wait := anchor.Split(g, b.N, func(n int) { loopAcquire(b, s, n) })
	b.ResetTimer()
	start()
	wait()
}

func loopAcquire(b *testing.B, s anchor.Semaphore, n int) {
	ctx := context.Background()
	for range n {
		if err := s.Acquire(ctx, 1); err != nil {
			b.Error(err)
			return
		}
		s.Release(1)
	}
}
