package workqueue_test

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/workqueue"
)

func prio(p int) workqueue.AddOpts { return workqueue.AddOpts{Priority: p} }

func TestHigherPrioritiesAreHandedOutFirstFIFOWithin(t *testing.T) {
	q := workqueue.New[int]()
	q.AddWith(1, prio(0))
	q.AddWith(2, prio(5))
	q.AddWith(3, prio(-3))
	q.AddWith(4, prio(5))
	q.Add(5)
	q.AddWith(6, prio(math.MaxInt))
	q.AddWith(7, prio(math.MinInt))
	wantItems(t, "TryTake", q.TryTake(3), 6, 2, 4)
	wantItems(t, "TryTake", q.TryTake(8), 1, 5, 3, 7)
}

func TestABlockedWaitGetsTheHighestPriority(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New[int]()
		done := parkWait(bg, q, 1)
		q.AddWith(1, prio(9))
		r := <-done
		wantItems(t, "Wait", r.items, 1)
	})
}

func TestAMarkRaisesAQueuedItemsPriority(t *testing.T) {
	q := workqueue.New[int]()
	q.Add(1)
	q.Add(2)
	q.AddWith(3, prio(2))
	if q.AddWith(2, prio(2)) {
		t.Fatal("AddWith of a queued item = true")
	}
	if q.AddWith(1, prio(-1)) { // lower: changes nothing
		t.Fatal("AddWith of a queued item = true")
	}
	wantItems(t, "TryTake", q.TryTake(8), 3, 2, 1)
}

func TestPriorityIsKeptAcrossRequeue(t *testing.T) {
	q := workqueue.NewWithConfig(workqueue.Config[int]{Mode: workqueue.Level})
	q.AddWith(1, prio(3))
	q.Add(2)
	wantItems(t, "TryTake", q.TryTake(1), 1)
	q.Add(3)
	q.Done(1) // level: back at priority 3, ahead of 2 and 3
	wantItems(t, "TryTake", q.TryTake(8), 1, 2, 3)

	e := workqueue.New[int]()
	e.AddWith(1, prio(3))
	e.TryTake(1)
	e.Add(2)
	e.Add(1) // a kept-aside mark of priority 0: the item keeps 3
	e.Done(1)
	wantItems(t, "TryTake", e.TryTake(8), 1, 2)
}

func TestPriorityIsResetWhenTheQueueForgetsTheItem(t *testing.T) {
	q := workqueue.New[int]()
	q.AddWith(1, prio(3))
	q.TryTake(1)
	q.Done(1) // forgotten
	q.Add(2)
	q.Add(1)
	wantItems(t, "TryTake", q.TryTake(8), 2, 1)
}

func TestRemoveOfAnItemOnAPriorityLane(t *testing.T) {
	q := workqueue.New[int]()
	q.AddWith(1, prio(1))
	q.AddWith(2, prio(1))
	q.Add(3)
	q.Remove(1)
	if q.Len() != 2 {
		t.Fatalf("Len = %d, want 2", q.Len())
	}
	wantItems(t, "TryTake", q.TryTake(8), 2, 3)
	if q.Done(2, 3) != 2 {
		t.Fatal("Done did not finish both")
	}
}

func TestAPriorityItemIsNeverHandedOutTwice(t *testing.T) {
	q := workqueue.New[int]()
	q.AddWith(1, prio(1))
	wantItems(t, "TryTake", q.TryTake(1), 1)
	if !q.AddWith(1, prio(1)) {
		t.Fatal("mark in flight = false")
	}
	wantItems(t, "TryTake while in flight", q.TryTake(1))
	if q.Done(1) != 1 || q.Done(1) != 0 {
		t.Fatal("Done counts wrong")
	}
	wantItems(t, "TryTake after Done", q.TryTake(1), 1)
}

func tenantOf(k int) string { return fmt.Sprint(k / 100) } // 0..99: tenant 0, 100..199: tenant 1, ...

func TestFairShareGoesRoundRobinAcrossTenants(t *testing.T) {
	q := workqueue.NewWithConfig(workqueue.Config[int]{Fairness: tenantOf})
	for k := range 5 {
		q.Add(k) // tenant 0
	}
	q.Add(100)
	q.Add(101)
	q.Add(200)
	wantItems(t, "TryTake", q.TryTake(8), 0, 100, 200, 1, 101, 2, 3, 4)
}

func TestANewTenantWaitsAtMostOneHandOutPerTenantAhead(t *testing.T) {
	q := workqueue.NewWithConfig(workqueue.Config[int]{Fairness: func(k int) string { return fmt.Sprint(k / 100000) }})
	for k := range 10000 {
		q.Add(k) // tenant 0: 10,000 keys
	}
	wantItems(t, "TryTake", q.TryTake(3), 0, 1, 2)
	q.Add(100000) // tenant 1: one key
	got := q.TryTake(1)
	got = append(got, q.TryTake(1)...)
	if !slices.Contains(got, 100000) {
		t.Fatalf("the new tenant's key was not among the next two hand-outs: %v", got)
	}
}

