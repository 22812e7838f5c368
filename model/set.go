package model

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/evsync/evsync/internal/evserr"
)

// Events is a set of readiness events of a Set's source, numbered as
// poll's.
type Events uint8

// The events. A Set is asked for In and Out. It reports Hup whether asked
// or not.
const (
	In  Events = 1 << iota // readable: EPOLLIN, Poll's in
	Out                    // writable: EPOLLOUT, Poll's out
	Hup                    // closed: EPOLLHUP (a Go value has no fd, so Close stands for the hang-up)
)

// String returns the events as "in|out|hup", or "none".
func (e Events) String() string {
	var s []byte
	for _, x := range []struct {
		ev   Events
		name string
	}{{In, "in"}, {Out, "out"}, {Hup, "hup"}} {
		if e&x.ev != 0 {
			if len(s) > 0 {
				s = append(s, '|')
			}
			s = append(s, x.name...)
		}
	}
	if e&^(In|Out|Hup) != 0 {
		s = fmt.Appendf(s, "|%#x", uint8(e&^(In|Out|Hup)))
	}
	if len(s) == 0 {
		return "none"
	}
	return string(s)
}

// A SetEvent is one report of a Set's Wait: the key a source was added
// with and its events, as epoll_wait's struct epoll_event.
type SetEvent struct {
	Key    int
	Events Events
}

// A Set models a poll.Set[int] over Counters (eventfds), Sources (a
// program's own), Deadlines (timerfds) and DoneSources (contexts). It
// holds the interest list, a registration per source, the ready list,
// the registrations a source's wakeup has queued, each at most once, and
// a clock for its Deadlines.
//
// A Counter tells the Sets it is in of its wakeups, as an eventfd does
// its epoll instances: a write wakes In, and a read that takes units
// wakes Out.
//   - Write wakes In, a Write(0) included.
//   - A read that takes units (Read, Take, Acquire and the other takes)
//     wakes Out.
//   - A reservation granted is such a read: the call that grants it wakes
//     Out, a Write that hands its units on included (In and Out).
//   - A Cancel that gives granted units back is a write: In, a granted
//     Reserve(0)'s Cancel included.
//   - SetLimit wakes In and Out, and Close wakes Hup.
//
// The other sources wake their Sets as their docs say: a Source with the
// events of its Notify, a DoneSource with In|Hup at End, and a Deadline
// with In when Advance brings the clock to its time.
//
// A wakeup queues a registration that asks for one of its events (Hup
// always counts), unless it is queued already, is a one-shot registration
// that has fired, or the Set is closed.
//
// A Wait harvests the ready list from its head. It polls each source
// again. A registration with none of its events left is dropped.
// Otherwise it is reported with the events it asked for that hold, plus
// Hup if the source reports it. Then it is queued at the tail again if
// level, left alone if edge, and disarmed until Modify if one-shot. The
// items a Wait did not reach stay at the head, so level items go
// round-robin under max.
//
// The calls map onto the model as follows:
//
//	poll                          model
//	New[int](WithClock(c))        NewSet()
//	the clock c moves on by d     Advance(d), Now()
//	Add(src, key, events, mode)   Add(src, key, events, mode)
//	Modify(src, key, ev, mode)    Modify(src, key, ev, mode)
//	Remove(src)                   Remove(src)
//	Wait(ctx, buf, max)           Wait(ctx, max)
//	WaitTimeout(buf, max, d)      WaitTimeout(max, d)
//	TryWait(buf, max)             TryWait(max)
//	Ready()                       Ready(), Fired(ticket)
//	Len()                         Len()
//	Stats()                       Stats()
//	Close()                       Close()
//
// and the sources as follows:
//
//	poll                          model
//	*signal.Signal                NewSignal(n), a *Counter
//	*semaphore.Semaphore          NewSemaphore(n, limit), a *Counter
//	NewSource(poll)               NewSource(), see Source
//	NewDeadline(at)               NewDeadline(at), see Deadline
//	OnDone(ctx)                   NewDoneSource(), see DoneSource
//
// As poll does, Add, Modify and Remove take the source as an any and
// know it by its exact type. They refuse with ErrInvalid a nil, a nil
// pointer, a Source or DoneSource not made by its constructor, and a
// value of any other type.
//
// The kernel's epoll does the same over eventfds and timerfds, but for
// what a Go value cannot have. A closed eventfd leaves the epoll set,
// while a closed Counter stays in the Set and reports Hup. A read of a
// timerfd takes its expirations, while a Deadline stays ready.
type Set struct {
	regs   map[any]*setReg // the interest list, by source
	ready  []*setReg       // the ready list, head first
	closed bool

	armed bool   // a Ready channel is out and has not fired yet
	fires uint64 // how many times an armed Ready channel has fired

	now     time.Duration // the clock, for Deadlines
	added   uint64        // how many Adds succeeded: a registration's seq
	wakeups uint64        // Stats().Wakeups
	drops   uint64        // Stats().Drops
}

