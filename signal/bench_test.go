package signal_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/evsync/evsync/internal/testsupport/anchor"
	"github.com/evsync/evsync/signal"
)

// Benchmarks against the anchors (internal/testsupport/anchor); compare with
//
//	go test -run='^$' -bench=. -benchmem -count=6 ./signal > bench.txt
//	benchstat -col /impl bench.txt

// newSignal builds a signal of impl, skipping b where impl is unsupported.
func newSignal(b *testing.B, impl anchor.SignalImpl) anchor.Signal {
	s, err := impl.New()
	if errors.Is(err, errors.ErrUnsupported) {
		b.Skip(err)
	}
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	return s
}

// eachImpl runs f as a sub-benchmark impl=<name> for every signal
// implementation.
func eachImpl(b *testing.B, f func(b *testing.B, impl anchor.SignalImpl)) {
	for _, impl := range anchor.Signals() {
		b.Run("impl="+impl.Name, func(b *testing.B) {
			b.ReportAllocs()
			f(b, impl)
		})
	}
}

// BenchmarkAddTake is one goroutine adding and taking back: the fast path.
func BenchmarkAddTake(b *testing.B) {
	eachImpl(b, func(b *testing.B, impl anchor.SignalImpl) {
		s := newSignal(b, impl)
		for b.Loop() {
			s.Add(1)
			if v := s.Take(); v != 1 {
				b.Fatalf("Take = %d, want 1", v)
			}
		}
	})
}

// BenchmarkPingPong passes one unit back and forth between two goroutines
// through two signals, each side blocking in Wait for the other. impl=chan
// is the same exchange over two unbuffered channels, for reference.
//
// ctx=cancel is the same with a context that can end (context.WithCancel)
// but never does during the run, as real callers pass: every Wait, and
// every channel operation of impl=chan, then selects on ctx.Done() too.
func BenchmarkPingPong(b *testing.B) {
	pingPongCase(b, func(*testing.B) context.Context { return context.Background() })
	b.Run("ctx=cancel", func(b *testing.B) {
		pingPongCase(b, func(b *testing.B) context.Context {
			ctx, cancel := anchor.Cancellable()
			b.Cleanup(cancel)
			return ctx
		})
	})
}

// pingPongCase runs the ping-pong for every implementation and for
// impl=chan, each with a context from newCtx, made for the run it is
// given and ended, where it can end, when that run is over.
func pingPongCase(b *testing.B, newCtx func(b *testing.B) context.Context) {
	eachImpl(b, func(b *testing.B, impl anchor.SignalImpl) {
		pingPong(b, newCtx(b), newSignal(b, impl), newSignal(b, impl))
	})
	b.Run("impl=chan", func(b *testing.B) {
		b.ReportAllocs()
		chanPingPong(b, newCtx(b))
	})
}

func pingPong(b *testing.B, ctx context.Context, ping, pong anchor.Signal) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		echo(b, ctx, ping, pong)
	}()
	b.ResetTimer()
	for range b.N {
		ping.Add(1)
		if _, err := pong.Wait(ctx); err != nil {
			b.Error(err)
			break
		}
	}
	<-done
}

// echo answers b.N pings with a pong each.
func echo(b *testing.B, ctx context.Context, ping, pong anchor.Signal) {
	for range b.N {
		if _, err := ping.Wait(ctx); err != nil {
			b.Error(err)
			return
		}
		pong.Add(1)
	}
}

// chanPingPong is the exchange over two unbuffered channels: plain sends
// and receives when ctx never ends, as a careful hand-written version
// would do, and selects on ctx.Done() otherwise.
func chanPingPong(b *testing.B, ctx context.Context) {
	if ctx.Done() != nil {
		chanPingPongCtx(b, ctx)
		return
	}
	ping, pong := make(chan struct{}), make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range b.N {
			<-ping
			pong <- struct{}{}
		}
	}()
	b.ResetTimer()
	for range b.N {
		ping <- struct{}{}
		<-pong
	}
	<-done
}

// chanPingPongCtx is chanPingPong where every send and receive gives up
// when ctx ends.
func chanPingPongCtx(b *testing.B, ctx context.Context) {
	ping, pong := make(chan struct{}), make(chan struct{})
	stop, done := ctx.Done(), make(chan struct{})
	go func() {
		defer close(done)
		for range b.N {
			select {
			case <-ping:
			case <-stop:
				return
			}
			select {
			case pong <- struct{}{}:
			case <-stop:
				return
			}
		}
	}()
	b.ResetTimer()
	for range b.N {
		select {
		case ping <- struct{}{}:
		case <-stop:
			b.Fatal(ctx.Err())
		}
		select {
		case <-pong:
		case <-stop:
			b.Fatal(ctx.Err())
		}
	}
	<-done
}

// writers is how many goroutines add in the throughput benchmarks.
const writers = 4

// BenchmarkWriters has writers goroutines share b.N Add(1) calls while one
// reader Waits for the sums until it has read all b.N units.
func BenchmarkWriters(b *testing.B) {
	b.Run(fmt.Sprintf("w=%d", writers), func(b *testing.B) {
		eachImpl(b, func(b *testing.B, impl anchor.SignalImpl) {
			drain(b, newSignal(b, impl))
		})
	})
}

// BenchmarkWritersObserved is BenchmarkWriters for evsync with a goroutine
// calling String in a loop (observer=on), none (off), or one formatting a
// constant Stats value instead (control: the same CPU use, without
// touching the signal). Its allocations are counted too.
func BenchmarkWritersObserved(b *testing.B) {
	for _, mode := range anchor.ObserverModes() {
		b.Run("observer="+mode+"/impl=evsync", func(b *testing.B) {
			b.ReportAllocs()
			s := signal.New(0)
			stop := anchor.Observe(s, mode)
			drain(b, anchor.AdaptSignal(s))
			stop()
		})
	}
}

// drain splits b.N Add(1) calls among writers goroutines while the calling
// goroutine reads until it has all b.N units.
func drain(b *testing.B, s anchor.Signal) {
	start, wait := anchor.Split(writers, b.N, func(n int) {
		for range n {
			s.Add(1)
		}
	})
	b.ResetTimer()
	start()
	read(b, s, uint64(b.N))
	wait()
}

// read Waits until it has read want units.
func read(b *testing.B, s anchor.Signal, want uint64) {
	ctx := context.Background()
	for got := uint64(0); got < want; {
		v, err := s.Wait(ctx)
		if err != nil {
			b.Fatal(err)
		}
		got += v
	}
}
