package poll_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evsync/evsync/poll"
)

// crossN is how many sources BenchmarkCrossWake registers.
const crossN = 1_000

// BenchmarkCrossWake is a wakeup across goroutines, as a ping-pong. The
// benchmark's goroutine writes 1 to one of crossN sources (round-robin)
// and waits for the answer. A waiter goroutine waits on all of them,
// reads the one it is told of and answers on an unbuffered channel. An
// op is a round trip. p50-ns and p99-ns are percentiles of the wake
// latency: from just before the write to the return of the wait that
// reports it, over the last 2^20 ops. The impls:
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
	b.Run("impl=evsync", func(b *testing.B) { benchCross(b, crossSet(b, crossN)) })
	b.Run("impl=chan-pingpong", func(b *testing.B) { benchCross(b, crossChan(crossN)) })
	b.Run("impl=fanin", func(b *testing.B) { benchCross(b, crossFanIn(crossN)) })
	b.Run("impl=epoll", func(b *testing.B) { benchCross(b, crossEpoll(b, crossN)) })
}

// A crossWaiter is one way of waiting in BenchmarkCrossWake, over n
// sources:
//   - write(i) makes source i ready, on the writer's goroutine;
//   - wait, on the waiter's, blocks until a source is ready and returns
//     its key, or errEnded once end was called;
//   - read(i), on the waiter's, reads source i (nil if the wait read it);
//   - end makes a blocked wait return errEnded;
//   - free frees the state once the waiter is gone.
type crossWaiter struct {
	n     int
	write func(i int) error
	wait  func() (int, error)
	read  func(i int) error
	end   func()
	free  func()
}

// errEnded is what a crossWaiter's wait returns once end was called.
var errEnded = errors.New("ended")

// latencySamples is how many of the latest wake latencies are kept for
// the percentiles, allocated before the clock starts.
const latencySamples = 1 << 20

// benchCross runs the round trips over cw. The writer stamps the time
// just before it writes; the waiter records the time from the stamp to
// its wait's return, then reads the source and answers.
func benchCross(b *testing.B, cw crossWaiter) {
	defer cw.free()
	lat := make([]time.Duration, latencySamples)
	var recorded int
	base := time.Now()
	var stamp atomic.Int64 // atomic: epoll's write-to-wake is no edge the race detector sees
	answer := make(chan int)
	waited := make(chan error, 1)
	go func() {
		defer close(answer)
		for {
			k, err := cw.wait()
			if err == nil {
				lat[recorded%latencySamples] = time.Since(base) - time.Duration(stamp.Load())
				recorded++
				err = cw.read(k)
			}
			if err != nil {
				waited <- err
				return
			}
			answer <- k
		}
	}()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		stamp.Store(int64(time.Since(base)))
		if err := cw.write(i); err != nil {
			b.Error(err)
			break
		}
		if k, ok := <-answer; !ok || k != i {
			b.Errorf("the waiter answered %d (open %v) after a write to %d", k, ok, i)
			break
		}
		if i++; i == cw.n {
			i = 0
		}
	}
	cw.end()
	for range answer { // an answer to a failed write, then the close
	}
	if err := <-waited; !errors.Is(err, errEnded) {
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

// crossSet waits with a Set over n edge-triggered signals, one event at
// a time, and takes the signal it reports.
func crossSet(b *testing.B, n int) crossWaiter {
	sigs := signals(n)
	set := poll.New[int]()
	for i, s := range sigs {
		if err := set.Add(s, i, poll.In, poll.Edge); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	buf := make([]poll.Event[int], 0, 1)
	wait := func() (int, error) {
		var err error
		switch buf, err = set.Wait(ctx, buf[:0], 1); {
		case errors.Is(err, poll.ErrClosed):
			return 0, errEnded
		case err != nil || len(buf) != 1:
			return 0, fmt.Errorf("Wait = %v, %v", buf, err)
		}
		return buf[0].Key, nil
	}
	read := func(i int) error {
		if v := sigs[i].Take(); v != 1 {
			return fmt.Errorf("took %d from signal %d, want 1", v, i)
		}
		return nil
	}
	return crossWaiter{n: n, write: func(i int) error { return sigs[i].Add(1) },
		wait: wait, read: read, end: set.Close, free: func() {}}
}

// crossChan sends the key over one unbuffered channel, which is both the
// source and the wait.
func crossChan(n int) crossWaiter {
	ping := make(chan int)
	wait := func() (int, error) {
		k, ok := <-ping
		if !ok {
			return 0, errEnded
		}
		return k, nil
	}
	return crossWaiter{n: n, write: func(i int) error { ping <- i; return nil }, wait: wait,
		read: func(int) error { return nil }, end: func() { close(ping) }, free: func() {}}
}

// crossFanIn has one goroutine per signal, blocked in its Wait (which
// reads it), send the signal's key to one channel.
func crossFanIn(n int) crossWaiter {
	sigs := signals(n)
	ctx, cancel := context.WithCancel(context.Background())
	out := make(chan int)
	done := make(chan struct{})
	for i, s := range sigs {
		go func() {
			defer func() { done <- struct{}{} }()
			for {
				if _, err := s.Wait(ctx); err != nil {
					return
				}
				select {
				case out <- i:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	wait := func() (int, error) {
		select {
		case k := <-out:
			return k, nil
		case <-ctx.Done():
			return 0, errEnded
		}
	}
	free := func() {
		for range sigs {
			<-done
		}
	}
	return crossWaiter{n: n, write: func(i int) error { return sigs[i].Add(1) }, wait: wait,
		read: func(int) error { return nil }, end: cancel, free: free}
}
