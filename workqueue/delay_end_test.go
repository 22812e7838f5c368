package workqueue_test

import (
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/internal/testsupport/fakeclock"
	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/model"
	"github.com/evsync/evsync/workqueue"
	"pgregory.net/rapid"
)

// Tests of ready times at the clock's end. A ready time past the end is
// the end: the item is not ready before it. At the end every ready time
// has come. The end of a user's clock is about 2⁶² ns past the queue's
// first reading (WithClock), where the queue's time is 2⁶³−1 ns.

// onTheEndClock returns a queue and a model whose clocks read the same.
// The queue is on a fake clock, first read at once. So its time is 2⁶²
// ns then, and the model is moved on as far.
func onTheEndClock() (*workqueue.Queue[int], *model.WorkQueue, *fakeclock.Clock) {
	f := fakeclock.New(t0)
	q := workqueue.NewWithConfig(workqueue.Config[int]{
		RateLimiter: workqueue.ExponentialRateLimiter[int](time.Millisecond, 8*time.Millisecond),
	}, workqueue.WithClock(f))
	q.AddAfter(0, 1) // the queue's first reading of f
	q.Remove(0)
	m := model.NewWorkQueueWith(model.WorkQueueConfig{BaseDelay: time.Millisecond, MaxDelay: 8 * time.Millisecond})
	m.Advance(1 << 62)
	return q, m, f
}

// TestReplaceAtTheClocksEnd is the case where the queue and the model
// differed. Item 0 is delayed past the clock's end, and queued when the
// clock gets there, behind item 1. A Replace of the queued 1 with a huge
// delay sets its ready time to the end, which is now. So 1 stays where it
// is, as for a delay ≤ 0. The queue took it off and queued it again, at
// the tail.
func TestReplaceAtTheClocksEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q, m, f := onTheEndClock()
		for _, mk := range []func(int, time.Duration) bool{q.AddAfter, m.AddAfter} {
			mk(1, 0)
			mk(0, math.MaxInt64)
		}
		f.StepWait(math.MaxInt64 - 1<<62) // to the end of the queue's clock
		m.Advance(math.MaxInt64 - m.Now())
		wantItems(t, "the model's queue at the end", m.Queue(), 1, 0)
		for _, d := range []time.Duration{math.MaxInt64, 1} {
			o := workqueue.AddOpts{After: d, Replace: true}
			if got, want := q.AddWith(1, o), m.AddWith(1, model.AddOpts(o)); got || want {
				t.Fatalf("AddWith(1, %+v) = %v, model %v, want false", o, got, want)
			}
		}
		if st := q.Stats(); st.Queued != 2 || st.Delayed != 0 {
			t.Fatalf("Stats = %+v, want 2 queued, none delayed", st)
		}
		wantItems(t, "the model's queue after Replace", m.Queue(), 1, 0)
		wantItems(t, "TryTake after Replace", q.TryTake(8), 1, 0)
	})
}

// endDelays are the delays of TestCtrlQueueClockEndModel: some whose
// ready times pass the clock's end, and some that do not.
var endDelays = []time.Duration{math.MaxInt64, math.MaxInt64 - 1, math.MaxInt64 / 2, time.Hour, 0, -1, time.Second}

// TestCtrlQueueClockEndModel is the rapid machine of TestCtrlQueueModel
// on a fake clock with huge delays, Replace among them, and steps that
// take the clock to its end or near it. The queue and the model must
// agree there as anywhere else.
func TestCtrlQueueClockEndModel(t *testing.T) {
	testkit.CheckModel(t, func(t *rapid.T) {
		rapid.SyncTest(t, func(t *rapid.T) {
			q, m, f := onTheEndClock()
			cm := &ctrlMachine{q: q, m: m, step: f.Step, start: map[int]time.Duration{}, keys: 3, delays: endDelays}
			t.Cleanup(func() { cm.q.Close() })
			t.Repeat(map[string]func(*rapid.T){
				"Add": cm.Add, "AddAfter": cm.AddAfter, "Replace": cm.replace, "AddWith": cm.AddWith,
				"TryTake": cm.TryTake, "Done": cm.Done, "Rearm": cm.Rearm, "Remove": cm.Remove,
				"Advance": cm.Advance, "Far": cm.far, "": cm.Check,
			})
		})
	})
}

// far moves the clock a long way: to its end, to 1 ns before it, or an
// eighth or a quarter of its span on.
func (cm *ctrlMachine) far(t *rapid.T) {
	left := math.MaxInt64 - cm.m.Now()
	d := rapid.SampledFrom([]time.Duration{left, max(0, left-1), math.MaxInt64 / 8, math.MaxInt64 / 4}).Draw(t, "far")
	cm.advance(min(d, left))
}
