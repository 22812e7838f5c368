// Package poll is epoll for Go: one Set that waits on many sources at
// once. The sources are evsync's primitives, a program's own types
// (Source), deadlines (Deadline) and contexts (Done). A source's wakeup
// puts it on the Set's ready list, so a Wait costs what is ready, not
// what is registered.
//
// Go has no such thing. A program that waits on N channels uses
// reflect.Select, whose cost grows with N on every wait, or N goroutines
// fanning in to one channel. A Set holds N registrations and a ready
// list, and its Wait takes from the list.
//
// # The epoll mapping
//
//	poll                            epoll (fs/eventpoll.c)
//	Set[K]                          an epoll instance
//	Add(src, key, events, mode)     EPOLL_CTL_ADD; key is epoll_data
//	Modify(src, key, events, mode)  EPOLL_CTL_MOD (re-arms a one-shot source)
//	Remove(src)                     EPOLL_CTL_DEL
//	Wait(ctx, buf, max)             epoll_wait with maxevents max
//	WaitTimeout(buf, max, d)        epoll_wait with a timeout
//	TryWait(buf, max)               epoll_wait with a timeout of 0
//	In, Out, Hup                    EPOLLIN, EPOLLOUT, EPOLLHUP
//	Edge, Level, OneShot            EPOLLET, the default (LT), EPOLLONESHOT
//	a source's wakeup               ep_poll_callback
//	Source.Notify                   a driver's call of wake_up on its wait queue
//	Deadline                        a timerfd
//	WithBurst(k, d)                 io_uring's min_wait_usec, for epoll
//	Ready()                         poll on the epoll fd itself
//
// # Sources
//
// A source is one of:
//
//   - a *signal.Signal: In while its count is above 0, Out below Max
//   - a *semaphore.Semaphore: In while it holds units, Out below its
//     limit
//   - a *semaphore.Limiter: In while it has free units, Out while some
//     are held
//   - a *semaphore.Group: In while slots are free, Out while functions
//     run; never Hup, since a Group has no Close
//   - a *coalesce.Waker: In while a wakeup is pending; each wakeup it
//     delivers wakes its Sets (the events it coalesces do not)
//   - a *readyq.Queue of any item type: In while items are queued; a
//     locked section that leaves items queued wakes its Sets
//   - a *workqueue.Queue of any item type: as a readyq.Queue, and a
//     delayed item wakes its Sets once the queue's timer, or on a user's
//     clock its next call, queues it
//   - a *Set of any key type: In while it has a source queued (epoll
//     nests); a source queued on it wakes the Sets it is in
//   - a *Source: a program's own source, whatever its function reports
//     (see Your own sources)
//   - a *Deadline: In from its time on (see Time)
//   - a *Done: In|Hup once its context is done; through
//     context.AfterFunc, with no goroutine while the context lives
//
// A source is known by its exact type. A value of a type that embeds a
// source has the source's methods, but it is not a source: Add refuses it
// with ErrInvalid, and its error names the source to pass instead. So are
// a nil pointer and a value of any other type, a value that cannot be
// hashed included; Modify and Remove refuse them as Add does.
//
// Each counter wakes its Sets as an eventfd wakes its epoll instances: a write
// (Add, Release, a write of 0 included) with In, a read that takes units
// with Out, SetLimit with both, Close with Hup. A closed source reports
// Hup whether asked for or not, and In, since a read no longer blocks.
// That is where a Set differs from epoll: a Go value has no fd, so a
// closed source stays in the Set and says so, while a closed eventfd
// leaves its epoll instance. A source may be in several Sets.
//
// # Modes
//
// The events of a registration are those it asks for (In, Out or both)
// that hold when a Wait polls the source again, plus Hup. A source with
// none left is dropped from the ready list until its next wakeup.
//
//   - Level: reported, then queued again at the tail, so that sources
//     that stay ready are reported round-robin under max.
//   - Edge: reported once per wakeup. A source that stays ready is not
//     reported again until its next wakeup, a write of 0 included.
//   - OneShot: reported once, then deaf until Modify re-arms it.
//
// A source tells its Sets of a change after its own lock is released,
// so the change is visible a moment before its wakeup arrives. That is
// where a Set differs from epoll, whose eventfd write and wakeup are one
// step. An Add, Modify or Wait that polls the source in that moment sees
// the change, and may report it. The late wakeup then counts as the next
// one: an edge registration that it finds armed, with the source still
// ready, is reported once more. Nothing is lost either way.
// TestSetLinearizable in package fuzz checks every concurrent history
// against that rule.
//
// Package model's Set is the sequential model of a Set over counters. It
// is checked against the kernel's epoll over eventfds, call by call, and
// a Set is checked against it.
//
// # Your own sources
//
// Any type becomes a source with a *Source. NewSource takes a function
// that reports the type's events now, and the type calls Notify after
// each change. The built-in sources keep the same two rules; they only
// keep their count of armed registrations inside their own state word.
// A Source costs a Set what a built-in source costs:
//   - Add is O(1), and no goroutine runs for it
//   - a Notify that no armed registration waits for is one atomic load
//   - a wakeup queues the registration, and a Wait polls the function
//
// # Time
//
// A Set has one timer, on the wall clock or on the clock of WithClock. It
// is armed for the earliest of what needs it:
//   - the armed Deadlines, kept in a heap: 100,000 Deadlines cost one
//     timer, and an expiry a heap step
//   - the blocked WaitTimeout calls, which need no context or timer each
//   - WithBurst's window, which makes a Wait collect a burst
//
// The timer is stopped once nothing needs it, and by Close. Inside a
// testing/synctest bubble it runs on the bubble's clock.
//
// # Cost
//
// A source pays for its Sets only while one of its registrations waits
// for its next wakeup (armed). Then every change of the source takes its
// lock and wakes the registration, which queues it and releases the
// source again. A source nobody watches, or whose registrations are all
// queued, runs its lock-free paths as before. A Wait holds the Set's lock
// while it polls the sources it reports, which is a few atomic loads
// each.
//
// # Waiters
//
// Blocked Wait callers are served in FIFO order, each with up to its max
// events. A wakeup that queues a source hands it to one caller, epoll's
// EPOLLEXCLUSIVE, so several goroutines can wait on one Set without a
// thundering herd.
//
// The order is chosen. The kernel's EPOLLEXCLUSIVE wakes the most recent
// sleeper first, and Cloudflare found that it piles connections onto one
// worker. With four idle workers on one Set (BenchmarkWaiterShare), a
// last-in-first-out order gave one worker 99.6 % of the events and the
// others none; FIFO gave each 25 %. Under load both orders split the
// events within a few points, with no measurable difference in
// throughput. So a Set keeps FIFO: idle workers share the events evenly,
// and a busy Set loses nothing by it.
package poll
