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
	slots     []*slot       // the timers, made on first use (see slot); only with mu held
	cur       *slot         // the armed timer, nil if none; only with mu held
	stale     int           // slots whose run Stop came too late for; only with mu held
	calling   bool          // WithFunc: a goroutine is passing wakeups to fn; only with mu held
	queued    uint64        // WithFunc: events of wakeups that came during a call, for it to pass on; only with mu held
	callsDone chan struct{} // closed when calling ends, if Close waits; only with mu held
	seen      uint64        // debounce: pending when the timer was last set; only with mu held
	start     time.Time     // debounce: when the window's first event armed the timer; only with mu held
	wakeups   uint64        // wakeups fired; only with mu held
	lastFire  time.Time     // WithAdaptive: when the last wakeup fired; only with mu held
	hot       bool          // WithAdaptive: coalescing; only with mu held
	period    time.Time     // WithAdaptive, not hot: when the counted wakeups began; only with mu held
	fires     int           // WithAdaptive, not hot: immediate wakeups since period; only with mu held
	cbDone    chan struct{} // closed when the last stale run is gone, if Close waits; only with mu held
	closeDone chan struct{} // made by the first Close, closed when it returns; set with mu held

	fn func(events uint64) // WithFunc: called per wakeup instead of C
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

// Wake notes one event. It does not allocate and never waits for the
// consumer; only the first event of a window (and the one that reaches the
// batch threshold) takes the lock, to arm the timer or to wake the
// consumer. In WithFunc mode a wakeup that Wake causes at once (delay 0,
// the batch threshold, WithAdaptive serving at once) runs fn on Wake's
// goroutine, with the wakeups that come while it runs. After Close it does
// nothing.
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
	if w.closed.Load() || w.cur != nil || w.pending.Load() == 0 {
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

// unlockAndCall releases mu and, in WithFunc mode, passes a wakeup of n
// events to fn. Calls never overlap: one goroutine at a time is calling,
// and a wakeup that comes meanwhile (from another goroutine, or from a
// Wake or Flush that fn itself makes) adds its events to queued, for that
// goroutine to pass on as soon as fn returns. So fn runs outside mu and
// may call Wake and Flush without deadlock. Close waits until no goroutine
// is calling: events taken before Close reach fn, and no call runs after
// Close returns.
func (w *Waker) unlockAndCall(n uint64) {
	if n == 0 || w.fn == nil {
		w.mu.Unlock()
		return
	}
	if w.calling {
		w.queued += n
		w.mu.Unlock()
		return
	}
	w.calling = true
	w.mu.Unlock()
	w.callLoop(n)
}

// callLoop calls fn with n, then with the events queued meanwhile, until
// none are. If fn panics, the panic goes on up to the caller, and the
// Waker stays usable: calling ends, and events queued meanwhile become
// pending again, with a timer armed for them, so they still get their
// wakeup within the delay.
func (w *Waker) callLoop(n uint64) {
	defer func() {
		if n != 0 { // fn panicked
			w.mu.Lock()
			w.endCall()
			if q := w.queued; q != 0 {
				w.queued = 0
				if w.pending.Add(q) == q && !w.closed.Load() && w.cur == nil {
					w.set(w.delay)
				}
			}
			w.mu.Unlock()
		}
	}()
	for n != 0 {
		w.fn(n)
		w.mu.Lock()
		n, w.queued = w.queued, 0
		if n == 0 {
			w.endCall()
		}
		w.mu.Unlock()
	}
}

// endCall ends a goroutine's calling, letting a waiting Close go on. Only
// with mu held.
func (w *Waker) endCall() {
	w.calling = false
	if w.callsDone != nil {
		close(w.callsDone)
		w.callsDone = nil
	}
}

// A slot is one of a Waker's timers. time.AfterFunc cannot take back a
// run that has started, so a timer that Stop came too late for is stale:
// its run is on its way and will find nothing to do. A stale slot is
// never Reset until that run has come (Reset would fold the new window
// into the run under way, or add a second one, and no run could tell
// which window it belongs to); the next window takes another slot. So a
// slot has at most one run in the air, every run knows from its slot's
// state whether it is the armed timer's or a stale one, and Close can
// wait for exactly the stale ones. There are rarely more than two slots:
// a new one is made only when every slot is stale, which takes a Flush
// or Close racing each timer that fires.
type slot struct {
	w     *Waker
	t     *time.Timer
	state slotState // only with w.mu held
}

type slotState uint8

const (
	slotIdle  slotState = iota // no run pending or on its way
	slotArmed                  // the Waker's armed timer (w.cur)
	slotStale                  // stopped too late: its run is on its way
)

// set arms a timer for d, in the first idle slot (a new slot if none is).
// Only with mu held, and with no timer armed.
func (w *Waker) set(d time.Duration) {
	var sl *slot
	for _, c := range w.slots {
		if c.state == slotIdle {
			sl = c
			break
		}
	}
	if sl == nil {
		sl = &slot{w: w}
		sl.t = time.AfterFunc(d, sl.expire)
		w.slots = append(w.slots, sl)
	} else {
		sl.t.Reset(d)
	}
	sl.state, w.cur = slotArmed, sl
}

// stop disarms the timer. A run that has already started cannot be
// stopped; its slot turns stale and the run will find nothing to do.
// Only with mu held.
func (w *Waker) stop() {
	if w.cur == nil {
		return
	}
	if w.cur.t.Stop() {
		w.cur.state = slotIdle
	} else {
		w.cur.state = slotStale
		w.stale++
	}
	w.cur = nil
}

// expire is a slot's timer run. It runs under mu, so runs never overlap.
// A stale run only frees its slot (and lets a waiting Close go on after
// the last one); the armed timer's run fires the wakeup, or re-arms a
// debounce.
func (sl *slot) expire() {
	w := sl.w
	w.mu.Lock()
	if sl.state != slotArmed {
		sl.state = slotIdle
		w.stale--
		if w.stale == 0 && w.cbDone != nil {
			close(w.cbDone) // Close is waiting for the last one
		}
		w.mu.Unlock()
		return
	}
	sl.state, w.cur = slotIdle, nil // this run is the timer's: nothing left to stop
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
		return n // for unlockAndCall
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
// returns ErrInvalid for a nil ctx; ctx.Err() at once if ctx is already
// done, even if a wakeup is there, and if ctx ends while it waits (no event
// is lost either way: they stay for the next call); and, after Close, the
// events noted before Close and then ErrClosed.
func (w *Waker) Wait(ctx context.Context) (events uint64, err error) {
	if ctx == nil {
		return 0, ErrInvalid
	}
	if err := ctx.Err(); err != nil {
		return 0, err
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
// and will not be called again; fn must not call Close itself). C is
// closed; the events noted before Close stay readable through Events and
// Wait. Later Wake calls do nothing. Close is idempotent, and every call
// returns only once the first one has finished.
func (w *Waker) Close() {
	w.mu.Lock()
	if w.closed.Load() {
		done := w.closeDone
		w.mu.Unlock()
		<-done
		return
	}
	w.closed.Store(true)
	w.closeDone = make(chan struct{})
	defer close(w.closeDone)
	w.stop()
	var stale, calls chan struct{}
	if w.stale > 0 { // timer runs under way, waiting for mu: let them finish
		stale = make(chan struct{})
		w.cbDone = stale
	}
	if w.calling { // a WithFunc call under way: let fn have what it took
		calls = make(chan struct{})
		w.callsDone = calls
	}
	close(w.c)
	w.mu.Unlock()
	if stale != nil {
		<-stale
	}
	if calls != nil {
		<-calls
	}
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
		Armed:     w.cur != nil,
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
