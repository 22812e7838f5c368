package kube_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/kube"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/workqueue"
	testingclock "k8s.io/utils/clock/testing"
)

// The first five tests are ports of client-go's fake-clock tests of its
// delaying and rate-limiting queues (util/workqueue's
// delaying_queue_test.go and rate_limiting_queue_test.go). They keep the
// scenarios, their steps and their expected values. Only the constructor
// and the helpers that looked inside client-go's queue are kube's. Every
// expectation holds for kube as it does for client-go: none of the
// scenarios reaches a documented difference (see the package doc).
//
// Each runs twice. Once in real time, polling as client-go's tests do.
// Then in a synctest bubble, where the polls take no real time.

// inRealTimeAndBubble runs test in real time, then in a synctest bubble.
func inRealTimeAndBubble(t *testing.T, test func(t *testing.T)) {
	t.Run("time=real", test)
	t.Run("time=synctest", func(t *testing.T) { synctest.Test(t, test) })
}

// newDelayingQueue is kube's stand-in for client-go's
// NewDelayingQueueWithConfig(DelayingQueueConfig{Clock: c}). The queue
// shuts down at the test's end, which stops its timer.
func newDelayingQueue(t *testing.T, c *testingclock.FakeClock) *kube.Queue[string] {
	t.Helper()
	q := kube.New(nil, kube.Config[string]{Clock: c})
	t.Cleanup(q.ShutDown)
	return q
}

// poll checks cond every millisecond until it reports true or an error,
// or until timeout has passed (an error that wait.Interrupted accepts).
func poll(timeout time.Duration, cond func() (bool, error)) error {
	return wait.PollUntilContextTimeout(context.Background(), time.Millisecond, timeout, true,
		func(context.Context) (bool, error) { return cond() })
}

// waitForAdded waits up to 10 s for q to have depth items queued.
func waitForAdded(q *kube.Queue[string], depth int) error {
	return poll(10*time.Second, func() (bool, error) { return q.Len() == depth, nil })
}

// waitForWaitingQueueToFill waits up to 10 s for q to hold a delayed item.
// In client-go it waits for the queue's own goroutine to take in the
// AddAfter calls, read from a channel inside the queue. kube's AddAfter
// has delayed the item by the time it returns. So what this can check is
// that the queue counts a delayed item.
func waitForWaitingQueueToFill(q *kube.Queue[string]) error {
	return poll(10*time.Second, func() (bool, error) { return q.Stats().Delayed > 0, nil })
}

func TestSimpleQueue(t *testing.T) {
	inRealTimeAndBubble(t, func(t *testing.T) {
		fakeClock := testingclock.NewFakeClock(time.Now())
		q := newDelayingQueue(t, fakeClock)

		q.AddAfter("foo", 50*time.Millisecond)
		if err := waitForWaitingQueueToFill(q); err != nil {
			t.Fatalf("the delay was not taken in: %v", err)
		}
		if n := q.Len(); n != 0 {
			t.Errorf("Len = %d before the delay, want 0", n)
		}

		fakeClock.Step(60 * time.Millisecond)
		if err := waitForAdded(q, 1); err != nil {
			t.Errorf("the item was not queued after its delay: %v", err)
		}
		item, _ := q.Get()
		q.Done(item)

		// client-go's queue wakes up every 10 s: nothing must come of it.
		fakeClock.Step(10 * time.Second)
		err := poll(30*time.Millisecond, func() (bool, error) {
			if q.Len() > 0 {
				return false, errors.New("an item was queued")
			}
			return false, nil
		})
		if !wait.Interrupted(err) {
			t.Errorf("the 30ms watch ended with %v, want its timeout", err)
		}
		if n := q.Len(); n != 0 {
			t.Errorf("Len = %d after the watch, want 0", n)
		}
	})
}

