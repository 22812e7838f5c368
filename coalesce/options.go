package coalesce

import (
	"time"

	"github.com/evsync/evsync/clock"
	"github.com/evsync/evsync/internal/clk"
	"github.com/evsync/evsync/internal/window"
)

// An Option configures a Waker in New. A signal's wake delay takes the
// same options, by the same names, in signal.WithWakeDelay.
type Option interface{ apply(*settings) }

// settings holds what the options set. New reads it.
type settings struct {
	p   window.Policy
	clk clk.Clock // the zero Clock: package time
}

type optionFunc func(*settings)

func (f optionFunc) apply(s *settings) { f(s) }

// WithMaxBatch wakes the consumer at once when n events are pending,
// without waiting for the delay. This is the count threshold. It panics if
// n is 0.
func WithMaxBatch(n uint64) Option {
	if n == 0 {
		panic("coalesce: WithMaxBatch(0)")
	}
	return optionFunc(func(s *settings) { s.p.MaxBatch = n })
}

// WithMaxWait switches the Waker to a trailing debounce. The window's
// first event arms the timer for the delay. When the timer expires and
// finds that events came since it was set, it is set again for another
// delay. The first period with no event ends the window with the wakeup.
//
// So the wakeup comes one to two delays after the last event. A lone event
// waits exactly one delay, and one just as a period begins waits two. The
// wakeup never comes later than maxWait after the window's first event, so
// a steady stream is still served. The last period is then cut short at
// maxWait, even if an event has just come. Measuring the quiet from each
// event instead would take the time in every Wake.
//
// WithMaxBatch and Flush still wake at once. WithMaxWait panics if maxWait
// is not positive, and New panics if it is below the delay. Neither
// maxWait nor the delay has an upper limit.
func WithMaxWait(maxWait time.Duration) Option {
	if maxWait <= 0 {
		panic("coalesce: maxWait must be positive")
	}
	return optionFunc(func(s *settings) { s.p.MaxWait = maxWait })
}

// WithAdaptive coalesces only while the consumer would otherwise be woken
// often, for longer than a delay. It starts out coalescing under the
// policy in force, audit or the debounce of WithMaxWait. It stops when a
// window runs its whole delay and catches AdaptiveWakeups events or fewer.
// From then on every event that opens a window wakes the consumer at once,
// as with a delay of 0. Those wakeups are counted over periods of one
// delay. When a period ends with more than AdaptiveWakeups of them and
// events go on coming, it coalesces again.
//
// After the first window, a trickle of events or a short burst so pays no
// latency and no timer. On an otherwise idle process, a timer's wakeup
// costs more than the few immediate wakeups it would save. A sustained
// stream is coalesced. No event waits longer than the delay, or than
// maxWait with WithMaxWait.
func WithAdaptive() Option {
	return optionFunc(func(s *settings) { s.p.Adaptive = true })
}

// AdaptiveWakeups is WithAdaptive's threshold. Coalescing starts after a
// period of one delay with more than this many immediate wakeups.
const AdaptiveWakeups = window.AdaptiveWakeups

// WithClock makes the Waker read the time and set its timers on c. Tests
// pass a fake clock with it and move the windows step by step. A nil c
// is the wall clock, as without the option.
//
// k8s.io/utils/clock's clocks and fakes satisfy clock.Clock as they are.
// Go infers T from their NewTimer.
//
// While a window's timer is armed on c, one goroutine waits on it. It
// ends when the timer fires or is stopped, and Close stops it. Under
// testing/synctest no clock is needed, since the wall clock is then the
// bubble's.
func WithClock[T clock.Timer](c clock.Clock[T]) Option {
	k := clk.Of(c)
	return optionFunc(func(s *settings) { s.clk = k })
}
