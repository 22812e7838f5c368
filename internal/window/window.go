// Package window is the coalescing window behind coalesce.Waker and
// signal.WithWakeDelay. It counts the events noted since the last wakeup,
// decides by its policy when they make one, and hands that wakeup to its
// owner. One timer mechanism serves both.
package window

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/evsync/evsync/internal/clk"
)

// AdaptiveWakeups is the adaptive policy's threshold. Coalescing starts
// after a period of one delay with more than this many immediate wakeups.
// It stops after a window that catches this many events or fewer.
const AdaptiveWakeups = 4

// A Policy says when a window's events make a wakeup. The options of
// coalesce and of signal.WithWakeDelay document each field for users.
// Package signal leaves MaxBatch at 0, because its batch counts units,
// not events.
type Policy struct {
	Delay    time.Duration // the window's length, 0 to wake at once
	MaxBatch uint64        // wake at once at this many pending events, 0 for no threshold
	MaxWait  time.Duration // 0 for audit, else a trailing debounce never past MaxWait
	Adaptive bool          // coalesce only while wakeups would come often
}

// An Owner takes a window's wakeups. Deliver gets the events of one
// wakeup, never 0. It runs with the window's lock held, so calls never
// overlap. None runs once Close has returned. Deliver must be short and
// must not call the window's Wake, Flush or Close.
//
// In the lock order, the window's lock comes before any lock Deliver
// takes. Package signal's Deliver takes the counter's lock in Serve. The
// counter calls Note, which takes the window's lock, never with its own
// held. Package coalesce's Deliver takes the lock of each poll set whose
// registration it wakes; a set never takes a window's lock.
type Owner interface{ Deliver(events uint64) }

// A Window coalesces events into wakeups. Its policy works as follows.
//   - By default (audit), the first event after an idle period arms one
//     timer for the delay. Later events neither re-arm nor extend it. When
//     it fires, the owner gets one wakeup.
//   - MaxBatch wakes at once at that many pending events.
//   - MaxWait makes a trailing debounce (see extend).
//   - Adaptive wakes at once while wakeups are rare (see immediate).
//
// Flush wakes now. No timer is armed while nothing is pending.
//
// The zero value is a Window with a delay of 0, the default policy and
// the wall clock. Init sets a policy and a clock. Wake and Flush take the
// owner, always the same one, rather than Init, so that an owner's zero
// value works too. A Window must not be copied after first use.
type Window struct {
	// The policy comes first. With pending at offset 0 of this struct,
	// BenchmarkWake (g=1) ran 40% slower on our machine, for a reason not
	// pinned down. The old Waker's same first fields did not show it.
	p       Policy        // set before use
	pending atomic.Uint64 // events noted since the last wakeup
	closed  atomic.Bool   // set under mu by Close, read by Wake without it
	seen    atomic.Uint64 // for MaxWait, pending when the timer was last set, written under mu and read by Seen without it

	// Written only with mu held. They are atomic so that Stats can read
	// them without it, because observers never slow writers.
	wakeups atomic.Uint64 // wakeups fired
	armed   atomic.Bool   // cur != nil (see setCur)

	// mu guards the fields below. Each is used only with mu held.
	mu       sync.Mutex
	owner    Owner         // the timer's wakeups go to it
	slots    []*slot       // the timers, made on first use (see slot)
	cur      *slot         // the armed timer, nil if none
	stale    int           // slots whose run Stop came too late for
	done     chan struct{} // made by Close, closed once no stale run is left
	start    time.Time     // for the debounce, when the window's first event armed the timer
	lastFire time.Time     // for Adaptive, when the last wakeup fired
	hot      bool          // for Adaptive, whether it is coalescing
	period   time.Time     // for Adaptive when not hot, when the counted wakeups began
	fires    int           // for Adaptive when not hot, the immediate wakeups since period

	// clk is set by Init and read only with mu held. Wake's fast path
	// never reads the time. So the clock sits here, among the cold
	// fields, not before p and pending (see above).
	clk clk.Clock
}

// Init sets the policy and the clock every time read and timer goes
// through. The zero Clock is the wall clock. Only before the Window is
// shared.
func (w *Window) Init(p Policy, c clk.Clock) {
	w.p = p
	w.clk = c
	w.hot = p.Adaptive // it starts out coalescing (see immediate)
}

