package model_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/evsync/evsync/model"
)

// us returns a source that hands out vals in turn and counts its calls.
func us(t *testing.T, vals ...float64) (src func() float64, calls *int) {
	calls = new(int)
	return func() float64 {
		if *calls >= len(vals) {
			t.Fatalf("Rand called %d times, want at most %d", *calls+1, len(vals))
		}
		*calls++
		return vals[*calls-1]
	}, calls
}

// TestWorkQueueJitterCutsEachRetry: each retry's delay d becomes
// d·(1 − Jitter·u), one u per rate-limited add, clamped to [0, 1].
// AddAfter and plain AddWith draw nothing.
func TestWorkQueueJitterCutsEachRetry(t *testing.T) {
	src, calls := us(t, 0.5, 2, math.NaN(), -1, 0.25)
	q := model.NewWorkQueueWith(model.WorkQueueConfig{BaseDelay: 100 * ms, MaxDelay: time.Second, Jitter: 0.5, Rand: src})
	q.AddAfter(9, time.Hour)
	q.AddWith(8, model.AddOpts{After: time.Hour, Priority: 1})
	for k, want := range []time.Duration{
		75 * ms,  // 100ms·(1 − 0.5·0.5)
		50 * ms,  // u 2 counts as 1
		100 * ms, // NaN counts as 0
		100 * ms, // so does -1
	} {
		wantAdd(t, "AddRateLimited", q.AddRateLimited(k), true)
		wantReadyAt(t, q, k, want)
	}
	if *calls != 4 {
		t.Fatalf("Rand called %d times for 4 retries, want 4", *calls)
	}
	q.Advance(50 * ms)
	wantQueue(t, q, 1)
	wantAdd(t, "AddWith RateLimited", q.AddWith(1, model.AddOpts{RateLimited: true}), false)
	if *calls != 5 || q.NumRequeues(1) != 2 {
		t.Fatalf("Rand calls %d, NumRequeues(1) %d after a retry of a queued item; want 5, 2", *calls, q.NumRequeues(1))
	}
	q.Close()
	wantAdd(t, "AddRateLimited after Close", q.AddRateLimited(5), false) // src would fail t on a 6th call
	valid(t, q)
}

// TestWorkQueueFullJitter: under Jitter 1, u 0 keeps the delay, 0.5
// halves it and 1 makes the retry ready at once. A retry of a queued item
// draws its u too, in call order.
func TestWorkQueueFullJitter(t *testing.T) {
	src, _ := us(t, 0, 0, 0.5, 1)
	q := model.NewWorkQueueWith(model.WorkQueueConfig{BaseDelay: 10 * ms, MaxDelay: 15 * ms, Jitter: 1, Rand: src})
	q.Add(2)
	q.AddRateLimited(2) // queued: counts the first failure, u 0
	q.AddRateLimited(1) // u 0: 10ms
	wantReadyAt(t, q, 1, 10*ms)
	q.Advance(5 * ms)
	if got := q.NumRequeues(2); got != 1 {
		t.Fatalf("NumRequeues(2) = %d, want 1", got)
	}
	wantQueue(t, q, 2)
	q.AddRateLimited(3) // 10ms·(1 − 0.5), at 5ms
	wantReadyAt(t, q, 3, 10*ms)
	q.AddRateLimited(4) // 10ms·(1 − 1): now
	wantQueue(t, q, 2, 4)
	valid(t, q)
}

// TestWorkQueueNoJitterNeverDraws: without Jitter the source is never
// called and the delays are the doubling's.
func TestWorkQueueNoJitterNeverDraws(t *testing.T) {
	src, _ := us(t)
	q := model.NewWorkQueueWith(model.WorkQueueConfig{BaseDelay: ms, MaxDelay: time.Second, Rand: src})
	q.Add(1)
	wantAdd(t, "AddRateLimited", q.AddRateLimited(1), false)
	wantAdd(t, "AddRateLimited of 2", q.AddRateLimited(2), true)
	wantReadyAt(t, q, 2, ms)
}

// TestWorkQueueBadJitterPanics: a Jitter outside [0, 1], NaN too, is a
// programming error of the model's user.
func TestWorkQueueBadJitterPanics(t *testing.T) {
	for _, j := range []float64{-0.1, 1.5, math.NaN(), math.Inf(1)} {
		func() {
			defer func() {
				if r, _ := recover().(string); !strings.HasPrefix(r, "model: workqueue limiter jitter") {
					t.Errorf("Jitter %v: recovered %q, want the jitter panic", j, r)
				}
			}()
			model.NewWorkQueueWith(model.WorkQueueConfig{Jitter: j})
		}()
	}
}
