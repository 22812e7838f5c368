package workqueue_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/workqueue"
)

// mustJitter is ExponentialRateLimiterWith that fails t on an error.
func mustJitter(t *testing.T, b workqueue.Backoff) workqueue.RateLimiter[string] {
	t.Helper()
	l, err := workqueue.ExponentialRateLimiterWith[string](b)
	if err != nil {
		t.Fatalf("ExponentialRateLimiterWith(%+v): %v", b, err)
	}
	return l
}

// cut is the documented jittered delay: d·(1 − f·u), in [0, d].
func cut(d time.Duration, f, u float64) time.Duration {
	return d - time.Duration(float64(d)*(f*u))
}

// TestExponentialRateLimiterWithNoJitterByDefault: the zero Jitter gives
// ExponentialRateLimiter's exact delays and never calls Rand.
func TestExponentialRateLimiterWithNoJitterByDefault(t *testing.T) {
	for _, c := range []struct{ base, max time.Duration }{
		{5 * time.Millisecond, 1000 * time.Second}, {1, math.MaxInt64}, {2 * time.Second, time.Second},
	} {
		l := mustJitter(t, workqueue.Backoff{Base: c.base, Max: c.max, Rand: func() float64 {
			t.Fatal("Rand called without Jitter")
			return 0
		}})
		for n := range 70 {
			if got, want := l.When("x"), wantBackoff(c.base, c.max, n); got != want {
				t.Fatalf("base %v, max %v: When #%d = %v, want %v", c.base, c.max, n, got, want)
			}
		}
	}
}

// TestExponentialRateLimiterWithJitterIsDeterministic: two limiters on
// sources with the same seed give the same delays, and each is the
// documented d·(1 − Jitter·u) for the source's u.
func TestExponentialRateLimiterWithJitterIsDeterministic(t *testing.T) {
	const base, max, f = time.Millisecond, time.Second, 0.25
	seeded := func() func() float64 { return rand.New(rand.NewPCG(7, 11)).Float64 }
	a := mustJitter(t, workqueue.Backoff{Base: base, Max: max, Jitter: f, Rand: seeded()})
	b := mustJitter(t, workqueue.Backoff{Base: base, Max: max, Jitter: f, Rand: seeded()})
	us := seeded()
	varied := false
	for n := range 40 {
		item := []string{"x", "y"}[n%2]
		want := cut(wantBackoff(base, max, n/2), f, us())
		da, db := a.When(item), b.When(item)
		if da != want || db != want {
			t.Fatalf("When #%d of %s = %v and %v, want %v both", n/2, item, da, db, want)
		}
		varied = varied || da != wantBackoff(base, max, n/2)
	}
	if !varied {
		t.Fatal("no delay was jittered")
	}
}

// TestExponentialRateLimiterWithJitterBounds: every delay lies in
// [d·(1 − Jitter), d], so never past Max, for sources at and beyond the
// ends of [0, 1) and a seeded one, up to the largest Duration.
func TestExponentialRateLimiterWithJitterBounds(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	sources := map[string]func() float64{
		"0": func() float64 { return 0 }, "just below 1": func() float64 { return math.Nextafter(1, 0) },
		"1": func() float64 { return 1 }, "2": func() float64 { return 2 },
		"-1": func() float64 { return -1 }, "NaN": math.NaN, "seeded": r.Float64,
	}
	for name, src := range sources {
		for _, f := range []float64{0.1, 0.5, 1} {
			for _, c := range []struct{ base, max time.Duration }{
				{5 * time.Millisecond, 1000 * time.Second}, {1, math.MaxInt64}, {math.MaxInt64, math.MaxInt64},
			} {
				l := mustJitter(t, workqueue.Backoff{Base: c.base, Max: c.max, Jitter: f, Rand: src})
				for n := range 70 {
					d := wantBackoff(c.base, c.max, n)
					// d·(1 − f) in floats, less a relative and a 1ns slack
					// for the rounding of the cut and of float64(got).
					lo := float64(d)*(1-f)*(1-1e-12) - 1
					if got := l.When("x"); float64(got) < lo || got < 0 || got > d {
						t.Fatalf("source %s, jitter %v, base %v, max %v: When #%d = %v, want in [%.0f, %d]", name, f, c.base, c.max, n, got, lo, d)
					}
				}
			}
		}
	}
}

