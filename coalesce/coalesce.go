// Package coalesce provides a coalescing waker: producers note events
// with Wake, and the consumer gets one wakeup for many events, at most a
// bounded delay after the first of them.
package coalesce

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/evsync/evsync/internal/spin"
)

// MaxDelay is the longest delay New accepts. A coalescing window longer
// than a second is almost always a unit mistake (5 instead of
// 5*time.Millisecond), so New rejects it rather than sleep on it.
const MaxDelay = time.Second

// Errors returned by this package; they are the same values in every
// evsync package and work with errors.Is.
var (
	// ErrInvalid is returned by Wait for a nil context.
	ErrInvalid = spin.ErrInvalid
	// ErrClosed is returned by Wait once the waker is closed and every
	// event noted before Close has been reported.
	ErrClosed = spin.ErrClosed
)

// A Waker coalesces events: Wake notes one, and the consumer is woken
// once per window, through C (or Ready) or Wait, which reports how many
// events the wakeup covers.
//
// Policies: by default (audit) the first event after an idle period arms
// one timer for the delay; later events neither re-arm nor extend it, and
// when it fires the consumer gets one wakeup for all of them. WithAdaptive
// (recommended) wakes at once while wakeups are rare and coalesces only
// while they would come often. WithMaxBatch
// wakes at once when that many events are pending. WithMaxWait switches to
// a trailing debounce: the wakeup comes once the stream has been quiet for
// the delay, but never later than maxWait after the window's first event.
// A delay of 0 wakes at once. No timer is armed while nothing is pending,
// and no goroutine exists per Waker.
//
// Create a Waker with New. A Waker must not be copied after first use.
// A Wake synchronizes before the wakeup that reports its event.
//
// Wakeups never double up: a wakeup that finds the previous one not yet
// consumed merges into it (C holds at most one token), and Flush cancels
// the pending timer, so the same events are never reported twice.
type Waker struct {
	_        noCopy
	pending  atomic.Uint64 // events noted since the last wakeup
	closed   atomic.Bool   // set under mu by Close; read by Wake without it
	delay    time.Duration
	maxBatch uint64        // 0: no count threshold
	maxWait  time.Duration // 0: audit policy; else trailing debounce
	adaptive bool          // WithAdaptive

	mu        sync.Mutex
	c         chan struct{} // the wakeup token; closed by Close
	delivered uint64        // events handed over by wakeups, not yet reported; only with mu held
	timer     *time.Timer   // made on first use; only with mu held
	armed     bool          // timer set to fire; only with mu held
	deadline  time.Time     // when the armed timer is due; only with mu held
	stale     int           // callbacks under way that Stop came too late for; only with mu held
	seen      uint64        // debounce: pending when the timer was last set; only with mu held
	start     time.Time     // debounce: when the window's first event armed the timer; only with mu held
	wakeups   uint64        // wakeups fired; only with mu held
	lastFire  time.Time     // WithAdaptive: when the last wakeup fired; only with mu held
	hot       bool          // WithAdaptive: coalescing; only with mu held
	period    time.Time     // WithAdaptive, not hot: when the counted wakeups began; only with mu held
	fires     int           // WithAdaptive, not hot: immediate wakeups since period; only with mu held
	cbDone    chan struct{} // closed when the last stale callback is gone, if Close waits

	fn   func(events uint64) // WithFunc: called per wakeup instead of C
	fnMu sync.Mutex          // held while fn runs: calls never overlap, and Close waits for one
}

// New returns a Waker with the given delay. It panics if delay is negative
// or above MaxDelay, or if an option is invalid for it.
func New(delay time.Duration, opts ...Option) *Waker {
	if delay < 0 || delay > MaxDelay {
		panic("coalesce: delay must be between 0 and MaxDelay")
	}
	w := &Waker{delay: delay, c: make(chan struct{}, 1)}
	for _, o := range opts {
		o.apply(w)
	}
	if w.maxWait != 0 && w.maxWait < delay {
		panic("coalesce: maxWait below the delay")
	}
	w.hot = w.adaptive // WithAdaptive starts out coalescing (see immediate)
	return w
}

// Wake notes one event. It never blocks and does not allocate; only the
// first event of a window (and the one that reaches the batch threshold)
// takes the lock, to arm the timer or to wake the consumer. After Close it
// does nothing.
func (w *Waker) Wake() {
	if w.closed.Load() {
		return
	}
	n := w.pending.Add(1)
	switch {
	case n == w.maxBatch:
		w.Flush()
	case n == 1:
		w.arm()
	}
}

