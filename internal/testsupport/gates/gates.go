//go:build evsynchooks

package gates

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evsync/evsync/internal/counter"
)

// A Gate stops the first goroutine that reaches its point after Arm.
type Gate struct {
	p       counter.Point
	fired   atomic.Bool
	reached chan struct{} // closed when a goroutine is stopped here
	release chan struct{} // closed to let it go on
}

var (
	gates [counter.NPoints]atomic.Pointer[Gate]
	hits  [counter.NPoints]atomic.Int64 // how often each point was reached
)

func init() {
	counter.SetHook(func(p counter.Point) {
		hits[p].Add(1)
		if g := gates[p].Load(); g != nil && g.fired.CompareAndSwap(false, true) {
			close(g.reached)
			<-g.release
		}
	})
}

// Arm sets a gate at p for the test, which must run in a synctest bubble.
// The test's end removes it and lets a goroutine still stopped there go
// on. A point has one gate at a time.
func Arm(t testing.TB, p counter.Point) *Gate {
	g := &Gate{p: p, reached: make(chan struct{}), release: make(chan struct{})}
	if !gates[p].CompareAndSwap(nil, g) {
		t.Fatalf("point %d armed twice", p)
	}
	t.Cleanup(func() {
		gates[p].CompareAndSwap(g, nil)
		g.Open()
	})
	return g
}

// Wait returns once a goroutine is stopped at g. It fails t if none gets
// there: once every goroutine of the bubble is blocked (the bubble's
// clock then jumps), the call that should have reached g went another way.
func (g *Gate) Wait(t testing.TB) {
	t.Helper()
	select {
	case <-g.reached:
	case <-time.After(time.Hour):
		t.Fatalf("point %d never reached", g.p)
	}
}

// Open lets the goroutine stopped at g go on (once).
func (g *Gate) Open() {
	select {
	case <-g.release:
	default:
		close(g.release)
	}
}

// Hits returns how often p has been reached so far.
func Hits(p counter.Point) int64 { return hits[p].Load() }

// UntilHit yields until p has been reached more than before times: a
// hand-shake with a goroutine about to block on a mutex, which
// synctest.Wait cannot wait for. It fails t if that takes implausibly
// long.
func UntilHit(t testing.TB, p counter.Point, before int64) {
	t.Helper()
	for range 1_000_000 {
		if hits[p].Load() > before {
			return
		}
		runtime.Gosched()
	}
	t.Fatalf("point %d never reached", p)
}

// EndedOrLocked yields until the call behind ch has ended, or has reached
// internal/counter's Lock more than locks times in all (Hits(PLockWait)
// read before the call began), so that it waits for the locked section
// under way. It returns the call's result and true in the first case.
func EndedOrLocked[T any](t testing.TB, ch <-chan T, locks int64) (T, bool) {
	t.Helper()
	var zero T
	for range 1_000_000 {
		select {
		case v := <-ch:
			return v, true
		default:
		}
		if hits[counter.PLockWait].Load() > locks {
			return zero, false
		}
		runtime.Gosched()
	}
	t.Fatal("the call neither ended nor reached the lock")
	return zero, false
}

// Receive returns the value on ch. It fails t if every goroutine of the
// bubble blocks first (the bubble's clock then jumps a day).
func Receive[T any](t testing.TB, what string, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(24 * time.Hour):
		t.Fatalf("%s is still waiting", what)
		var zero T
		return zero
	}
}

// During runs call while stopper's goroutine is stopped at p. It starts
// stopper, waits until it is stopped there, starts call, and lets stopper
// go on once call has ended or waits for the lock that stopper holds. It
// returns call's result, whether call ended while stopper was stopped,
// and stopper's result. It must run in a synctest bubble.
func During[S, T any](t testing.TB, p counter.Point, stopper func() S, call func() T) (got T, early bool, stopped S) {
	t.Helper()
	g := Arm(t, p)
	s := start(stopper)
	g.Wait(t)
	locks := Hits(counter.PLockWait)
	ch := start(call)
	got, early = EndedOrLocked(t, ch, locks)
	g.Open()
	stopped = Receive(t, "the stopped call", s)
	if !early {
		got = Receive(t, "the call", ch)
	}
	return got, early, stopped
}

// start runs f in a goroutine; its result arrives on the channel.
func start[T any](f func() T) <-chan T {
	ch := make(chan T, 1)
	go func() { ch <- f() }()
	return ch
}
