// Package spin is the one wait protocol behind every evsync primitive. It
// holds a FIFO queue of parked callers with direct hand-off, cancellation
// that never loses a grant, the Ready notifier and the shared errors.
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
// Despite the package's name, nothing spins. A waiter parks at once. On
// two cores, spinning before parking made a standing queue up to seven
// times slower. The goroutine a wake-up readies runs next on the waker's
// own processor, where spinning only delays it.
package spin

import "errors"

// Errors shared by every evsync package. Each package re-exports them.
var (
	// ErrWouldBlock is returned by non-blocking calls that could only
	// succeed by waiting (eventfd's EAGAIN).
	ErrWouldBlock = errors.New("evsync: operation would block")
	// ErrInvalid is returned for arguments that can never succeed, such as
	// a request above the limit (eventfd's EINVAL) or a nil context.
	ErrInvalid = errors.New("evsync: invalid argument")
	// ErrClosed is returned by writes after Close and by reads once a
	// closed primitive has nothing left to hand out.
	ErrClosed = errors.New("evsync: closed")
	// ErrOverRelease is returned by a limiter's Release of more units than
	// its holders hold.
	ErrOverRelease = errors.New("evsync: released more units than are held")
)
