package coalesce

import (
	"time"

	"github.com/evsync/evsync/internal/window"
)

// An Option configures a Waker in New.
type Option interface{ apply(*window.Policy) }

type optionFunc func(*window.Policy)

func (f optionFunc) apply(p *window.Policy) { f(p) }

// WithMaxBatch wakes the consumer at once when n events are pending,
// without waiting for the delay (the count threshold). It panics if n is 0.
func WithMaxBatch(n uint64) Option {
	if n == 0 {
		panic("coalesce: WithMaxBatch(0)")
	}
	return optionFunc(func(p *window.Policy) { p.MaxBatch = n })
}

// WithMaxWait switches the Waker to a trailing debounce. The window's
// first event arms the timer for the delay; when it expires and finds
// that events came since it was set, it is set again for another delay,
// and the first period with no event ends the window with the wakeup.
// So the wakeup comes between one and two delays after the last event (a
// lone event waits exactly one delay, an event just as a period begins
// waits two), and never later than maxWait after the window's first
// event, so that a steady stream is still served: the last period is cut
// short at maxWait, even if an event has just come. (Measuring the quiet
// from each event instead would take the time in every Wake.) WithMaxBatch
// and Flush still wake at once. New panics if maxWait is below the delay;
// WithMaxWait panics if it is not positive. Neither maxWait nor the delay
// has an upper limit.
func WithMaxWait(maxWait time.Duration) Option {
	if maxWait <= 0 {
		panic("coalesce: maxWait must be positive")
	}
	return optionFunc(func(p *window.Policy) { p.MaxWait = maxWait })
}

// WithAdaptive coalesces only while the consumer would otherwise be
// woken often, for longer than a delay. It starts out coalescing under the
// policy in force (audit, or the debounce of WithMaxWait) and stops when
// a window runs its whole delay and catches AdaptiveWakeups events or
// fewer. From then on it wakes the consumer at once for every event that
// opens a window, as with a delay of 0, and counts those wakeups over
// periods of one delay: when a period ends with more than AdaptiveWakeups
// of them and events go on coming, it coalesces again. A trickle of events, or a
// short burst, so pays no latency and no timer (a timer's wakeup on an
// otherwise idle process costs more than the few immediate wakeups it
// would save), after the first window, and a sustained stream is
// coalesced. No event waits longer than the delay (maxWait with
// WithMaxWait).
func WithAdaptive() Option {
	return optionFunc(func(p *window.Policy) { p.Adaptive = true })
}

// AdaptiveWakeups is WithAdaptive's threshold: coalescing starts after a
// period of one delay with more than this many immediate wakeups.
const AdaptiveWakeups = window.AdaptiveWakeups