func TestANewTenantJoinsTheRoundLast(t *testing.T) {
	q := workqueue.NewWithConfig(workqueue.Config[int]{Fairness: tenantOf})
	q.Add(0)
	q.Add(1)
	q.Add(100)
	q.Add(101)
	wantItems(t, "TryTake", q.TryTake(1), 0) // tenant 1 is next
	q.Add(200)
	wantItems(t, "TryTake", q.TryTake(8), 100, 1, 200, 101)
}

func TestFairShareWithinEachPriority(t *testing.T) {
	q := workqueue.NewWithConfig(workqueue.Config[int]{Fairness: tenantOf})
	q.Add(0)
	q.Add(1)
	q.AddWith(100, prio(1))
	q.AddWith(2, prio(1))
	q.Add(101)
	wantItems(t, "TryTake", q.TryTake(8), 100, 2, 0, 101, 1)
}

func TestAPanickingTenantFunctionLeavesTheQueueUsable(t *testing.T) {
	q := workqueue.NewWithConfig(workqueue.Config[int]{
		Fairness: func(k int) string {
			if k < 0 {
				panic("no tenant")
			}
			return tenantOf(k)
		},
	})
	q.Add(1)
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("no panic")
			}
		}()
		q.Add(-1)
	}()
	if workqueue.Locked(q) {
		t.Fatal("the lock is held after the panic")
	}
	q.Add(2)
	wantItems(t, "TryTake", q.TryTake(8), 1, 2)
}

// limiter is a RateLimiter that records its calls: When(item) is
// step·(failures+1).
type limiter struct {
	mu       sync.Mutex
	step     time.Duration
	failures map[int]int
	forgot   []int
}

func newLimiter(step time.Duration) *limiter {
	return &limiter{step: step, failures: map[int]int{}}
}

func (l *limiter) When(k int) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.failures[k]++
	return l.step * time.Duration(l.failures[k])
}

func (l *limiter) Forget(k int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.failures, k)
	l.forgot = append(l.forgot, k)
}

func (l *limiter) NumRequeues(k int) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.failures[k]
}

func (l *limiter) forgotten() []int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]int(nil), l.forgot...)
}

func (l *limiter) keeps() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.failures)
}

func TestAddRateLimitedBacksOffByTheLimitersDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newLimiter(10 * time.Millisecond)
		q := workqueue.NewWithConfig(workqueue.Config[int]{RateLimiter: l})
		q.Add(1)
		for try := 1; try <= 3; try++ {
			mustWait(t, q, 1, 1)
			start := time.Now()
			q.AddRateLimited(1) // failed: retry
			q.Done(1)
			mustWait(t, q, 1, 1)
			if d := time.Since(start); d != time.Duration(try)*10*time.Millisecond {
				t.Fatalf("retry %d after %v", try, d)
			}
			if n := q.NumRequeues(1); n != try {
				t.Fatalf("NumRequeues = %d, want %d", n, try)
			}
			q.Add(1) // and fails again: kept aside, queued at Done
			q.Done(1)
		}
		mustWait(t, q, 1, 1)
		q.Forget(1)
		if q.NumRequeues(1) != 0 {
			t.Fatal("Forget did not reset the retries")
		}
		q.Done(1)
	})
}

func TestTheLimiterForgetsAnItemTheQueueForgets(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newLimiter(time.Millisecond)
		q := workqueue.NewWithConfig(workqueue.Config[int]{RateLimiter: l})
		for k := range 100 {
			q.Add(k)
			mustWait(t, q, 1, k)
			q.AddRateLimited(k)
			q.Done(k)
		}
		sleep(time.Second)
		for q.Len() > 0 {
			q.Done(q.TryTake(10)...) // success, without Forget
		}
		synctest.Wait()
		if n := l.keeps(); n != 0 {
			t.Fatalf("the limiter still keeps %d items the queue has forgotten", n)
		}
		q.AddRateLimited(500)
		q.Remove(500)
		q.Close()
		q.AddRateLimited(501) // refused: nothing may stay behind
		if n := l.keeps(); n != 0 {
			t.Fatalf("the limiter keeps %d items after Remove and a refused retry", n)
		}
	})
}

func TestAddWithRateLimitedTakesTheSoonerDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newLimiter(time.Second)
		q := workqueue.NewWithConfig(workqueue.Config[int]{RateLimiter: l})
		start := time.Now()
		q.AddWith(1, workqueue.AddOpts{After: 100 * time.Millisecond, RateLimited: true})
		mustWait(t, q, 1, 1)
		if d := time.Since(start); d != 100*time.Millisecond {
			t.Fatalf("ready after %v, want 100ms", d)
		}
		start = time.Now()
		q.AddWith(2, workqueue.AddOpts{RateLimited: true, Priority: 4})
		mustWait(t, q, 1, 2)
		if d := time.Since(start); d != time.Second {
			t.Fatalf("ready after %v, want the limiter's 1s", d)
		}
	})
}

