package signal

import (
	"time"

	"github.com/evsync/evsync/clock"
	"github.com/evsync/evsync/internal/clk"
	"github.com/evsync/evsync/internal/window"
)

// An Option configures a Signal in New.
type Option interface{ apply(*options) }

// options holds what the options set. New reads it.
type options struct {
	wake    wakePolicy
	delayed bool      // WithWakeDelay was given
	clk     clk.Clock // the wake delay's clock (WithClock), the zero Clock for package time
}

type optionFunc func(*options)

func (f optionFunc) apply(o *options) { f(o) }

// WithClock makes the wake delay read the time and set its timers on c.
// Tests pass a fake clock with it and move the delay step by step.
// Without WithWakeDelay it changes nothing. A nil c is the wall clock, as
// without the option.
//
// k8s.io/utils/clock's clocks and fakes satisfy clock.Clock as they are.
// Go infers T from their NewTimer.
//
// While the delay's timer is armed on c, one goroutine waits on it. It
// ends when the timer fires or is stopped, and Close stops it. Under
// testing/synctest no clock is needed, since the wall clock is then the
// bubble's.
func WithClock[T clock.Timer](c clock.Clock[T]) Option {
	k := clk.Of(c)
	return optionFunc(func(o *options) { o.clk = k })
}

// A WakeOption sets the policy of WithWakeDelay, the only call that takes
// one. So a policy without a delay does not compile.
// The options have package coalesce's names and meanings.
type WakeOption interface{ applyWake(*wakePolicy) }

// wakePolicy is what WithWakeDelay and its options set.
type wakePolicy struct {
	win   window.Policy // Delay, MaxWait and Adaptive, with MaxBatch left at 0 (see batch)
	batch uint64        // wake at once at this count of units (WithMaxBatch), 0 if not set
}

type wakeOptionFunc func(*wakePolicy)

func (f wakeOptionFunc) applyWake(p *wakePolicy) { f(p) }

// WithWakeDelay delays the wakeup of readers already blocked in Wait, and
// of Ready channels, by up to d after an Add. The adds of a burst so cost
// one wakeup. The count itself is visible at once. Take, Count and a Wait
// that finds it non-zero never wait for the delay.
//
// The policy is package coalesce's, and the two share one window. By
// default the first Add after an idle period arms one timer, and later
// ones neither re-arm nor extend it. The options WithAdaptive
// (recommended), WithMaxBatch and WithMaxWait change that, as in coalesce.
// A delay of 0 wakes at once, which meets every option's bound, so the
// options then change nothing. A later WithWakeDelay replaces an earlier
// one, options and all.
//
// Like coalesce.New, WithWakeDelay takes any non-negative delay. It panics
// if d is negative, or if maxWait (WithMaxWait) is below d.
func WithWakeDelay(d time.Duration, opts ...WakeOption) Option {
	if d < 0 {
		panic("signal: negative wake delay")
	}
	p := wakePolicy{win: window.Policy{Delay: d}}
	for _, o := range opts {
		o.applyWake(&p)
	}
	if p.win.MaxWait != 0 && p.win.MaxWait < d {
		panic("signal: maxWait below the wake delay")
	}
	return optionFunc(func(o *options) { o.wake, o.delayed = p, true })
}

// WithMaxBatch wakes blocked readers at once when an Add brings the count
// to n or more, without waiting for the delay. It is coalesce's count
// threshold, counted in units. One Add(64) reaches a batch of 64. A burst
// worth a wakeup so gets one at once, and only a trickle waits for the
// delay. It panics if n is 0.
func WithMaxBatch(n uint64) WakeOption {
	if n == 0 {
		panic("signal: WithMaxBatch(0)")
	}
	return wakeOptionFunc(func(p *wakePolicy) { p.batch = n })
}

// WithMaxWait makes the delay a trailing debounce, coalesce.WithMaxWait's.
// The first add that finds readers blocked arms the timer for the delay.
// When the timer expires and finds that adds came since it was set, it is
// set again for another delay. The first period with no add ends the
// window with the wakeup. So readers are woken one to two delays after the
// last add, and never later than maxWait after the first. A steady stream
// of adds is still served. WithMaxBatch still wakes at once. WithMaxWait
// panics if maxWait is not positive, WithWakeDelay if it is below the
// delay.
func WithMaxWait(maxWait time.Duration) WakeOption {
	if maxWait <= 0 {
		panic("signal: maxWait must be positive")
	}
	return wakeOptionFunc(func(p *wakePolicy) { p.win.MaxWait = maxWait })
}

// WithAdaptive makes the delay adaptive, with coalesce.WithAdaptive's
// policy. Adds are coalesced while a stream keeps each window busy, with
// more than AdaptiveWakeups adds finding a reader blocked. Once a window
// catches fewer, blocked readers are woken at once. That lasts until a
// whole delay has needed more than AdaptiveWakeups wakeups again. A
// trickle or a short burst of adds is then served as without a delay,
// after the first window. A sustained stream costs one wakeup per delay.
// This is the recommended setting.
func WithAdaptive() WakeOption {
	return wakeOptionFunc(func(p *wakePolicy) { p.win.Adaptive = true })
}

// AdaptiveWakeups is WithAdaptive's threshold, coalesce.AdaptiveWakeups.
// Coalescing starts after a period of one delay with more than this many
// immediate wakeups.
const AdaptiveWakeups = window.AdaptiveWakeups