// arm starts the window for the first pending event.
func (w *Waker) arm() {
	w.mu.Lock()
	if w.closed.Load() || w.armed || w.pending.Load() == 0 {
		w.mu.Unlock()
		return // closed, already armed, or flushed meanwhile
	}
	if w.delay == 0 || w.adaptive && w.immediate() {
		w.unlockAndCall(w.fireLocked())
		return
	}
	w.set(w.delay)
	if w.maxWait != 0 {
		w.seen, w.start = w.pending.Load(), time.Now()
	}
	w.mu.Unlock()
}

// immediate decides, for WithAdaptive, whether the event opening a
// window now wakes the consumer at once. Out of coalescing, it counts the
// immediate wakeups over periods of at least one delay, each starting at
// the first event after the last one ended. When a period ends with more
// than AdaptiveWakeups wakeups and the stream goes on (the last wakeup is
// within a delay), coalescing (hot) starts; it lasts until a window runs
// its whole delay and catches AdaptiveWakeups events or fewer (expire).
// A burst shorter than the delay, however dense, so never arms a timer:
// the timer would wake an idle process for events that cost little to
// deliver at once. The way back is judged by what windows catch, not by
// gaps between them, so a consumer slow to come back (busy, or not yet
// scheduled) does not end coalescing. It starts out coalescing, so that a
// stream is coalesced from its first event, and a trickle costs one
// window (its first event waits for the delay) before it is served at
// once. Only with mu held.
func (w *Waker) immediate() bool {
	if w.hot {
		return false
	}
	now := time.Now()
	if w.fires == 0 || now.Sub(w.period) >= w.delay {
		busy := w.fires > AdaptiveWakeups && now.Sub(w.lastFire) <= w.delay
		w.period, w.fires = now, 0
		if busy {
			w.hot = true
			return false
		}
	}
	w.fires++
	return true
}

// unlockAndCall releases mu and, in WithFunc mode, calls fn for a wakeup
// of n events. fn runs outside mu (so it may take its own locks and call
// Wake) but under fnMu, so calls never overlap.
func (w *Waker) unlockAndCall(n uint64) {
	w.mu.Unlock()
	if n == 0 || w.fn == nil {
		return
	}
	w.fnMu.Lock()
	defer w.fnMu.Unlock()
	if !w.closed.Load() {
		w.fn(n)
	}
}

// set (re)arms the timer for d. Only with mu held.
func (w *Waker) set(d time.Duration) {
	// The deadline is taken before the timer is set, so the timer is due
	// no earlier than it: a genuine run never looks stale to expire.
	w.armed, w.deadline = true, time.Now().Add(d)
	if w.timer == nil {
		w.timer = time.AfterFunc(d, w.expire)
	} else {
		w.timer.Reset(d)
	}
}

// stop disarms the timer. A callback that has already started cannot be
// stopped; it is counted as stale and will find nothing to do. Only with
// mu held.
func (w *Waker) stop() {
	if w.armed && !w.timer.Stop() {
		w.stale++
	}
	w.armed = false
}

// expire is the timer's callback; it runs under mu, so callbacks never
// overlap. A run that Flush or Close could not stop is stale: it finds the
// timer disarmed, or armed for a later window whose deadline has not come
// (timers never fire early, so only a stale run can see that), and does
// nothing.
func (w *Waker) expire() {
	w.mu.Lock()
	if !w.armed || time.Now().Before(w.deadline) {
		w.stale--
		if w.stale == 0 && w.cbDone != nil {
			close(w.cbDone) // Close is waiting for the last one
		}
		w.mu.Unlock()
		return
	}
	w.armed = false // this run is the timer's: nothing left to stop
	if w.maxWait != 0 && w.extend() {
		w.mu.Unlock()
		return
	}
	if w.hot && w.pending.Load() <= AdaptiveWakeups {
		w.hot = false // a whole window caught few events: the stream is thin
	}
	w.unlockAndCall(w.fireLocked())
}

// extend re-arms a debounce timer while events keep arriving and maxWait
// allows, reporting whether it did.
func (w *Waker) extend() bool {
	p := w.pending.Load()
	left := w.maxWait - time.Since(w.start)
	if p == w.seen || left <= 0 {
		return false
	}
	w.seen = p
	w.set(min(w.delay, left))
	return true
}

// fireLocked hands the pending events to the consumer as one wakeup and
// returns how many there were. In WithFunc mode the caller passes that to
// unlockAndCall instead. Only with mu held.
func (w *Waker) fireLocked() uint64 {
	w.stop()
	n := w.pending.Swap(0)
	if n == 0 {
		return 0
	}
	w.wakeups++
	if w.adaptive {
		w.lastFire = time.Now()
	}
	if w.fn != nil {
		return n
	}
	w.delivered += n
	select {
	case w.c <- struct{}{}:
	default: // the previous wakeup is not consumed yet: this one merges into it
	}
	return n
}