func TestDeduping(t *testing.T) {
	inRealTimeAndBubble(t, func(t *testing.T) {
		fakeClock := testingclock.NewFakeClock(time.Now())
		q := newDelayingQueue(t, fakeClock)

		// A later delay of the same item does not postpone it.
		q.AddAfter("foo", 50*time.Millisecond)
		if err := waitForWaitingQueueToFill(q); err != nil {
			t.Fatalf("the delay was not taken in: %v", err)
		}
		q.AddAfter("foo", 70*time.Millisecond)
		if err := waitForWaitingQueueToFill(q); err != nil {
			t.Fatalf("the delay was not taken in: %v", err)
		}
		if n := q.Len(); n != 0 {
			t.Errorf("Len = %d before either delay, want 0", n)
		}
		fakeClock.Step(60 * time.Millisecond)
		if err := waitForAdded(q, 1); err != nil {
			t.Errorf("the item was not queued at the first delay: %v", err)
		}
		item, _ := q.Get()
		q.Done(item)
		fakeClock.Step(20 * time.Millisecond) // past the later delay: nothing left of it
		if n := q.Len(); n != 0 {
			t.Errorf("Len = %d past the later delay, want 0", n)
		}

		// An earlier delay of the same item brings it forward.
		q.AddAfter("foo", 50*time.Millisecond)
		q.AddAfter("foo", 30*time.Millisecond)
		if err := waitForWaitingQueueToFill(q); err != nil {
			t.Fatalf("the delay was not taken in: %v", err)
		}
		if n := q.Len(); n != 0 {
			t.Errorf("Len = %d before either delay, want 0", n)
		}
		fakeClock.Step(40 * time.Millisecond)
		if err := waitForAdded(q, 1); err != nil {
			t.Errorf("the item was not queued at the earlier delay: %v", err)
		}
		item, _ = q.Get()
		q.Done(item)
		fakeClock.Step(20 * time.Millisecond) // past the first delay: nothing left of it
		if n := q.Len(); n != 0 {
			t.Errorf("Len = %d past the first delay, want 0", n)
		}
	})
}

func TestAddTwoFireEarly(t *testing.T) {
	inRealTimeAndBubble(t, func(t *testing.T) {
		fakeClock := testingclock.NewFakeClock(time.Now())
		q := newDelayingQueue(t, fakeClock)

		q.AddAfter("foo", time.Second)
		q.AddAfter("bar", 50*time.Millisecond)
		if err := waitForWaitingQueueToFill(q); err != nil {
			t.Fatalf("the delays were not taken in: %v", err)
		}
		if n := q.Len(); n != 0 {
			t.Errorf("Len = %d before the delays, want 0", n)
		}

		fakeClock.Step(60 * time.Millisecond)
		if err := waitForAdded(q, 1); err != nil {
			t.Fatalf("bar was not queued at 60ms: %v", err)
		}
		if item, _ := q.Get(); item != "bar" {
			t.Errorf("Get at 60ms = %q, want bar", item)
		}

		q.AddAfter("baz", 2*time.Second)
		fakeClock.Step(time.Second)
		if err := waitForAdded(q, 1); err != nil {
			t.Fatalf("foo was not queued at 1.06s: %v", err)
		}
		if item, _ := q.Get(); item != "foo" {
			t.Errorf("Get at 1.06s = %q, want foo", item)
		}

		fakeClock.Step(2 * time.Second)
		if err := waitForAdded(q, 1); err != nil {
			t.Fatalf("baz was not queued at 3.06s: %v", err)
		}
		if item, _ := q.Get(); item != "baz" {
			t.Errorf("Get at 3.06s = %q, want baz", item)
		}
	})
}

