package poll_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/evsync/evsync/internal/testsupport/anchor"
)

// crossN is how many sources BenchmarkCrossWake registers.
const crossN = 1_000

// BenchmarkCrossWake is a wakeup across goroutines, as a ping-pong. The
// benchmark's goroutine writes 1 to one of crossN sources (round-robin)
// and waits for the answer. A waiter goroutine waits on all of them,
// reads the one it is told of and answers on an unbuffered channel. An
// op is a round trip. p50-ns and p99-ns are percentiles of the wake
// latency: from just before the write to the return of the wait that
// reports it, over the last 2^20 ops.
//
// The impls are internal/testsupport/anchor's Pollers, which
// cmd/evbench's poll workloads run too:
//
//   - evsync: crossN signals in a Set, edge-triggered; Wait with max 1,
//     then Take.
//   - chan-pingpong: the key over one unbuffered channel, no sources: the
//     least a round trip between two goroutines costs.
//   - fanin: one goroutine per signal, blocked in its Wait, sends the
//     signal's key to one channel, on which the waiter waits.
//   - epoll: the kernel's epoll over crossN eventfds (Linux): write(2),
//     epoll_wait(2) with maxevents 1, read(2).
func BenchmarkCrossWake(b *testing.B) {
	b.Run("impl=evsync", func(b *testing.B) { benchCross(b, anchor.NewSetPoller) })
	b.Run("impl=chan-pingpong", func(b *testing.B) {
		benchCross(b, func(n int) (anchor.Poller, error) { return anchor.NewChanPoller(n), nil })
	})
	b.Run("impl=fanin", func(b *testing.B) { benchCross(b, anchor.NewFanInPoller) })
	b.Run("impl=epoll", func(b *testing.B) {
		skipFewFiles(b, crossN+1)
		benchCross(b, anchor.NewEpollPoller)
	})
}

// latencySamples is how many of the latest wake latencies are kept for
// the percentiles, allocated before the clock starts.
const latencySamples = 1 << 20

// benchCross runs the round trips (anchor.PingPong) over crossN sources
// of the Poller that newPoller makes. It skips the run where the system
// lacks the Poller.
func benchCross(b *testing.B, newPoller func(n int) (anchor.Poller, error)) {
	p, err := newPoller(crossN)
	if errors.Is(err, errors.ErrUnsupported) {
		b.Skip(err)
	}
	if err != nil {
		b.Fatal(err)
	}
	defer p.Free()
	defer p.End() // Stop's too, and called on a failed run
	lat := make([]time.Duration, latencySamples)
	var recorded int
	pp := anchor.StartPingPong(p, func(d time.Duration) {
		lat[recorded%latencySamples] = d
		recorded++
	})
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := pp.Round(i); err != nil {
			b.Error(err)
			break
		}
		if i++; i == crossN {
			i = 0
		}
	}
	if err := pp.Stop(); err != nil {
		b.Fatal(err)
	}
	p50, p99 := percentiles(lat[:min(recorded, latencySamples)])
	b.ReportMetric(float64(p50), "p50-ns")
	b.ReportMetric(float64(p99), "p99-ns")
}

// percentiles returns the 50th and 99th percentiles of samples (nearest
// rank), sorting them in place.
func percentiles(samples []time.Duration) (p50, p99 time.Duration) {
	if len(samples) == 0 {
		return 0, 0
	}
	slices.Sort(samples)
	rank := func(p int) time.Duration { return samples[(len(samples)*p+99)/100-1] }
	return rank(50), rank(99)
}