// Wake notes one event. It does not allocate and never waits for o. At most
// two events of a window take the lock: the first, to arm the timer, and
// the one that reaches MaxBatch, to deliver. After Close it does nothing.
func (w *Window) Wake(o Owner) {
	if w.closed.Load() {
		return
	}
	n := w.pending.Add(1)
	switch {
	case n == w.p.MaxBatch:
		w.Flush(o)
	case n == 1:
		w.arm(o)
	}
}

// arm starts the window for the first pending event.
func (w *Window) arm(o Owner) {
	w.mu.Lock()
	switch {
	case w.closed.Load() || w.cur != nil || w.pending.Load() == 0:
		// closed, already armed, or flushed meanwhile
	case w.p.Delay == 0 || w.p.Adaptive && w.immediate():
		w.fire(o)
	default:
		w.owner = o
		w.set(w.p.Delay)
		if w.p.MaxWait != 0 {
			w.seen.Store(w.pending.Load())
			w.start = w.clk.Now()
		}
	}
	w.mu.Unlock()
}

// immediate decides, for Adaptive, whether the event opening a window now
// wakes the owner at once. Only with mu held.
//
// Out of coalescing, it counts the immediate wakeups over periods of at
// least one delay. Each period starts at the first event after the last
// one ended. Coalescing (hot) starts when a period ends with more than
// AdaptiveWakeups wakeups and the stream goes on. The stream goes on if
// the last wakeup is within a delay. Coalescing lasts until a window runs
// its whole delay and catches AdaptiveWakeups events or fewer (see
// expire).
//
// So a burst shorter than the delay, however dense, never arms a timer.
// That timer would wake an idle process for events that cost little to
// deliver at once. The way back is judged by what windows catch, not by
// gaps between them. So a consumer slow to come back does not end
// coalescing.
//
// It starts out coalescing, so that a stream is coalesced from its first
// event. A trickle then costs one window before it is served at once.
func (w *Window) immediate() bool {
	if w.hot {
		return false
	}
	now := w.clk.Now()
	if w.fires == 0 || now.Sub(w.period) >= w.p.Delay {
		busy := w.fires > AdaptiveWakeups && now.Sub(w.lastFire) <= w.p.Delay
		w.period, w.fires = now, 0
		if busy {
			w.hot = true
			return false
		}
	}
	w.fires++
	return true
}

// A slot is one of a Window's timers. An AfterFunc timer, of package time
// or of clk, cannot take back a run that has started. So a timer that
// Stop came too late for is stale. Its run is on its way and will find
// nothing to do.
//
// A stale slot is never Reset until that run has come. Reset would fold
// the new window into the run under way, or add a second one. No run could
// then tell which window it belongs to. So the next window takes another
// slot. This way a slot has at most one run in the air. Every run knows
// from its slot's state whether it is the armed timer's or a stale one,
// and Close can wait for exactly the stale ones.
//
// There are rarely more than two slots. A new one is made only when every
// slot is stale, which takes a Flush or Close racing each timer that
// fires.
type slot struct {
	w     *Window
	t     clk.Timer // Stop and Reset only with w.mu held, as clk asks
	state slotState // only with w.mu held
}

type slotState uint8

const (
	slotIdle  slotState = iota // no run pending or on its way
	slotArmed                  // the Window's armed timer (w.cur)
	slotStale                  // stopped too late, with its run on its way
)

// set arms a timer for d, in the first idle slot or in a new slot if none
// is idle. Only with mu held, and with no timer armed.
func (w *Window) set(d time.Duration) {
	var sl *slot
	for _, c := range w.slots {
		if c.state == slotIdle {
			sl = c
			break
		}
	}
	if sl == nil {
		sl = &slot{w: w}
		sl.t = w.clk.AfterFunc(d, sl.expire)
		w.slots = append(w.slots, sl)
	} else {
		sl.t.Reset(d)
	}
	sl.state = slotArmed
	w.setCur(sl)
}

// setCur makes sl the armed timer (nil for none) and mirrors that in
// armed, for Stats. Only with mu held.
func (w *Window) setCur(sl *slot) {
	w.cur = sl
	w.armed.Store(sl != nil)
}