func TestCopyShifting(t *testing.T) {
	inRealTimeAndBubble(t, func(t *testing.T) {
		fakeClock := testingclock.NewFakeClock(time.Now())
		q := newDelayingQueue(t, fakeClock)

		q.AddAfter("foo", time.Second)
		q.AddAfter("bar", 500*time.Millisecond)
		q.AddAfter("baz", 250*time.Millisecond)
		if err := waitForWaitingQueueToFill(q); err != nil {
			t.Fatalf("the delays were not taken in: %v", err)
		}
		if n := q.Len(); n != 0 {
			t.Errorf("Len = %d before the delays, want 0", n)
		}

		// All three fall due in one step. They come in ready-time order.
		fakeClock.Step(2 * time.Second)
		if err := waitForAdded(q, 3); err != nil {
			t.Fatalf("the three were not queued: %v", err)
		}
		for _, want := range []string{"baz", "bar", "foo"} {
			if item, _ := q.Get(); item != want {
				t.Errorf("Get = %q, want %q", item, want)
			}
		}
	})
}

// waitFor is what the rate-limited queue was asked to delay: an item's
// ready time on the fake clock.
type waitFor struct {
	item    string
	readyAt time.Time
}

// delayingQueue stands for the inside of client-go's delaying queue that
// its rate-limiting test reads: the channel on which its AddAfter calls
// arrive. kube's queue asks its rate limiter for each delay and adds it to
// the clock's time at once. So a limiter that reports each answer, as
// a ready time on the same clock, shows what the queue was asked.
type delayingQueue struct {
	waitingForAddCh chan waitFor
}

// reportingLimiter is a rate limiter that reports each delay it gives.
type reportingLimiter struct {
	workqueue.TypedRateLimiter[string]
	clock *testingclock.FakeClock
	to    chan waitFor
}

func (l reportingLimiter) When(item string) time.Duration {
	d := l.TypedRateLimiter.When(item)
	l.to <- waitFor{item, l.clock.Now().Add(d)}
	return d
}

// newRateLimitingQueue is kube's stand-in for client-go's
// NewRateLimitingQueue(limiter) whose delaying queue runs on fakeClock.
func newRateLimitingQueue(t *testing.T, limiter workqueue.TypedRateLimiter[string], fakeClock *testingclock.FakeClock) (*kube.Queue[string], *delayingQueue) {
	t.Helper()
	dq := &delayingQueue{waitingForAddCh: make(chan waitFor, 1000)}
	q := kube.New(reportingLimiter{limiter, fakeClock, dq.waitingForAddCh}, kube.Config[string]{Clock: fakeClock})
	t.Cleanup(q.ShutDown)
	return q, dq
}

func TestRateLimitingQueue(t *testing.T) {
	inRealTimeAndBubble(t, func(t *testing.T) {
		limiter := workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, time.Second)
		fakeClock := testingclock.NewFakeClock(time.Now())
		queue, delayingQueue := newRateLimitingQueue(t, limiter, fakeClock)

		// wantDelay checks the delay of the next AddRateLimited.
		wantDelay := func(want time.Duration) {
			t.Helper()
			w := <-delayingQueue.waitingForAddCh
			if got := w.readyAt.Sub(fakeClock.Now()); got != want {
				t.Errorf("%s delayed by %v, want %v", w.item, got, want)
			}
		}
		queue.AddRateLimited("one")
		wantDelay(time.Millisecond)
		queue.AddRateLimited("one")
		wantDelay(2 * time.Millisecond)
		if n := queue.NumRequeues("one"); n != 2 {
			t.Errorf("NumRequeues(one) = %d, want 2", n)
		}

		queue.AddRateLimited("two")
		wantDelay(time.Millisecond)
		queue.AddRateLimited("two")
		wantDelay(2 * time.Millisecond)

		queue.Forget("one")
		if n := queue.NumRequeues("one"); n != 0 {
			t.Errorf("NumRequeues(one) after Forget = %d, want 0", n)
		}
		queue.AddRateLimited("one")
		wantDelay(time.Millisecond)
	})
}

