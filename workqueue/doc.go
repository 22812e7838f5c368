// Package workqueue is a controller work queue: client-go's workqueue
// and controller-runtime's priority queue, built on epoll's ready list.
// Producers mark items ready, now or after a delay, and consumers take
// them out in batches. An item is queued at most once and held by at most
// one consumer at a time.
//
// It does everything package readyq does, with the same calls, plus
// delays, rate-limited retries, priorities, fair share and metrics. One
// de-duplication covers an item queued, delayed or in flight.
//
// # The epoll mapping
//
// The calls workqueue shares with readyq map to epoll as package readyq's
// table shows. In short:
//   - Add is ep_poll_callback: the item goes onto the ready list, once.
//   - Wait, TryTake and Next are epoll_wait: a splice of the list.
//   - An item in flight is one on the txlist. A mark kept aside is an
//     arrival on the ovflist.
//   - Done is ep_done_scan: the marks kept aside go back in arrival order.
//   - Edge, Level and OneShot are EPOLLET, the default and EPOLLONESHOT.
//   - AddAfter and AddRateLimited have no epoll counterpart. They are
//     marks with a ready time.
//
// As in readyq, a hand-out lasts until Done, not until the Wait returns.
// That is what client-go's workqueue calls processing. So an item is
// never handed to two consumers at once, and a mark made meanwhile is
// never lost.
//
// # Guarantees
//
// The queue keeps package readyq's guarantees (its doc's Guarantees),
// over the items queued, delayed and in flight alike. What differs:
//   - The order. Queued items go out by priority, highest first. Within
//     a priority, fair share takes the tenants in turn. Within a tenant,
//     or without fair share, they go in the order they were queued. A
//     delayed item is queued at its time, and a raised priority queues
//     an item again at the tail.
//   - A delayed item is in no queue until its time comes. It is still
//     known: a mark of it adds no second copy.
//   - A mark kept aside carries a ready time. Done delays the item if
//     that time is still to come (row 3 below).
//   - The hand-out. From the lanes of priorities and fair share it costs
//     a hash lookup per item, under the lock. A queue with items on its
//     lanes or with Config.Metrics copies every batch under the lock too.
//     Otherwise a hand-out is readyq's: an O(1) splice, and a large batch
//     copied out after the unlock.
//
// # Locking
//
// The locking is readyq's (its doc's Locking): one mutex, taken by every
// call that changes the queue, for a short and bounded section. What
// differs:
//   - More of the user's code runs before the lock: the tenant functions
//     of Fairness and FairShare, and the rate limiter's When.
//   - The metrics and the rate limiter's Forget run after the unlock.
//   - An Add always goes through the queue. A blocked Wait caller gets
//     the item from there, in the same locked section.
//   - Every section that changes a counter publishes it. Observers (Len,
//     InFlight, Stats, String) read atomics only, from the first call on.
//   - On a user's clock (WithClock), each call's section first queues the
//     delayed items whose time the clock has passed. While items are
//     delayed, Len, Stats and String take the lock for that too.
//
// # Close and Drain
//
// Close and Drain work as in readyq (its doc's Close and Drain). A
// consumer must still call Done for what it holds before it waits again.
// What differs:
//   - Close ends every delay. It queues the delayed items at once, and a
//     kept-aside mark's ready time no longer counts at Done (row 4).
//   - CloseDiscardingDelays forgets the delayed items instead. Done then
//     drops a kept-aside mark whose time is still to come (row 2).
//   - Drain waits until nothing is queued, delayed or in flight.
//
// # A controller work queue
//
// AddAfter, AddRateLimited, AddWith and Config's RateLimiter, Fairness,
// FairShare and Metrics add what client-go's workqueue and controller-runtime's
// priority queue give a controller loop. One de-duplication covers the
// places an item can be, which are queued, delayed (waiting for its ready
// time) and in flight. The earliest ready time and the highest priority
// of an item's marks win. So a delayed and an immediate mark of one key
// never run it twice. An item marked while in flight keeps its ready time
// aside until Done. AddWith with AddOpts.Replace sets an item's ready
// time instead, later or earlier, in one step. It postpones a check
// already delayed (kubernetes#133560).
//
// One timer per queue serves every delay. It is armed only while an item
// is delayed, and the queue has no goroutine of its own. It is never
// armed for a time already passed: an item due is queued instead. Delays
// and retries run on package time, or on the clock given with WithClock.
// A test can so step a fake clock, such as k8s.io/utils/clock's. On such
// a clock every call sees each item whose time the clock has passed as
// queued, at once after the step (see WithClock). Priorities and
// fair share live on lanes beside the ready list. So a queue that uses
// neither keeps its O(1) splice. A hand-out from a lane costs a hash
// lookup per item. The rate limiter (client-go's shape) is asked outside
// the lock. The queue tells it to forget an item when the item leaves the
// queue, so its bookkeeping never outgrows the queue.
//
// # Fair share
//
// Priorities come first. Within one priority, fair share keeps a tenant's
// flood from delaying the others.
//   - Config.Fairness names one tenant per item (a namespace). Tenants
//     take turns, one item each.
//   - Config.FairShare names up to MaxDims keys per item, outermost first
//     (a cluster, then a namespace), each with a weight. Each level of
//     the tree takes turns by weight: a key of weight 3 gets three
//     hand-outs in a row for each one of a key of weight 1.
//
// Each tenant's items go out FIFO. A tenant that gets its first queued
// item joins its round last. So its item waits for a bounded number of
// hand-outs, however many items the others queue (FairShare gives the
// bound). The tree costs a map lookup per dimension at each mark that
// queues, and a lookup per item handed out.
//
// # Where an item is
//
// An item the queue knows is in one of five places: queued, in flight,
// delayed, idle or disarmed. Idle and disarmed are for one-shot items,
// armed or waiting for Rearm. The calls move an item between the places.
//
//	+-----------+
//	|           |-------- AddAfter, AddRateLimited ------------+
//	|           |<---- Remove, CloseDiscardingDelays ------+   |
//	| not known |                                          |   v
//	|           |----- Add ---------> queued <----------- delayed --+
//	|   idle    |<--- Remove -------   | ^ |  timer, Add,  ^ ^ ^    |  Replace:
//	|           |                      | | |  Close        | | +----+ a new time
//	|           |                      | | +---- Replace --+ |
//	|           |       Wait, TryTake, | |                   |
//	+-----------+                 Next | | Done: rows 4, 5   |
//	  ^    ^                           v |                   |
//	  |    +----------------------- in flight ---------------+
//	  |   Done: rows 1, 2, 6, 8     | ^  |     Done: row 3
//	  |  Add, AddAfter, AddWith:    +-+  | Done: row 7
//	  |  a mark kept aside (with         |
//	  |  Replace, a new time);           |
//	  |  Remove, Rearm: flags            |
//	  |  (not places)                    v
//	  +-- Rearm: idle; Remove ------ disarmed
//
// AddWith marks as Add, AddAfter or AddRateLimited do, by its options.
// Replace is AddWith with AddOpts.Replace and a delay above 0 (After, or
// the rate limiter's with RateLimited). It delays a queued item, and
// gives a delayed item or a kept-aside mark the new time.
//
// An idle item is one the queue does not know, except that it keeps its
// mode. So a mark queues or delays it, as for a new item. A call for an
// item in flight leaves it in flight until Done. It sets a property of
// the item instead, which Done acts on.
//
//   - Add, AddAfter, AddRateLimited and AddWith keep a mark aside for it.
//   - Remove has Done forget it.
//   - Rearm of a one-shot item has Done act on its mark.
//
// A disarmed item keeps a mark aside too. Rearm makes it idle, then acts
// on the mark as an Add or AddAfter would. A mark of a queued item changes
// at most its priority. AddAfter of a delayed item keeps the earlier of
// the two ready times. A mark with AddOpts.Replace is the one exception
// to both. It sets a delayed item's ready time or a kept-aside mark's,
// later or earlier. It takes a queued item back to delayed if its delay
// is above 0. With a delay ≤ 0 it is an Add: it queues a delayed item,
// makes a kept-aside mark due at once and leaves a queued item queued.
//
// Done sends an item in flight to the place of the first row that fits
// it.
//
//	   the item                                          goes
//	1  removed                                           forgotten
//	2  marked, its time to come, delays dropped          forgotten
//	3  marked for later, unless level and still ready    delayed
//	4  marked, due now                                   queued
//	5  level, still ready                                queued
//	6  one-shot, re-armed                                idle
//	7  one-shot                                          disarmed
//	8  anything else                                     forgotten
//
// The table's words mean this.
//
//   - marked: a mark was kept aside for it, and it is not one-shot or was
//     re-armed. A disarmed item keeps its mark for Rearm.
//   - its time to come: the mark's ready time is still to come.
//   - for later: its time is to come, and the queue is open.
//   - due now: not for later, since Close ends every delay.
//   - delays dropped: CloseDiscardingDelays closed the queue.
//   - still ready: the queue is open, and has no Recheck or one that
//     reports true.
//
// Row 3 leaves a level item that is still ready to row 5, since now is
// sooner. Rows 4 and 5 put items back at the tail. The marks go first,
// in the order they arrived, then the level items in the order Done got
// them. Row 8 is an edge item not marked again, or a level item no longer
// ready. With Config.Keep, row 8 keeps the item's entry for its next
// mark. No call can tell a kept item from a forgotten one.
//
// # In a poll set
//
// A *Queue is a source of package poll's Set, as a *readyq.Queue is. A
// Set reports it with these events.
//
//   - In while items are queued, or once the queue is closed with
//     nothing left to hand out: a Wait would not block.
//   - Hup once Close or CloseDiscardingDelays ran.
//
// A locked section that leaves items queued wakes the Sets with In. Delayed
// items that become due count, once the timer or a call queues them. Close
// wakes the Sets with Hup. A Set reads the queue with atomic loads only,
// so on a user's clock (WithClock) it sees a due item only once the queue
// has moved it: when the clock fires the queue's timer, or at the queue's
// next call. Only the queue itself is a source, not a value that embeds
// it. A queue pays for its Sets only while one of its registrations waits
// for the next wakeup. Until then a locked section that leaves items
// queued loads one more counter.
//
// # In a synctest bubble
//
// The queue works inside a testing/synctest bubble. A blocked Wait, Next
// or Drain is durably blocked, so synctest.Wait returns while it waits.
// The queue's timer runs on the bubble's fake clock, so delays end
// exactly on time. The default rate limiter reads the same clock. Make
// each Queue in the bubble that uses it. Its channels and its timer
// belong to that bubble, so it must not be shared with another bubble or
// with code outside.
//
// # Bad input
//
// A nil context and max ≤ 0 make Wait, WaitAppend and Next return an
// error that matches ErrInvalid. They change nothing then: WaitAppend
// returns buf, and Next returns done, unchanged (its items stay in
// flight). For max ≤ 0, TryTake returns nothing. Drain returns such an
// error for a nil context. Each error names the call and what was wrong:
//
//	workqueue: wait: max 0 is not above 0: evsync: invalid argument
//	workqueue: next: nil context: evsync: invalid argument
//
// Test for them with errors.Is(err, ErrInvalid). Done, Remove and Rearm
// of an item the queue does not hold in the right state are no-ops. They
// report it, by Done's count or by false. Add, AddAfter, AddWith and
// AddRateLimited after Close return false, and so does AddMode with a
// mode that is not one. A delay ≤ 0 is no delay, and any int is a
// priority. None of these calls panics or blocks.
//
// A Config's types are checked by the compiler. NewWithConfig panics only
// for a Mode that is not one. The other panic is for an item that cannot
// be a map key. That can happen in a queue whose item type is or holds
// an interface, such as a Queue[any]. There an item whose dynamic value
// is a slice, a map or a func is one. Given one, Add, AddMode, Done, Next,
// Remove and Rearm panic with the runtime's own error ("hash of
// unhashable type …"). A map index would panic the same way. The call
// panics before it changes anything, whatever the other items it was
// given. It leaves the queue unlocked and usable by every goroutine.
package workqueue
