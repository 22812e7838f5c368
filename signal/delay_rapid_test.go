package signal_test

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/model"
	"github.com/evsync/evsync/signal"
	"pgregory.net/rapid"
)

// delayModel is what a delayed signal with one reader must do, on an
// explicit clock. Its coalescer is the model of package coalesce's Waker,
// and its events are the adds the signal notes: an add that finds the
// reader blocked notes one while no more than limit are pending (one per
// window; AdaptiveWakeups+1 with the adaptive policy, which judges windows
// by them; with maxWait, also one per timer period that has none yet), and
// an add that brings the count to the batch threshold notes one and
// flushes. Each wakeup hands the reader the whole count, if there is any.
// Take and a reader that finds a non-zero count are never delayed.
type delayModel struct {
	c        *model.Coalescer
	batch    uint64
	limit    uint64
	debounce bool // maxWait is set
	count    uint64
	parked   bool        // the reader is blocked in Wait
	got      []delayRead // reader returns not yet checked
}

// delayConfig is a delayed signal's policy: WithWakeDelay(delay) and the
// options that the other fields ask for (0 and false: not given).
type delayConfig struct {
	delay    time.Duration
	maxWait  time.Duration
	batch    uint64
	adaptive bool
}

// options is the WakeOptions of c.
func (c delayConfig) options() []signal.WakeOption {
	var opts []signal.WakeOption
	if c.batch != 0 {
		opts = append(opts, signal.WithMaxBatch(c.batch))
	}
	if c.maxWait != 0 {
		opts = append(opts, signal.WithMaxWait(c.maxWait))
	}
	if c.adaptive {
		opts = append(opts, signal.WithAdaptive())
	}
	return opts
}

func newDelayModel(cfg delayConfig) *delayModel {
	m := &delayModel{c: model.NewCoalescer(cfg.delay, 0, cfg.maxWait), batch: cfg.batch, debounce: cfg.maxWait != 0}
	if cfg.adaptive {
		m.c.Adaptive()
		m.limit = signal.AdaptiveWakeups
	}
	return m
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
	before := m.c.Wakeups()
	switch {
	case m.batch != 0 && m.count >= m.batch:
		m.c.Wake()
		m.c.Flush()
	case m.c.Pending() <= m.limit || m.debounce && !m.c.Extended():
		m.c.Wake()
	}
	if m.c.Wakeups() != before {
		m.serve(m.c.Now())
	}
}

// serve hands the count to the blocked reader at time at, if there is
// any count.
func (m *delayModel) serve(at time.Duration) {
	if m.count != 0 {
		m.got = append(m.got, delayRead{m.count, at})
		m.count, m.parked = 0, false
	}
}

func (m *delayModel) park() {
	m.parked = true
	m.serve(m.c.Now()) // a Wait that finds a count takes it at once
}

// advance moves the clock one deadline at a time; a window that ends on
// the way wakes the reader at its deadline (only one can: the next needs
// an add). A debounce's deadline may set the timer again instead.
func (m *delayModel) advance(d time.Duration) {
	end := m.c.Now() + d
	for {
		armed, deadline := m.c.Armed()
		if !armed || deadline > end {
			break
		}
		before := m.c.Wakeups()
		m.c.Advance(deadline - m.c.Now())
		if m.c.Wakeups() != before {
			m.serve(deadline)
		}
	}
	m.c.Advance(end - m.c.Now())
}

// delayRun drives a real delayed signal and the model with ops, in a
// synctest bubble, and returns the first difference or "".
func delayRun(cfg delayConfig, ops []delayOp) string {
	s := signal.New(0, signal.WithWakeDelay(cfg.delay, cfg.options()...))
	defer s.Close()
	m := newDelayModel(cfg)
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
			return fmt.Sprintf("after step %d (%+v) at %v: %s", i, o, m.c.Now(), diff)
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

// delayOps draws the operations of a delayed-signal run.
func delayOps() *rapid.Generator[[]delayOp] {
	return rapid.SliceOfN(rapid.Custom(func(t *rapid.T) delayOp {
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
	}), 1, 80)
}

// checkDelayModel runs ops on a signal with cfg's policy and on the model,
// in a synctest bubble, and fails rt at the first difference.
func checkDelayModel(t *testing.T, rt *rapid.T, cfg delayConfig, ops []delayOp) {
	var diff string
	synctest.Test(t, func(*testing.T) { diff = delayRun(cfg, ops) })
	if diff != "" {
		rt.Fatalf("%+v: %s", cfg, diff)
	}
}

// TestWakeDelayModel checks a delayed signal against delayModel: on the
// bubble's fake clock, a blocked reader is woken exactly a delay after the
// first add of a window (never earlier, never later), at once when the
// batch threshold is reached, and never when a Take left nothing.
func TestWakeDelayModel(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		var cfg delayConfig
		cfg.delay = rapid.SampledFrom([]time.Duration{time.Millisecond, 5 * time.Millisecond, 20 * time.Millisecond}).Draw(rt, "delay")
		cfg.batch = rapid.SampledFrom([]uint64{0, 3, 64}).Draw(rt, "batch")
		cfg.adaptive = rapid.Bool().Draw(rt, "adaptive")
		checkDelayModel(t, rt, cfg, delayOps().Draw(rt, "ops"))
	})
}

// TestWakeMaxWaitModel is TestWakeDelayModel for WithMaxWait, the
// trailing debounce (a test of its own, so that the fail files of
// TestWakeDelayModel still replay). The reader is woken after a timer
// period with no add, and never later than maxWait after the window's
// first add.
func TestWakeMaxWaitModel(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		var cfg delayConfig
		cfg.delay = rapid.SampledFrom([]time.Duration{time.Millisecond, 5 * time.Millisecond}).Draw(rt, "delay")
		cfg.maxWait = cfg.delay * time.Duration(rapid.SampledFrom([]int{1, 2, 3, 8}).Draw(rt, "maxWait/delay"))
		cfg.batch = rapid.SampledFrom([]uint64{0, 3, 64}).Draw(rt, "batch")
		cfg.adaptive = rapid.Bool().Draw(rt, "adaptive")
		checkDelayModel(t, rt, cfg, delayOps().Draw(rt, "ops"))
	})
}
