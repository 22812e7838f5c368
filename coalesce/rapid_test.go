package coalesce_test

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/coalesce"
	"github.com/evsync/evsync/model"
	"pgregory.net/rapid"
)

// op is one step of a drawn sequence.
type op struct {
	kind  string // wake, advance, flush, close, trywait, events
	count int    // wake: how many; advance: microseconds
}

// config is a drawn Waker configuration.
type config struct {
	delay, maxWait time.Duration
	maxBatch       uint64
	adaptive       bool
	zero           bool // the zero value instead of New(0)
}

func drawConfig(t *rapid.T) config {
	c := config{
		delay:    rapid.SampledFrom([]time.Duration{0, time.Millisecond, 5 * time.Millisecond, 20 * time.Millisecond}).Draw(t, "delay"),
		maxBatch: rapid.SampledFrom([]uint64{0, 1, 3, 8}).Draw(t, "maxBatch"),
	}
	c.adaptive = rapid.Bool().Draw(t, "adaptive")
	if c.delay != 0 && rapid.Bool().Draw(t, "debounce") {
		c.maxWait = c.delay * time.Duration(rapid.IntRange(1, 5).Draw(t, "maxWait/delay"))
	}
	if c == (config{}) {
		c.zero = rapid.Bool().Draw(t, "zero value")
	}
	return c
}

func drawOps(t *rapid.T) []op {
	kinds := []string{"wake", "wake", "advance", "advance", "flush", "trywait", "trywait", "events", "close"}
	return rapid.SliceOfN(rapid.Custom(func(t *rapid.T) op {
		o := op{kind: rapid.SampledFrom(kinds).Draw(t, "kind")}
		switch o.kind {
		case "wake":
			o.count = rapid.IntRange(1, 4).Draw(t, "wakes")
		case "advance":
			// microseconds: short steps (so that WithAdaptive's wakeups
			// pile up within a delay) and steps around each delay
			o.count = rapid.SampledFrom([]int{0, 0, 0, 100, 100, 500, 1000, 1001, 2000,
				5000, 5001, 6000, 10000, 19000, 20000, 20001, 25000}).Draw(t, "µs")
		}
		return o
	}), 1, 60).Draw(t, "ops")
}

// run applies ops to a real Waker on the bubble's fake clock and to the
// model, comparing after each step; it returns the first difference, or
// "". It runs inside a synctest bubble.
func run(c config, ops []op) string {
	var opts []coalesce.Option
	if c.maxBatch != 0 {
		opts = append(opts, coalesce.WithMaxBatch(c.maxBatch))
	}
	if c.maxWait != 0 {
		opts = append(opts, coalesce.WithMaxWait(c.maxWait))
	}
	m := model.NewCoalescer(c.delay, c.maxBatch, c.maxWait)
	if c.adaptive {
		opts = append(opts, coalesce.WithAdaptive())
		m.Adaptive()
	}
	w := coalesce.New(c.delay, opts...)
	if c.zero {
		w = new(coalesce.Waker)
	}
	defer w.Close()
	for i, o := range ops {
		if diff := step(w, m, o); diff != "" {
			return fmt.Sprintf("step %d (%v) at %v: %s", i, o, m.Now(), diff)
		}
		if err := m.Validate(); err != nil {
			return fmt.Sprintf("step %d: model: %v", i, err)
		}
		if diff := compare(w, m); diff != "" {
			return fmt.Sprintf("after step %d (%v) at %v: %s", i, o, m.Now(), diff)
		}
	}
	return ""
}

func step(w *coalesce.Waker, m *model.Coalescer, o op) string {
	switch o.kind {
	case "wake":
		for range o.count {
			w.Wake()
			m.Wake()
		}
	case "advance":
		d := time.Duration(o.count) * time.Microsecond
		time.Sleep(d) // the bubble's fake clock
		synctest.Wait()
		m.Advance(d)
	case "flush":
		w.Flush()
		m.Flush()
	case "close":
		w.Close()
		m.Close()
	case "trywait":
		events, ok := tryWait(w)
		mEvents, merr := m.TryWait()
		mOK := merr == nil
		if events != mEvents || ok != mOK {
			return fmt.Sprintf("wakeup: real (%d, %v), model (%d, %v)", events, ok, mEvents, mOK)
		}
	case "events":
		if got, want := w.Events(), m.Events(); got != want {
			return fmt.Sprintf("Events: real %d, model %d", got, want)
		}
	}
	return ""
}

// tryWait is the non-blocking consumer: a token from C, then Events.
func tryWait(w *coalesce.Waker) (events uint64, ok bool) {
	select {
	case _, open := <-w.C():
		events = w.Events()
		return events, open || events != 0
	default:
		return 0, false
	}
}

func compare(w *coalesce.Waker, m *model.Coalescer) string {
	st := w.Stats()
	armed, _ := m.Armed()
	if st.Pending != m.Pending() || w.Pending() != m.Pending() || st.Wakeups != m.Wakeups() || st.Armed != armed || st.Closed != m.Closed() {
		return fmt.Sprintf("real %v, model pending=%d wakeups=%d armed=%v closed=%v",
			st, m.Pending(), m.Wakeups(), armed, m.Closed())
	}
	return ""
}

// TestWakerModel checks drawn operation sequences against the model. Each
// sequence runs in its own synctest bubble, so the real Waker's timers run
// on a fake clock, exactly when the model's explicit clock says they are
// due. Draws happen on rapid's goroutine, before the bubble starts, and a
// difference is reported back to it, so rapid can shrink the sequence.
func TestWakerModel(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		c, ops := drawConfig(rt), drawOps(rt)
		var diff string
		synctest.Test(t, func(*testing.T) { diff = run(c, ops) })
		if diff != "" {
			rt.Fatalf("%+v: %s", c, diff)
		}
	})
}
