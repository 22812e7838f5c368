package workqueue_test

import (
	"fmt"
	"math"
	"math/big"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/workqueue"
)

// wantBackoff is the exact n-th delay of an exponential limiter: base·2ⁿ,
// or max if that is more. It works in big integers, so it shares no
// overflow with the code under test.
func wantBackoff(base, max time.Duration, n int) time.Duration {
	d := new(big.Int).Lsh(big.NewInt(int64(base)), uint(n))
	if d.Cmp(big.NewInt(int64(max))) > 0 {
		return max
	}
	return time.Duration(d.Int64())
}

// TestExponentialRateLimiterSaturates checks every delay of the first 70
// retries against exact arithmetic. Past the max the delay stays at the
// max. A doubling that wrapped round int64 gave a negative delay, which
// the queue reads as "now": a failing item was retried at once for ever.
// The sizes are client-go's (1 ms … 1000 s, 1 min … 1000 h), the
// default's, those of issue 18 and the ends of the Duration range.
func TestExponentialRateLimiterSaturates(t *testing.T) {
	type limits struct{ base, max time.Duration }
	cases := []limits{
		{time.Millisecond, 1000 * time.Second},
		{time.Minute, 1000 * time.Hour},
		{5 * time.Millisecond, 1000 * time.Second},
		{5 * time.Millisecond, 3 * time.Hour},
		{5 * time.Millisecond, math.MaxInt64},
		{3 * time.Hour, 1<<62 + 1<<61},
		{1, math.MaxInt64},
		{1, math.MaxInt64 - 1},
		{math.MaxInt64, math.MaxInt64},
		{math.MaxInt64 - 1023, math.MaxInt64},
		{2 * time.Second, time.Second}, // base above max: max from the first retry
		{time.Second, time.Second},
		{1, 1},
	}
	for e := range 63 {
		cases = append(cases, limits{1 << e, math.MaxInt64}, limits{1 << e, 1000 * time.Second})
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("base=%d/max=%d", c.base, c.max), func(t *testing.T) {
			l := workqueue.ExponentialRateLimiter[string](c.base, c.max)
			for n := range 70 {
				if got, want := l.When("x"), wantBackoff(c.base, c.max, n); got != want {
					t.Fatalf("When #%d = %v, want %v", n, got, want)
				}
			}
			if n := l.NumRequeues("x"); n != 70 {
				t.Fatalf("NumRequeues = %d, want 70", n)
			}
		})
	}
}

// TestExponentialRateLimiterClientGoSizes pins the figures client-go's
// TestItemExponentialFailureRateLimiterOverFlow expects of the same
// limits, and those of issue 18.
func TestExponentialRateLimiterClientGoSizes(t *testing.T) {
	for _, c := range []struct {
		base, max time.Duration
		before    int // When calls first
		want      time.Duration
	}{
		{time.Millisecond, 1000 * time.Second, 5, 32 * time.Millisecond},
		{time.Millisecond, 1000 * time.Second, 1000, 1000 * time.Second},
		{time.Minute, 1000 * time.Hour, 2, 4 * time.Minute},
		{time.Minute, 1000 * time.Hour, 1000, 1000 * time.Hour},
		{5 * time.Millisecond, math.MaxInt64, 40, 5 * time.Millisecond << 40},
		{5 * time.Millisecond, math.MaxInt64, 41, math.MaxInt64},
		{5 * time.Millisecond, math.MaxInt64, 100, math.MaxInt64},
		{5 * time.Millisecond, math.MaxInt64, 1000, math.MaxInt64},
		{3 * time.Hour, 1<<62 + 1<<61, 20, 1<<62 + 1<<61},
	} {
		l := workqueue.ExponentialRateLimiter[string](c.base, c.max)
		for range c.before {
			l.When("x")
		}
		if got := l.When("x"); got != c.want {
			t.Errorf("ExponentialRateLimiter(%v, %v): When after %d calls = %v, want %v", c.base, c.max, c.before, got, c.want)
		}
	}
}

// TestExponentialRateLimiterAfterAMillionFailures makes a million retries
// of one item: every delay is positive and at most the max, the last ones
// are the max, and NumRequeues counts them all.
func TestExponentialRateLimiterAfterAMillionFailures(t *testing.T) {
	const failures = 1_000_000
	l := workqueue.ExponentialRateLimiter[int](5*time.Millisecond, math.MaxInt64)
	for n := range failures {
		if d := l.When(1); d <= 0 || (n >= 41 && d != math.MaxInt64) {
			t.Fatalf("When #%d = %v, want positive and, from #41 on, the max", n, d)
		}
	}
	if n := l.NumRequeues(1); n != failures {
		t.Fatalf("NumRequeues = %d, want %d", n, failures)
	}
}

// TestAddRateLimitedNeverRetriesAtOnceAfterManyFailures is issue 18 in a
// queue: a retry that keeps failing waits the max, never "now". Every
// AddRateLimited counts a failure, those of an item in flight too.
func TestAddRateLimitedNeverRetriesAtOnceAfterManyFailures(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := workqueue.ExponentialRateLimiter[int](5*time.Millisecond, math.MaxInt64)
		q := workqueue.NewWithConfig(workqueue.Config[int]{RateLimiter: l})
		q.Add(1)
		mustWait(t, q, 1, 1)
		for range 41 { // kept aside: the first, due in 5ms, wins
			q.AddRateLimited(1)
		}
		q.Done(1)
		sleep(5 * time.Millisecond)
		wantItems(t, "TryTake at the first retry's time", q.TryTake(8), 1)
		q.AddRateLimited(1) // the 42nd failure: 5ms·2⁴¹ is past the max
		q.Done(1)
		sleep(time.Hour)
		wantItems(t, "TryTake an hour later", q.TryTake(8))
		if st := q.Stats(); st.Delayed != 1 {
			t.Fatalf("Stats = %+v, want the retry delayed", st)
		}
		q.Close()
	})
}
