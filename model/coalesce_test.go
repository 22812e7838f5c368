package model_test

import (
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/evsync/evsync/internal/evserr"
	"github.com/evsync/evsync/model"
)

const ms = time.Millisecond

// A step is one call on a Coalescer or one check of its state.
type step struct {
	name string
	run  func(t *testing.T, c *model.Coalescer)
}

func wake(n int) step {
	return step{fmt.Sprintf("Wake×%d", n), func(_ *testing.T, c *model.Coalescer) {
		for range n {
			c.Wake()
		}
	}}
}

func advance(d time.Duration) step {
	return step{fmt.Sprintf("Advance(%v)", d), func(_ *testing.T, c *model.Coalescer) { c.Advance(d) }}
}

// every makes n events, one every d, each after the clock has moved by d.
func every(n int, d time.Duration) step {
	return step{fmt.Sprintf("%d×(Advance(%v), Wake)", n, d), func(_ *testing.T, c *model.Coalescer) {
		for range n {
			c.Advance(d)
			c.Wake()
		}
	}}
}

// events checks what Events returns.
func events(n uint64) step {
	return step{fmt.Sprintf("Events = %d", n), func(t *testing.T, c *model.Coalescer) {
		t.Helper()
		if got := c.Events(); got != n {
			t.Fatalf("at %v: Events() = %d", c.Now(), got)
		}
	}}
}

func flush() step {
	return step{"Flush", func(_ *testing.T, c *model.Coalescer) { c.Flush() }}
}

func closeC() step {
	return step{"Close", func(_ *testing.T, c *model.Coalescer) { c.Close() }}
}

// state checks the wakeups fired, the events pending and the timer
// (deadline 0 meaning disarmed).
func state(wakeups, pending uint64, deadline time.Duration) step {
	name := fmt.Sprintf("state(wakeups %d, pending %d, deadline %v)", wakeups, pending, deadline)
	return step{name, func(t *testing.T, c *model.Coalescer) {
		t.Helper()
		armed, at := c.Armed()
		if !armed {
			at = 0
		}
		if c.Wakeups() != wakeups || c.Pending() != pending || at != deadline || armed != (deadline != 0) {
			t.Fatalf("at %v: wakeups %d, pending %d, armed %v at %v", c.Now(), c.Wakeups(), c.Pending(), armed, at)
		}
	}}
}

// wait checks what TryWait returns: ok is whether Wait returns at once,
// err what it returns then (ok false and err nil: ErrWouldBlock).
func wait(events uint64, ok bool, err error) step {
	name := fmt.Sprintf("TryWait = %d, %v, %v", events, ok, err)
	if !ok && err == nil {
		err = evserr.ErrWouldBlock
	}
	return step{name, func(t *testing.T, c *model.Coalescer) {
		t.Helper()
		e, er := c.TryWait()
		if e != events || !errors.Is(er, err) || (er == nil) != (err == nil) {
			t.Fatalf("at %v: TryWait() = %d, %v", c.Now(), e, er)
		}
	}}
}

