package semaphore

import (
	"time"

	"github.com/evsync/evsync/clock"
	"github.com/evsync/evsync/internal/clk"
)

// An Option configures a Semaphore in New, a Limiter in NewLimiter, or a
// Group in NewGroup and WithContext.
type Option interface{ apply(*options) }

// options holds what the options set. The constructors read it.
type options struct {
	limit uint64        // WithLimit's, or 0 if not given
	bound time.Duration // WithEventualFairness's, or 0 for strict FIFO
	clock clk.Clock     // WithClock's, or the wall clock
}

type optionFunc func(*options)

func (f optionFunc) apply(o *options) { f(o) }

// apply returns what opts set.
func apply(opts []Option) options {
	var o options
	for _, opt := range opts {
		opt.apply(&o)
	}
	return o
}

// WithLimit lowers a Semaphore's largest count from Max to limit. Requests
// above the limit fail with ErrInvalid. Release fails with ErrWouldBlock
// if the count would pass it. It panics unless 1 ≤ limit ≤ Max. It is an
// option of New only: NewLimiter and NewGroup panic if given it, since
// their limit is their first argument.
func WithLimit(limit uint64) Option {
	if limit == 0 || limit > Max {
		panic("semaphore: limit must be between 1 and Max")
	}
	return optionFunc(func(o *options) { o.limit = limit })
}

// WithEventualFairness lets a running acquirer take free units ahead of
// waiters that are parked, as sync.Mutex lets a running goroutine take
// the lock. It panics if bound is not positive.
//
// Waiters still queue in order. The mode changes who gets freed units:
//   - While the oldest waiter has waited at most bound, a caller that
//     finds units free takes them, queue or not. A release wakes the
//     oldest waiter, which takes what it needs if the units are still
//     there, and otherwise waits again, still first in line.
//   - Once the oldest waiter has waited longer than bound, the units go
//     to the waiters in order, as in the default mode, until no waiter
//     has waited longer than bound. The limiter notices at the next
//     release, at the next caller that has to wait, or when the woken
//     waiter finds its units gone. A running caller reads no clock.
//
// So once a waiter is first in line, it waits at most about bound plus
// the longest hold then in progress. Behind it, a waiter also waits for
// those ahead, as in the default mode. A large request at the head is
// never starved: once it is older than bound, nobody takes units ahead
// of it after the next release. The cost is order: a caller may be
// served before one that started waiting earlier.
//
// The gain is speed under contention. A goroutine that releases and
// acquires again keeps running instead of parking, and a freed unit never
// waits for a parked goroutine to be scheduled. sync.Mutex uses 1ms as
// its bound.
//
// The bound is read on the clock given with WithClock, or on the wall
// clock, which testing/synctest's fake clock replaces inside a bubble.
func WithEventualFairness(bound time.Duration) Option {
	if bound <= 0 {
		panic("semaphore: eventual fairness needs a positive bound")
	}
	return optionFunc(func(o *options) { o.bound = bound })
}

// WithClock makes WithEventualFairness read the waiters' ages on c, a
// fake clock in tests. Without WithEventualFairness it changes nothing.
// Inside a testing/synctest bubble no clock is needed: the wall clock
// there follows the bubble's.
func WithClock[T clock.Timer](c clock.Clock[T]) Option {
	k := clk.Of(c)
	return optionFunc(func(o *options) { o.clock = k })
}
