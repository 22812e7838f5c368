package workqueue

// Config configures a Queue made by NewWithConfig. Its zero value is the
// default queue, which New returns. The item type T is the queue's, so the
// compiler rejects a callback or a limiter for another type. A nil field
// is a field not set.
type Config[T comparable] struct {
	// Mode is the mode of the items marked with Add, AddAfter, AddWith and
	// AddRateLimited. The zero value is Edge. AddMode chooses per item.
	// NewWithConfig panics if Mode is not a Mode.
	Mode Mode

	// Recheck is the readiness test of level items, like the poll that
	// epoll repeats on a level-triggered file after reporting it. At Done,
	// a level item is queued again only if Recheck(item) reports true, or
	// if it was marked while in flight. Otherwise it is forgotten. Done
	// calls Recheck for each item given to it, outside the queue's lock,
	// so Recheck may use the queue. It must not block for long. If it
	// panics, that Done changes nothing and the panic goes on to Done's
	// caller. If Recheck is nil, a level item is queued again at every
	// Done.
	Recheck func(T) bool

	// RateLimiter is the limiter AddRateLimited asks for each retry's
	// delay. Client-go's limiters fit as they are. Its methods are called
	// outside the lock. If it is nil, the queue uses a DefaultRateLimiter,
	// made at the first use.
	RateLimiter RateLimiter[T]

	// Fairness names the tenant of an item (a namespace, a customer) and
	// shares the hand-outs fairly between tenants. The queued items of
	// one priority go out round-robin across the tenants that have some,
	// FIFO within a tenant. A tenant with no queued item joins the round
	// last when it gets one. So its item waits for at most one hand-out
	// per tenant ahead of it, however many items they have queued. The
	// queue calls Fairness outside the lock at every mark, and keeps its
	// first answer while it knows the item. If it panics, the mark panics
	// with nothing changed and the queue stays usable. If Fairness is nil,
	// there is no fair share.
	Fairness func(T) string

	// Metrics receives what the queue measures (see Metrics and
	// Running). If it is nil, the queue reads no clock and counts nothing.
	Metrics Metrics

	// Keep has the queue keep what it knew of an item it forgets at Done
	// (row 8 of the package doc's table), for the item's next mark.
	// That mark then finds the item's entry and makes none. So a Done and
	// an Add of the same key skip the index's deletion and insertion. A
	// kept item is still forgotten, as seen from outside:
	//
	//   - Len, InFlight and Stats do not count it, and Drain does not wait
	//     for it.
	//   - Priority reports it unknown, and the rate limiter forgets its
	//     retries as for any forgotten item.
	//   - Its next mark is a new item's, in the mode, priority and tenant
	//     of that mark.
	//   - Done and Rearm of it change nothing and report so.
	//   - Remove frees what was kept and returns false.
	//
	// The cost is memory. A queue with Keep holds one entry for every
	// item marked since its last Remove, queued or not: about 80 bytes
	// for an int item, plus the item itself, which stays reachable. So
	// Keep suits a queue whose items are few and come back, such as a
	// controller's keys (the objects it watches). Remove each item that
	// goes for good. Without Keep (the default), a queue's memory follows
	// the items it holds at once, however many it has seen.
	Keep bool
}
