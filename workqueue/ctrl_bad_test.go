package workqueue_test

import (
	"fmt"
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/workqueue"
)

// Bad and extreme arguments of the controller calls: non-positive delays,
// priorities at the ends of int, nil options, a tenant function that
// panics.

// nonPositive are the delays that make AddAfter an Add.
var nonPositive = []time.Duration{0, -1, -time.Hour, math.MinInt64}

func TestNonPositiveDelayIsAddInEveryState(t *testing.T) {
	for _, d := range nonPositive {
		t.Run(fmt.Sprint(d), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { nonPositiveDelay(t, d) })
		})
	}
}

func nonPositiveDelay(t *testing.T, d time.Duration) {
	q := workqueue.New[int]()
	sleep(time.Second) // a clock that has moved: now+d must not matter
	if !q.AddAfter(1, d) || !q.AddWith(2, workqueue.AddOpts{After: d}) {
		t.Fatalf("AddAfter/AddWith(%v) of new items = false", d)
	}
	if st := q.Stats(); st.Queued != 2 || st.Delayed != 0 {
		t.Fatalf("Stats = %+v, want 2 queued, none delayed", st)
	}
	if q.AddAfter(1, d) {
		t.Fatal("AddAfter of a queued item = true")
	}
	wantItems(t, "TryTake", q.TryTake(8), 1, 2)

	// In flight: a kept-aside mark due at once, queued at Done.
	if !q.AddAfter(1, d) {
		t.Fatal("AddAfter of an item in flight = false")
	}
	if q.Done(1, 2) != 2 {
		t.Fatal("Done did not finish both items")
	}
	if st := q.Stats(); st.Queued != 1 || st.Delayed != 0 {
		t.Fatalf("after Done: Stats = %+v, want 1 queued, none delayed", st)
	}
	wantItems(t, "TryTake after Done", q.TryTake(8), 1)
	q.Done(1)

	// Delayed: queued now, the delay cancelled.
	q.AddAfter(3, time.Hour)
	if !q.AddAfter(3, d) {
		t.Fatal("AddAfter of a delayed item = false")
	}
	if st := q.Stats(); st.Queued != 1 || st.Delayed != 0 {
		t.Fatalf("Stats = %+v, want 1 queued, none delayed", st)
	}
	wantItems(t, "TryTake", q.TryTake(8), 3)
	q.Done(3)
	sleep(2 * time.Hour)
	wantItems(t, "TryTake after the cancelled delay", q.TryTake(8))
}

// With RateLimited, an After ≤ 0 is no delay of its own: the limiter's
// When decides.
func TestRateLimitedNonPositiveAfterTakesTheLimitersDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewWithConfig(workqueue.Config[int]{RateLimiter: workqueue.ExponentialRateLimiter[int](time.Second, time.Minute)})
		for i, d := range nonPositive {
			start := time.Now()
			if !q.AddWith(i, workqueue.AddOpts{After: d, RateLimited: true}) {
				t.Fatalf("AddWith(%d, After %v, RateLimited) = false", i, d)
			}
			mustWait(t, q, 1, i)
			if got := time.Since(start); got != time.Second {
				t.Fatalf("After %v, rate limited: ready after %v, want the limiter's 1s", d, got)
			}
			q.Done(i)
		}
	})
}

func TestPrioritiesAtTheEndsOfInt(t *testing.T) {
	for _, fair := range []bool{false, true} {
		t.Run(fmt.Sprintf("fairness=%v", fair), func(t *testing.T) {
			var c workqueue.Config[int]
			if fair {
				c.Fairness = func(k int) string { return fmt.Sprint(k % 2) }
			}
			q := workqueue.NewWithConfig(c)
			prios := []int{math.MinInt, math.MaxInt, 0, math.MinInt + 1, math.MaxInt - 1, math.MinInt, math.MaxInt}
			items := []int{1, 2, 3, 4, 5, 9, 7} // 1 and 9 share a lane, with fair share too
			for i, k := range items {
				q.AddWith(k, prio(prios[i]))
			}
			for i, k := range items {
				if p, ok := q.Priority(k); !ok || p != prios[i] {
					t.Fatalf("Priority(%d) = %d, %v, want %d", k, p, ok, prios[i])
				}
			}
			// MinInt raised to MaxInt, its lane not left empty (9 stays).
			if q.AddWith(1, prio(math.MaxInt)) {
				t.Fatal("AddWith raising a queued item = true")
			}
			if p, _ := q.Priority(1); p != math.MaxInt {
				t.Fatalf("Priority(1) = %d after the raise", p)
			}
			wantItems(t, "TryTake", q.TryTake(8), 2, 7, 1, 5, 3, 4, 9)
			if _, known := q.Priority(8); known {
				t.Fatal("Priority of an unknown item: known")
			}
		})
	}
}

func TestLimiterConstructorsPanicWithTheirNames(t *testing.T) {
	var nilLimiter workqueue.RateLimiter[int]
	for want, f := range map[string]func(){
		"workqueue: MaxOfRateLimiters with a nil limiter": func() { workqueue.MaxOfRateLimiters(workqueue.DefaultRateLimiter[int](), nilLimiter) },
		"workqueue: BucketRateLimiter(nil)":               func() { workqueue.BucketRateLimiter[int](nil) },
		"workqueue: ExponentialRateLimiter needs a positive base and max": func() {
			workqueue.ExponentialRateLimiter[int](time.Second, -1)
		},
	} {
		func() {
			defer func() {
				if r := recover(); r != want {
					t.Errorf("panic %v, want %q", r, want)
				}
			}()
			f()
		}()
	}
}

// tenantPanic is the panic of badTenant.
const tenantPanic = "no tenant for a negative item"