// TestExponentialRateLimiterWithJitterEnds pins the ends: u = 0 (and
// below, and NaN) keeps the delay, u ≥ 1 cuts the whole fraction, and
// full jitter at u = 1 gives 0.
func TestExponentialRateLimiterWithJitterEnds(t *testing.T) {
	for _, c := range []struct {
		f, u float64
		want time.Duration
	}{
		{0.1, 0, time.Second}, {0.1, -1, time.Second}, {0.1, math.NaN(), time.Second},
		{0.1, 1, 900 * time.Millisecond}, {0.1, 5, 900 * time.Millisecond},
		{0.5, 0.5, 750 * time.Millisecond}, {1, 1, 0}, {1, 0.25, 750 * time.Millisecond},
	} {
		l := mustJitter(t, workqueue.Backoff{Base: time.Second, Max: time.Hour, Jitter: c.f, Rand: func() float64 { return c.u }})
		if got := l.When("x"); got != c.want {
			t.Errorf("jitter %v, u %v: When = %v, want %v", c.f, c.u, got, c.want)
		}
	}
}

// TestExponentialRateLimiterWithJitterCapRespected: once the doubling
// passes Max, an undrawn delay (u = 0) is Max exactly and none is above.
func TestExponentialRateLimiterWithJitterCapRespected(t *testing.T) {
	u := 0.0
	l := mustJitter(t, workqueue.Backoff{Base: time.Millisecond, Max: 100 * time.Millisecond, Jitter: 0.5, Rand: func() float64 { return u }})
	for n := range 64 {
		u = float64(n%4) / 4
		want := cut(wantBackoff(time.Millisecond, 100*time.Millisecond, n), 0.5, u)
		if got := l.When("x"); got != want || got > 100*time.Millisecond {
			t.Fatalf("When #%d (u %v) = %v, want %v, at most the 100ms cap", n, u, got, want)
		}
	}
}

// TestExponentialRateLimiterWithBadBackoff: each bad field is refused
// with an error that matches ErrInvalid and names it.
func TestExponentialRateLimiterWithBadBackoff(t *testing.T) {
	for _, c := range []struct {
		b    workqueue.Backoff
		want string
	}{
		{workqueue.Backoff{Max: time.Second}, "workqueue: exponential rate limiter: base 0s is not positive"},
		{workqueue.Backoff{Base: time.Second, Max: -1}, "workqueue: exponential rate limiter: max -1ns is not positive"},
		{workqueue.Backoff{Base: 1, Max: 1, Jitter: -0.1}, "workqueue: exponential rate limiter: jitter -0.1 is not in [0, 1]"},
		{workqueue.Backoff{Base: 1, Max: 1, Jitter: 1.5}, "workqueue: exponential rate limiter: jitter 1.5 is not in [0, 1]"},
		{workqueue.Backoff{Base: 1, Max: 1, Jitter: math.NaN()}, "workqueue: exponential rate limiter: jitter NaN is not in [0, 1]"},
	} {
		l, err := workqueue.ExponentialRateLimiterWith[int](c.b)
		if l != nil || !errors.Is(err, workqueue.ErrInvalid) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("ExponentialRateLimiterWith(%+v) = %v, %v; want nil and %q (ErrInvalid)", c.b, l, err, c.want)
		}
	}
}

// TestExponentialRateLimiterWithPanickingRandCountsNothing: a Rand that
// panics leaves the count as it was, and the limiter usable.
func TestExponentialRateLimiterWithPanickingRandCountsNothing(t *testing.T) {
	boom := true
	l := mustJitter(t, workqueue.Backoff{Base: time.Second, Max: time.Hour, Jitter: 1, Rand: func() float64 {
		if boom {
			panic("rand")
		}
		return 0
	}})
	func() {
		defer func() { _ = recover() }()
		l.When("x")
	}()
	if n := l.NumRequeues("x"); n != 0 {
		t.Fatalf("NumRequeues = %d after a panicking Rand, want 0", n)
	}
	boom = false
	if d := l.When("x"); d != time.Second {
		t.Fatalf("When = %v, want the first delay, 1s", d)
	}
}

// TestAddRateLimitedWithJitterWaitsTheJitteredDelay: in a queue, a
// jittered retry is ready exactly at its cut delay, not a nanosecond
// before.
func TestAddRateLimitedWithJitterWaitsTheJitteredDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l, err := workqueue.ExponentialRateLimiterWith[int](workqueue.Backoff{
			Base: 100 * time.Millisecond, Max: time.Second, Jitter: 0.5, Rand: func() float64 { return 0.5 },
		})
		if err != nil {
			t.Fatal(err)
		}
		q := workqueue.NewWithConfig(workqueue.Config[int]{RateLimiter: l})
		defer q.Close()
		q.AddRateLimited(1) // 100ms·(1 − 0.5·0.5) = 75ms
		sleep(75*time.Millisecond - 1)
		wantItems(t, "TryTake 1ns before 75ms", q.TryTake(8))
		sleep(1)
		wantItems(t, "TryTake at 75ms", q.TryTake(8), 1)
	})
}
