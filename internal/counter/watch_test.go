package counter_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/evsync/evsync/internal/counter"
	"github.com/evsync/evsync/internal/watch"
	"pgregory.net/rapid"
)

// recorder is a watcher that keeps the wakeups it was told of.
type recorder struct {
	mu  sync.Mutex
	got []watch.Events
}

func (r *recorder) Wake(ev watch.Events) {
	r.mu.Lock()
	r.got = append(r.got, ev)
	r.mu.Unlock()
}

// take returns the union of the wakeups since the last take, and how many
// there were.
func (r *recorder) take() (watch.Events, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ev watch.Events
	for _, e := range r.got {
		ev |= e
	}
	n := len(r.got)
	r.got = r.got[:0]
	return ev, n
}

func watched(limit, initial uint64) (*counter.Counter, *recorder) {
	c := new(counter.Counter)
	c.Init(limit, initial, nil)
	r := new(recorder)
	counter.Watchers(c).Add(r)
	counter.Arm(c, 1)
	return c, r
}

// TestArmedWatchersHearEventfdsWakeups: each call wakes an armed watcher
// as an eventfd wakes its epoll instances, once, after the call.
func TestArmedWatchersHearEventfdsWakeups(t *testing.T) {
	c, r := watched(0, 0)
	step := func(name string, call func(), want watch.Events) {
		t.Helper()
		call()
		got, n := r.take()
		if got != want || (want != 0) != (n == 1) {
			t.Fatalf("%s: told %v in %d wakeups, want %v once", name, got, n, want)
		}
	}
	step("Write(Plain, 2)", func() { _ = c.Write(counter.Plain, 2) }, watch.In)
	step("Write of 0", func() { _ = c.Write(counter.Plain, 0) }, watch.In)
	step("AddSlow of 0", func() { _ = c.AddSlow(counter.Plain, 0) }, watch.In)
	step("TryRead(Semaphore, 1)", func() { c.TryRead(counter.Semaphore, 1) }, watch.Out)
	step("TryRead(Plain) of the rest", func() { c.TryRead(counter.Plain, 0) }, watch.Out)
	step("TryRead of an empty count", func() { c.TryRead(counter.Plain, 0) }, 0)
	step("a write past the limit", func() { _ = c.Write(counter.Plain, counter.Max); _ = c.Write(counter.Plain, 1) }, watch.In)
	step("TryReadUpTo(3)", func() { c.TryReadUpTo(3) }, watch.Out)
	step("Read of what is there", func() { _, _ = c.Read(context.Background(), counter.Plain, 0) }, watch.Out)
	step("SetLimit(9)", func() { _ = c.SetLimit(9) }, watch.In|watch.Out)
	step("Close", c.Close, watch.Hup)
	step("Close again", c.Close, 0)
}

// TestWatchersHearNothingUnlessArmed: a watcher that is not armed (or no
// longer) is never told, and the counter keeps its fast paths for it.
func TestWatchersHearNothingUnlessArmed(t *testing.T) {
	c := new(counter.Counter)
	r := new(recorder)
	counter.Watchers(c).Add(r)
	_ = c.Write(counter.Plain, 1)
	c.TryRead(counter.Plain, 0)
	if ev, n := r.take(); n != 0 {
		t.Fatalf("an unarmed watcher was told %v", ev)
	}
	if w := counter.Word(c); w&counter.SlowBit != 0 {
		t.Fatalf("word %#x has slow set with no watcher armed", w)
	}
	counter.Arm(c, 1)
	if w := counter.Word(c); w&counter.SlowBit == 0 {
		t.Fatalf("word %#x has slow clear with a watcher armed", w)
	}
	_ = c.Write(counter.Plain, 1)
	if ev, _ := r.take(); ev != watch.In {
		t.Fatalf("an armed watcher was told %v of a write, want in", ev)
	}
	counter.Arm(c, -1)
	if w := counter.Word(c); w&counter.SlowBit != 0 {
		t.Fatalf("word %#x has slow set after the last watcher disarmed", w)
	}
	_ = c.Write(counter.Plain, 1)
	_ = c.SetLimit(5)
	c.Close()
	if ev, n := r.take(); n != 0 {
		t.Fatalf("a disarmed watcher was told %v", ev)
	}
	if err := counter.CheckInvariants(c); err != nil {
		t.Fatal(err)
	}
}

