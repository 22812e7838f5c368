package faults_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/coalesce"
)

// errConsumer is what the panicking callbacks panic with.
var errConsumer = fmt.Errorf("consumer panic")

// recovered calls f and returns what it panicked with, or nil.
func recovered(f func()) (p any) {
	defer func() { p = recover() }()
	f()
	return nil
}

// panicky is a WithFunc callback that records each call's events and
// panics while armed, except on the timer's goroutine (a panic there
// would end the test binary: nobody can recover it); it also checks that
// calls never overlap.
type panicky struct {
	armed   atomic.Bool
	calls   atomic.Int64
	events  atomic.Uint64
	running atomic.Int32
	overlap atomic.Bool
}

func (p *panicky) fn(n uint64) {
	if p.running.Add(1) != 1 {
		p.overlap.Store(true)
	}
	defer p.running.Add(-1)
	p.calls.Add(1)
	p.events.Add(n)
	if p.armed.Load() && !onTimer() {
		panic(errConsumer)
	}
}

// onTimer reports whether the caller runs on a timer's goroutine, one
// that time.AfterFunc started (its stack ends "created by time.goFunc").
func onTimer() bool {
	buf := make([]byte, 8<<10)
	return strings.Contains(string(buf[:runtime.Stack(buf, false)]), "created by time.goFunc")
}

// wantPanic calls f, which must panic with errConsumer (the callback's
// panic reaches the caller of Wake or Flush unchanged).
func wantPanic(t *testing.T, what string, f func()) {
	t.Helper()
	if p := recovered(f); p != errConsumer {
		t.Fatalf("%s: recovered %v, want the callback's panic %v", what, p, errConsumer)
	}
}

// afterPanic checks that a Waker whose callback panicked still works:
// later events still produce calls, with their own events only, Flush
// still works, and Close returns (it waits for the callback lock, so a
// lock left held by the panic would hang it: hence within).
func afterPanic(t *testing.T, w *coalesce.Waker, p *panicky) {
	t.Helper()
	p.armed.Store(false)
	calls, events := p.calls.Load(), p.events.Load()
	within(t, "Wake after the panic", func() {
		w.Wake()
		w.Wake()
		w.Flush()
	})
	if got, want := p.events.Load()-events, uint64(2); got != want || p.calls.Load() == calls {
		t.Fatalf("after the panic: %d calls for %d events, want calls for %d (%v)",
			p.calls.Load()-calls, got, want, w)
	}
	within(t, "Close after the panic", w.Close)
	if p.overlap.Load() {
		t.Fatal("callbacks overlapped")
	}
}

// TestCoalescePanickingCallbackFromWake: with a delay of 0, Wake calls fn
// itself; fn's panic reaches Wake's caller, and the Waker goes on working.
func TestCoalescePanickingCallbackFromWake(t *testing.T) {
	var p panicky
	w := coalesce.New(0, coalesce.WithFunc(p.fn))
	p.armed.Store(true)
	wantPanic(t, "Wake", w.Wake)
	wantPanic(t, "second Wake", w.Wake) // a second panic in a row changes nothing either
	if st := w.Stats(); st.Pending != 0 || st.Armed {
		t.Fatalf("after the panics: %v", st)
	}
	afterPanic(t, w, &p)
}

// TestCoalescePanickingCallbackFromMaxBatch: the Wake that reaches the
// batch threshold flushes, and fn's panic reaches it; the window's timer
// is cancelled all the same, and the next batch is counted from zero.
func TestCoalescePanickingCallbackFromMaxBatch(t *testing.T) {
	var p panicky
	w := coalesce.New(time.Second, coalesce.WithFunc(p.fn), coalesce.WithMaxBatch(3))
	p.armed.Store(true)
	w.Wake()
	w.Wake()
	wantPanic(t, "third Wake", w.Wake)
	if st := w.Stats(); st.Pending != 0 || st.Armed {
		t.Fatalf("after the panic: %v", st)
	}
	if p.events.Load() != 3 {
		t.Fatalf("the panicking call was passed %d events, want 3", p.events.Load())
	}
	afterPanic(t, w, &p)
}

// TestCoalescePanickingCallbackFromFlush: fn's panic reaches Flush's
// caller; Flush has still cancelled the window's timer (on the fake
// clock, nothing fires when the delay has passed: no double wakeup), and
// a later event arms a new window that fires on time.
func TestCoalescePanickingCallbackFromFlush(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var p panicky
		w := coalesce.New(10*time.Millisecond, coalesce.WithFunc(p.fn))
		defer w.Close()
		p.armed.Store(true)
		w.Wake()
		wantPanic(t, "Flush", w.Flush)
		p.armed.Store(false)
		time.Sleep(20 * time.Millisecond) // fake clock: past the cancelled window
		synctest.Wait()
		if p.calls.Load() != 1 {
			t.Fatalf("%d calls: the flushed window's timer fired after Flush (%v)", p.calls.Load(), w)
		}
		w.Wake()
		time.Sleep(10 * time.Millisecond)
		synctest.Wait()
		if p.calls.Load() != 2 || p.events.Load() != 2 {
			t.Fatalf("%d calls for %d events, want 2 for 2 (%v)", p.calls.Load(), p.events.Load(), w)
		}
	})
}

// TestCoalescePanickingCallbackUnderLoad has producers Wake and Flush a
// Waker whose callback panics now and then, each recovering its own
// panics: calls never overlap, and every event is passed to exactly one
// call (the panicking ones included) or reported by Events after Close.
// The timer's calls never panic (see panicky).
func TestCoalescePanickingCallbackUnderLoad(t *testing.T) {
	for _, cfg := range coalesceConfigs {
		t.Run(cfg.name, func(t *testing.T) {
			var p panicky
			w := coalesce.New(cfg.delay, append(cfg.opts, coalesce.WithFunc(p.fn))...)
			var made atomic.Uint64
			var c crew
			for g := range 4 {
				c.Go(func() {
					r := rand.New(rand.NewPCG(21, uint64(g)))
					for range 2000 {
						p.armed.Store(r.IntN(4) == 0)
						op := w.Wake
						if r.IntN(8) == 0 {
							op = w.Flush
						} else {
							made.Add(1)
						}
						if v := recovered(op); v != nil && v != errConsumer {
							t.Errorf("recovered %v", v)
						}
					}
				})
			}
			c.Wait(t, w, w.Close)
			p.armed.Store(false)
			within(t, "Close", w.Close)
			if got := p.events.Load() + w.Events(); got != made.Load() || p.overlap.Load() {
				t.Fatalf("%d events made, %d passed to fn or left; overlap %v", made.Load(), got, p.overlap.Load())
			}
		})
	}
}