// stop disarms the timer. A run that has already started cannot be
// stopped. Its slot turns stale, and the run will find nothing to do.
// Only with mu held.
func (w *Window) stop() {
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
// A stale run only frees its slot, and lets Close return after the last
// one. The armed timer's run fires the wakeup, or re-arms a debounce.
func (sl *slot) expire() {
	w := sl.w
	w.mu.Lock()
	defer w.mu.Unlock()
	if sl.state != slotArmed {
		sl.state = slotIdle
		w.stale--
		if w.stale == 0 && w.closed.Load() {
			close(w.done) // Close is waiting for the last one
		}
		return
	}
	sl.state = slotIdle
	w.setCur(nil) // this run is the timer's, so nothing is left to stop
	if w.p.MaxWait != 0 && w.extend() {
		return
	}
	if w.hot && w.pending.Load() <= AdaptiveWakeups {
		w.hot = false // a whole window caught few events, so the stream is thin
	}
	w.fire(w.owner)
}

// extend re-arms a debounce timer while events keep arriving and MaxWait
// allows, and reports whether it did. The quiet is measured in timer
// periods, because measuring it from each event would take the time in
// every Wake. So the wakeup comes one to two delays after the last event.
// It never comes later than MaxWait after the window's first event.
func (w *Window) extend() bool {
	p := w.pending.Load()
	left := w.p.MaxWait - w.clk.Since(w.start)
	if p == w.seen.Load() || left <= 0 {
		return false
	}
	w.seen.Store(p)
	w.set(min(w.p.Delay, left))
	return true
}

// fire delivers the pending events to o as one wakeup, if there are any,
// and disarms the timer. So the same events never make a second wakeup.
// Only with mu held.
func (w *Window) fire(o Owner) {
	w.stop()
	n := w.pending.Swap(0)
	if n == 0 {
		return
	}
	w.wakeups.Add(1)
	if w.p.Adaptive {
		w.lastFire = w.clk.Now()
	}
	o.Deliver(n)
}

// Flush delivers the pending events to o now, if there are any, and
// cancels the pending timer. After Close it does nothing.
func (w *Window) Flush(o Owner) {
	w.mu.Lock()
	if !w.closed.Load() {
		w.fire(o)
	}
	w.mu.Unlock()
}

// Close stops the window. The timer is stopped and later calls deliver
// nothing. When Close returns, no Deliver is running or will run, and no
// timer run is left. Each call returns only once the first has got there.
// The pending events stay, for Drain. Close is idempotent.
func (w *Window) Close() {
	w.mu.Lock()
	if !w.closed.Load() {
		w.closed.Store(true)
		w.stop()
		w.done = make(chan struct{})
		if w.stale == 0 {
			close(w.done) // else the last stale run closes it
		}
	}
	done := w.done
	w.mu.Unlock()
	<-done
}

// Drain returns the events pending after Close, which nothing will
// deliver, and resets them. On an open Window it returns 0.
func (w *Window) Drain() uint64 {
	if !w.closed.Load() {
		return 0
	}
	return w.pending.Swap(0)
}

// Lock takes the window's lock, under which Deliver runs. An owner guards
// with it the state its Deliver writes. It must not call Wake, Flush or
// Close while it holds it.
func (w *Window) Lock() { w.mu.Lock() }

// Unlock releases the lock that Lock took.
func (w *Window) Unlock() { w.mu.Unlock() }

// Pending returns the events noted since the last wakeup, with one atomic
// load. It is non-zero while a window is open.
func (w *Window) Pending() uint64 { return w.pending.Load() }

// Seen returns, under MaxWait, what Pending was when the timer was last
// set, with one atomic load. While the two are equal, no event has come
// in the timer's period, and the next one makes its expiry extend the
// window. An owner that notes only the events that change the outcome so
// needs to note one per period. Without MaxWait, or with no timer set, it
// means nothing.
func (w *Window) Seen() uint64 { return w.seen.Load() }

// Stats is a snapshot of a Window's state.
type Stats struct {
	Pending uint64 // events noted since the last wakeup
	Wakeups uint64 // wakeups fired so far
	Armed   bool   // a timer is set for the open window
	Closed  bool   // Close has been called
}

// Stats returns a snapshot read with atomic loads only, field by field.
func (w *Window) Stats() Stats {
	return Stats{w.pending.Load(), w.wakeups.Load(), w.armed.Load(), w.closed.Load()}
}