func TestCoalescer(t *testing.T) {
	for _, tc := range []struct {
		name     string
		delay    time.Duration
		maxBatch uint64
		maxWait  time.Duration
		steps    []step
	}{{
		name: "AuditOneWakeupPerWindow", delay: 10 * ms,
		steps: []step{
			wait(0, false, nil),
			wake(1), state(0, 1, 10*ms),
			advance(5 * ms), wake(3), state(0, 4, 10*ms), // later events do not extend
			advance(4 * ms), state(0, 4, 10*ms),
			advance(1 * ms), state(1, 0, 0),
			wait(4, true, nil), wait(0, false, nil),
			advance(50 * ms), state(1, 0, 0), // idle: no timer, no wakeup
			wake(2), state(1, 2, 70*ms), // the next window starts at its first event
			advance(10 * ms), state(2, 0, 0), wait(2, true, nil),
		},
	}, {
		name: "AuditWakeupsCoalesceUnread", delay: 10 * ms,
		steps: []step{
			wake(1), advance(10 * ms), wake(2), advance(10 * ms), state(2, 0, 0),
			wait(3, true, nil), wait(0, false, nil),
		},
	}, {
		name: "DelayZeroWakesAtOnce",
		steps: []step{
			wake(1), state(1, 0, 0), wake(2), state(3, 0, 0),
			wait(3, true, nil), wait(0, false, nil),
			advance(time.Second), state(3, 0, 0),
		},
	}, {
		name: "DelayZeroDebounceWakesAtOnce", maxWait: 10 * ms,
		steps: []step{wake(2), state(2, 0, 0), wait(2, true, nil)},
	}, {
		name: "BatchThresholdFiresAtOnce", delay: 10 * ms, maxBatch: 3,
		steps: []step{
			wake(2), state(0, 2, 10*ms),
			wake(1), state(1, 0, 0), // threshold reached: fired and disarmed
			advance(10 * ms), state(1, 0, 0),
			wake(4), state(2, 1, 20*ms), // a new window for the fourth event
			wait(6, true, nil), advance(10 * ms), wait(1, true, nil), // both wakeups coalesced
		},
	}, {
		name: "BatchThresholdInDebounce", delay: 10 * ms, maxBatch: 2, maxWait: 50 * ms,
		steps: []step{wake(1), advance(5 * ms), wake(1), state(1, 0, 0), advance(time.Second), state(1, 0, 0)},
	}, {
		name: "BatchOfOne", delay: 10 * ms, maxBatch: 1,
		steps: []step{wake(3), state(3, 0, 0), wait(3, true, nil)},
	}, {
		name: "DebounceQuietPeriod", delay: 10 * ms, maxWait: 100 * ms,
		steps: []step{
			wake(1), state(0, 1, 10*ms),
			advance(5 * ms), wake(1), state(0, 2, 10*ms),
			advance(5 * ms), state(0, 2, 20*ms), // an event since arming: re-armed for delay
			advance(9 * ms), state(0, 2, 20*ms),
			advance(1 * ms), state(1, 0, 0), // a full period with no event: fires
			wait(2, true, nil),
		},
	}, {
		name: "DebounceNoEventFiresLikeAudit", delay: 10 * ms, maxWait: 100 * ms,
		steps: []step{wake(1), advance(10 * ms), state(1, 0, 0), wait(1, true, nil)},
	}, {
		name: "DebounceReArmExpiresInOneAdvance", delay: 10 * ms, maxWait: 100 * ms,
		steps: []step{wake(1), advance(5 * ms), wake(1), advance(30 * ms), state(1, 0, 0), wait(2, true, nil)},
	}, {
		name: "DebounceMaxWaitBound", delay: 10 * ms, maxWait: 35 * ms,
		steps: []step{
			wake(1), every(6, 5*ms), state(0, 7, 35*ms), // re-armed at 10, 20, then 30 for the 5ms left
			advance(5 * ms), state(1, 0, 0), // 35ms after the window opened: fires despite the stream
			wait(7, true, nil),
			wake(1), state(1, 1, 45*ms), // the event at 35 opens the next window
		},
	}, {
		name: "DebounceWakesOneToTwoDelaysAfterTheLastEvent", delay: 10 * ms, maxWait: time.Second,
		steps: []step{
			wake(1), advance(10*ms - 1), wake(1), // just before the period ends
			advance(10 * ms), state(0, 2, 20*ms), advance(1), state(1, 0, 0), // a delay and 1ns after it
			wake(1), advance(5 * ms), wake(1), advance(5 * ms), wake(1), // just as a period begins
			advance(20*ms - 1), state(1, 3, 50*ms), advance(1), state(2, 0, 0), // two delays after it
		},
	}, {
		name: "DelayAboveOneSecond", delay: 2 * time.Second,
		steps: []step{wake(1), advance(2*time.Second - 1), state(0, 1, 2*time.Second), advance(1), state(1, 0, 0)},
	}, {
		name: "LongestDelayNeverWrapsAround", delay: math.MaxInt64, maxWait: math.MaxInt64,
		steps: []step{
			advance(ms), wake(1), state(0, 1, math.MaxInt64), wake(1), advance(time.Hour), state(0, 2, math.MaxInt64),
			flush(), wait(2, true, nil),
		},
	}, {
		name: "DebounceMaxWaitEqualsDelay", delay: 10 * ms, maxWait: 10 * ms,
		steps: []step{wake(1), every(1, 5*ms), advance(5 * ms), state(1, 0, 0), wait(2, true, nil)},
	}, {
		name: "FlushThenTimerNoSecondWakeup", delay: 10 * ms,
		steps: []step{
			flush(), state(0, 0, 0), // nothing pending: no wakeup
			wake(2), advance(3 * ms), flush(), state(1, 0, 0),
			advance(20 * ms), state(1, 0, 0), flush(), state(1, 0, 0),
			wait(2, true, nil), wait(0, false, nil),
		},
	}, {
		name: "FlushInDebounce", delay: 10 * ms, maxWait: 30 * ms,
		steps: []step{wake(1), advance(5 * ms), wake(1), flush(), state(1, 0, 0), advance(time.Second), state(1, 0, 0)},
	}, {
		name: "CloseStopsEverythingKeepsCounts", delay: 10 * ms,
		steps: []step{
			wake(2), advance(10 * ms), state(1, 0, 0),
			wake(3), state(1, 3, 20*ms),
			closeC(), state(1, 3, 0), // disarmed, pending kept
			advance(time.Second), flush(), state(1, 3, 0), // nothing fires after Close
			closeC(), state(1, 3, 0),
			wait(5, true, nil), // the outstanding wakeup, with what was left pending
			wait(0, false, evserr.ErrClosed), wait(0, false, evserr.ErrClosed),
		},
	}, {
		name: "CloseWithUnreadAndPendingDebounce", delay: 10 * ms, maxWait: 20 * ms,
		steps: []step{
			wake(1), advance(5 * ms), wake(1), closeC(), advance(time.Second), state(0, 2, 0),
			wait(2, true, nil), wait(0, false, evserr.ErrClosed),
		},
	}, {
		name: "EventsTakesTheToken",
		steps: []step{
			events(0), wake(1), events(1), wait(0, false, nil), // Events alone took the wakeup
			wake(1), wait(1, true, nil), events(0),
		},
	}, {
		name: "NoWakeupLeftAfterCloseAndEvents",
		steps: []step{
			wake(1), wait(1, true, nil), wake(1), closeC(),
			events(1), wait(0, false, evserr.ErrClosed), events(0),
		},
	}, {
		name: "WakeAfterCloseNoop", delay: 10 * ms, maxBatch: 1,
		steps: []step{
			closeC(), wake(5), state(0, 0, 0), flush(), state(0, 0, 0),
			wait(0, false, evserr.ErrClosed),
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			c := model.NewCoalescer(tc.delay, tc.maxBatch, tc.maxWait)
			for i, s := range tc.steps {
				t.Logf("step %d: %s", i, s.name)
				s.run(t, c)
				if err := c.Validate(); err != nil {
					t.Fatalf("after step %d (%s): %v", i, s.name, err)
				}
			}
		})
	}
}

