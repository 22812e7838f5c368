package rq

import (
	"fmt"
	"sync/atomic"
)

// Counts are a queue's figures as its Stats show them. workqueue.Stats
// has the same fields in the same order, so it converts to Counts;
// readyq.Stats has all of them but Delayed.
type Counts struct {
	Queued, Delayed, InFlight, Aside, Disarmed, Waiting, Draining int
	Closed                                                        bool
}

// Format returns c as a queue of the package pkg shows it, such as
// "readyq{queued=3 inflight=2 aside=1 disarmed=0 waiting=0 draining=0}".
// A queue with delayed items shows "delayed=N" after queued, and a
// closed one ends with " closed".
func (c Counts) Format(pkg string) string {
	closed, delayed := "", ""
	if c.Closed {
		closed = " closed"
	}
	if c.Delayed != 0 {
		delayed = fmt.Sprintf(" delayed=%d", c.Delayed)
	}
	return fmt.Sprintf("%s{queued=%d%s inflight=%d aside=%d disarmed=%d waiting=%d draining=%d%s}",
		pkg, c.Queued, delayed, c.InFlight, c.Aside, c.Disarmed, c.Waiting, c.Draining, closed)
}

// Store stores v in a published counter if it changed. Only a queue's
// locked sections call it: a counter that did not change keeps its cache
// line shared with the observers that read it.
func Store(a *atomic.Int64, v int) {
	if a.Load() != int64(v) {
		a.Store(int64(v))
	}
}
