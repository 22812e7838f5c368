package signal_test

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/coalesce"
	"github.com/evsync/evsync/signal"
	"pgregory.net/rapid"
)

// delayModel is what a delayed signal with one reader must do, on an
// explicit clock: an add that finds the reader blocked opens a window
// (unless one is open), and the window's end hands the reader the whole
// count, if there is any; an add that brings the count to the batch
// threshold ends the window at once. Take and a reader that finds a
// non-zero count are never delayed.
type delayModel struct {
	delay    time.Duration
	batch    uint64
	adaptive bool
	now      time.Duration
	lastFire time.Duration // adaptive: when the coalescer last fired
	hot      bool          // adaptive: coalescing
	events   uint64        // events the coalescer has pending (adds noted in the window)
	period   time.Duration // adaptive, not hot: when the counted wakeups began
	fires    int           // adaptive, not hot: immediate wakeups since period
	count    uint64
	parked   bool          // the reader is blocked in Wait
	open     bool          // a window is open: a wakeup is due at deadline
	deadline time.Duration // only while open
	got      []delayRead   // reader returns not yet checked
}

// delayRead is one return of the reader's Wait: the sum and when.
type delayRead struct {
	v  uint64
	at time.Duration
}

func (m *delayModel) add(n uint64) {
	m.count += n
	if n == 0 || !m.parked {
		return
	}
	limit := uint64(0) // an add notes an event while no more than limit are pending
	if m.adaptive {
		limit = coalesce.AdaptiveWakeups
	}
	switch {
	case m.batch != 0 && m.count >= m.batch:
		// the add notes an event (which may open a window or fire at
		// once) and flushes it
		if !m.open {
			m.immediate()
		}
		m.open = false
		m.fire()
	case m.open:
		if m.events <= limit {
			m.events++
		}
	case m.immediate():
		m.fire()
	default:
		m.open, m.deadline, m.events = true, m.now+m.delay, 1
	}
}

// immediate is coalesce.WithAdaptive's choice for an event that opens a
// window: at once (true) or a window (false).
func (m *delayModel) immediate() bool {
	if !m.adaptive || m.hot {
		return false
	}
	if m.fires == 0 || m.now-m.period >= m.delay {
		busy := m.fires > coalesce.AdaptiveWakeups && m.now-m.lastFire <= m.delay
		m.period, m.fires = m.now, 0
		if busy {
			m.hot = true
			return false
		}
	}
	m.fires++
	return true
}

// fire is the coalescer's wakeup: the reader gets the count, if any.
func (m *delayModel) fire() {
	m.lastFire, m.events = m.now, 0
	m.serve()
}

// serve hands the count to the blocked reader, if there is any count.
func (m *delayModel) serve() {
	if m.count != 0 {
		m.got = append(m.got, delayRead{m.count, m.now})
		m.count, m.parked = 0, false
	}
}

func (m *delayModel) park() {
	m.parked = true
	m.serve() // a Wait that finds a count takes it at once
}

func (m *delayModel) advance(d time.Duration) {
	end := m.now + d
	if m.open && m.deadline <= end {
		m.now, m.open = m.deadline, false
		if m.hot && m.events <= coalesce.AdaptiveWakeups {
			m.hot = false
		}
		m.fire()
	}
	m.now = end
}

// delayRun drives a real delayed signal and the model with ops, in a
// synctest bubble, and returns the first difference or "".
func delayRun(delay time.Duration, batch uint64, adaptive bool, ops []delayOp) string {
	opts := []signal.Option{signal.WithWakeDelay(delay)}
	if batch != 0 {
		opts = append(opts, signal.WithWakeBatch(batch))
	}
	if adaptive {
		opts = append(opts, signal.WithAdaptiveWake())
	}
	s := signal.New(0, opts...)
	defer s.Close()
	m := &delayModel{delay: delay, batch: batch, adaptive: adaptive, hot: adaptive}
	start := time.Now()
	reads := make(chan delayRead, 1)
	for i, o := range ops {
		switch o.kind {
		case "add":
			if err := s.Add(o.n); err != nil {
				return fmt.Sprintf("step %d: Add(%d) = %v", i, o.n, err)
			}
			m.add(o.n)
		case "take":
			if v, want := s.Take(), m.count; v != want {
				return fmt.Sprintf("step %d: Take = %d, model %d", i, v, want)
			}
			m.count = 0
		case "park":
			if m.parked {
				continue
			}
			go func() {
				v, _ := s.Wait(context.Background())
				reads <- delayRead{v, time.Since(start)}
			}()
			m.park()
		case "advance":
			time.Sleep(o.d) // the bubble's fake clock
			m.advance(o.d)
		}
		synctest.Wait()
		if diff := delayCompare(s, m, reads); diff != "" {
			return fmt.Sprintf("after step %d (%+v) at %v: %s", i, o, m.now, diff)
		}
	}
	s.Close() // ends a reader still blocked
	return ""
}

// delayCompare checks the reader's returns and the count against m.
func delayCompare(s *signal.Signal, m *delayModel, reads chan delayRead) string {
	for _, want := range m.got {
		select {
		case got := <-reads:
			if got != want {
				return fmt.Sprintf("reader got %+v, model %+v", got, want)
			}
		default:
			return fmt.Sprintf("reader still blocked, model has it return %+v", want)
		}
	}
	m.got = m.got[:0]
	select {
	case got := <-reads:
		return fmt.Sprintf("reader returned %+v, model has it blocked", got)
	default:
	}
	if c := s.Count(); c != m.count {
		return fmt.Sprintf("Count = %d, model %d", c, m.count)
	}
	return ""
}

type delayOp struct {
	kind string // add, take, park, advance
	n    uint64
	d    time.Duration
}

// TestWakeDelayModel checks a delayed signal against delayModel: on the
// bubble's fake clock, a blocked reader is woken exactly a delay after the
// first add of a window (never earlier, never later), at once when the
// batch threshold is reached, and never when a Take left nothing.
func TestWakeDelayModel(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		delay := rapid.SampledFrom([]time.Duration{time.Millisecond, 5 * time.Millisecond, 20 * time.Millisecond}).Draw(rt, "delay")
		batch := rapid.SampledFrom([]uint64{0, 3, 64}).Draw(rt, "batch")
		adaptive := rapid.Bool().Draw(rt, "adaptive")
		ops := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) delayOp {
			o := delayOp{kind: rapid.SampledFrom([]string{"add", "add", "add", "take", "park", "park", "advance", "advance"}).Draw(t, "kind")}
			switch o.kind {
			case "add":
				o.n = rapid.SampledFrom([]uint64{0, 1, 1, 2, 5, 70}).Draw(t, "n")
			case "advance":
				// microseconds: short steps (so that adaptive wakeups pile
				// up within a delay) and steps around each delay
				o.d = time.Duration(rapid.SampledFrom([]int{0, 0, 100, 500, 1000, 1001, 5000,
					5001, 6000, 20000, 20001, 25000}).Draw(t, "µs")) * time.Microsecond
			}
			return o
		}), 1, 80).Draw(rt, "ops")
		var diff string
		synctest.Test(t, func(*testing.T) { diff = delayRun(delay, batch, adaptive, ops) })
		if diff != "" {
			rt.Fatalf("delay=%v batch=%d adaptive=%v: %s", delay, batch, adaptive, diff)
		}
	})
}