func TestTheDefaultRateLimiterIsClientGosControllerDefault(t *testing.T) {
	l := workqueue.DefaultRateLimiter[string]()
	want := []time.Duration{5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond}
	for i, w := range want {
		if d := l.When("a"); d != w {
			t.Fatalf("When #%d = %v, want %v", i, d, w)
		}
	}
	for range 40 {
		l.When("b")
	}
	if d := l.When("b"); d != 1000*time.Second {
		t.Fatalf("When after 40 failures = %v, want the 1000s cap", d)
	}
	if n := l.NumRequeues("a"); n != 4 {
		t.Fatalf("NumRequeues = %d, want 4", n)
	}
	l.Forget("a")
	if d := l.When("a"); d != 5*time.Millisecond {
		t.Fatalf("When after Forget = %v", d)
	}
}

func TestRateLimiterArgumentsAreChecked(t *testing.T) {
	for name, f := range map[string]func(){
		"ExponentialRateLimiter(0,1)": func() { workqueue.ExponentialRateLimiter[int](0, 1) },
		"BucketRateLimiter(nil)":      func() { workqueue.BucketRateLimiter[int](nil) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", name)
				}
			}()
			f()
		}()
	}
}

// metrics records what a queue reports; depth is the last total.
type metrics struct {
	mu                   sync.Mutex
	depth, adds, retries int
	waited, worked       []time.Duration
}

func (m *metrics) Depth(_, _, total int) { m.mu.Lock(); m.depth = total; m.mu.Unlock() }
func (m *metrics) Added()                { m.mu.Lock(); m.adds++; m.mu.Unlock() }
func (m *metrics) Retried()              { m.mu.Lock(); m.retries++; m.mu.Unlock() }
func (m *metrics) Waited(d time.Duration) {
	m.mu.Lock()
	m.waited = append(m.waited, d)
	m.mu.Unlock()
}
func (m *metrics) Worked(d time.Duration) {
	m.mu.Lock()
	m.worked = append(m.worked, d)
	m.mu.Unlock()
}

func TestMetricsReportTheClientGoSet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := &metrics{}
		q := workqueue.NewWithConfig(workqueue.Config[int]{Metrics: m, RateLimiter: newLimiter(time.Second)})
		q.Add(1)
		q.Add(1) // not new: not an add
		q.Add(2)
		if m.depth != 2 || m.adds != 2 {
			t.Fatalf("depth %d adds %d, want 2 and 2", m.depth, m.adds)
		}
		sleep(3 * time.Second)
		mustWait(t, q, 1, 1)
		sleep(time.Second)
		mustWait(t, q, 1, 2)
		if un, long := q.Running(); un != time.Second || long != time.Second {
			t.Fatalf("Running = %v, %v, want 1s, 1s", un, long)
		}
		sleep(time.Second)
		if un, long := q.Running(); un != 3*time.Second || long != 2*time.Second {
			t.Fatalf("Running = %v, %v, want 3s, 2s", un, long)
		}
		q.AddRateLimited(1)
		q.Done(1, 2)
		if un, long := q.Running(); un != 0 || long != 0 {
			t.Fatalf("Running with nothing in flight = %v, %v", un, long)
		}
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.depth != 0 || m.retries != 1 || m.adds != 3 {
			t.Fatalf("depth %d retries %d adds %d, want 0, 1, 3", m.depth, m.retries, m.adds)
		}
		if want := []time.Duration{3 * time.Second, 4 * time.Second}; !slices.Equal(m.waited, want) {
			t.Fatalf("waited %v, want %v", m.waited, want)
		}
		if want := []time.Duration{2 * time.Second, time.Second}; !slices.Equal(m.worked, want) {
			t.Fatalf("worked %v, want %v", m.worked, want)
		}
	})
}

func TestRunningWithoutMetricsIsZero(t *testing.T) {
	q := workqueue.New[int]()
	q.Add(1)
	q.TryTake(1)
	if un, long := q.Running(); un != 0 || long != 0 {
		t.Fatalf("Running = %v, %v", un, long)
	}
}

func TestPriorityOfAnItemHandedOut(t *testing.T) {
	q := workqueue.New[int]()
	q.AddWith(1, prio(7))
	q.Add(2)
	if p, ok := q.Priority(3); ok || p != 0 {
		t.Fatalf("Priority of an unknown item = %d, %v", p, ok)
	}
	items := q.TryTake(2)
	wantItems(t, "TryTake", items, 1, 2)
	if p, ok := q.Priority(1); !ok || p != 7 {
		t.Fatalf("Priority(1) = %d, %v, want 7, true", p, ok)
	}
	if p, ok := q.Priority(2); !ok || p != 0 {
		t.Fatalf("Priority(2) = %d, %v, want 0, true", p, ok)
	}
	q.Remove(1)
	if _, ok := q.Priority(1); ok {
		t.Fatal("Priority of a removed item in flight = true")
	}
}
