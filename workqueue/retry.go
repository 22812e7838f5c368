package workqueue

import (
	"math/rand/v2"
	"sync"
	"time"

	"github.com/evsync/evsync/internal/clk"
	"golang.org/x/time/rate"
)

// A RateLimiter decides how long a failed item waits before its retry. It
// has the method set of client-go's workqueue.TypedRateLimiter[T], so
// client-go's limiters can be a Config.RateLimiter as they are. Its
// methods are called outside the queue's lock, from any goroutine.
type RateLimiter[T comparable] interface {
	// When returns how long item waits before its next retry, and
	// counts the retry.
	When(item T) time.Duration
	// Forget drops what the limiter keeps for item.
	Forget(item T)
	// NumRequeues returns how many retries of item it has counted.
	NumRequeues(item T) int
}

// AddRateLimited marks item ready after the delay that the queue's rate
// limiter gives it (When), as AddAfter does. It also counts a retry. It is
// how a consumer retries an item that failed. Called while the consumer
// holds the item, it keeps the mark aside until Done (see AddAfter).
// Without Config.RateLimiter, the limiter is DefaultRateLimiter's.
//
// The queue forgets an item's retry state on its own. When it forgets an
// item that AddRateLimited was called for, it calls the limiter's Forget.
// That happens when the item's Done finds no mark left, or at Remove. So
// the limiter keeps nothing for items the queue no longer holds. Call
// Forget when an item succeeds, to start its next failure at the first
// delay even while it stays in the queue. After Close, AddRateLimited
// marks nothing and returns false.
func (q *Queue[T]) AddRateLimited(item T) bool {
	return q.add(item, q.s.cfg.mode, markOpts{retried: true})
}

// retryAfter is the delay of a retry of item (AddRateLimited) that an
// AddWith would delay by after (≤ 0: not at all): the limiter's When, or
// after if that is sooner. It counts the retry, and runs outside the lock.
func (c *settings[T]) retryAfter(item T, after time.Duration) time.Duration {
	d := c.limiter().When(item)
	if after <= 0 || d < after {
		after = d
	}
	if c.metrics != nil {
		c.metrics.Retried()
	}
	return after
}

// Forget tells the rate limiter that item is done with retries (client-go's
// Forget). Its next AddRateLimited waits the first delay again.
func (q *Queue[T]) Forget(item T) { q.s.cfg.limiter().Forget(item) }

// NumRequeues returns the rate limiter's count of item's retries.
func (q *Queue[T]) NumRequeues(item T) int { return q.s.cfg.limiter().NumRequeues(item) }

// limiter returns the queue's rate limiter, making the default one at the
// first use.
func (c *settings[T]) limiter() RateLimiter[T] {
	c.limOnce.Do(func() {
		if c.lim == nil {
			c.lim = defaultRateLimiter[T](c.clock.src)
		}
	})
	return c.lim
}

// DefaultRateLimiter returns a new limiter equal to client-go's
// DefaultTypedControllerRateLimiter. Its delay is the larger of two. One
// is a per-item exponential backoff of 5 ms, doubled at every retry, at
// most 1000 s. The other is an overall token bucket of 10 retries per
// second, with bursts of 100.
func DefaultRateLimiter[T comparable]() RateLimiter[T] {
	return defaultRateLimiter[T](clk.Clock{})
}

// defaultRateLimiter is DefaultRateLimiter whose bucket runs on c, the
// queue's clock. So a fake clock also refills the bucket.
func defaultRateLimiter[T comparable](c clk.Clock) RateLimiter[T] {
	b := bucket[T]{l: rate.NewLimiter(10, 100)}
	if !c.Wall() {
		b.c = &c
	}
	return MaxOfRateLimiters(ExponentialRateLimiter[T](5*time.Millisecond, 1000*time.Second), b)
}

// ExponentialRateLimiter returns a limiter whose n-th retry of an item
// (counting from 0) waits base·2ⁿ, at most max, until Forget. Once the
// doubling passes max, every retry waits max, however many failures
// follow (max from the first retry if base is above it). It keeps one
// count per item between a failure and its Forget. It panics if base or
// max is not positive. ExponentialRateLimiterWith adds jitter.
func ExponentialRateLimiter[T comparable](base, max time.Duration) RateLimiter[T] {
	if base <= 0 || max <= 0 {
		panic("workqueue: ExponentialRateLimiter needs a positive base and max")
	}
	return &exponential[T]{base: base, max: max, failures: make(map[T]int)}
}

// Backoff configures ExponentialRateLimiterWith. The zero Jitter is
// ExponentialRateLimiter(Base, Max), without jitter.
type Backoff struct {
	// Base is the first retry's delay and Max the cap, as in
	// ExponentialRateLimiter. Both must be positive.
	Base, Max time.Duration

	// Jitter is the fraction of each delay that may be cut off at random,
	// from 0 (none, the default) to 1. A retry whose delay d comes from
	// the doubling then waits d·(1 − Jitter·u), for a u from Rand in
	// [0, 1). So it waits between d·(1 − Jitter) and d, never past Max.
	// Jitter 1 is AWS's "full jitter", a delay spread over [0, d).
	Jitter float64

	// Rand returns the u of each jittered retry. It is called with the
	// limiter's lock held, once per When, so it need not be safe for
	// concurrent use if nothing else calls it. A seeded source gives the
	// same delays run after run: rand.New(rand.NewPCG(1, 2)).Float64
	// (math/rand/v2). A value outside [0, 1) counts as the nearer end of
	// [0, 1]. Nil is math/rand/v2's Float64. Without Jitter it is not called.
	Rand func() float64
}

