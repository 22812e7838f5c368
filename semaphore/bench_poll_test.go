package semaphore_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/evsync/evsync/poll"
	"github.com/evsync/evsync/semaphore"
)

// BenchmarkLimiterAnswerIn is a dispatcher on a poll.Set. Each op is one
// event: the running jobs end (a Release of all units), the Set's Wait
// reports the Limiter's In, and the dispatcher takes every free unit to
// start as many jobs. The three answers to In, compared with
//
//	go test -run='^$' -bench=LimiterAnswerIn -benchmem -count=6 ./semaphore > in.txt
//	benchstat -col /impl in.txt
//
// are a loop of TryAcquire(1) (impl=loop), Stats().Free then TryAcquire
// of that many (impl=stats, racy with other takers), and TryAcquireUpTo
// (impl=upto). The Release and the Wait cost the same in all three.
func BenchmarkLimiterAnswerIn(b *testing.B) {
	answers := []struct {
		name string
		take func(l *semaphore.Limiter) int
	}{
		{"loop", func(l *semaphore.Limiter) int {
			n := 0
			for l.TryAcquire(1) {
				n++
			}
			return n
		}},
		{"stats", func(l *semaphore.Limiter) int {
			if free := l.Stats().Free; free > 0 && l.TryAcquire(free) {
				return free
			}
			return 0
		}},
		{"upto", func(l *semaphore.Limiter) int { return l.TryAcquireUpTo(math.MaxInt) }},
	}
	ctx := context.Background()
	for _, units := range []int{1, 16, 256} {
		for _, a := range answers {
			b.Run(fmt.Sprintf("units=%d/impl=%s", units, a.name), func(b *testing.B) {
				b.ReportAllocs()
				l := semaphore.NewLimiter(units)
				if !l.TryAcquire(units) {
					b.Fatal("TryAcquire of every unit failed")
				}
				var set poll.Set[int]
				defer set.Close()
				if err := set.Add(l, 0, poll.In, poll.Edge); err != nil {
					b.Fatal(err)
				}
				events := make([]poll.Event[int], 0, 1)
				for b.Loop() {
					_ = l.Release(units)
					var err error
					if events, err = set.Wait(ctx, events[:0], 1); err != nil || len(events) != 1 {
						b.Fatalf("Wait = %v, %v", events, err)
					}
					if n := a.take(l); n != units {
						b.Fatalf("took %d of %d free", n, units)
					}
				}
			})
		}
	}
}