// TestArmedWatchersHearBlockedCallsServed: a write that serves a blocked
// reader, and a read that lets a blocked writer in, wake the watchers
// after the waiter is served.
func TestArmedWatchersHearBlockedCallsServed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, r := watched(1, 0)
		got := make(chan uint64)
		go func() {
			v, _ := c.Read(context.Background(), counter.Plain, 0)
			got <- v
		}()
		synctest.Wait() // the reader is queued
		_ = c.Write(counter.Plain, 1)
		if v := <-got; v != 1 {
			t.Fatalf("the blocked reader read %d, want 1", v)
		}
		if ev, _ := r.take(); ev != watch.In|watch.Out {
			t.Fatalf("told %v of a write that served a reader, want in|out", ev)
		}
		_ = c.Write(counter.Plain, 1) // at the limit
		r.take()
		done := make(chan error)
		go func() { done <- c.WriteWait(context.Background(), counter.Plain, 1) }()
		synctest.Wait() // the writer is queued
		c.TryRead(counter.Plain, 0)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if ev, _ := r.take(); ev != watch.In|watch.Out {
			t.Fatalf("told %v of a read that let a writer in, want in|out", ev)
		}
	})
}

// TestArmedWatchersFollowTheModel runs random calls on an armed counter
// and checks each wakeup against eventfd's rule, as model.Counter wakes a
// model.Set: a successful write wakes In, a read that took units wakes
// Out, and a call that failed or took nothing wakes nobody.
func TestArmedWatchersFollowTheModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		limit := rapid.SampledFrom([]uint64{1, 3, counter.Max}).Draw(t, "limit")
		c, r := watched(limit, 0)
		for range rapid.IntRange(1, 60).Draw(t, "steps") {
			var want watch.Events
			switch rapid.IntRange(0, 3).Draw(t, "op") {
			case 0:
				n := rapid.Uint64Range(0, 4).Draw(t, "n")
				if c.Write(counter.Plain, n) == nil {
					want = watch.In
				}
			case 1:
				if v, ok := c.TryRead(counter.Semaphore, rapid.Uint64Range(1, 2).Draw(t, "n")); ok && v > 0 {
					want = watch.Out
				}
			case 2:
				if v, ok := c.TryRead(counter.Plain, 0); ok && v > 0 {
					want = watch.Out
				}
			case 3:
				if c.TryReadUpTo(rapid.Uint64Range(0, 2).Draw(t, "max")) > 0 {
					want = watch.Out
				}
			}
			if got, _ := r.take(); got != want {
				t.Fatalf("told %v, want %v", got, want)
			}
		}
		if err := counter.CheckInvariants(c); err != nil {
			t.Fatal(err)
		}
	})
}

// TestArmedWatchersMissNoWrite: writers and readers race on an armed
// counter. Every write that returns nil is followed by an In wakeup that
// starts after it returned, so a set that polls the count at its wakeup
// sees it.
func TestArmedWatchersMissNoWrite(t *testing.T) {
	c := new(counter.Counter)
	var ins atomic.Int64
	w := &counting{ins: &ins}
	counter.Watchers(c).Add(w)
	counter.Arm(c, 1)
	const writers, each = 4, 500
	var wg sync.WaitGroup
	for range writers {
		wg.Go(func() {
			for range each {
				before := ins.Load()
				if err := c.Write(counter.Plain, 1); err != nil {
					t.Error(err)
					return
				}
				if ins.Load() == before {
					t.Error("a write returned before its In wakeup")
					return
				}
			}
		})
	}
	wg.Go(func() {
		for range writers * each {
			c.TryRead(counter.Plain, 0)
		}
	})
	wg.Wait()
	if n := ins.Load(); n != writers*each {
		t.Fatalf("%d In wakeups for %d writes: each write takes a section of its own while a watcher is armed", n, writers*each)
	}
}

// counting counts the In wakeups it is told of.
type counting struct{ ins *atomic.Int64 }

func (c *counting) Wake(ev watch.Events) {
	if ev&watch.In != 0 {
		c.ins.Add(1)
	}
}
