package coalesce

import "time"

// An Option configures a Waker in New.
type Option interface{ apply(*Waker) }

type optionFunc func(*Waker)

func (f optionFunc) apply(w *Waker) { f(w) }

// WithMaxBatch wakes the consumer at once when n events are pending,
// without waiting for the delay (the count threshold). It panics if n is 0.
func WithMaxBatch(n uint64) Option {
	if n == 0 {
		panic("coalesce: WithMaxBatch(0)")
	}
	return optionFunc(func(w *Waker) { w.maxBatch = n })
}

// WithMaxWait switches the Waker to a trailing debounce: it wakes once no
// event has arrived for the delay, but never later than maxWait after the
// first event of the window, so a steady stream is still served. New
// panics if maxWait is below the delay; WithMaxWait panics if it is not
// positive.
func WithMaxWait(maxWait time.Duration) Option {
	if maxWait <= 0 {
		panic("coalesce: maxWait must be positive")
	}
	return optionFunc(func(w *Waker) { w.maxWait = maxWait })
}

// WithFunc makes each wakeup a call of fn with the number of events it
// covers, instead of a token on C (C then only closes at Close). Calls never
// overlap and run on the goroutine that caused the wakeup (a Wake, Flush or
// the timer's), outside the Waker's lock, so fn may call Wake and Flush; it
// must not block for long and must not call Close. fn must not be nil.
func WithFunc(fn func(events uint64)) Option {
	if fn == nil {
		panic("coalesce: WithFunc(nil)")
	}
	return optionFunc(func(w *Waker) { w.fn = fn })
}

// WithAdaptive coalesces only while events come fast: the first event of
// a window wakes the consumer at once, as if the delay were 0, unless it
// comes within delay/AdaptiveShare of the previous wakeup; only then is
// the timer armed. A sparse stream, whose window would hold one event and
// cost a timer wakeup on top of the consumer's, so pays no latency and no
// timer, and a dense one is coalesced as by the policy in force (audit, or
// the debounce of WithMaxWait). The gap since the last wakeup is the
// estimate of the rate: a window is worth its timer when it collects about
// AdaptiveShare events or more. The first event after New wakes at once.
func WithAdaptive() Option {
	return optionFunc(func(w *Waker) { w.adaptive = true })
}

// AdaptiveShare sets WithAdaptive's threshold: a window is opened only for
// an event that comes within delay/AdaptiveShare of the previous wakeup.
const AdaptiveShare = 8
