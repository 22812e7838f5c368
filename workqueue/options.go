package workqueue

import (
	"github.com/evsync/evsync/clock"
	"github.com/evsync/evsync/internal/clk"
)

// An Option configures a Queue in New or NewWithConfig.
type Option interface{ apply(*options) }

// options holds what the options set. New and NewWithConfig read it.
type options struct{ clock clk.Clock }

type optionFunc func(*options)

func (f optionFunc) apply(o *options) { f(o) }

// WithClock runs the queue's time on c instead of package time. That is
// the delays, the retries' backoff and the times the metrics report. It is
// for tests that move time by hand. A nil c is the wall clock.
//
// The clocks of k8s.io/utils/clock and their fakes satisfy clock.Clock as
// they are. So does the Clock of client-go's queue configs. Go infers T,
// that module's clock.Timer, from their NewTimer.
//
// On c, a delay of d ends d after c's reading at the call. That holds on
// a clock set back since an earlier call too. A delay set earlier keeps
// its time on c. (Readings more than about 146 years away from the
// queue's first reading of c count as that far.)
//
// Every call of the queue sees as queued each delayed item whose time c
// has passed. Before it reads the queue's state, it reads c once and
// queues the items due, in ready-time order. So after a fake clock's
// Step, TryTake, Len, Stats, Ready and Wait find the due items at once.
// No goroutine needs to run first. Len and Stats take the lock for that
// while an item is delayed. The queue never arms its timer for a time c
// has passed. It queues that item instead, since a fake clock fires such
// a timer only at its next Step. Without WithClock (or with a nil c), the
// timer queues the due items, and the calls read no clock for them.
//
// While an item is delayed, the queue keeps one timer of c armed. On a
// clock given here, an armed timer has a goroutine waiting for it. So the
// queue has one goroutine while something is delayed, and none once
// nothing is. Close stops the timer, and so does the last delay's end.
// The default rate limiter's token bucket runs on c too.
//
// Inside a testing/synctest bubble no clock is needed. Package time there
// follows the bubble's clock, and so does a queue without WithClock.
func WithClock[T clock.Timer](c clock.Clock[T]) Option {
	k := clk.Of(c)
	return optionFunc(func(o *options) { o.clock = k })
}

// apply returns what opts set.
func apply(opts []Option) options {
	var o options
	for _, opt := range opts {
		opt.apply(&o)
	}
	return o
}
