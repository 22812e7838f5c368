package poll_test

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/evsync/evsync/poll"
	"github.com/evsync/evsync/signal"
)

// A benchSource is a source of BenchmarkSourceWake: a counter that a
// write adds to, known to a Set as src.
type benchSource interface {
	write(n uint64)
	src() any
}

// builtinSource is a *signal.Signal, a source the package knows.
type builtinSource struct{ s *signal.Signal }

func (b builtinSource) write(n uint64) { b.s.Add(n) }
func (b builtinSource) src() any       { return b.s }

// atomicSource is a user's counter at its cheapest: an atomic count, and
// a Notify after each write.
type atomicSource struct {
	n atomic.Uint64
	s *poll.Source
}

func newAtomicSource() *atomicSource {
	a := new(atomicSource)
	a.s = poll.NewSource(func() poll.Events {
		if a.n.Load() != 0 {
			return poll.In | poll.Out
		}
		return poll.Out
	})
	return a
}

func (a *atomicSource) write(n uint64) {
	a.n.Add(n)
	a.s.Notify(poll.In)
}

func (a *atomicSource) src() any { return a.s }

// mutexSource is a user's counter as most are written: a count under a
// mutex, which the poll function takes too, and a Notify after the
// unlock, as Source's documentation asks.
type mutexSource struct {
	mu sync.Mutex
	n  uint64
	s  *poll.Source
}

func newMutexSource() *mutexSource {
	m := new(mutexSource)
	m.s = poll.NewSource(func() poll.Events {
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.n != 0 {
			return poll.In | poll.Out
		}
		return poll.Out
	})
	return m
}

func (m *mutexSource) write(n uint64) {
	m.mu.Lock()
	m.n += n
	m.mu.Unlock()
	m.s.Notify(poll.In)
}

func (m *mutexSource) src() any { return m.s }

// sourceImpls are the sources of BenchmarkSourceWake, by impl name.
var sourceImpls = []struct {
	name string
	make func() benchSource
}{
	{"builtin", func() benchSource { return builtinSource{signal.New(0)} }},
	{"user-atomic", func() benchSource { return newAtomicSource() }},
	{"user-mutex", func() benchSource { return newMutexSource() }},
}

// BenchmarkSourceWake compares a user-defined source (poll.Source) with a
// built-in one (a signal), each the only source of a Set, edge-triggered
// for In. The ops:
//
//   - op=wake: a write of 1 wakes the armed registration, then TryWait
//     reports it and arms it again: a source's whole wakeup, the row the
//     user/builtin ratio is read from.
//   - op=queued: a write to a source whose registration is queued, so the
//     wakeup is absorbed: what a busy source pays between two Waits.
//   - op=alone: a write to a source in no Set: the source's own cost, the
//     floor the other two rows stand on.
//
// The impls: builtin (*signal.Signal), user-atomic (an atomic count and
// Notify), user-mutex (a count under a mutex that its poll function takes
// too, and Notify after the unlock).
func BenchmarkSourceWake(b *testing.B) {
	for _, op := range []string{"wake", "queued", "alone"} {
		for _, impl := range sourceImpls {
			b.Run("op="+op+"/impl="+impl.name, func(b *testing.B) {
				benchSourceOp(b, op, impl.make())
			})
		}
	}
}

func benchSourceOp(b *testing.B, op string, src benchSource) {
	set := poll.New[int]()
	defer set.Close()
	if op != "alone" {
		if err := set.Add(src.src(), 1, poll.In, poll.Edge); err != nil {
			b.Fatal(err)
		}
	}
	if op == "queued" {
		src.write(1) // queued from now on: no Wait takes it
	}
	buf := make([]poll.Event[int], 0, 1)
	b.ReportAllocs()
	ops, cpu := 0, startCPU()
	for b.Loop() {
		ops++
		src.write(1)
		if op != "wake" {
			continue
		}
		buf = set.TryWait(buf[:0], 1)
		if len(buf) != 1 || buf[0] != (poll.Event[int]{Key: 1, Events: poll.In}) {
			b.Fatalf("TryWait = %v after a write", buf)
		}
	}
	cpu.report(b, ops, "cpu-ns/op")
	if st := set.Stats(); op == "queued" && (st.Queued != 1 || st.Wakeups != 1) {
		b.Fatalf("Stats = %+v: the writes to a queued source did not stay absorbed", st)
	}
}
