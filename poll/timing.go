package poll

import (
	"time"

	"github.com/evsync/evsync/internal/clk"
	"github.com/evsync/evsync/internal/waitq"
)

// timing is a Set's time: its clock and its one timer, and what the timer
// fires for. Its fields are guarded by the Set's mu.
//
// The timer is armed for the earliest of:
//   - the time of the first armed Deadline not yet due (dls, a heap)
//   - the end of the first blocked WaitTimeout (timed)
//   - the end of the burst window, if one is open and not yet over
//
// A locked section that may change one of them sets dirty, and the
// section's unlock arranges the timer (Set.arrange) before it releases the
// lock.
type timing[K comparable] struct {
	clock clk.Clock
	timer clk.Timer
	made  bool      // timer was made
	at    time.Time // what timer is armed for; zero while it is not
	dirty bool      // arrange must look at the timer again

	dls   dheap[K]                 // armed Deadlines not yet due, a min-heap by time (heap.go)
	timed []*waitq.Waiter[take[K]] // blocked WaitTimeout callers, in no order

	burstK   int           // WithBurst's k, 0 without it
	burstD   time.Duration // WithBurst's d
	burstAt  time.Time     // the end of the open window; zero if none is open
	burstDue bool          // the open window is over

	read  time.Time // the section's reading of the clock, if nowOK
	nowOK bool
}

// now returns the time on the Set's clock, read once per locked section.
// Only with mu held.
func (t *timing[K]) now() time.Time {
	if !t.nowOK {
		t.read, t.nowOK = t.clock.Now(), true
	}
	return t.read
}

// due reports whether the Deadline of r has come. Only with mu held.
func (t *timing[K]) due(r *reg[K]) bool { return !t.now().Before(r.dl.at) }

// arm arms r: its source is told to wake it, or, for a Deadline not yet
// due, it goes in the heap. The caller sets r.state and polls the source
// after.
func (s *Set[K]) arm(r *reg[K]) {
	s.n.armed++
	if r.dl == nil {
		r.src.Arm(1)
		return
	}
	if !s.t.due(r) {
		s.t.dls.push(r)
		s.t.dirty = true
	}
}

// disarm undoes arm.
func (s *Set[K]) disarm(r *reg[K]) {
	s.n.armed--
	if r.dl == nil {
		r.src.Arm(-1)
		return
	}
	if r.hidx != 0 {
		s.t.dls.remove(r)
		s.t.dirty = true
	}
}

// next returns the time the timer must fire at, or the zero time if
// nothing needs it.
func (s *Set[K]) next() time.Time {
	t := &s.t
	var n time.Time
	if r := t.dls.min(); r != nil {
		n = r.dl.at
	}
	for _, w := range t.timed {
		if n.IsZero() || w.P.at.Before(n) {
			n = w.P.at
		}
	}
	if !t.burstAt.IsZero() && !t.burstDue && (n.IsZero() || t.burstAt.Before(n)) {
		n = t.burstAt
	}
	return n
}

// arrange arms the timer for next, or stops it. It never arms it for a
// time that has come: it does what is due at once (tick), and serves the
// callers it unblocks. A user's fake clock would fire such a timer only
// when it is next moved.
func (s *Set[K]) arrange() {
	t := &s.t
	for t.dirty {
		t.dirty = false
		n := s.next()
		switch {
		case n.IsZero():
			if !t.at.IsZero() {
				t.timer.Stop()
				t.at = time.Time{}
			}
		case !s.t.now().Before(n):
			s.tick(s.t.now())
			s.settle()
			t.dirty = true
		case n.Equal(t.at):
		case !t.made:
			t.timer, t.made, t.at = t.clock.AfterFunc(n.Sub(s.t.now()), s.fire), true, n
		default:
			t.timer.Reset(n.Sub(s.t.now()))
			t.at = n
		}
	}
}

// tick does what is due at now, in this order:
//   - it queues the armed Deadlines whose time has come, all of them
//     before it serves the waiters, so one Wait takes up to its max
//   - it ends the burst window if it is over, and serves the waiters
//   - it ends the WaitTimeout calls whose time is up. One that is first in
//     line takes what the burst window holds back, as epoll_wait reports
//     what is ready at its timeout; the others end with nothing.
//
// The caller settles after.
func (s *Set[K]) tick(now time.Time) {
	t := &s.t
	for r := t.dls.min(); r != nil && !now.Before(r.dl.at); r = t.dls.min() {
		t.dls.remove(r)
		if r.events&In == 0 {
			continue // its time is a wakeup with In: one asking for Out alone absorbs it
		}
		s.n.wakeups++
		s.disarm(r) // out of the heap already: this only counts it
		s.link(r)
	}
	if !t.burstAt.IsZero() && !now.Before(t.burstAt) {
		t.burstDue = true
	}
	s.settle() // before the timed calls end: one whose time is up with a Deadline's takes it
	for i := 0; i < len(t.timed); {
		w := t.timed[i]
		if now.Before(w.P.at) {
			i++
			continue
		}
		t.untime(i)
		if s.head != nil && s.waiters.Front() == w { // held back by the burst window
			p := w.P
			n := len(p.buf)
			if p.buf = s.harvest(p.buf, p.max); len(p.buf) > n {
				s.waiters.Grant(w, p)
				continue
			}
		}
		w.P.expired = true
		s.waiters.Reject(w)
	}
}

// catchUp does, on a user's clock, what is due by the clock's reading
// before a call reads the ready list or the waits. So after a fake
// clock's Step the next call sees the Deadlines due, with no need for the
// timer's goroutine to run first. On the wall clock it does nothing: the
// timer does it. Only with mu held.
func (s *Set[K]) catchUp() {
	if s.t.clock.Wall() {
		return
	}
	if n := s.next(); !n.IsZero() && !s.t.now().Before(n) {
		s.t.dirty = true
		s.arrange()
	}
}

// fire is the timer's function.
func (s *Set[K]) fire() {
	hook(pointFire)
	s.mu.Lock()
	s.t.at = time.Time{} // this run is the timer's: arrange arms it again for the rest
	s.t.dirty = true
	s.unlock()
}

// open reports whether a Wait takes what is queued now: always, but
// under WithBurst before k sources are queued and before the window ends.
// After Close it always does.
func (s *Set[K]) open() bool {
	t := &s.t
	return t.burstK == 0 || s.n.queued >= t.burstK || t.burstDue || s.closed
}

// startBurst opens a burst window, when the ready list gets its first
// registration.
func (s *Set[K]) startBurst() {
	s.t.burstAt, s.t.burstDue, s.t.dirty = s.t.now().Add(s.t.burstD), false, true
}

// endBurst closes the window, when the ready list is empty again.
func (s *Set[K]) endBurst() {
	s.t.burstAt, s.t.burstDue, s.t.dirty = time.Time{}, false, true
}

// untime takes the i-th timed caller off the list.
func (t *timing[K]) untime(i int) {
	last := len(t.timed) - 1
	t.timed[i] = t.timed[last]
	t.timed[last] = nil
	t.timed = t.timed[:last]
}

// untimeW takes w off the list of timed callers, if it is there.
func (t *timing[K]) untimeW(w *waitq.Waiter[take[K]]) {
	for i, x := range t.timed {
		if x == w {
			t.untime(i)
			t.dirty = true
			return
		}
	}
}
