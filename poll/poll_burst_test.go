package poll_test

// Tests of WithBurst (options.go, timing.go): a Wait collects a burst.

import (
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/poll"
	"github.com/evsync/evsync/signal"
)

// A waitResult is what a Wait returned, and after how long.
type waitResult struct {
	evs  []poll.Event[int]
	err  error
	took time.Duration
}

// goWait calls set.Wait in a goroutine and sends what it returns, with how
// long it took.
func goWait(set *poll.Set[int], max int) <-chan waitResult {
	c := make(chan waitResult, 1)
	go func() {
		start := time.Now()
		evs, err := set.Wait(bg, nil, max)
		c <- waitResult{evs, err, time.Since(start)}
	}()
	return c
}

// burstSet returns a Set made with WithBurst(k, d) and n signals in it,
// edge-triggered, keyed by their index.
func burstSet(t *testing.T, k int, d time.Duration, n int) (*poll.Set[int], []*signal.Signal) {
	set := poll.New[int](poll.WithBurst(k, d))
	t.Cleanup(set.Close)
	sigs := make([]*signal.Signal, n)
	for i := range sigs {
		sigs[i] = signal.New(0)
		if err := set.Add(sigs[i], i, poll.In, poll.Edge); err != nil {
			t.Fatal(err)
		}
	}
	return set, sigs
}

// TestBurstReturnsOnceKAreQueued: a Wait returns at once when the k-th
// source is queued, with all k, not before.
func TestBurstReturnsOnceKAreQueued(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		set, sigs := burstSet(t, 3, time.Second, 4)
		c := goWait(set, 8)
		sigs[0].Add(1)
		sigs[1].Add(1)
		synctest.Wait()
		if len(c) != 0 {
			t.Fatal("the Wait returned with 2 of 3 queued, inside the window")
		}
		sigs[2].Add(1)
		r := <-c
		if r.err != nil || len(r.evs) != 3 || r.took != 0 {
			t.Fatalf("Wait = %v, %v after %v; want the 3 at once", r.evs, r.err, r.took)
		}
	})
}

// TestBurstReportsALoneEventWithinD: a Wait returns d after the first
// source was queued, with every source queued by then, even below k.
func TestBurstReportsALoneEventWithinD(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		set, sigs := burstSet(t, 8, time.Second, 3)
		c := goWait(set, 8)
		time.Sleep(250 * time.Millisecond)
		sigs[0].Add(1) // opens the window: it ends at 1.25s
		time.Sleep(500 * time.Millisecond)
		sigs[1].Add(1)
		r := <-c
		if r.err != nil || r.took != 1250*time.Millisecond {
			t.Fatalf("Wait = %v, %v after %v; want 1.25s", r.evs, r.err, r.took)
		}
		wantEvents(t, "Wait", r.evs, poll.Event[int]{Key: 0, Events: poll.In}, poll.Event[int]{Key: 1, Events: poll.In})
		if st := set.Stats(); st.Timer {
			t.Fatalf("Stats after = %+v, want no timer", st)
		}
		sigs[2].Add(1) // a new window, from now
		r = <-goWait(set, 8)
		if r.err != nil || r.took != time.Second {
			t.Fatalf("the next Wait = %v, %v after %v; want 1s", r.evs, r.err, r.took)
		}
	})
}

// TestBurstLeavesTryWaitAlone: TryWait takes what is queued at once, and
// a WaitTimeout of d ≤ 0 too.
func TestBurstLeavesTryWaitAlone(t *testing.T) {
	set, sigs := burstSet(t, 8, time.Hour, 2)
	sigs[0].Add(1)
	wantEvents(t, "TryWait", set.TryWait(nil, 8), poll.Event[int]{Key: 0, Events: poll.In})
	sigs[1].Add(1)
	evs, err := set.WaitTimeout(nil, 8, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantEvents(t, "WaitTimeout(d=0)", evs, poll.Event[int]{Key: 1, Events: poll.In})
}

// TestBurstHoldsReady: Ready is closed once a Wait would return: once k
// sources are queued, or d after the first.
func TestBurstHoldsReady(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		set, sigs := burstSet(t, 2, time.Second, 2)
		ready := set.Ready()
		sigs[0].Add(1)
		synctest.Wait()
		select {
		case <-ready:
			t.Fatal("Ready closed with 1 of 2 queued, inside the window")
		default:
		}
		start := time.Now()
		<-ready
		if took := time.Since(start); took != time.Second {
			t.Fatalf("Ready closed after %v, want 1s", took)
		}
		set.TryWait(nil, 8)
		ready = set.Ready()
		sigs[0].Add(1)
		sigs[1].Add(1)
		select {
		case <-ready:
		default:
			t.Fatal("Ready not closed with 2 of 2 queued")
		}
	})
}

// TestBurstOff: a k ≤ 1 or a d ≤ 0 turns the option off: a Wait returns
// with the first source queued.
func TestBurstOff(t *testing.T) {
	for _, o := range []struct {
		k int
		d time.Duration
	}{{1, time.Hour}, {0, time.Hour}, {-3, time.Hour}, {8, 0}, {8, -time.Second}} {
		synctest.Test(t, func(t *testing.T) {
			set, sigs := burstSet(t, o.k, o.d, 1)
			c := goWait(set, 8)
			synctest.Wait()
			sigs[0].Add(1)
			if r := <-c; r.err != nil || len(r.evs) != 1 || r.took != 0 {
				t.Fatalf("WithBurst(%d, %v): Wait = %v, %v after %v; want the event at once", o.k, o.d, r.evs, r.err, r.took)
			}
		})
	}
}