// A setReg is one source's registration in a Set.
type setReg struct {
	key      any    // the source as Add took it: the interest list's key
	src      source // and as the Set sees it
	id       int    // the key it is reported with
	events   Events // the events asked for: In, Out or both
	mode     Mode
	disarmed bool   // one-shot and reported: deaf until Modify
	queued   bool   // on the ready list
	seq      uint64 // the order of its Add, for Deadlines of one time
}

// armed reports whether r waits for its source's next wakeup: neither
// queued, nor one-shot and reported.
func (r *setReg) armed() bool { return !r.queued && !r.disarmed }

// NewSet returns an empty, open Set.
func NewSet() *Set { return &Set{regs: map[any]*setReg{}} }

// Len is the number of sources in the Set.
func (s *Set) Len() int { return len(s.regs) }

// Queued is the number of registrations on the ready list. Some may have
// no event left, which the next Wait finds and drops.
func (s *Set) Queued() int { return len(s.ready) }

// Closed reports whether Close has been called.
func (s *Set) Closed() bool { return s.closed }

// valid reports whether events and m are arguments Add and Modify take:
// In, Out or both, and one of the modes.
func valid(events Events, m Mode) bool {
	return events != 0 && events&^(In|Out) == 0 && m <= OneShot
}

// Add models poll.Set.Add (EPOLL_CTL_ADD). It adds src with key, asking
// for events in mode m, and queues it at once if it has one of them now.
// It returns:
//   - ErrInvalid if src is not a source (see Set), for events other than
//     In, Out or both, or for a Mode that is none of the three
//   - ErrClosed after Close
//   - ErrExists if src is in the Set already
//   - nil otherwise
//
// A call that returns an error changes nothing.
func (s *Set) Add(src any, key int, events Events, m Mode) error {
	x, ok := sourceOf(src)
	switch {
	case !ok || !valid(events, m):
		return evserr.ErrInvalid
	case s.closed:
		return evserr.ErrClosed
	case s.regs[src] != nil:
		return ErrExists
	}
	s.added++
	r := &setReg{key: src, src: x, id: key, events: events, mode: m, seq: s.added}
	s.regs[src] = r
	if l := x.sets(); l != nil {
		l.sets = append(l.sets, s)
	}
	if r.has(s) != 0 {
		s.queue(r)
	}
	return nil
}

// Modify models poll.Set.Modify (EPOLL_CTL_MOD). It sets the key, events
// and mode of src's registration, re-arms it if it is a one-shot that
// fired, and queues it if it has one of its events now. A queued
// registration keeps its place. It returns ErrInvalid, ErrClosed or
// ErrNotFound (src is not in the Set) as Add does, and nil otherwise.
func (s *Set) Modify(src any, key int, events Events, m Mode) error {
	_, ok := sourceOf(src)
	switch {
	case !ok || !valid(events, m):
		return evserr.ErrInvalid
	case s.closed:
		return evserr.ErrClosed
	}
	r := s.regs[src]
	if r == nil {
		return ErrNotFound
	}
	r.id, r.events, r.mode, r.disarmed = key, events, m, false
	if r.has(s) != 0 {
		s.queue(r)
	}
	return nil
}

// Remove models poll.Set.Remove (EPOLL_CTL_DEL). It takes src out of the
// Set and off the ready list. No Wait reports it after Remove returns.
// It returns ErrInvalid if src is not a source (see Set), ErrNotFound if
// it is not in the Set and nil otherwise. Remove works on a closed Set
// too.
func (s *Set) Remove(src any) error {
	if _, ok := sourceOf(src); !ok {
		return evserr.ErrInvalid
	}
	r := s.regs[src]
	if r == nil {
		return ErrNotFound
	}
	delete(s.regs, src)
	if l := r.src.sets(); l != nil {
		l.sets = slices.DeleteFunc(l.sets, func(x *Set) bool { return x == s })
	}
	if r.queued {
		s.ready = slices.DeleteFunc(s.ready, func(x *setReg) bool { return x == r })
		r.queued = false
	}
	return nil
}

// has returns the events of r's registration that hold now in s: those
// it asks for that its source reports, plus Hup if the source reports it.
func (r *setReg) has(s *Set) Events {
	return r.src.poll(s) & (r.events | Hup)
}

// queue puts r at the tail of the ready list, unless it is there already,
// and fires an armed Ready channel.
func (s *Set) queue(r *setReg) {
	if r.queued {
		return
	}
	r.queued = true
	s.ready = append(s.ready, r)
	s.fire()
}

// fire fires an armed Ready channel.
func (s *Set) fire() {
	if s.armed {
		s.armed = false
		s.fires++
	}
}

