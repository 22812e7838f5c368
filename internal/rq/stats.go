package rq

import (
	"fmt"
	"sync/atomic"

	"github.com/evsync/evsync/internal/watch"
)

// Published are the counters a queue shows without its lock, and its
// poll sets. readyq's Queue holds one, and workqueue's embeds one in its
// own, which adds the delayed count. Only a queue's locked sections write
// the counters, with Store, but for Aside's adds in workqueue (under the
// lock too) and Armed, which the poll sets change.
type Published struct {
	Queued, InFlight, Disarmed, Aside atomic.Int64
	Closed                            atomic.Bool

	Sets  watch.List   // the poll sets watching the queue
	Armed atomic.Int32 // their registrations waiting for the next wakeup
}

// Counts loads the counters one by one, Queued first, into Counts with
// the given numbers of blocked Wait and Drain callers. Delayed stays 0.
func (p *Published) Counts(waiting, draining int) Counts {
	return Counts{
		Queued:   int(p.Queued.Load()),
		InFlight: int(p.InFlight.Load()),
		Aside:    int(p.Aside.Load()),
		Disarmed: int(p.Disarmed.Load()),
		Waiting:  waiting,
		Draining: draining,
		Closed:   p.Closed.Load(),
	}
}

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