// Under a steady stream in debounce mode the consumer is still woken at
// least every maxWait, and every event is handed over exactly once.
func TestCoalescerDebounceSteadyStream(t *testing.T) {
	const delay, maxWait = 10 * ms, 35 * ms
	c := model.NewCoalescer(delay, 0, maxWait)
	var sent, got uint64
	last := c.Now()
	for range 1000 {
		c.Wake()
		sent++
		c.Advance(3 * ms)
		if err := c.Validate(); err != nil {
			t.Fatal(err)
		}
		if n, err := c.TryWait(); err == nil {
			got += n
			last = c.Now()
		} else if err != evserr.ErrWouldBlock {
			t.Fatal(err)
		}
		if gap := c.Now() - last; gap > maxWait+3*ms {
			t.Fatalf("at %v: no wakeup for %v (maxWait %v)", c.Now(), gap, maxWait)
		}
	}
	c.Advance(maxWait)
	n, _ := c.TryWait()
	if got+n != sent {
		t.Fatalf("read %d events, sent %d", got+n, sent)
	}
}

func TestNewCoalescerPanics(t *testing.T) {
	for _, tc := range []struct {
		name           string
		delay, maxWait time.Duration
		panics         bool
	}{
		{"NegativeDelay", -1, 0, true},
		{"DelayAboveOneSecond", 2 * time.Second, 5 * time.Second, false},
		{"LongestDelay", math.MaxInt64, math.MaxInt64, false},
		{"MaxWaitBelowDelay", 10 * ms, 5 * ms, true},
		{"NegativeMaxWait", 0, -1, true},
		{"DelayOneSecond", time.Second, 0, false},
		{"MaxWaitEqualsDelay", 10 * ms, 10 * ms, false},
		{"DelayZeroDebounce", 0, 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if r := recover(); (r != nil) != tc.panics {
					t.Fatalf("recover() = %v, want panic %v", r, tc.panics)
				}
			}()
			model.NewCoalescer(tc.delay, 0, tc.maxWait)
		})
	}
}

func TestCoalescerNegativeAdvancePanics(t *testing.T) {
	c := model.NewCoalescer(10*ms, 0, 0)
	defer func() {
		if recover() == nil {
			t.Fatal("Advance(-1) did not panic")
		}
	}()
	c.Advance(-1)
}
