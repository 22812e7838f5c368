package poll_test

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/evsync/evsync/poll"
	"github.com/evsync/evsync/signal"
)

// The stream of BenchmarkBurst: writes of 1, round-robin over
// burstSources signals, one every burstGap (10^4 writes a second).
const (
	burstSources = 1_000
	burstGap     = 100 * time.Microsecond
)

// BenchmarkBurst is a consumer under a steady stream of events, with and
// without WithBurst. A producer (the benchmark's goroutine, locked to its
// thread) writes 1 to one of 1,000 signals every 100µs on the wall clock,
// sleeping in between (pause). A consumer goroutine waits on a Set of the
// signals, edge-triggered, with max 64, and takes the count of each
// signal reported. An op is one write. The impls:
//
//   - plain: a Set without options
//   - burst: a Set with WithBurst(64, time.Millisecond)
//   - none: the producer alone, the signals in no Set: the floor
//
// The figures, per write (ns/op is the pacing, 100µs):
//
//   - cpu-ns/event: the process's CPU time (user and system, every
//     thread, from getrusage) over the run
//   - rest-ns/event: the same less the producer's thread: the consumer,
//     the scheduler's threads, the Set's timer, the runtime. It leaves out
//     the producer's sleeps, which cost the same in every impl, and its
//     writes, though a write to an armed registration hands the event to
//     the consumer and wakes it. So the consumer's cost per event is this
//     row less impl=none's, and the hand-over in the producer is on top.
//   - wakeups/event: the consumer's Waits that returned events
//   - late/event: the writes made after their time, with no sleep before
//
// CPU time rather than the consumer's own: a Go program cannot read one
// goroutine's CPU time, and much of a wakeup is paid on other threads.
func BenchmarkBurst(b *testing.B) {
	for _, impl := range []struct {
		name string
		opts []poll.Option
		set  bool
	}{
		{"plain", nil, true},
		{"burst", []poll.Option{poll.WithBurst(64, time.Millisecond)}, true},
		{"none", nil, false},
	} {
		b.Run("impl="+impl.name, func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			benchBurst(b, impl.set, impl.opts...)
		})
	}
}

// A burstTally is what the consumer of BenchmarkBurst saw.
type burstTally struct {
	units   uint64 // the units it took
	wakeups int    // the Waits that returned events
	err     error
}

func benchBurst(b *testing.B, watched bool, opts ...poll.Option) {
	sigs := signals(burstSources)
	set := poll.New[int](opts...)
	for i, s := range sigs {
		if !watched {
			set.Close() // the consumer's Wait returns at once: the producer's own cost
			break
		}
		if err := set.Add(s, i, poll.In, poll.Edge); err != nil {
			b.Fatal(err)
		}
	}
	tally := make(chan burstTally, 1)
	go burstConsume(set, sigs, tally)
	b.ReportAllocs()
	cpu0, ok0 := cpuTime()
	own0, ok1 := threadTime()
	start, i, late := time.Now(), 0, 0
	for b.Loop() {
		d := time.Duration(i)*burstGap - time.Since(start)
		if d <= 0 {
			late++ // a late write goes at once: the rate holds on average
		}
		for ; d > 0; d = time.Duration(i)*burstGap - time.Since(start) {
			pause(d)
		}
		sigs[i%burstSources].Add(1)
		i++
	}
	own1, ok2 := threadTime()
	set.Close()
	got := <-tally
	cpu1, ok3 := cpuTime()
	if got.err != nil {
		b.Fatal(got.err)
	}
	if watched && got.units != uint64(i) {
		b.Fatalf("the consumer took %d units of %d written", got.units, i)
	}
	if ok0 && ok1 && ok2 && ok3 {
		cpu, own := cpu1-cpu0, own1-own0
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(i), "cpu-ns/event")
		b.ReportMetric(float64((cpu-own).Nanoseconds())/float64(i), "rest-ns/event")
	}
	b.ReportMetric(float64(got.wakeups)/float64(i), "wakeups/event")
	b.ReportMetric(float64(late)/float64(i), "late/event")
}

// burstConsume waits on set with max 64 and takes the count of each
// signal reported, until the Set is closed. It sends what it saw on
// tally.
func burstConsume(set *poll.Set[int], sigs []*signal.Signal, tally chan<- burstTally) {
	var t burstTally
	buf := make([]poll.Event[int], 0, 64)
	ctx := context.Background()
	for {
		var err error
		buf, err = set.Wait(ctx, buf[:0], 64)
		if errors.Is(err, poll.ErrClosed) {
			break
		}
		if err != nil {
			t.err = err
			break
		}
		t.wakeups++
		for _, ev := range buf {
			t.units += sigs[ev.Key].Take()
		}
	}
	tally <- t
}
