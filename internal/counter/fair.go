package counter

import (
	"sync/atomic"
	"time"

	"github.com/evsync/evsync/internal/clk"
)

// A fairness is a Semaphore counter's eventual-fairness setting. With a
// bound of 0, the default, queued readers are served strictly in order.
type fairness struct {
	bound int64     // nanoseconds the oldest reader may wait before order is strict, or 0
	clock clk.Clock // where the ages are read
	epoch time.Time // when the clock's readings start, so ages are monotonic on the wall clock
	head  atomic.Int64
}

// SetFairness sets the counter's eventual-fairness bound (0 for strict
// FIFO) and the clock that ages are read on. Only before the Counter is
// shared. It is a function, not a method, so that the Counter's method
// set stays what it was (the layout ratchet).
func SetFairness(c *Counter, bound time.Duration, k clk.Clock) {
	if bound <= 0 {
		return
	}
	c.fair.bound, c.fair.clock, c.fair.epoch = int64(bound), k, k.Now()
}
