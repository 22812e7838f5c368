package signal

import "time"

// An Option configures a Signal in New.
type Option interface{ apply(*options) }

// options is what the options set; New reads it.
type options struct {
	delay    time.Duration
	delayed  bool
	batch    uint64
	adaptive bool
}

type optionFunc func(*options)

func (f optionFunc) apply(o *options) { f(o) }

// WithWakeDelay delays the wakeup of readers already blocked in Wait (and
// of Ready channels) by up to d after an Add, so that the adds of a burst
// cost one wakeup; it has package coalesce's default policy (the two share
// one window): the first Add after an idle period arms one timer, later
// ones neither re-arm nor extend it. The count itself is visible at once:
// Take, Count and a Wait that finds it non-zero never wait for the delay.
// Like coalesce.New, it takes any non-negative delay, and panics if d is
// negative.
func WithWakeDelay(d time.Duration) Option {
	if d < 0 {
		panic("signal: negative wake delay")
	}
	return optionFunc(func(o *options) { o.delay, o.delayed = d, true })
}

// WithWakeBatch wakes blocked readers at once when an add brings the
// count to n or more, without waiting for the delay set with WithWakeDelay
// (which it requires): a burst big enough to be worth a wakeup gets one at
// once, and only a trickle waits for the delay. It panics if n is 0.
func WithWakeBatch(n uint64) Option {
	if n == 0 {
		panic("signal: WithWakeBatch(0)")
	}
	return optionFunc(func(o *options) { o.batch = n })
}

// WithAdaptiveWake makes the delay set with WithWakeDelay (which it
// requires) adaptive, with package coalesce's WithAdaptive policy: adds are
// coalesced while a stream keeps each window busy (more than
// coalesce.AdaptiveWakeups adds finding a reader blocked), and once a
// window catches fewer, blocked readers are woken at once until a whole
// delay has needed more than that many wakeups again. A trickle or a
// short burst of adds is then served as without a delay (after the first
// window), and a sustained stream costs one wakeup per delay. This is the
// recommended setting.
func WithAdaptiveWake() Option {
	return optionFunc(func(o *options) { o.adaptive = true })
}