// TestBurstAndWaitTimeout: a WaitTimeout first in line whose time is up
// before the window ends takes what the window holds back, as epoll_wait
// reports what is ready at its timeout. One behind a Wait ends with
// nothing: the sources are the first caller's, who waits for the window.
func TestBurstAndWaitTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		set, sigs := burstSet(t, 8, time.Second, 1)
		sigs[0].Add(1)
		r := <-goWaitTimeout(set, nil, 8, 100*time.Millisecond)
		if r.err != nil || r.took != 100*time.Millisecond {
			t.Fatalf("WaitTimeout = %v, %v after %v; want the event after 100ms", r.evs, r.err, r.took)
		}
		wantEvents(t, "WaitTimeout", r.evs, poll.Event[int]{Key: 0, Events: poll.In})
	})
	synctest.Test(t, func(t *testing.T) {
		set, sigs := burstSet(t, 8, time.Second, 1)
		first := goWait(set, 8)
		synctest.Wait()
		second := goWaitTimeout(set, nil, 8, 100*time.Millisecond)
		synctest.Wait()
		sigs[0].Add(1)
		if r := <-second; r.err != nil || len(r.evs) != 0 || r.took != 100*time.Millisecond {
			t.Fatalf("the WaitTimeout behind a Wait = %v, %v after %v; want nothing after 100ms", r.evs, r.err, r.took)
		}
		if r := <-first; r.err != nil || len(r.evs) != 1 || r.took != time.Second {
			t.Fatalf("the Wait = %v, %v after %v; want the event at the window's end", r.evs, r.err, r.took)
		}
	})
}

// TestBurstOnAFakeClock: on a user's clock, the window is d on that
// clock, and the call after a Step past its end sees it over.
func TestBurstOnAFakeClock(t *testing.T) {
	clk := newStillClock(epoch)
	set := poll.New[int](poll.WithBurst(4, time.Second), poll.WithClock(clk))
	defer set.Close()
	sig := signal.New(0)
	if err := set.Add(sig, 1, poll.In, poll.Edge); err != nil {
		t.Fatal(err)
	}
	sig.Add(1)
	if st := set.Stats(); !st.Timer || st.Queued != 1 {
		t.Fatalf("Stats = %+v, want the window's timer", st)
	}
	clk.Step(time.Second - time.Nanosecond)
	select {
	case <-set.Ready():
		t.Fatal("Ready closed before the window's end")
	default:
	}
	clk.Step(time.Nanosecond)
	select {
	case <-set.Ready():
	default:
		t.Fatal("Ready not closed at the window's end")
	}
	evs, err := set.Wait(bg, nil, 8)
	if err != nil {
		t.Fatal(err)
	}
	wantEvents(t, "Wait", evs, poll.Event[int]{Key: 1, Events: poll.In})
	if st := set.Stats(); st.Timer || clk.armed() != 0 {
		t.Fatalf("Stats = %+v with %d fake timers, want no timer", st, clk.armed())
	}
}

// TestBurstEndsAtClose: Close ends the window: a Wait blocked for the
// burst gets what is queued, and no timer is left. With no Wait blocked,
// the timer is stopped at Close, and the next Wait takes what is queued
// at once.
func TestBurstEndsAtClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		set, sigs := burstSet(t, 8, time.Hour, 1)
		sigs[0].Add(1)
		if st := set.Stats(); !st.Timer {
			t.Fatalf("Stats with a window open = %+v, want its timer", st)
		}
		set.Close()
		if st := set.Stats(); st.Timer {
			t.Fatalf("Stats after Close = %+v, want no timer", st)
		}
		if r := <-goWait(set, 8); r.err != nil || len(r.evs) != 1 || r.took != 0 {
			t.Fatalf("Wait after Close = %v, %v after %v; want the event at once", r.evs, r.err, r.took)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		set, sigs := burstSet(t, 8, time.Hour, 1)
		c := goWait(set, 8)
		sigs[0].Add(1)
		synctest.Wait()
		set.Close()
		if r := <-c; r.err != nil || len(r.evs) != 1 || r.took != 0 {
			t.Fatalf("Wait at Close = %v, %v after %v; want the event at once", r.evs, r.err, r.took)
		}
		if st := set.Stats(); st.Timer {
			t.Fatalf("Stats after Close = %+v, want no timer", st)
		}
	})
}

// A nowCounter is a still fake clock that counts its readings.
type nowCounter struct {
	*stillClock
	nows atomic.Int64
}

// Now returns the clock's time.
func (c *nowCounter) Now() time.Time {
	c.nows.Add(1)
	return c.stillClock.Now()
}

// TestBurstReadsTheClockPerBurst: the window costs a clock reading when
// it opens, not one per event: 100 sources queued in one window read the
// clock once.
func TestBurstReadsTheClockPerBurst(t *testing.T) {
	clk := &nowCounter{stillClock: newStillClock(epoch)}
	set := poll.New[int](poll.WithBurst(1000, time.Second), poll.WithClock(clk))
	defer set.Close()
	sigs := make([]*signal.Signal, 100)
	for i := range sigs {
		sigs[i] = signal.New(0)
		if err := set.Add(sigs[i], i, poll.In, poll.Edge); err != nil {
			t.Fatal(err)
		}
	}
	before := clk.nows.Load()
	for _, s := range sigs {
		s.Add(1)
	}
	if n := clk.nows.Load() - before; n != 1 {
		t.Fatalf("100 events in one window read the clock %d times, want once", n)
	}
}