// Flush wakes the consumer now for the pending events, if any, and cancels
// the pending timer: the same events never cause a second wakeup.
func (w *Waker) Flush() {
	w.mu.Lock()
	if w.closed.Load() {
		w.mu.Unlock()
		return
	}
	w.unlockAndCall(w.fireLocked())
}

// C returns the channel that receives one token per wakeup (wakeups that
// find a token still there merge into it). After a receive, Events reports
// how many events the wakeup covers. C is closed by Close.
func (w *Waker) C() <-chan struct{} { return w.c }

// Ready is C, for symmetry with the other evsync primitives.
func (w *Waker) Ready() <-chan struct{} { return w.c }

// Events returns the events handed over by wakeups and not yet reported,
// and resets that count. Call it after a receive from C; Wait calls it for
// you. If a later wakeup left a token on C meanwhile, Events takes that
// token too, since it returns that wakeup's events: a receive from C
// never finds a wakeup with no events. After Close it also returns the
// events still pending.
func (w *Waker) Events() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := w.delivered
	w.delivered = 0
	if w.closed.Load() {
		return n + w.pending.Swap(0)
	}
	if n != 0 {
		select {
		case <-w.c: // the token of a wakeup whose events n includes
		default:
		}
	}
	return n
}

// Wait waits for the next wakeup and returns how many events it covers. It
// returns ErrInvalid for a nil ctx, ctx.Err() if ctx ends first (no event
// is lost: they stay for the next call), and, after Close, the events
// noted before Close and then ErrClosed.
func (w *Waker) Wait(ctx context.Context) (events uint64, err error) {
	if ctx == nil {
		return 0, ErrInvalid
	}
	select {
	case _, ok := <-w.c:
		n := w.Events()
		if !ok && n == 0 {
			return 0, ErrClosed
		}
		return n, nil
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// Close stops the waker: the timer is stopped, and when Close returns no
// callback is running and none will (in WithFunc mode, fn is not running
// and will not be called again; fn must not call Close itself). C is closed; the events noted before
// Close stay readable through Events and Wait. Later Wake calls do
// nothing. Close is idempotent.
func (w *Waker) Close() {
	w.mu.Lock()
	if w.closed.Load() {
		w.mu.Unlock()
		return
	}
	w.closed.Store(true)
	w.stop()
	var wait chan struct{}
	if w.stale > 0 { // callbacks under way, waiting for mu: let them finish
		wait = make(chan struct{})
		w.cbDone = wait
	}
	close(w.c)
	w.mu.Unlock()
	if wait != nil {
		<-wait
	}
	// A WithFunc call under way finishes before Close returns; later ones
	// see closed and do not run fn.
	w.fnMu.Lock()
	//lint:ignore SA2001 the empty critical section is the wait
	w.fnMu.Unlock()
}

// Stats is a snapshot of a Waker's state.
type Stats struct {
	Pending   uint64 // events noted since the last wakeup
	Delivered uint64 // events handed over and not yet reported
	Wakeups   uint64 // wakeups fired so far
	Armed     bool   // a timer is set
	Closed    bool
}

// Pending returns the events noted since the last wakeup: non-zero while
// a window is open. It is one atomic load, for producers that need to
// know whether a wakeup is already on its way (package signal notes only
// the first add of a window this way).
func (w *Waker) Pending() uint64 { return w.pending.Load() }

// Stats returns a snapshot. It takes the lock briefly to copy the fields
// and formats nothing under it.
func (w *Waker) Stats() Stats {
	w.mu.Lock()
	defer w.mu.Unlock()
	return Stats{
		Pending:   w.pending.Load(),
		Delivered: w.delivered,
		Wakeups:   w.wakeups,
		Armed:     w.armed,
		Closed:    w.closed.Load(),
	}
}

// String formats a Stats snapshot.
func (w *Waker) String() string { return w.Stats().String() }

// String formats the snapshot.
func (st Stats) String() string {
	return fmt.Sprintf("coalesce{pending=%d delivered=%d wakeups=%d armed=%t closed=%t}",
		st.Pending, st.Delivered, st.Wakeups, st.Armed, st.Closed)
}

// noCopy lets go vet's copylocks check flag copies of a Waker.
type noCopy struct{}

// Lock is a no-op; its presence is what go vet looks for.
func (*noCopy) Lock() {}

// Unlock is a no-op, the pair of Lock.
func (*noCopy) Unlock() {}
