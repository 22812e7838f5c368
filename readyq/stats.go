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
	return Stats{
		Queued:   int(q.pub.queued.Load()),
		InFlight: int(q.pub.inflight.Load()),
		Aside:    int(q.pub.aside.Load()),
		Disarmed: int(q.pub.disarmed.Load()),
		Waiting:  q.sec.Waiters.Len(),
		Draining: q.sec.Drainers.Len(),
		Closed:   q.pub.closed.Load(),
	}
}

// Len returns the number of queued items (see Stats for its cost).
func (q *Queue[T]) Len() int {
	q.watch()
	return int(q.pub.queued.Load())
}

// InFlight returns the number of items handed out and not yet Done (see
// Stats for its cost).
func (q *Queue[T]) InFlight() int {
	q.watch()
	return int(q.pub.inflight.Load())
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
