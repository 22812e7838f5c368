package workqueue_test

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/clock"
	"github.com/evsync/evsync/internal/testsupport/fakeclock"
	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/workqueue"
	"pgregory.net/rapid"
)

// The tests below give a queue a fake clock with WithClock, inside a
// synctest bubble. The bubble's own time never moves in them, unless a
// test sleeps to show that the queue does not follow it. So what fires
// fires because the fake clock passed it.

const ms = time.Millisecond

// t0 is the fake clocks' starting time.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// faked is a queue on a fake clock, and that clock.
type faked struct {
	q *workqueue.Queue[int]
	f *fakeclock.Clock
}

// onFakeClock returns a queue configured by c on a fake clock at t0. At
// the test's end it checks that no timer of the clock is left armed.
func onFakeClock(t *testing.T, c workqueue.Config[int]) faked {
	t.Helper()
	f := fakeclock.New(t0)
	t.Cleanup(func() {
		if n := f.Waiters(); n != 0 && !t.Failed() {
			t.Errorf("%d timers of the fake clock are still armed at the end", n)
		}
	})
	return faked{workqueue.NewWithConfig(c, workqueue.WithClock(f)), f}
}

// step moves the fake clock d on and lets the timers due by then run.
func (fq faked) step(d time.Duration) { fq.f.StepWait(d) }

// ready takes what is queued and checks that it is want.
func (fq faked) ready(t *testing.T, when string, want ...int) {
	t.Helper()
	wantItems(t, "TryTake "+when, fq.q.TryTake(8), want...)
}

func TestWithClockAddAfterFiresWhenTheFakeClockPassesIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fq := onFakeClock(t, workqueue.Config[int]{})
		fq.q.AddAfter(1, 10*ms)
		if n := fq.f.Waiters(); n != 1 {
			t.Fatalf("one item delayed arms %d fake timers, want 1", n)
		}
		fq.step(10*ms - 1)
		fq.ready(t, "1ns before the delay")
		fq.step(1)
		fq.ready(t, "at the delay", 1)
		if n := fq.f.Waiters(); n != 0 {
			t.Fatalf("with nothing delayed, %d fake timers are armed", n)
		}
	})
}

// TestWithClockEqualAndEarlierMarks: a second mark at the same delay
// keeps the first's time, a later one changes nothing, and an earlier one
// moves the item to it. Two items due at one moment come out in the order
// their times were set.
func TestWithClockEqualAndEarlierMarks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fq := onFakeClock(t, workqueue.Config[int]{})
		q := fq.q
		q.AddAfter(1, 10*ms)
		q.AddAfter(2, 10*ms)
		if q.AddAfter(1, 10*ms) || q.AddAfter(2, 30*ms) {
			t.Fatal("an equal or later mark of a delayed item reported new")
		}
		q.AddAfter(3, 20*ms)
		fq.step(4 * ms)
		q.AddAfter(3, 5*ms) // now due at 9 ms
		fq.step(5*ms - 1)
		fq.ready(t, "at 9ms less 1ns")
		fq.step(1)
		fq.ready(t, "at 9ms", 3)
		fq.step(1*ms - 1)
		fq.ready(t, "at 10ms less 1ns")
		fq.step(1)
		fq.ready(t, "at 10ms", 1, 2)
		fq.step(time.Hour)
		fq.ready(t, "an hour later")
	})
}

// TestWithClockRetriesBackOffAtTheFakeTimes retries one item while it is
// in flight, as a controller does, with client-go's exponential limiter
// shape. Each Done delays it by the next backoff, 1, 2, 4 … ms, and it
// comes back exactly then.
func TestWithClockRetriesBackOffAtTheFakeTimes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lim := workqueue.ExponentialRateLimiter[int](ms, 50*ms)
		fq := onFakeClock(t, workqueue.Config[int]{RateLimiter: lim})
		q := fq.q
		q.Add(7)
		fq.ready(t, "after Add", 7)
		for i, backoff := range []time.Duration{1 * ms, 2 * ms, 4 * ms, 8 * ms, 16 * ms, 32 * ms, 50 * ms, 50 * ms} {
			q.AddRateLimited(7)
			q.Done(7)
			fq.step(backoff - 1)
			fq.ready(t, "1ns before the backoff")
			fq.step(1)
			fq.ready(t, "at the backoff", 7)
			if n := q.NumRequeues(7); n != i+1 {
				t.Fatalf("after %d retries NumRequeues = %d", i+1, n)
			}
		}
		q.Done(7) // no mark: the queue forgets it, and the limiter its count
		if n := q.NumRequeues(7); n != 0 {
			t.Fatalf("NumRequeues after the last Done = %d, want 0", n)
		}
	})
}

