// Package model holds pure, sequential reference models of the evsync
// primitives. Each model has the calls of a real primitive and returns
// what the real call must return when calls come one at a time.
//
// A property test or a fuzz target makes each call on the real thing and
// on its model, and compares the results. Code built on evsync is checked
// the same way. A wrapper's calls map onto the calls of the primitive it
// wraps, so its results must match the model's.
//
// The models are:
//   - [Counter], an eventfd counter. [NewSemaphore] models a
//     semaphore.Semaphore, [NewEventualSemaphore] one made with
//     WithEventualFairness, on a clock of its own, and [NewSignal] a
//     signal.Signal.
//   - [Reservation], a semaphore.Reservation: a place in a Counter's queue.
//   - [Limiter], a semaphore.Limiter. [NewLimiter] models the strict FIFO
//     one and [NewEventualLimiter] one with WithEventualFairness, on a
//     clock of its own.
//   - [Coalescer], a coalesce.Waker on a clock of its own.
//   - [ReadyQ], a readyq.Queue[int] as epoll's ready list.
//   - [WorkQueue], a workqueue.Queue[int], the controller work queue: the
//     ready list with delays, priorities, fair share and a rate limiter, on
//     a clock of its own.
//   - [Set], a poll.Set[int]: epoll's interest list and ready list, on a
//     clock of its own. Its sources are Counters, whose writes and reads
//     are their wakeups, a program's own [Source], a [Deadline] (a
//     timerfd) and a [DoneSource] (a context). It is checked against the
//     kernel's epoll over eventfds and timerfds, call by call.
//
// Each type's doc has a table of the real calls and the model's. A model
// uses no goroutines, no real clock and no locks. It is cheap to make, so a
// test makes a fresh one for each case. It is not safe for concurrent
// use.
//
// # Calls that would wait
//
// A model never waits. Each blocking call takes a [Ctx] instead of a
// context.Context, the state of the real call's context when it starts.
//   - With [Live], the model returns what the real call returns without
//     waiting. Where the real call would wait, the model returns
//     [ErrWouldBlock] and changes nothing.
//   - With [Done], the model checks the arguments first, as the real call
//     does. Then it returns context.Canceled and changes nothing, even
//     where the call could succeed at once.
//
// A nil context is not modelled. The real calls return ErrInvalid for it.
//
// # Stepping a wrapper and its model
//
// A test makes the real object and the model with the same arguments.
// Then, for every call:
//  1. Make the call on the model, with Live or Done.
//  2. If the model returns ErrWouldBlock, the real call would wait. A
//     sequential test skips it, and the model has not changed.
//  3. Otherwise make the real call, with a live or a cancelled context,
//     and compare both results with errors.Is.
//  4. Compare what both sides can observe, such as Count, Len or InFlight.
//
// The examples do this for a worker pool on semaphore.Limiter, in a rapid
// state machine, and for a job queue on readyq.Queue, in a fuzz target.
//
// # Ready channels
//
// A Ready or Writable channel is a value a test holds across calls. The
// model hands out a [Ticket] for it instead. Fired reports whether the
// channel the ticket names is closed by now. A test receives from the
// real channel without waiting and compares.
//
// # Errors
//
// The models return the error values the real packages return.
// [ErrClosed] is semaphore.ErrClosed, signal.ErrClosed, coalesce.ErrClosed
// and readyq.ErrClosed, which are one value. The same holds for
// [ErrWouldBlock], [ErrInvalid] and [ErrOverRelease]. So errors.Is
// compares an error of the real call with the model's. A Done call
// returns context.Canceled, which is what a cancelled context's Err
// returns.
//
// # Concurrent histories
//
// A checker that searches the orders of a concurrent history, such as
// porcupine, needs more of a Set than its calls:
//   - [CloneSet] copies a Set with its sources of every kind and its
//     clock. The checker steps the copy and keeps the state it stepped
//     from.
//   - [Set.Registration] and [Set.ReadyList] show what a Set holds, so
//     that the checker can compare states.
//   - [Mute], [Unmute] and [Set.Wake] split a source's call from its
//     wakeup. A real source tells its Sets after its own unlock, so a Set
//     may see the change before it hears of it.
//
// # Validate
//
// Each model has a Validate method that checks the model's own
// invariants. It returns nil unless the model itself has a bug. A test
// may call it after every step.
package model
