package coalesce_test

import (
	"testing"
	"time"

	"github.com/evsync/evsync/coalesce"
	"github.com/evsync/evsync/internal/testsupport/anchor"
)

// BenchmarkWake measures Wake while a window is open (the common case:
// all but the first event of a window), from one goroutine and from
// GOMAXPROCS goroutines.
func BenchmarkWake(b *testing.B) {
	b.Run("g=1/impl=evsync", func(b *testing.B) {
		b.ReportAllocs()
		w := coalesce.New(time.Second)
		defer w.Close()
		for b.Loop() {
			w.Wake()
		}
	})
	b.Run("g=procs/impl=evsync", func(b *testing.B) {
		b.ReportAllocs()
		w := coalesce.New(time.Second)
		defer w.Close()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				w.Wake()
			}
		})
	})
	// The naive time.AfterFunc debouncer's equivalent of Wake: an atomic
	// add, and a look at its armed flag.
	b.Run("g=1/impl=afterfunc", func(b *testing.B) {
		b.ReportAllocs()
		s, _ := anchor.NewDebounceSignal(time.Second)
		defer s.Close()
		for b.Loop() {
			s.Add(1)
		}
	})
	b.Run("g=procs/impl=afterfunc", func(b *testing.B) {
		b.ReportAllocs()
		s, _ := anchor.NewDebounceSignal(time.Second)
		defer s.Close()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				s.Add(1)
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