// TestWithClockRateLimitedUsesTheLimitersDelays: AddRateLimited of items
// not in flight delays each by what the limiter returns, on the fake
// clock.
func TestWithClockRateLimitedUsesTheLimitersDelays(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fq := onFakeClock(t, workqueue.Config[int]{RateLimiter: newLimiter(3 * ms)})
		fq.q.AddRateLimited(1) // 3 ms
		fq.q.AddRateLimited(1) // 6 ms: the earlier time stays
		fq.q.AddRateLimited(2) // 3 ms
		fq.q.AddRateLimited(2) // 6 ms
		fq.q.AddRateLimited(2) // 9 ms
		fq.q.AddRateLimited(3) // 3 ms
		fq.step(3*ms - 1)
		fq.ready(t, "before 3ms")
		fq.step(1)
		fq.ready(t, "at 3ms", 1, 2, 3)
	})
}

// TestWithClockTheDefaultLimitersBucketRunsOnTheClock: the default
// limiter's token bucket (burst 100, 10 a second) is refilled by the fake
// clock. The 101st retry waits 100 ms for a token. After a fake second,
// ten tokens are back. On the wall clock, which stands still in the
// bubble, the next retry would wait 200 ms.
func TestWithClockTheDefaultLimitersBucketRunsOnTheClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fq := onFakeClock(t, workqueue.Config[int]{})
		for k := range 100 {
			fq.q.AddRateLimited(k) // 5 ms each: a new item's first backoff
		}
		fq.q.AddRateLimited(100) // the bucket is empty: 100 ms
		fq.step(5 * ms)
		if got := len(fq.q.TryTake(200)); got != 100 {
			t.Fatalf("at 5ms %d items are due, want 100", got)
		}
		fq.step(95*ms - 1)
		fq.ready(t, "before 100ms")
		fq.step(1)
		fq.ready(t, "at 100ms", 100)
		fq.step(time.Second - 100*ms)
		fq.q.AddRateLimited(101)
		fq.step(5 * ms)
		fq.ready(t, "5ms after a retry a fake second later", 101)
	})
}

// TestWithClockMetricsTimesComeFromTheClock: Waited, Worked and Running
// report fake times exactly.
func TestWithClockMetricsTimesComeFromTheClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := new(metrics)
		fq := onFakeClock(t, workqueue.Config[int]{Metrics: m})
		q := fq.q
		q.Add(1)
		q.Add(2)
		fq.step(3 * ms)
		fq.ready(t, "at 3ms", 1, 2)
		fq.step(7 * ms)
		q.Done(1)
		q.AddAfter(3, 5*ms)
		fq.step(5 * ms)
		if u, l := q.Running(); u != 12*ms || l != 12*ms {
			t.Fatalf("Running = %v, %v, want 12ms, 12ms", u, l)
		}
		fq.ready(t, "at 15ms", 3)
		fq.step(1 * ms)
		if u, l := q.Running(); u != 14*ms || l != 13*ms {
			t.Fatalf("Running = %v, %v, want 14ms (13+1), 13ms", u, l)
		}
		q.Done(2, 3)
		m.mu.Lock()
		defer m.mu.Unlock()
		if want := []time.Duration{3 * ms, 3 * ms, 0}; !slices.Equal(m.waited, want) {
			t.Errorf("Waited = %v, want %v", m.waited, want)
		}
		if want := []time.Duration{7 * ms, 13 * ms, 1 * ms}; !slices.Equal(m.worked, want) {
			t.Errorf("Worked = %v, want %v", m.worked, want)
		}
	})
}

// TestWithClockCloseLeavesNoTimerArmed: Close queues the delayed items at
// once, in ready-time order (Close's documented behaviour), and stops the
// fake timer. CloseDiscardingDelays and a Remove of the last delayed item
// stop it too. The bubble ends with no goroutine left, or synctest.Test
// would fail.
func TestWithClockCloseLeavesNoTimerArmed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fq := onFakeClock(t, workqueue.Config[int]{})
		fq.q.AddAfter(1, time.Hour)
		fq.q.AddAfter(2, time.Minute)
		fq.q.Close()
		if n := fq.f.Waiters(); n != 0 {
			t.Fatalf("after Close %d fake timers are armed", n)
		}
		fq.ready(t, "after Close", 2, 1)
		fq.step(2 * time.Hour)
		fq.ready(t, "after the delays")
	})
	synctest.Test(t, func(t *testing.T) {
		fq := onFakeClock(t, workqueue.Config[int]{})
		fq.q.AddAfter(1, time.Hour)
		if n := fq.q.CloseDiscardingDelays(); n != 1 {
			t.Fatalf("CloseDiscardingDelays dropped %d items, want 1", n)
		}
		if n := fq.f.Waiters(); n != 0 {
			t.Fatalf("after CloseDiscardingDelays %d fake timers are armed", n)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		fq := onFakeClock(t, workqueue.Config[int]{})
		fq.q.AddAfter(1, time.Hour)
		fq.q.Remove(1)
		if n := fq.f.Waiters(); n != 0 {
			t.Fatalf("after Remove of the only delayed item %d fake timers are armed", n)
		}
	})
}

