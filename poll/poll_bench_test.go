package poll_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/evsync/evsync/internal/testsupport/anchor"
	"github.com/evsync/evsync/internal/testsupport/fakeclock"
	"github.com/evsync/evsync/poll"
	"github.com/evsync/evsync/signal"
)

// waitSizes are the numbers of registered sources of BenchmarkWaitOneReady.
var waitSizes = []int{10, 1_000, 100_000}

// BenchmarkWaitOneReady is one ready event among n registered sources: an
// op writes 1 to one source (round-robin), waits for the one event it
// makes, and reads the source. Each row reports cpu-ns/op too (cpuMeter).
// The impls:
//
//   - evsync: n signals in a Set, edge-triggered; Wait with max 1.
//   - reflect: reflect.Select over the n signals' Ready channels, each
//     renewed once it fired (not above 65,536 cases).
//   - fanin: one goroutine per signal, blocked in its Wait, sends the
//     signal's key to one channel.
//   - epoll: the kernel's epoll over n eventfds (Linux; fdlimit permitting),
//     with write, epoll_wait and read (anchor.NewEpollPoller).
func BenchmarkWaitOneReady(b *testing.B) {
	for _, n := range waitSizes {
		b.Run(fmt.Sprintf("n=%d/impl=evsync", n), func(b *testing.B) { benchSet(b, n) })
		if n <= 65536 {
			b.Run(fmt.Sprintf("n=%d/impl=reflect", n), func(b *testing.B) { benchReflect(b, n) })
		}
		b.Run(fmt.Sprintf("n=%d/impl=fanin", n), func(b *testing.B) { benchFanIn(b, n) })
		b.Run(fmt.Sprintf("n=%d/impl=epoll", n), func(b *testing.B) { benchEpoll(b, n) })
	}
}

// cpuMeter reports the process's CPU time per op (cpu-ns/op), every
// thread counted, where the system gives it. On a machine shared with
// other work it is steadier than ns/op, which counts the time the
// benchmark waited for a CPU too.
type cpuMeter struct {
	at time.Duration
	ok bool
}

// startCPU starts a cpuMeter, right before the timed loop.
func startCPU() cpuMeter {
	at, ok := cpuTime()
	return cpuMeter{at, ok}
}

// since returns the CPU time since startCPU, 0 where the system does not
// give it.
func (m cpuMeter) since() time.Duration {
	now, ok := cpuTime()
	if !m.ok || !ok {
		return 0
	}
	return now - m.at
}

// report reports the CPU time since startCPU per op, for ops ops, as
// unit.
func (m cpuMeter) report(b *testing.B, ops int, unit string) {
	if _, ok := cpuTime(); m.ok && ok && ops > 0 {
		b.ReportMetric(float64(m.since().Nanoseconds())/float64(ops), unit)
	}
}

func signals(n int) []*signal.Signal {
	sigs := make([]*signal.Signal, n)
	for i := range sigs {
		sigs[i] = signal.New(0)
	}
	return sigs
}

func benchSet(b *testing.B, n int) {
	sigs := signals(n)
	var set poll.Set[int]
	defer set.Close()
	for i, s := range sigs {
		if err := set.Add(s, i, poll.In, poll.Edge); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	buf := make([]poll.Event[int], 0, 1)
	b.ReportAllocs()
	i, ops, cpu := 0, 0, startCPU()
	for b.Loop() {
		sigs[i].Add(1)
		buf, _ = set.Wait(ctx, buf[:0], 1)
		if len(buf) != 1 || buf[0].Key != i || sigs[i].Take() != 1 {
			b.Fatalf("Wait = %v after a write to %d", buf, i)
		}
		if i++; i == n {
			i = 0
		}
		ops++
	}
	cpu.report(b, ops, "cpu-ns/op")
}

func benchReflect(b *testing.B, n int) {
	sigs := signals(n)
	cases := make([]reflect.SelectCase, n)
	for i, s := range sigs {
		cases[i] = reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(s.Ready())}
	}
	b.ReportAllocs()
	i, ops, cpu := 0, 0, startCPU()
	for b.Loop() {
		sigs[i].Add(1)
		chosen, _, _ := reflect.Select(cases)
		if chosen != i || sigs[i].Take() != 1 {
			b.Fatalf("Select chose %d after a write to %d", chosen, i)
		}
		cases[i].Chan = reflect.ValueOf(sigs[i].Ready())
		if i++; i == n {
			i = 0
		}
		ops++
	}
	cpu.report(b, ops, "cpu-ns/op")
}

