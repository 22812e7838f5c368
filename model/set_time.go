package model

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/evsync/evsync/internal/evserr"
)

// A Deadline models a poll.Deadline, a timerfd that has expired: it
// reports In from its time on, on the clock of each Set that holds it,
// and nothing before. It never reports Out or Hup.
//
// Its time is a Duration on a Set's clock, which starts at 0 (Now). A
// test that gives the real Set a fake clock starting at base makes the
// real Deadline for base.Add(at):
//
//	poll                              model
//	NewDeadline(fake.Now().Add(d))    NewDeadline(set.Now() + d)
//	Time()                            Time(), on the Set's clock
//
// The zero Deadline's time is 0, which has come on every Set's clock.
type Deadline struct{ at time.Duration }

// NewDeadline returns a Deadline that reports In from at on.
func NewDeadline(at time.Duration) *Deadline { return &Deadline{at} }

// Time returns the Deadline's time.
func (d *Deadline) Time() time.Duration { return d.at }

// deadlineSource is a Deadline as a source.
type deadlineSource struct{ d *Deadline }

// poll reports In once the time has come on s's clock.
func (x deadlineSource) poll(s *Set) Events {
	if s.now >= x.d.at {
		return In
	}
	return 0
}

// sets returns nil: only the Set's clock wakes a Deadline's registration.
func (deadlineSource) sets() *setList { return nil }

// Now is the time on the Set's clock: 0 at first, moved on by Advance
// and by WaitTimeout.
func (s *Set) Now() time.Duration { return s.now }

// Advance moves the Set's clock on by d, standing for the clock given
// with poll.WithClock, moved by its Step, or for testing/synctest's. It
// queues, at the tail of the ready list, the armed registrations of the
// Deadlines whose time comes within d, if they ask for In: a Deadline's
// time is its wakeup, with In. Several are queued in the order of their
// times, and those of one time in the order they were added.
//
// A registration armed after its Deadline's time had come has no more
// wakeups, as an edge-triggered timerfd that has fired: only Add and
// Modify, which poll it, queue it then.
//
// Past the largest Duration the clock stays there. Advance panics if d
// is negative, as time does not go back.
//
// The real Set queues them in its timer's function, or in its next call
// on a user's clock. A test that moves a fake clock calls Stats, or waits
// for that function to run, before its next call. poll does not promise
// an order among Deadlines of one time, so a test that compares gives
// them times that differ.
func (s *Set) Advance(d time.Duration) {
	if d < 0 {
		panic("model: negative Advance")
	}
	s.advanceTo(s.later(d))
}

// later returns the time d after Now, or the largest Duration if that is
// further.
func (s *Set) later(d time.Duration) time.Duration {
	if d > math.MaxInt64-s.now {
		return math.MaxInt64
	}
	return s.now + d
}

// advanceTo moves the clock on to t and queues the Deadlines that come
// due on the way, as Advance says.
func (s *Set) advanceTo(t time.Duration) {
	due := s.timed(func(at time.Duration) bool { return at <= t })
	s.now = max(s.now, t)
	for _, r := range due {
		if r.events&In != 0 && !s.closed {
			s.wakeups++
			s.queue(r)
		}
	}
}

// timed returns the armed registrations of Deadlines whose time is still
// to come and meets keep, in the order Advance queues them: by time, then
// by the order they were added.
func (s *Set) timed(keep func(at time.Duration) bool) []*setReg {
	var regs []*setReg
	for _, r := range s.regs {
		if d, ok := r.src.(deadlineSource); ok && r.armed() && d.d.at > s.now && keep(d.d.at) {
			regs = append(regs, r)
		}
	}
	slices.SortFunc(regs, func(a, b *setReg) int {
		return cmp.Or(cmp.Compare(a.src.(deadlineSource).d.at, b.src.(deadlineSource).d.at), cmp.Compare(a.seq, b.seq))
	})
	return regs
}

// WaitTimeout models poll.Set.WaitTimeout, epoll_wait with a timeout of
// d. It returns, in this order of checks:
//   - nil and ErrInvalid for max ≤ 0
//   - up to max events and nil, harvested as Wait does, if the ready
//     list holds a registration with an event left
//   - nil and ErrClosed after Close, with nothing to report
//   - nil and nil for d ≤ 0: nothing to report, at once, as TryWait
//
// Otherwise the real call waits, and the model lets the Set's clock run
// while it does. Sequentially only the clock can queue something then:
//   - If an armed Deadline that asks for In comes due within d, the clock
//     moves on to its time, and the call returns what it queued, up to
//     max events, and nil.
//   - Otherwise the clock moves on by d, and the call returns nil and
//     nil: a timeout is a wait that found nothing.
//
// A test on a fake clock reads Now before and after, and moves its clock
// by the difference while the real call waits. A Deadline that comes due
// while the call waits goes to it at once: it fires no Ready channel
// unless the call leaves something queued.
func (s *Set) WaitTimeout(max int, d time.Duration) ([]SetEvent, error) {
	if max <= 0 {
		return nil, evserr.ErrInvalid
	}
	if evs := s.harvest(max); len(evs) != 0 {
		return evs, nil
	}
	if s.closed {
		return nil, evserr.ErrClosed
	}
	if d <= 0 {
		return nil, nil
	}
	end := s.later(d)
	for {
		next := s.timed(func(at time.Duration) bool { return at <= end })
		next = slices.DeleteFunc(next, func(r *setReg) bool { return r.events&In == 0 })
		if len(next) == 0 {
			s.now = end
			return nil, nil
		}
		armed := s.armed // the waiter takes what comes first
		s.armed = false
		s.advanceTo(next[0].src.(deadlineSource).d.at)
		evs := s.harvest(max)
		s.armed = armed
		if len(s.ready) != 0 {
			s.fire()
		}
		if len(evs) != 0 {
			return evs, nil
		}
	}
}
