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

// MaxDelay was the longest delay New accepted.
//
// Deprecated: New no longer limits the delay: it accepts any non-negative
// delay, as WithMaxWait accepts any positive maxWait (a debounce of a few
// seconds is common, for file watchers say).
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
// while they would come often. WithMaxBatch wakes at once when that many
// events are pending. WithMaxWait switches to a trailing debounce, which
// wakes between one and two delays after the last event of a burst, and
// never later than maxWait after the window's first event. A delay of 0
// wakes at once. No timer is armed while nothing is pending, and no
// goroutine exists per Waker.
//
// Wakeups never double up: a wakeup that finds the previous one not yet
// consumed merges into it (C holds at most one token), and Flush cancels
// the pending timer, so the same events are never reported twice.
//
// The zero value is a Waker with a delay of 0 and the default policy:
// every Wake is a wakeup at once. New sets a delay and options. A Waker
// must not be copied after first use.
//
// A Wake synchronizes before the Wait or Events call that reports its
// event.
//
// Fairness and consumers: every event is reported exactly once, to one
// consumer. Several goroutines may call Wait at once: the events of each
// wakeup go to one of them, in no promised order (there is no queue: the
// token goes to whichever receiver the channel serves), and Wait never
// returns 0 events with a nil error, since a Wait whose token's events
// another consumer took first goes back to waiting. A receive from C
// followed by Events promises less: Events returns the events of every
// wakeup so far, so with several consumers one's Events may take the
// events of the token another has just received, whose Events then
// returns 0. Such a consumer should go back to receiving; several
// consumers should rather use Wait. With one consumer, a receive from C
// never finds a wakeup with no events.
//
// Cancel safety: a Wait that returns ctx.Err() has taken nothing; the
// events stay for the next call. If ctx ends just as a wakeup comes, Wait
// may return the events with a nil error instead: they are never lost.
// After Close, the events noted before it are reported exactly once (by
// Wait or Events), then Wait returns ErrClosed.
type Waker struct {
	_        noCopy
	pending  atomic.Uint64 // events noted since the last wakeup
	closed   atomic.Bool   // set under mu by Close; read by Wake without it
	delay    time.Duration
	maxBatch uint64        // 0: no count threshold
	maxWait  time.Duration // 0: audit policy; else trailing debounce
	adaptive bool          // WithAdaptive

	// Written only with mu held; atomic so that Stats can read them
	// without it (observers never slow writers).
	delivered atomic.Uint64 // events handed over by wakeups, not yet reported
	wakeups   atomic.Uint64 // wakeups fired
	armed     atomic.Bool   // cur != nil (see setCur)

	once sync.Once     // makes c on first use, so that the zero value works
	c    chan struct{} // the wakeup token; read through ch; closed by Close

	mu        sync.Mutex
	slots     []*slot       // the timers, made on first use (see slot); only with mu held
	cur       *slot         // the armed timer, nil if none; only with mu held
	stale     int           // slots whose run Stop came too late for; only with mu held
	calling   bool          // WithFunc: a goroutine is passing wakeups to fn; only with mu held
	queued    uint64        // WithFunc: events of wakeups that came during a call, for it to pass on; only with mu held
	callsDone chan struct{} // closed when calling ends, if Close waits; only with mu held
	seen      uint64        // debounce: pending when the timer was last set; only with mu held
	start     time.Time     // debounce: when the window's first event armed the timer; only with mu held
	lastFire  time.Time     // WithAdaptive: when the last wakeup fired; only with mu held
	hot       bool          // WithAdaptive: coalescing; only with mu held
	period    time.Time     // WithAdaptive, not hot: when the counted wakeups began; only with mu held
	fires     int           // WithAdaptive, not hot: immediate wakeups since period; only with mu held
	cbDone    chan struct{} // closed when the last stale run is gone, if Close waits; only with mu held
	closeDone chan struct{} // made by the first Close, closed when it returns; set with mu held

	fn func(events uint64) // WithFunc: called per wakeup instead of C
}

// New returns a Waker with the given delay, which may be any non-negative
// duration. It panics if delay is negative, or if an option is invalid
// for it.
func New(delay time.Duration, opts ...Option) *Waker {
	if delay < 0 {
		panic("coalesce: negative delay")
	}
	w := &Waker{delay: delay}
	for _, o := range opts {
		o.apply(w)
	}
	if w.maxWait != 0 && w.maxWait < delay {
		panic("coalesce: maxWait below the delay")
	}
	w.hot = w.adaptive // WithAdaptive starts out coalescing (see immediate)
	return w
}

// ch returns the token channel. The zero value has none, so the first
// use makes it; the Once makes concurrent first uses (C, Wait, a wakeup)
// agree on one channel without a data race, and costs one atomic load
// after that. Wake's fast path never gets here.
func (w *Waker) ch() chan struct{} {
	w.once.Do(w.makeCh)
	return w.c
}

func (w *Waker) makeCh() { w.c = make(chan struct{}, 1) }

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
	sl.state = slotArmed
	w.setCur(sl)
}