func badTenant(k int) string {
	if k < 0 {
		panic(tenantPanic)
	}
	return fmt.Sprint(k % 3)
}

// wantPanic calls f and fails unless it panics with the tenant's panic.
func wantPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		if r := recover(); r != tenantPanic {
			t.Fatalf("%s: panic %v, want %q", what, r, tenantPanic)
		}
	}()
	f()
}

// Every marking call with an item the tenant function panics for panics
// with that panic, changes nothing, leaves the lock free and the queue
// usable, also with a Wait parked and an item in flight.
func TestAPanickingTenantInEveryMarkLeavesTheQueueUsable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := &metrics{}
		q := workqueue.NewWithConfig(workqueue.Config[int]{
			Fairness:    badTenant,
			Metrics:     m,
			RateLimiter: workqueue.ExponentialRateLimiter[int](time.Millisecond, time.Second),
		})
		q.Add(1)
		q.AddAfter(2, time.Second)
		wantItems(t, "TryTake", q.TryTake(1), 1)
		waiting := parkWait(bg, q, 1)
		before := q.Stats()
		for name, mark := range map[string]func(){
			"Add":            func() { q.Add(-1) },
			"AddMode":        func() { q.AddMode(-1, workqueue.OneShot) },
			"AddAfter":       func() { q.AddAfter(-1, time.Millisecond) },
			"AddAfter(0)":    func() { q.AddAfter(-1, 0) },
			"AddWith":        func() { q.AddWith(-1, workqueue.AddOpts{After: time.Second, Priority: 3}) },
			"AddWith limits": func() { q.AddWith(-1, workqueue.AddOpts{RateLimited: true}) },
			"AddRateLimited": func() { q.AddRateLimited(-1) },
		} {
			wantPanic(t, name, mark)
			if workqueue.Locked(q) {
				t.Fatalf("%s: the lock is held after the panic", name)
			}
			if st := q.Stats(); st != before {
				t.Fatalf("%s changed the queue: %+v, was %+v", name, st, before)
			}
			if p, known := q.Priority(-1); known {
				t.Fatalf("%s: the item is known (priority %d)", name, p)
			}
		}
		testkit.Pending(t, waiting)
		m.mu.Lock()
		depth, adds := m.depth, m.adds
		m.mu.Unlock()
		if depth != 0 || adds != 2 {
			t.Fatalf("metrics depth %d, adds %d, want 0 and the 2 real marks", depth, adds)
		}

		// Usable: the parked Wait gets the next item, the delay fires, the
		// item in flight finishes.
		if !q.Add(3) {
			t.Fatal("Add after the panics = false")
		}
		if r := <-waiting; r.err != nil || len(r.items) != 1 || r.items[0] != 3 {
			t.Fatalf("parked Wait = %v, %v, want [3]", r.items, r.err)
		}
		sleep(time.Second)
		wantItems(t, "TryTake of the delayed item", q.TryTake(8), 2)
		if q.Done(1, 2, 3) != 3 {
			t.Fatal("Done after the panics did not finish the three items")
		}
		q.Close()
		if err := q.Drain(bg); err != nil {
			t.Fatalf("Drain = %v", err)
		}
	})
}

// The tests below pin behaviour the SPEC asks for that readyq does not
// have yet; each was reported to the lead with the repro it holds and is
// skipped until readyq is fixed.

// SPEC: "if it panics, the call panics with nothing changed". AddRateLimited
// asks the limiter's When (counting a failure) and reports Retried before
// it calls the tenant function, so a panicking tenant leaves a retry
// counted for an item the queue never knew, and the queue never Forgets it.
func TestAPanickingTenantInAddRateLimitedCountsNoRetry(t *testing.T) {
	m := &metrics{}
	q := workqueue.NewWithConfig(workqueue.Config[int]{Fairness: badTenant, Metrics: m})
	wantPanic(t, "AddRateLimited", func() { q.AddRateLimited(-1) })
	wantPanic(t, "AddWith RateLimited", func() { q.AddWith(-1, workqueue.AddOpts{RateLimited: true}) })
	if n := q.NumRequeues(-1); n != 0 {
		t.Fatalf("NumRequeues = %d after two refused retries, want 0", n)
	}
	if m.retries != 0 {
		t.Fatalf("Retried reported %d times for refused retries", m.retries)
	}
}

// SPEC: a queued item raised to a higher priority moves to the tail of
// its new priority. When it was the last item of its lane, unqueue drops
// the lane looked up at the new priority (raise has already set it), does
// not find it there and panics with the lock held.
func TestRaisingTheLastItemOfALane(t *testing.T) {
	q := workqueue.New[int]()
	q.AddWith(1, prio(2))
	q.AddWith(2, prio(1))
	if q.AddWith(2, prio(2)) { // panics: slice bounds out of range [-1::]
		t.Fatal("AddWith raising a queued item = true")
	}
	wantItems(t, "TryTake", q.TryTake(8), 1, 2)
}

// SPEC: AddAfter(item, d) makes the item ready at now+d. For a d so long
// that now+d wraps round int64, the queue puts the item at the head of
// its delay heap with a timer of ~292 years, so no other delayed item is
// queued until Close.
func TestAHugeDelayStallsNoOtherDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New[int]()
		q.AddAfter(0, time.Nanosecond) // starts the queue's clock
		sleep(time.Second)
		wantItems(t, "TryTake", q.TryTake(1), 0)
		q.AddAfter(1, math.MaxInt64)
		q.AddAfter(2, time.Millisecond)
		sleep(time.Hour)
		wantItems(t, "TryTake an hour later", q.TryTake(8), 2)
		if st := q.Stats(); st.Delayed != 1 {
			t.Fatalf("Stats = %+v, want the huge delay still delayed", st)
		}
		q.Close()
	})
}
