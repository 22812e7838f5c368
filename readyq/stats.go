package readyq

import "github.com/evsync/evsync/internal/rq"

// Stats is a snapshot of a queue's state.
type Stats struct {
	Queued   int  // items waiting to be handed out (Len)
	InFlight int  // items handed out, not yet Done
	Aside    int  // in-flight items marked again, to be queued at Done
	Disarmed int  // one-shot items waiting for Rearm
	Waiting  int  // blocked Wait callers
	Draining int  // blocked Drain callers
	Closed   bool // Close has been called
}

// Stats returns a snapshot. The first call on a queue (or the first Len,
// InFlight, TryTake or Ready) takes the lock once, to start publishing
// the counters. Every later call reads atomics only, so observers never
// slow producers or consumers. The fields are read one by one and may be
// mutually inconsistent under concurrent use.
func (q *Queue[T]) Stats() Stats {
	q.watch()
	return statsOf(q.pub.Counts(q.sec.Waiters.Len(), q.sec.Drainers.Len()))
}

// Len returns the number of queued items (see Stats for its cost).
func (q *Queue[T]) Len() int {
	q.watch()
	return int(q.pub.Queued.Load())
}

// InFlight returns the number of items handed out and not yet Done (see
// Stats for its cost).
func (q *Queue[T]) InFlight() int {
	q.watch()
	return int(q.pub.InFlight.Load())
}

// String formats a Stats snapshot, such as
// "readyq{queued=3 inflight=2 aside=1 disarmed=0 waiting=0 draining=0}".
// A closed queue's ends with " closed".
func (q *Queue[T]) String() string { return q.Stats().String() }

// String formats st as Queue.String does.
func (st Stats) String() string {
	return rq.Counts{Queued: st.Queued, InFlight: st.InFlight, Aside: st.Aside, Disarmed: st.Disarmed,
		Waiting: st.Waiting, Draining: st.Draining, Closed: st.Closed}.Format("readyq")
}

// statsOf is c without Delayed, which a readyq queue does not have.
func statsOf(c rq.Counts) Stats {
	return Stats{Queued: c.Queued, InFlight: c.InFlight, Aside: c.Aside, Disarmed: c.Disarmed,
		Waiting: c.Waiting, Draining: c.Draining, Closed: c.Closed}
}
