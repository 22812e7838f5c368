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
	// there is no fair share. Fairness is FairShare with one dimension and
	// every weight 1. NewWithConfig panics if both are set.
	Fairness func(T) string

	// FairShare shares the hand-outs between tenants over several
	// dimensions, with weights (see FairShare). Its zero value is no fair
	// share.
	FairShare FairShare[T]

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

// MaxDims is the largest number of dimensions a FairShare may have. The
// bound lets a mark hold an item's keys on its stack, so that Add
// allocates nothing for them.
const MaxDims = 4

// FairShare is a fair share of the hand-outs over one or more dimensions,
// with weights. A multi-cluster controller, say, is fair first across
// clusters (dimension 0), then across the namespaces of each cluster
// (dimension 1). Its zero value is no fair share.
//
// The tenants of one priority form a tree. Its root's children are the
// keys of dimension 0. Below each key of dimension d are the keys of
// dimension d+1 that items share it with. A leaf is a tenant, the items
// with the same Dims keys, and a FIFO.
//
// A hand-out of a priority serves the root. A node serves its children
// that have queued items by weighted round robin.
//   - The child at the cursor gets a turn of w hand-outs in a row, w its
//     weight, each served by the child's own subtree.
//   - The turn ends early if the child runs out of queued items.
//   - The cursor then moves to the next child.
//   - A child that gets its first queued item joins just before the
//     cursor. So it is served last in the current round.
//
// One dimension with every weight 1 is Config.Fairness, round robin one
// item per tenant per turn.
//
// The bound, as an implication. Let x be the oldest queued item of its
// tenant at its priority. Its path from the root is a₁ … a_D, D = Dims,
// a_D its tenant. Let w_i be a_i's weight, and O_i the sum of the
// weights of a_i's siblings that have a queued item at some time while x
// waits (a sibling that leaves and comes back counts once, with its
// largest weight). Then, counted from when x became its tenant's oldest,
// x is handed out within T₀ hand-outs of its priority, its own included,
// where T_D = 1 and
//
//	T_{i−1} = T_i + ⌈T_i / w_i⌉ · O_i.
//
// That holds however many items the other tenants queue meanwhile.
//   - One dimension, weights 1: T₀ = 1 + O₁, one hand-out per other
//     tenant, as with Config.Fairness.
//   - Two dimensions, weights 1: T₀ = (1 + O₂)(1 + O₁), O₂ the other
//     namespaces of x's cluster and O₁ the other clusters.
type FairShare[T comparable] struct {
	// Dims is the number of dimensions, 1 to MaxDims. 0 means 1.
	// NewWithConfig panics if it is outside [0, MaxDims].
	Dims int

	// Key returns item's key in dimension dim, 0 ≤ dim < Dims, outermost
	// first. Every item has Dims keys: an item that lacks a dimension
	// may use "" for it. The queue calls Key outside its lock at every
	// mark, and keeps the item's first answers while it knows the item.
	// If it panics, the mark panics with nothing changed and the queue
	// stays usable. If Key is nil, there is no fair share, and
	// NewWithConfig panics if Dims or Weight is set.
	Key func(item T, dim int) string

	// Weight returns the weight of key in dimension dim: its share of its
	// parent's turns. An answer ≤ 0 means 1. The queue calls it with
	// Key, outside its lock at every mark, and keeps the item's answers
	// with its keys. A node of the tree takes the weight of the item that
	// makes it, and keeps it while it has queued items. If Weight
	// panics, the mark panics with nothing changed. If Weight is nil,
	// every weight is 1.
	Weight func(dim int, key string) int
}
