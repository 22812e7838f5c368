package poll

import (
	"time"

	"github.com/evsync/evsync/clock"
	"github.com/evsync/evsync/internal/clk"
)

// An Option configures a Set in New.
type Option interface{ apply(*options) }

// options holds what the options set.
type options struct {
	clock  clk.Clock
	burstK int
	burstD time.Duration
}

type optionFunc func(*options)

func (f optionFunc) apply(o *options) { f(o) }

// WithClock runs the Set's time on c instead of package time: its
// Deadlines, its WaitTimeout calls and WithBurst's window. It is for
// tests that move time by hand. A nil c is the wall clock.
//
// The clocks of k8s.io/utils/clock and their fakes satisfy clock.Clock as
// they are. While the Set has a timer armed on c, one goroutine waits for
// it: move the clock past it, or Close the Set, before a leak check.
//
// On c, the calls that read the ready list or the waits (Wait,
// WaitTimeout, TryWait, Ready, Stats) first read c and do what is due:
// Deadlines queued, timed waits ended, the burst window closed. So after a
// fake clock's Step, the next call sees it, with no need for the timer's
// goroutine to run first. On the wall clock the timer alone does it.
//
// Inside a testing/synctest bubble no clock is needed: package time there
// follows the bubble's clock, and so does a Set without WithClock.
func WithClock[T clock.Timer](c clock.Clock[T]) Option {
	k := clk.Of(c)
	return optionFunc(func(o *options) { o.clock = k })
}

// WithBurst makes a Wait collect a burst: a Wait returns once at least k
// sources are queued, or d after the first of them was queued, whichever
// is sooner. A lone event is still reported within d. So under a stream
// of events a waiter wakes about once per d or per k events, not once
// per event, as io_uring's min_wait_usec does.
//
// It applies to Wait and WaitTimeout, and to what Ready reports. TryWait
// takes what is queued at once. A WaitTimeout call that is first in line
// when its time is up takes what the window holds back, as epoll_wait
// reports what is ready at its timeout. A k ≤ 1 or a d ≤ 0 turns the
// option off.
// The window needs a clock reading per burst, not per event.
func WithBurst(k int, d time.Duration) Option {
	return optionFunc(func(o *options) {
		if k <= 1 || d <= 0 {
			k, d = 0, 0
		}
		o.burstK, o.burstD = k, d
	})
}

// New returns an empty, open Set with opts applied. Without options it is
// the same as the zero value. A nil Option is ignored.
func New[K comparable](opts ...Option) *Set[K] {
	var o options
	for _, opt := range opts {
		if opt != nil {
			opt.apply(&o)
		}
	}
	s := new(Set[K])
	s.t.clock, s.t.burstK, s.t.burstD = o.clock, o.burstK, o.burstD
	return s
}
