// Package readyq is epoll's ready list in Go: a splice-able queue of
// ready items. Producers mark items ready, and consumers take them out in
// batches. An item is queued at most once and held by at most one
// consumer at a time.
//
// It is the ready list only. A controller's work queue, with delays,
// retries, rate limiters, priorities, fair share and metrics, is package
// workqueue, built on the same core.
//
// # The epoll mapping
//
//	readyq                        epoll (fs/eventpoll.c)
//	Add(item)                     ep_poll_callback: item onto rdllist (once)
//	Wait(ctx, max), TryTake(max)  epoll_wait: rdllist spliced onto txlist, up to maxevents
//	an item in flight (until Done) an item on txlist during ep_send_events
//	a mark kept aside             an arrival on ovflist during the scan
//	Done(items...)                ep_done_scan: ovflist put back in arrival order,
//	                              level-triggered items re-added at the tail
//	Next(ctx, done, max)          Done(done...) and the next epoll_wait in one step
//	Edge / Level / OneShot        EPOLLET / default (LT) / EPOLLONESHOT
//	Config.Recheck                the re-poll of a level-triggered file
//	Rearm(item)                   EPOLL_CTL_MOD of a one-shot item
//	Remove(item)                  EPOLL_CTL_DEL
//	Ready()                       poll on the epoll fd itself
//
// The one difference is how long an item stays "on the txlist". Epoll's
// scan ends when epoll_wait returns. A readyq hand-out ends at Done, when
// the consumer has finished with the item. That is what client-go's
// workqueue calls processing. The queue keeps its guarantee, so an item
// is never handed to two consumers at once and a mark made meanwhile is
// never lost. It adds batch hand-outs, trigger modes, Remove,
// cancellation, Close and Drain.
//
// # Guarantees
//
// An item is queued at most once, and queued items are handed out in the
// order of their first mark. A hand-out that a Wait, TryTake or Next
// makes holds the lock for O(1) time. Only a walk over the holes that
// Remove left, if any, adds to that. A batch is taken off the list by
// moving one index. Batches of more than a few hundred items are copied
// out after the lock is released, so producers never wait for a large
// hand-out.
//
// The one exception is a Done that puts back many items while a caller is
// blocked in Wait. It hands them to that caller, up to its max, under the
// lock.
//
// An item marked while in flight is kept aside and queued again at its
// Done. It is never lost and never handed to two consumers at once.
// Remove wins over every later hand-out. A Wait that gives up loses
// nothing (see Queue's cancel-safety paragraph).
//
// # Locking
//
// The evsync counters have fast paths that are single atomic operations.
// Every readyq call that changes the list instead takes its mutex,
// because deduplication needs the item index. The locked section is short
// and bounded: a hash lookup, a few index moves. Nothing is read before
// the lock but the item type's one-time key check. An Add that finds a
// Wait caller blocked on an empty list hands it the item directly, so the
// item never goes through the list. Waiting goes through internal/waitq
// like everywhere else.
//
// Observers (Len, InFlight, Stats, String) read atomics only, from their
// second call on. A queue publishes its counters only once something has
// observed it: the first Len, InFlight, Stats, String, TryTake or Ready
// takes the lock once to start that. So a queue nobody observes pays
// nothing for its counters.
//
// # Close and Drain
//
// Close refuses new marks. Consumers then drain what is queued, and what
// Done still queues from marks kept aside before Close. They get
// ErrClosed once nothing is left to hand out. A Wait on a closed queue
// with nothing queued keeps waiting while some item in flight has a
// kept-aside mark. That item's Done will queue it. The Wait returns
// ErrClosed as soon as no Done can queue anything. So a consumer
// must call Done for what it holds before it waits again, as the usual
// loop does. Drain waits, on an open or closed queue, until nothing is
// queued and nothing is in flight.
//
// # Where an item is
//
// An item the queue knows is in one of four places: queued, in flight,
// idle or disarmed. Idle and disarmed are for one-shot items, armed or
// waiting for Rearm. The calls move an item between the places.
//
//	+-----------+
//	| not known |----- Add ---------> queued
//	|           |<--- Remove -------   |  ^
//	|   idle    |                      |  |
//	|           |       Wait, TryTake, |  | Done: rows 2, 3
//	+-----------+                 Next |  |
//	  ^    ^                           v  |
//	  |    +----------------------- in flight
//	  |   Done: rows 1, 4, 6        | ^  |
//	  |  Add: a mark kept aside;    +-+  | Done: row 5
//	  |  Remove, Rearm: flags            |
//	  |  (not places)                    v
//	  +-- Rearm: idle; Remove ------ disarmed
//
// An idle item is one the queue does not know, except that it keeps its
// mode. So a mark queues it, as for a new item. A call for an item in
// flight leaves it in flight until Done. It sets a property of the item
// instead, which Done acts on.
//
//   - Add keeps a mark aside for it.
//   - Remove has Done forget it.
//   - Rearm of a one-shot item has Done act on its mark.
//
// A disarmed item keeps a mark aside too. Rearm makes it idle, then acts
// on the mark as an Add would. A mark of a queued item changes nothing.
//
// Done sends an item in flight to the place of the first row that fits
// it.
//
//	   the item                 goes
//	1  removed                  forgotten
//	2  marked                   queued
//	3  level, still ready       queued
//	4  one-shot, re-armed       idle
//	5  one-shot                 disarmed
//	6  anything else            forgotten
//
// The table's words mean this.
//
//   - marked: a mark was kept aside for it, and it is not one-shot or was
//     re-armed. A disarmed item keeps its mark for Rearm.
//   - still ready: the queue is open, and has no Recheck or one that
//     reports true.
//
// Rows 2 and 3 put items back at the tail. The marks go first, in the
// order they arrived, then the level items in the order Done got them.
// Row 6 is an edge item not marked again, or a level item no longer
// ready. With Config.Keep, row 6 keeps the item's entry for its next
// mark. No call can tell a kept item from a forgotten one.
//
// # In a synctest bubble
//
// The queue works inside a testing/synctest bubble. A blocked Wait, Next
// or Drain is durably blocked, so synctest.Wait returns while it waits.
// A queue's channels belong to the bubble it first waits in, so it must
// not be shared with another bubble or with code outside.
//
// # Bad input
//
// A nil context and max ≤ 0 make Wait, WaitAppend and Next return an
// error that matches ErrInvalid. They change nothing then: WaitAppend
// returns buf, and Next returns done, unchanged (its items stay in
// flight). For max ≤ 0, TryTake returns nothing. Drain returns such an
// error for a nil context. Each error names the call and what was wrong:
//
//	readyq: wait: max 0 is not above 0: evsync: invalid argument
//	readyq: next: nil context: evsync: invalid argument
//
// Test for them with errors.Is(err, ErrInvalid).
// Done, Remove and Rearm of an item the queue does not hold in the right
// state are no-ops. They report it, by Done's count or by false. Add
// after Close returns false. None of these calls panics or blocks.
//
// NewWithConfig panics only for a Mode that is not one. The other panic
// is for an item that cannot be a map key. That can happen in a queue
// whose item type is or holds an interface, such as a Queue[any]. There
// an item whose dynamic value is a slice, a map or a func is one. Given
// one, Add, AddMode, Done, Next, Remove and Rearm panic with the
// runtime's own error ("hash of unhashable type …"). A map index would
// panic the same way. The call panics before it changes anything,
// whatever the other items it was given. It leaves the queue unlocked and
// usable by every goroutine.
package readyq
