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