func benchFanIn(b *testing.B, n int) {
	sigs := signals(n)
	ctx, cancel := context.WithCancel(context.Background())
	out, join := anchor.FanIn(ctx, sigs)
	defer join()
	defer cancel()
	b.ReportMetric(float64(runtime.NumGoroutine()), "goroutines")
	b.ReportAllocs()
	i, ops, cpu := 0, 0, startCPU()
	for b.Loop() {
		sigs[i].Add(1)
		if k := <-out; k != i {
			b.Fatalf("got %d after a write to %d", k, i)
		}
		if i++; i == n {
			i = 0
		}
		ops++
	}
	cpu.report(b, ops, "cpu-ns/op")
}

// benchEpoll is BenchmarkWaitOneReady's impl=epoll, anchor's epoll
// Poller over n eventfds: an op is its Write, Wait and Read. It skips the
// run where the system has no epoll or the process may not open the
// files.
func benchEpoll(b *testing.B, n int) {
	skipFewFiles(b, n+1)
	p, err := anchor.NewEpollPoller(n)
	if errors.Is(err, errors.ErrUnsupported) {
		b.Skip(err)
	}
	if err != nil {
		b.Fatal(err)
	}
	defer p.Free()
	b.ReportAllocs()
	i, ops, cpu := 0, 0, startCPU()
	for b.Loop() {
		if err := p.Write(i); err != nil {
			b.Fatal(err)
		}
		if k, err := p.Wait(); err != nil || k != i {
			b.Fatalf("Wait = %d, %v after a write to %d", k, err, i)
		}
		if err := p.Read(i); err != nil {
			b.Fatal(err)
		}
		if i++; i == n {
			i = 0
		}
		ops++
	}
	cpu.report(b, ops, "cpu-ns/op")
}

// BenchmarkQueuedWrite is a write to a source: Add(1), with a Take every
// 1,024 writes. source=alone is a signal in no Set; source=queued is one
// in a Set whose registration is queued (reported by no Wait yet), which
// is what a busy source is between two Waits.
func BenchmarkQueuedWrite(b *testing.B) {
	for _, state := range []string{"alone", "queued"} {
		b.Run("source="+state, func(b *testing.B) {
			s := signal.New(0)
			var set poll.Set[int]
			defer set.Close()
			if state == "queued" {
				if err := set.Add(s, 1, poll.In, poll.Edge); err != nil {
					b.Fatal(err)
				}
				s.Add(1) // queued from now on
			}
			i := 0
			for b.Loop() {
				s.Add(1)
				if i++; i&1023 == 0 {
					s.Take()
					s.Add(1)
				}
			}
		})
	}
}

// BenchmarkMemoryPerSource reports the heap that 10^5 registrations in
// one Set hold, per registration, from a GC before and after the Adds:
//
//   - B/reg: the live heap the Adds left: the registrations, the Set's
//     map, its timer heap, and what each source grew for its first
//     watcher
//   - B/reg+src: B/reg plus the bytes that making the sources allocated:
//     a source that exists only to be watched, with its registration
//   - alloc-B/reg: the bytes the Adds allocated, the map's growth included
//
// The impls: signal (*signal.Signal), user (a *poll.Source of a
// user's type, user-atomic of BenchmarkSourceWake, the type included),
// deadline (a *poll.Deadline, one-shot, not yet due: its registration is
// in the Set's timer heap). The Set runs on a fake clock: a stopped timer
// of the wall clock may keep the last round's Set alive until the
// runtime sweeps its timers, which would blur the next round's figures.
func BenchmarkMemoryPerSource(b *testing.B) {
	const n = 100_000
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, impl := range []struct {
		name string
		make func() any
	}{
		{"signal", func() any { return signal.New(0) }},
		{"user", func() any { return newAtomicSource().src() }},
		{"deadline", func() any { return poll.NewDeadline(now.Add(time.Hour)) }},
	} {
		b.Run("impl="+impl.name, func(b *testing.B) {
			for b.Loop() {
				var before, made, after runtime.MemStats
				srcs := make([]any, n)
				set := poll.New[int](poll.WithClock[*fakeclock.Timer](fakeclock.New(now)))
				runtime.GC()
				runtime.ReadMemStats(&before)
				for i := range srcs {
					srcs[i] = impl.make()
				}
				runtime.GC()
				runtime.ReadMemStats(&made)
				for i, src := range srcs {
					if err := set.Add(src, i, poll.In, poll.OneShot); err != nil {
						b.Fatal(err)
					}
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				reg := float64(after.HeapAlloc-made.HeapAlloc) / n
				b.ReportMetric(reg, "B/reg")
				b.ReportMetric(reg+float64(made.TotalAlloc-before.TotalAlloc)/n, "B/reg+src")
				b.ReportMetric(float64(after.TotalAlloc-made.TotalAlloc)/n, "alloc-B/reg")
				runtime.KeepAlive(srcs)
				set.Close()
			}
		})
	}
}