// TestWithClockDrainWaitsForTheFakeClock: Drain waits for a delayed item,
// which only the fake clock brings.
func TestWithClockDrainWaitsForTheFakeClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fq := onFakeClock(t, workqueue.Config[int]{})
		fq.q.AddAfter(1, time.Second)
		drained := make(chan error, 1)
		go func() { drained <- fq.q.Drain(bg) }()
		time.Sleep(time.Hour) // the bubble's time, which the queue ignores
		synctest.Wait()
		if len(drained) != 0 {
			t.Fatal("Drain returned with an item delayed")
		}
		fq.step(time.Second)
		fq.ready(t, "at 1s", 1)
		fq.q.Done(1)
		testkit.MustNil(t, <-drained)
	})
}

// TestWithClockIsHonoured: a fake clock that never moves keeps a delay
// pending while the bubble's time passes an hour.
func TestWithClockIsHonoured(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fq := onFakeClock(t, workqueue.Config[int]{})
		fq.q.AddAfter(1, ms)
		time.Sleep(time.Hour)
		synctest.Wait()
		fq.ready(t, "an hour of bubble time later")
		if st := fq.q.Stats(); st.Delayed != 1 {
			t.Fatalf("Stats = %+v, want 1 delayed", st)
		}
		fq.step(ms)
		fq.ready(t, "once the fake clock passed it", 1)
	})
}

// TestWithClockAtTheZeroTime: a fake clock may start at the zero Time,
// which the queue must not take for "not read yet" at every reading.
func TestWithClockAtTheZeroTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := fakeclock.New(time.Time{})
		fq := faked{workqueue.New[int](workqueue.WithClock(f)), f}
		fq.q.AddAfter(1, 10*ms)
		fq.step(5 * ms)
		fq.q.AddAfter(2, 10*ms) // due at 15 ms
		fq.step(5 * ms)
		fq.ready(t, "at 10ms", 1)
		fq.step(5 * ms)
		fq.ready(t, "at 15ms", 2)
	})
}

// TestWithClockSetBackDelaysFromTheClocksOwnReading: a delay ends d after
// the clock's reading at its call, even on a clock set back past the
// queue's first reading. A delay set before the clock went back keeps its
// time on the clock.
func TestWithClockSetBackDelaysFromTheClocksOwnReading(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fq := onFakeClock(t, workqueue.Config[int]{})
		fq.q.AddAfter(1, 10*ms) // the first reading: t0, due at t0+10ms
		fq.step(-time.Hour)
		fq.q.AddAfter(2, 10*ms) // due at t0-1h+10ms
		fq.step(10*ms - 1)
		fq.ready(t, "1ns before t0-1h+10ms")
		fq.step(1)
		fq.ready(t, "at t0-1h+10ms", 2)
		fq.step(time.Hour - 1)
		fq.ready(t, "1ns before t0+10ms")
		fq.step(1)
		fq.ready(t, "at t0+10ms", 1)
	})
}

// TestWithClockNilIsTheWallClock: WithClock(nil) leaves the queue on
// package time, which in the bubble is the bubble's.
func TestWithClockNilIsTheWallClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New[int](workqueue.WithClock[clock.Timer](nil))
		q.AddAfter(1, ms)
		sleep(ms - 1)
		wantItems(t, "TryTake before 1ms", q.TryTake(8))
		sleep(1)
		wantItems(t, "TryTake at 1ms", q.TryTake(8), 1)
	})
}

// drawClock draws whether a model run puts its queue on a fake clock. It
// returns the options for the queue, and how to move its time: a sleep of
// the bubble, or a step of the fake clock while the bubble's time stands
// still. With the fake clock, every time the run checks (ready times,
// Waited, Worked, Running) must come from it.
func drawClock(t *rapid.T) ([]workqueue.Option, func(time.Duration)) {
	if !rapid.Bool().Draw(t, "fake clock") {
		return nil, time.Sleep
	}
	f := fakeclock.New(t0)
	return []workqueue.Option{workqueue.WithClock(f)}, f.Step
}