// setCur makes sl the armed timer (nil for none) and mirrors that in
// armed, for Stats. Only with mu held.
func (w *Waker) setCur(sl *slot) {
	w.cur = sl
	w.armed.Store(sl != nil)
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
	w.setCur(nil)
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
	sl.state = slotIdle
	w.setCur(nil) // this run is the timer's: nothing left to stop
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
	w.wakeups.Add(1)
	if w.adaptive {
		w.lastFire = time.Now()
	}
	if w.fn != nil {
		return n // for unlockAndCall
	}
	w.delivered.Add(n)
	select {
	case w.ch() <- struct{}{}:
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
// how many events the wakeup covers; with several consumers that may be 0
// (see the Waker doc). Close closes C with no token left in it, so a
// receive after Close returns at once: then call Events for the events
// left.
func (w *Waker) C() <-chan struct{} { return w.ch() }

// Ready is C, for symmetry with the other evsync primitives.
func (w *Waker) Ready() <-chan struct{} { return w.ch() }

// Events returns the events handed over by wakeups and not yet reported,
// and resets that count. Call it after a receive from C; Wait calls it for
// you. If a later wakeup left a token on C meanwhile, Events takes that
// token too, since it returns that wakeup's events: so a single
// consumer's receive from C never finds a wakeup with no events. After
// Close it also returns the events still pending.
func (w *Waker) Events() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := w.delivered.Swap(0)
	if w.closed.Load() {
		return n + w.pending.Swap(0)
	}
	if n != 0 {
		w.takeToken() // the token of a wakeup whose events n includes
	}
	return n
}

// takeToken takes the token off C, if one is there. Only with mu held.
func (w *Waker) takeToken() {
	select {
	case <-w.ch():
	default:
	}
}

// Wait waits for the next wakeup and returns how many events it covers,
// always at least one. It returns ErrInvalid for a nil ctx; ctx.Err() at
// once if ctx is already done, even if a wakeup is there, and if ctx ends
// while it waits (no event is lost either way: they stay for the next
// call); and, after Close, the events noted before Close and then
// ErrClosed. A token whose events another consumer took meanwhile does
// not end the wait: Wait waits for the next one.
func (w *Waker) Wait(ctx context.Context) (events uint64, err error) {
	if ctx == nil {
		return 0, ErrInvalid
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	c := w.ch()
	for {
		select {
		case _, open := <-c:
			if testHookReceived != nil {
				testHookReceived()
			}
			n := w.Events()
			if n != 0 {
				return n, nil
			}
			if !open {
				return 0, ErrClosed
			}
			// Another consumer's Events took this token's events (they
			// are reported): the next wakeup brings a token of its own.
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
}

// testHookReceived, if set (by tests, through export_test.go), runs in
// Wait between its receive and its Events, where Close or another
// consumer can land.
var testHookReceived func()

// Close stops the waker: the timer is stopped, and when Close returns no
// callback is running and none will (in WithFunc mode, fn is not running
// and will not be called again; fn must not call Close itself). C is
// closed, with no token left in it; the events noted before Close stay
// readable through Events and Wait, each reported once. Later Wake calls
// do nothing. Close is idempotent, and every call returns only once the
// first one has finished.
func (w *Waker) Close() {
	w.mu.Lock()
	if w.closed.Load() {
		done := w.closeDone
		w.mu.Unlock()
		<-done
		return
	}
	w.closeDone = make(chan struct{})
	defer close(w.closeDone)
	stale, calls := w.closeLocked()
	w.mu.Unlock()
	if stale != nil {
		<-stale
	}
	if calls != nil {
		<-calls
	}
}

// closeLocked marks w closed, stops the timer and closes C. It returns
// what Close must wait for, nil if nothing: stale timer runs under way,
// and a WithFunc call under way. Only with mu held.
func (w *Waker) closeLocked() (stale, calls chan struct{}) {
	w.closed.Store(true)
	w.stop()
	if w.stale > 0 { // timer runs under way, waiting for mu: let them finish
		stale = make(chan struct{})
		w.cbDone = stale
	}
	if w.calling { // a WithFunc call under way: let fn have what it took
		calls = make(chan struct{})
		w.callsDone = calls
	}
	// From now on Events reports everything, so a token left on C would
	// be a wakeup with no events: a receive after the last report would
	// find it, and Wait would return (0, nil) instead of ErrClosed.
	w.takeToken()
	close(w.ch())
	return stale, calls
}

// Stats is a snapshot of a Waker's state.
type Stats struct {
	Pending   uint64 // events noted since the last wakeup (a window is open while non-zero)
	Delivered uint64 // events handed over by wakeups and not yet reported by Wait or Events
	Wakeups   uint64 // wakeups fired so far, those merged into an earlier one included
	Armed     bool   // a timer is set for the open window
	Closed    bool   // Close has been called
}

// Pending returns the events noted since the last wakeup: non-zero while
// a window is open. It is one atomic load, for producers that need to
// know whether a wakeup is already on its way (package signal notes only
// the first add of a window this way).
func (w *Waker) Pending() uint64 { return w.pending.Load() }

// Stats returns a snapshot read with atomic loads only: it never takes the
// lock, so observers never slow writers. The fields are read one by one and
// may be mutually inconsistent under concurrent use.
func (w *Waker) Stats() Stats {
	return Stats{
		Pending:   w.pending.Load(),
		Delivered: w.delivered.Load(),
		Wakeups:   w.wakeups.Load(),
		Armed:     w.armed.Load(),
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
