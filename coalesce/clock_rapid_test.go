package coalesce_test

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/coalesce"
	"github.com/evsync/evsync/internal/testsupport/fakeclock"
	"github.com/evsync/evsync/model"
	"pgregory.net/rapid"
)

// runFake is run with the Waker on a fake clock given by WithClock. An
// advance steps the fake clock alongside the model's, and the bubble's
// clock never moves. The real Waker so meets the model only if it reads
// every time and sets every timer on the fake clock. At the end, Close
// must leave no fake timer armed.
func runFake(c config, ops []op) string {
	f := fakeclock.New(epoch)
	opts := []coalesce.Option{coalesce.WithClock(f)}
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
	if diff := replay(w, m, f, ops); diff != "" {
		w.Close()
		return diff
	}
	w.Close()
	if n := f.Waiters(); n != 0 {
		return fmt.Sprintf("%d fake timers armed after Close", n)
	}
	return ""
}

// replay applies ops to w and m, comparing after each, and returns the
// first difference or "".
func replay(w *coalesce.Waker, m *model.Coalescer, f *fakeclock.Clock, ops []op) string {
	for i, o := range ops {
		var diff string
		if o.kind == "advance" {
			d := time.Duration(o.count) * time.Microsecond
			f.StepWait(d)
			m.Advance(d)
		} else {
			diff = step(w, m, o)
		}
		if diff != "" {
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

// TestWakerModelOnAFakeClock is TestWakerModel with the Waker on a fake
// clock, stepped alongside the model's Advance. The zero value takes no
// option, so drawn configurations that ask for it use New(0) here.
func TestWakerModelOnAFakeClock(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		c, ops := drawConfig(rt), drawOps(rt)
		var diff string
		synctest.Test(t, func(*testing.T) { diff = runFake(c, ops) })
		if diff != "" {
			rt.Fatalf("%+v: %s", c, diff)
		}
	})
}
