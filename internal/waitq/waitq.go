// Package waitq is the wait queue behind every evsync primitive, and the
// one way any of them waits. It holds a FIFO queue of parked callers with
// direct hand-off, cancellation that never loses a grant, and the Ready
// notifier. The shared errors live in internal/evserr.
//
// # The protocol
//
// A primitive keeps its state under its own lock, an Owner. A caller that
// must wait takes the lock, finds it cannot go on, and calls Push with
// what it asks for. It unlocks and sleeps with Sleep. Then it calls
// Finish, which returns a Result: what it was handed and how the wait
// ended. The caller never sees a waiter's states or a lock held for it.
//
// The other side serves. Whoever changes the state looks at Front under
// the lock. It hands the oldest waiter its share with Grant, or refuses it
// with Reject after Close. A woken waiter never re-checks a condition and
// never races the others. The decision was made for it, in FIFO order.
// The kernel wakes every sleeper and lets them race, and evsync does not.
//
// Each primitive supplies two things. The payload P says what a waiter
// asks for and what it gets. The Owner's Unlock serves the waiters a
// change may have unblocked, and every locked section ends that way.
//
// # Cancellation
//
// A granter never hands anything to a waiter whose context has ended.
// Front checks the head's Done channel without blocking. It settles a
// cancelled head as Cancelled, so the share goes to the next waiter.
//
// A waiter whose context ends first calls Finish, which takes the lock. A
// waiter still queued leaves, and the Owner's Unlock serves those behind
// it. So a cancelled head never strands them. A waiter already settled was
// settled while its context was live, and that verdict stands. A grant
// that raced with the cancellation is reported as a success, never lost.
// Handing it back instead would not be linearizable, because other callers
// may have seen the state without it meanwhile.
//
// # Cost
//
// Sleep is small enough to be inlined, so a caller parks in its own frame.
// A goroutine that resumes after a park returns through every frame
// between the park and its caller. Each of those frames costs a
// mispredicted return. With a context that never ends, Sleep is a plain
// receive.
//
// Waiting does not allocate, because a Queue recycles its records. A
// waiter gives its record back with one compare-and-swap onto a stack.
// Only the lock holder takes records off it, all at once, so none is
// taken twice. Records stay with their Queue, so a channel made in one
// synctest bubble never reaches a goroutine in another.
//
// Waking a parked goroutine is the dearest step of a hand-off. Grant only
// records the verdict. The Owner wakes the waiters after it unlocks, as
// the kernel's wake_q does, so the critical section stays short. Woken and
// WakeAll do that part.
//
// A waiter parks at once and never spins. On two cores, spinning before
// parking made a standing queue up to seven times slower. The goroutine a
// wake-up readies runs next on the waker's own processor, where spinning
// only delays it.
package waitq
