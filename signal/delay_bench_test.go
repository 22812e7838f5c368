package signal_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/evsync/evsync/signal"
)

// BenchmarkWakeDelay is Add(1) with a reader blocked behind a wake delay
// of a second: each add goes through the delay's window. The window's
// first add arms the timer, and the others find it open.
func BenchmarkWakeDelay(b *testing.B) {
	b.Run("reader=blocked/impl=evsync", func(b *testing.B) {
		b.ReportAllocs()
		s := signal.New(0, signal.WithWakeDelay(time.Second))
		done := make(chan struct{})
		go func() {
			defer close(done)
			for {
				if _, err := s.Wait(context.Background()); err != nil {
					return
				}
			}
		}()
		for s.Stats().Waiting == 0 {
			runtime.Gosched()
		}
		for b.Loop() {
			if err := s.Add(1); err != nil {
				b.Fatal(err)
			}
		}
		s.Close()
		<-done
	})
}