// ExponentialRateLimiterWith returns the exponential limiter that b
// describes: ExponentialRateLimiter(b.Base, b.Max) whose delays are
// jittered as b.Jitter says. Jitter spreads the retries of items that
// failed together, so they do not all come back at the same moment.
//
// Jitter only shortens a delay. client-go's wait.Jitter lengthens one,
// by up to its factor, which can take a retry past the cap; client-go's
// and controller-runtime's queue limiters have no jitter at all. Cutting
// keeps Max a true cap, and Jitter 1 is the full jitter of AWS's
// "Exponential Backoff And Jitter".
//
// It returns nil and an error matching ErrInvalid, which says which, if
// b.Base or b.Max is not positive, or b.Jitter is not in [0, 1].
func ExponentialRateLimiterWith[T comparable](b Backoff) (RateLimiter[T], error) {
	switch {
	case b.Base <= 0:
		return nil, badBackoff("base", b.Base)
	case b.Max <= 0:
		return nil, badBackoff("max", b.Max)
	case !(b.Jitter >= 0 && b.Jitter <= 1): // NaN too
		return nil, invalid("exponential rate limiter: jitter %v is not in [0, 1]", b.Jitter)
	}
	r := &exponential[T]{base: b.Base, max: b.Max, failures: make(map[T]int), jitter: b.Jitter, rand: b.Rand}
	if r.rand == nil {
		r.rand = rand.Float64
	}
	return r, nil
}

// badBackoff explains the ErrInvalid of a delay that is not positive.
func badBackoff(what string, d time.Duration) error {
	return invalid("exponential rate limiter: %s %v is not positive", what, d)
}

type exponential[T comparable] struct {
	mu        sync.Mutex
	base, max time.Duration
	failures  map[T]int
	jitter    float64        // the fraction cut off at most; 0: none
	rand      func() float64 // u for the cut, only with mu held
}

// When returns base·2ⁿ for the n-th retry of item (at most max), cut by
// the jitter, and counts it. It draws from rand before it counts, so a
// panicking rand changes nothing.
func (r *exponential[T]) When(item T) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	u := 0.0
	if r.jitter > 0 {
		u = r.rand()
	}
	n := r.failures[item]
	r.failures[item] = n + 1
	return jittered(backoff(r.base, r.max, n), r.jitter, u)
}

// jittered returns d cut by the fraction f·u of itself (f in [0, 1]), u
// taken as 0 if below 0 or NaN, and as 1 if above. The result is in
// [0, d], whatever the rounding: float64(d) may round d up, so a cut
// that reaches it leaves 0 rather than a negative delay.
func jittered(d time.Duration, f, u float64) time.Duration {
	if !(u > 0) || f == 0 {
		return d
	}
	cut := float64(d) * (f * min(u, 1))
	if cut >= float64(d) {
		return 0
	}
	return d - time.Duration(cut)
}

// backoff returns base·2ⁿ, or max if that is more. It compares before it
// shifts. For a positive base, base·2ⁿ ≤ max exactly when base ≤ max>>n.
// So the shift never wraps round into a negative delay, which the queue
// would take for "now" (client-go also caps at max). It costs the same
// for any n.
func backoff(base, max time.Duration, n int) time.Duration {
	if base <= max>>n {
		return base << n
	}
	return max
}

// Forget drops item's count.
func (r *exponential[T]) Forget(item T) {
	r.mu.Lock()
	delete(r.failures, item)
	r.mu.Unlock()
}

// NumRequeues returns item's count.
func (r *exponential[T]) NumRequeues(item T) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failures[item]
}

// BucketRateLimiter returns a limiter that spaces all retries by the
// token bucket l (golang.org/x/time/rate), whatever the item. Its When
// reserves a token and returns the wait for it. It keeps nothing per item.
// It panics if l is nil.
func BucketRateLimiter[T comparable](l *rate.Limiter) RateLimiter[T] {
	if l == nil {
		panic("workqueue: BucketRateLimiter(nil)")
	}
	return bucket[T]{l: l}
}

// A bucket is a token bucket limiter on a clock: the wall clock, or the
// queue's for the default limiter.
type bucket[T comparable] struct {
	l *rate.Limiter
	c *clk.Clock // nil: the wall clock, read by rate itself at no extra cost
}

// When reserves a token and returns the wait for it.
func (b bucket[T]) When(T) time.Duration {
	if b.c == nil {
		return b.l.Reserve().Delay()
	}
	now := b.c.Now()
	return b.l.ReserveN(now, 1).DelayFrom(now)
}

// Forget does nothing, since the bucket keeps nothing per item.
func (bucket[T]) Forget(T) {}

// NumRequeues is 0, since the bucket counts nothing per item.
func (bucket[T]) NumRequeues(T) int { return 0 }

// MaxOfRateLimiters returns a limiter that combines the limiters. Its When
// is the longest of theirs, and each of them counts the retry. Its
// NumRequeues is the largest, and its Forget forgets in all of them. It
// panics if one is nil.
func MaxOfRateLimiters[T comparable](limiters ...RateLimiter[T]) RateLimiter[T] {
	for _, l := range limiters {
		if l == nil {
			panic("workqueue: MaxOfRateLimiters with a nil limiter")
		}
	}
	return maxOf[T](limiters)
}

type maxOf[T comparable] []RateLimiter[T]

// When returns the longest of the limiters' delays.
func (m maxOf[T]) When(item T) time.Duration {
	var d time.Duration
	for _, l := range m {
		d = max(d, l.When(item))
	}
	return d
}

// Forget forgets item in every limiter.
func (m maxOf[T]) Forget(item T) {
	for _, l := range m {
		l.Forget(item)
	}
}

// NumRequeues returns the largest of the limiters' counts.
func (m maxOf[T]) NumRequeues(item T) int {
	n := 0
	for _, l := range m {
		n = max(n, l.NumRequeues(item))
	}
	return n
}