// wake is a wakeup of the source key with events ev (ep_poll_callback):
// it queues key's registration if it is armed and asks for one of them
// (Hup always counts), and counts it in Stats' Wakeups.
func (s *Set) wake(key any, ev Events) {
	r := s.regs[key]
	if r == nil || !r.armed() || s.closed || ev&(r.events|Hup) == 0 {
		return
	}
	s.wakeups++
	s.queue(r)
}

// Wait models poll.Set.Wait (epoll_wait). It returns, in this order of
// checks:
//   - nil and ErrInvalid for max ≤ 0
//   - nil and context.Canceled if ctx is Done
//   - up to max events and nil, harvested as Set's doc says, if the
//     ready list holds a registration with an event left
//   - nil and ErrClosed after Close, with nothing to report
//   - nil and ErrWouldBlock otherwise, where the real Wait waits
//
// Where the real Wait waits, the model changes nothing, its clock
// included. The real Wait drops the registrations with no event left
// before it blocks, which moves them to the tail at their next wakeup. A
// test that skips the real call skips that too, and a TryWait drops them
// as the real one does.
func (s *Set) Wait(ctx Ctx, max int) ([]SetEvent, error) {
	if max <= 0 {
		return nil, evserr.ErrInvalid
	}
	if err := stopped(ctx); err != nil {
		return nil, err
	}
	if !s.closed && !slices.ContainsFunc(s.ready, func(r *setReg) bool { return r.has(s) != 0 }) {
		return nil, evserr.ErrWouldBlock
	}
	if evs := s.harvest(max); len(evs) != 0 {
		return evs, nil
	}
	return nil, evserr.ErrClosed
}

// TryWait models poll.Set.TryWait, epoll_wait with a timeout of 0. It
// returns what Wait would, or nil where Wait would wait or return an
// error.
func (s *Set) TryWait(max int) []SetEvent {
	if max <= 0 {
		return nil
	}
	return s.harvest(max)
}

// harvest takes up to max events off the ready list (ep_send_events),
// and counts the registrations it drops in Stats' Drops.
func (s *Set) harvest(max int) []SetEvent {
	list := s.ready
	s.ready = nil
	var evs []SetEvent
	var again []*setReg // the level registrations reported, queued at the tail
	i := 0
	for ; i < len(list) && len(evs) < max; i++ {
		r := list[i]
		r.queued = false
		ev := r.has(s)
		if ev == 0 {
			s.drops++
			continue // dropped until its next wakeup
		}
		evs = append(evs, SetEvent{r.id, ev})
		switch {
		case r.mode == Level && !s.closed:
			again = append(again, r)
		case r.mode == OneShot:
			r.disarmed = true
		}
	}
	s.ready = append(list[i:len(list):len(list)], again...)
	for _, r := range again {
		r.queued = true
	}
	return evs
}

// Close models poll.Set.Close. From then on:
//   - Add and Modify return ErrClosed; Remove still works
//   - a source's wakeup queues nothing, the clock's included, and a level
//     registration is not queued again once reported
//   - Wait reports what is queued and still ready, each registration at
//     most once more, then returns ErrClosed, as a blocked Wait does
//
// Close fires an armed Ready channel. A second Close changes nothing.
func (s *Set) Close() {
	if s.closed {
		return
	}
	s.closed = true
	s.fire()
}

// Ready models a call to Ready and returns the ticket of its channel. The
// channel is closed at once if a registration is queued or the Set is
// closed. Otherwise the next registration queued closes it, or Close
// does. A goroutine woken by it may find that Wait has nothing to report,
// as epoll's readiness may be stale.
func (s *Set) Ready() Ticket {
	if len(s.ready) != 0 || s.closed {
		return Ticket(s.fires)
	}
	s.armed = true
	return Ticket(s.fires + 1)
}

// Fired reports whether the channel of a ticket that Ready returned is
// closed by now.
func (s *Set) Fired(t Ticket) bool { return uint64(t) <= s.fires }

var errSet = errors.New("model: Set in an impossible state")

// Validate checks the Set's invariants: each registration is on the
// ready list at most once, exactly when it says so, and its source names
// the Set; a disarmed registration is a one-shot one.
func (s *Set) Validate() error {
	seen := map[*setReg]bool{}
	for _, r := range s.ready {
		if seen[r] || !r.queued || s.regs[r.key] != r {
			return errSet
		}
		seen[r] = true
	}
	for key, r := range s.regs {
		if r.key != key || r.queued != seen[r] || (r.disarmed && r.mode != OneShot) || r.seq == 0 || r.seq > s.added {
			return errSet
		}
		if l := r.src.sets(); l != nil && !slices.Contains(l.sets, s) {
			return errSet
		}
	}
	if s.armed && (len(s.ready) != 0 || s.closed) {
		return errSet
	}
	return nil
}