// TestRateLimitingQueueDelaysOnTheFakeClock goes on where
// TestRateLimitingQueue stops, to show that the delays asked for are the
// ones the queue keeps. Each item keeps its earliest ready time, which is
// 1 ms for both.
func TestRateLimitingQueueDelaysOnTheFakeClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		limiter := workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, time.Second)
		fakeClock := testingclock.NewFakeClock(time.Now())
		q := kube.New(limiter, kube.Config[string]{Clock: fakeClock})
		t.Cleanup(q.ShutDown)
		q.AddRateLimited("one") // 1 ms
		q.AddRateLimited("one") // 2 ms: the earlier time stays
		q.AddRateLimited("two") // 1 ms
		q.AddRateLimited("two") // 2 ms
		fakeClock.Step(time.Millisecond - 1)
		synctest.Wait()
		if n := q.Len(); n != 0 {
			t.Fatalf("Len = %d 1ns before 1ms, want 0", n)
		}
		fakeClock.Step(1)
		synctest.Wait()
		if n := q.Len(); n != 2 {
			t.Fatalf("Len = %d at 1ms, want 2", n)
		}
	})
}

// TestConfigClockIsHonoured: with a fake clock that never moves, a delay
// stays pending while the bubble's time passes an hour. Once the fake
// clock passes it, the item is queued.
func TestConfigClockIsHonoured(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fakeClock := testingclock.NewFakeClock(time.Now())
		q := newDelayingQueue(t, fakeClock)
		q.AddAfter("a", time.Millisecond)
		time.Sleep(time.Hour)
		synctest.Wait()
		if n := q.Len(); n != 0 {
			t.Fatalf("Len = %d an hour of bubble time later, want 0", n)
		}
		fakeClock.Step(time.Millisecond)
		synctest.Wait()
		if n := q.Len(); n != 1 {
			t.Fatalf("Len = %d once the fake clock passed the delay, want 1", n)
		}
	})
}

// TestConfigClockTimesTheMetrics: the latency, the work duration and the
// gauges of unfinished work come from the fake clock. The gauges tick every
// 500 ms of it, while the bubble's time stands still.
func TestConfigClockTimesTheMetrics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := new(provider)
		fakeClock := testingclock.NewFakeClock(time.Now())
		q := kube.New(nil, kube.Config[string]{Name: "test", MetricsProvider: p, Clock: fakeClock})
		t.Cleanup(q.ShutDown)
		step := func(d time.Duration) {
			fakeClock.Step(d)
			synctest.Wait()
		}
		q.Add("a")
		step(100 * time.Millisecond)
		a := get(t, q)
		step(500 * time.Millisecond) // a tick at 500 ms, read at 600 ms
		step(400 * time.Millisecond) // and at 1 s
		if u, l, n := p.unfinished.value(), p.longest.value(), p.unfinished.sets.Load(); u != 0.9 || l != 0.9 || n != 2 {
			t.Fatalf("unfinished, longest = %v, %v after %d updates; want 0.9, 0.9 after 2", u, l, n)
		}
		q.Done(a)
		if got := p.latency.values(); !slices.Equal(got, []float64{0.1}) {
			t.Errorf("latency observations %v, want [0.1]", got)
		}
		if got := p.work.values(); !slices.Equal(got, []float64{0.9}) {
			t.Errorf("work duration observations %v, want [0.9]", got)
		}
	})
}

// TestConfigClockLeavesNoGoroutine: a queue on a fake clock with items
// still delayed leaves no goroutine once ShutDown returns, in either
// shutdown. synctest.Test fails if one outlives the bubble.
func TestConfigClockLeavesNoGoroutine(t *testing.T) {
	for _, lossless := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			fakeClock := testingclock.NewFakeClock(time.Now())
			q := kube.New(nil, kube.Config[string]{Clock: fakeClock, Lossless: lossless})
			q.AddAfter("a", time.Hour)
			q.AddRateLimited("b")
			q.ShutDown()
			if fakeClock.HasWaiters() {
				t.Errorf("Lossless %v: a timer of the fake clock is armed after ShutDown", lossless)
			}
		})
	}
}
