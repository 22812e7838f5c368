package coalesce_test

import (
	"testing"

	"github.com/evsync/evsync/coalesce"
)

// BenchmarkWake measures Wake while a window is open (the common case:
// all but the first event of a window), from one goroutine and from
// GOMAXPROCS goroutines.
func BenchmarkWake(b *testing.B) {
	b.Run("g=1/impl=evsync", func(b *testing.B) {
		b.ReportAllocs()
		w := coalesce.New(coalesce.MaxDelay)
		defer w.Close()
		for b.Loop() {
			w.Wake()
		}
	})
	b.Run("g=procs/impl=evsync", func(b *testing.B) {
		b.ReportAllocs()
		w := coalesce.New(coalesce.MaxDelay)
		defer w.Close()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				w.Wake()
			}
		})
	})
	b.Run("g=1/delay=0/impl=evsync", func(b *testing.B) {
		b.ReportAllocs()
		w := coalesce.New(0)
		defer w.Close()
		for b.Loop() {
			w.Wake() // each one wakes: pending goes 0→1 every time
		}
	})
}
