package poll

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/evsync/evsync/internal/evserr"
	"github.com/evsync/evsync/internal/waitq"
	"github.com/evsync/evsync/internal/watch"
	"github.com/evsync/evsync/readyq"
)

// Errors returned by this package. They are the same values in every
// evsync package and work with errors.Is.
var (
	// ErrInvalid is returned, wrapped in an error that says what was
	// wrong, for arguments that can never succeed: a value that is not a
	// source, events other than In and Out, a mode that is not a Mode, a
	// nil context or max ≤ 0.
	ErrInvalid = evserr.ErrInvalid
	// ErrClosed is returned by Add and Modify after Close, and by Wait
	// once the Set is closed and nothing is left to report.
	ErrClosed = evserr.ErrClosed
	// ErrExists is returned by Add for a source already in the Set
	// (EEXIST).
	ErrExists = evserr.ErrExists
	// ErrNotFound is returned by Modify and Remove for a source not in
	// the Set (ENOENT).
	ErrNotFound = evserr.ErrNotFound
)

// Events is a set of readiness events.
type Events uint8

// The events. A registration asks for In, Out or both. Hup is reported
// whether asked for or not.
const (
	In  = Events(watch.In)  // readable: a read would not block (EPOLLIN)
	Out = Events(watch.Out) // writable: a write of 1 would not block (EPOLLOUT)
	Hup = Events(watch.Hup) // the source is closed (EPOLLHUP)
)

// String returns the events as "in|out|hup", or "none". Bits that are
// no event follow in hex, as in "in|0x8".
func (e Events) String() string {
	var names []string
	for _, x := range []struct {
		ev   Events
		name string
	}{{In, "in"}, {Out, "out"}, {Hup, "hup"}} {
		if e&x.ev != 0 {
			names = append(names, x.name)
		}
	}
	if rest := e &^ (In | Out | Hup); rest != 0 {
		names = append(names, fmt.Sprintf("%#x", uint8(rest)))
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, "|")
}

// A Mode is how a registration is queued again after it was reported.
// The modes are readyq's.
type Mode = readyq.Mode

// The modes: Edge (EPOLLET), Level (epoll's default) and OneShot
// (EPOLLONESHOT). See the package documentation.
const (
	Edge    = readyq.Edge
	Level   = readyq.Level
	OneShot = readyq.OneShot
)

// An Event is one report of a Wait: the key a source was added with, and
// its events (epoll's struct epoll_event).
type Event[K comparable] struct {
	Key    K
	Events Events
}

// A Set is a set of sources and the ready list of those whose wakeup
// queued them. The zero value is an empty, open Set. A Set must not be
// copied after first use.
//
// Every call may be made from any goroutine. Add, Modify, Remove and Close
// synchronize before the Waits that report what they changed. A source's
// change synchronizes before the Wait that reports it.
//
// Cancel safety: a Wait that returns ctx.Err() reported nothing and
// changed nothing. Events are never handed to a caller whose context is
// already done. They may be handed over while the context is still live,
// and the context may end before the caller wakes. Then the Wait took
// effect first and returns the events with a nil error.
type Set[K comparable] struct {
	_ noCopy

	mu      sync.Mutex
	regs    map[watch.Source]*reg[K] // the interest list, by source
	head    *reg[K]                  // the ready list, oldest first
	tail    *reg[K]
	closed  bool
	waiters waitq.Queue[take[K]] // blocked Wait callers
	ready   waitq.Notifier       // Ready()
	again   []*reg[K]            // harvest's scratch: the level registrations to queue again

	// As a source of other Sets (nesting, nest.go):
	watch  watch.List    // the registrations of the Sets it is in
	armed  int           // how many of them are armed
	notify Events        // what this locked section tells them after the unlock
	shown  atomic.Uint32 // what Poll reads: shownQueued, shownClosed

	t timing[K] // its clock and timer: Deadlines, WaitTimeout, WithBurst (timing.go)
	n counts    // what Stats reports
}

// counts are a Set's figures for Stats. Guarded by mu.
type counts struct {
	queued  int    // registrations on the ready list
	armed   int    // armed registrations
	wakeups uint64 // wakeups that queued a registration
	drops   uint64 // queued registrations found with no event left
}

// A state is where a registration is.
type state uint8

const (
	armed    state = iota // waiting for its next wakeup: its source tells it of every change
	queued                // on the ready list: every wakeup is absorbed
	disarmed              // one-shot and reported: deaf until Modify
	off                   // removed, or left over at Close: deaf for good
)

// A reg is one source's registration in a Set. Its fields are guarded by
// the Set's mu, but set and src, which never change.
type reg[K comparable] struct {
	set    *Set[K]
	src    watch.Source
	key    K
	events Events // asked for: In, Out or both
	mode   Mode
	state  state
	hidx   int32     // a Deadline's index in the Set's heap plus 1, 0 if not in it (heap.go)
	dl     *Deadline // the source, if it is a Deadline: the Set's timer wakes it
	prev   *reg[K]   // the ready list's links, while queued
	next   *reg[K]
}

// Wake is the source's wakeup (ep_poll_callback).
func (r *reg[K]) Wake(ev watch.Events) { r.set.wake(r, Events(ev)) }

// has returns the events of r that hold now: those it asks for that its
// source reports, plus Hup.
func (r *reg[K]) has() Events {
	if r.dl != nil {
		if r.set.t.due(r) {
			return In & r.events
		}
		return 0
	}
	return Events(r.src.Poll()) & (r.events | Hup)
}

// valid reports whether events and m are what Add and Modify take.
func valid(events Events, m Mode) bool {
	return events != 0 && events&^(In|Out) == 0 && m <= OneShot
}

// Add adds src with key, asking for events in mode m (EPOLL_CTL_ADD). If
// src has one of them now, it is queued at once. It returns:
//   - nil once src is in the Set
//   - ErrInvalid if src is not a source (see the package documentation),
//     or is a nil pointer, or is a Set that would make a loop, if events
//     are not In, Out or both, or if m is not a Mode
//   - ErrClosed after Close
//   - ErrExists if src is in the Set already
//
// A source is known by its exact type. A value of a type that embeds a
// source is not one: pass the source it embeds. A call that returns an
// error changes nothing.
func (s *Set[K]) Add(src any, key K, events Events, m Mode) error {
	if !valid(events, m) {
		return badInterest("add", events, m)
	}
	ws, err := sourceOf("add", src)
	if err != nil {
		return err
	}
	if n, nesting := ws.(setSourceOf); nesting {
		nestMu.Lock() // no other Add of a Set until this one is done (nest.go)
		defer nestMu.Unlock()
		if reaches(n.nestable(), s) {
			return badLoop(src, any(n.nestable()) == any(s))
		}
		hook(pointNest)
	}
	s.mu.Lock()
	defer s.unlock()
	switch {
	case s.closed:
		return ErrClosed
	case s.regs[ws] != nil:
		return ErrExists
	}
	if s.regs == nil {
		s.regs = make(map[watch.Source]*reg[K])
	}
	r := &reg[K]{set: s, src: ws, key: key, events: events, mode: m}
	if d, ok := ws.(deadlineSource); ok {
		r.dl = d.d
	}
	s.regs[ws] = r
	if l := ws.Watchers(); l != nil {
		l.Add(r)
	}
	s.arm(r)
	hook(pointAdd)
	if r.has() != 0 { // polled after Arm: a change since is told to r
		s.queue(r)
	}
	return nil
}

// Modify sets the key, events and mode of src's registration
// (EPOLL_CTL_MOD, mio's reregister). It re-arms a one-shot registration
// that was reported, and queues it if it has one of its events now. A
// queued registration stays where it is on the ready list, and is
// reported with the new key. It returns, in this order of checks:
//   - ErrInvalid as Add does: src is not a source or is a nil pointer,
//     events are not In, Out or both, or m is not a Mode
//   - ErrClosed after Close
//   - ErrNotFound if src is not in the Set
//   - nil otherwise
//
// A call that returns an error changes nothing.
func (s *Set[K]) Modify(src any, key K, events Events, m Mode) error {
	if !valid(events, m) {
		return badInterest("modify", events, m)
	}
	ws, err := sourceOf("modify", src)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.unlock()
	if s.closed {
		return ErrClosed
	}
	r := s.regs[ws]
	if r == nil {
		return ErrNotFound
	}
	r.key, r.events, r.mode = key, events, m
	if r.state == disarmed {
		r.state = armed
		s.arm(r)
		hook(pointModify)
	}
	if r.state == armed && r.has() != 0 { // polled after Arm, as in Add
		s.queue(r)
	}
	return nil
}

// Remove takes src out of the Set (EPOLL_CTL_DEL). No Wait reports it
// once Remove has returned. It returns:
//   - ErrInvalid as Add does, if src is not a source or is a nil pointer
//   - ErrNotFound if src is not in the Set
//   - nil otherwise
//
// Remove works on a closed Set too.
func (s *Set[K]) Remove(src any) error {
	ws, err := sourceOf("remove", src)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.unlock()
	r := s.regs[ws]
	if r == nil {
		return ErrNotFound
	}
	delete(s.regs, ws)
	s.drop(r)
	if l := ws.Watchers(); l != nil {
		l.Remove(r)
	}
	return nil
}

// drop turns r off: it leaves the ready list, or releases its source if
// it was armed.
func (s *Set[K]) drop(r *reg[K]) {
	switch r.state {
	case queued:
		s.unlink(r)
	case armed:
		s.disarm(r)
	}
	r.state = off
}

// Len returns the number of sources in the Set.
func (s *Set[K]) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.regs)
}

// wake is a wakeup of r with events ev. An armed registration that asks
// for one of them (Hup always counts) is queued; any other absorbs it.
//
// A source may call it after Remove or Close has taken r off its list, if
// it loaded the list before. Both turn r off first, so it is ignored.
//
// An edge registration woken while nothing is queued and a caller waits
// goes to that caller at once (handOff).
func (s *Set[K]) wake(r *reg[K], ev Events) {
	hook(pointWake)
	s.mu.Lock()
	if r.state != armed || ev&(r.events|Hup) == 0 {
		s.mu.Unlock()
		return
	}
	s.n.wakeups++
	if s.head == nil && r.mode == Edge && s.t.burstK == 0 && !s.closed {
		if w := s.waiters.Front(); w != nil {
			handOff(s, w, r)
			s.unlock()
			return
		}
	}
	s.queue(r)
	s.unlock()
}

// handOff gives the events of the edge registration r to the blocked
// caller w, as queue, settle and harvest would with r alone on the ready
// list, but without the list: r stays armed, as harvest leaves an edge
// registration, and is polled once. If it has no event left it is
// dropped, and w waits on. The Sets this Set is in are not woken, since
// nothing is queued: they would have found nothing queued either.
func handOff[K comparable](s *Set[K], w *waitq.Waiter[take[K]], r *reg[K]) {
	ev := r.has()
	if ev == 0 {
		s.n.drops++
		return
	}
	p := w.P
	p.buf = append(p.buf, Event[K]{r.key, ev})
	if !p.at.IsZero() {
		s.t.untimeW(w)
	}
	s.waiters.Grant(w, p)
}

// queue puts the armed registration r at the tail of the ready list and
// releases its source, since a queued registration absorbs every wakeup.
// Then it serves the blocked callers.
func (s *Set[K]) queue(r *reg[K]) {
	s.disarm(r)
	s.link(r)
	s.settle()
}

// link puts r at the tail of the ready list. For the Sets this Set is in,
// that is a write: it wakes their armed registrations with In.
func (s *Set[K]) link(r *reg[K]) {
	if s.armed != 0 {
		s.notify |= In
	}
	r.state, r.prev, r.next = queued, s.tail, nil
	s.n.queued++
	if s.tail == nil {
		s.head = r
		if s.t.burstK != 0 {
			s.startBurst()
		}
	} else {
		s.tail.next = r
	}
	s.tail = r
}

// unlink takes r off the ready list.
func (s *Set[K]) unlink(r *reg[K]) {
	if r.prev == nil {
		s.head = r.next
	} else {
		r.prev.next = r.next
	}
	if r.next == nil {
		s.tail = r.prev
	} else {
		r.next.prev = r.prev
	}
	r.prev, r.next = nil, nil
	s.n.queued--
	if s.head == nil && s.t.burstK != 0 {
		s.endBurst()
	}
}

// harvest takes up to max events off the ready list, appends them to buf
// and returns it (ep_send_events). It polls each registration it takes.
//   - One with no event left is dropped, armed for its next wakeup.
//   - A level one is reported and queued again at the tail, after the
//     registrations it did not reach.
//   - An edge one is reported and armed for its next wakeup.
//   - A one-shot one is reported and disarmed until Modify.
//
// An edge registration is armed before the poll, so a change after the
// poll wakes it again, as a wakeup during epoll's scan goes to its
// overflow list. A level or one-shot one that is still ready needs no
// arming. After Close nothing is armed or queued again.
func (s *Set[K]) harvest(buf []Event[K], max int) []Event[K] {
	again := s.again[:0]
	for n := 0; n < max && s.head != nil; {
		r := s.head
		s.unlink(r)
		ev := Events(0)
		if r.mode != Edge || s.closed {
			ev = r.has() // a level or one-shot one still ready stays released
		}
		if ev == 0 && !s.closed {
			r.state = armed
			s.arm(r)
			hook(pointHarvest)
			ev = r.has() // polled after Arm: a change since is told to r
		}
		if ev == 0 {
			if s.closed {
				r.state = off
			}
			s.n.drops++
			continue // dropped: armed until its next wakeup
		}
		buf = append(buf, Event[K]{r.key, ev})
		n++
		wasArmed := r.state == armed
		switch {
		case s.closed:
			r.state = off
		case r.mode == Level:
			again = append(again, r)
		case r.mode == OneShot:
			r.state = disarmed
		default: // edge: stays armed
			continue
		}
		if wasArmed {
			s.disarm(r)
		}
	}
	for _, r := range again {
		s.link(r)
	}
	clear(again)
	s.again = again[:0]
	return buf
}

// A take is a blocked Wait caller's payload. The granter appends up to max
// events to buf under the lock, and the caller gets buf back after waking.
type take[K comparable] struct {
	buf     []Event[K]
	max     int
	at      time.Time // a WaitTimeout's end; zero for a Wait
	expired bool      // the WaitTimeout ended with nothing (timing.tick)
}

// settle serves blocked callers after a change: queued registrations go
// to the callers, oldest first, each with up to its max events. After
// Close, once nothing is queued, they get ErrClosed. An armed Ready
// channel fires if a Wait would not block.
func (s *Set[K]) settle() {
	for s.head != nil && s.open() {
		w := s.waiters.Front()
		if w == nil {
			break
		}
		p := w.P
		n := len(p.buf)
		if p.buf = s.harvest(p.buf, p.max); len(p.buf) > n {
			if !p.at.IsZero() {
				s.t.untimeW(w)
			}
			s.waiters.Grant(w, p)
		}
	}
	if s.closed && s.head == nil {
		s.waiters.RejectAll()
		clear(s.t.timed)
		s.t.timed = s.t.timed[:0]
	}
	s.ready.Fire(s.head != nil && s.open() || s.closed)
}

// unlock publishes what Poll reads, releases mu, wakes the callers
// settled meanwhile, and tells the Sets this Set is in what the section
// did (nest.go). Every section that may change the ready list ends with
// it.
func (s *Set[K]) unlock() {
	if s.t.dirty {
		s.arrange()
	}
	s.t.nowOK = false
	var shown uint32
	if s.head != nil {
		shown |= shownQueued
	}
	if s.closed {
		shown |= shownClosed
	}
	s.shown.Store(shown)
	w, ev := s.waiters.Woken(), s.notify
	s.notify = 0
	s.mu.Unlock()
	hook(pointUnlocked)
	waitq.WakeAll(w)
	if ev != 0 {
		s.watch.Wake(watch.Events(ev))
	}
}

// owner is a Set as the waitq.Owner of its waiters: a cancelled caller
// leaves under mu, and the Unlock serves those behind it.
type owner[K comparable] Set[K]

// Lock takes the Set's lock.
func (o *owner[K]) Lock() { o.mu.Lock() }

// Unlock serves those behind a waiter that left and releases the lock.
func (o *owner[K]) Unlock() {
	s := (*Set[K])(o)
	s.settle()
	s.unlock()
}

// Wait waits until a source is ready, then reports up to max events,
// appended to buf (epoll_wait). Sources queued but no longer ready are
// dropped and not reported; Wait goes on waiting if nothing else is
// ready. It returns:
//   - buf with the events and nil
//   - buf and ErrInvalid at once for a nil ctx or max ≤ 0
//   - buf and ctx.Err() at once if ctx is already done, or when ctx ends
//     while it waits
//   - buf and ErrClosed once the Set is closed and nothing is left to
//     report
//
// A caller that passes back its previous batch, as buf[:0], allocates
// nothing once buf is large enough.
func (s *Set[K]) Wait(ctx context.Context, buf []Event[K], max int) ([]Event[K], error) {
	switch {
	case ctx == nil:
		return buf, errWaitNilCtx
	case max <= 0:
		return buf, badMax(max)
	}
	if err := ctx.Err(); err != nil {
		return buf, err
	}
	s.mu.Lock()
	buf, done, err := harvestOrUnlock(s, buf, max, false)
	if done {
		return buf, err
	}
	if err := ctx.Err(); err != nil {
		s.unlock()
		return buf, err
	}
	w := s.waiters.Push(ctx.Done(), take[K]{buf: buf, max: max})
	s.unlock()
	p, err := s.waiters.Await(ctx, (*owner[K])(s), w)
	if err != nil {
		return buf, err
	}
	return p.buf, nil
}

// harvestOrUnlock is the locked start of Wait and WaitTimeout, with mu
// held. It catches up with the clock and harvests into buf if the Set is
// open (now: even in a burst window). If that gave events, or the Set is
// closed, it releases mu and returns done with the call's answer.
// Otherwise mu is still held and the caller goes on to wait with the buf
// returned. It is a function, as handOff is, to keep Set's method set
// within the layout test's bound.
func harvestOrUnlock[K comparable](s *Set[K], buf []Event[K], max int, now bool) ([]Event[K], bool, error) {
	s.catchUp()
	n := len(buf)
	if s.open() || now {
		if buf = s.harvest(buf, max); len(buf) > n {
			s.unlock()
			return buf, true, nil
		}
	}
	if s.closed {
		s.unlock()
		return buf, true, ErrClosed
	}
	return buf, false, nil
}

// WaitTimeout is Wait with a time limit d instead of a context, as
// epoll_wait's timeout is. It waits until a source is ready or d has
// passed on the Set's clock, whichever is first. It returns:
//   - buf with the events and nil
//   - buf unchanged and nil if d passed with nothing to report (for a
//     d ≤ 0, at once, as TryWait)
//   - buf and ErrInvalid at once for max ≤ 0
//   - buf and ErrClosed once the Set is closed and nothing is left to
//     report
//
// It makes no context and no timer per call. The Set's one timer, which
// its Deadlines share, ends the waits that time out.
func (s *Set[K]) WaitTimeout(buf []Event[K], max int, d time.Duration) ([]Event[K], error) {
	if max <= 0 {
		return buf, badMax(max)
	}
	s.mu.Lock()
	buf, done, err := harvestOrUnlock(s, buf, max, d <= 0)
	if done {
		return buf, err
	}
	if d <= 0 {
		s.unlock()
		return buf, nil
	}
	w := s.waiters.Push(nil, take[K]{buf: buf, max: max, at: s.t.now().Add(d)})
	s.t.timed = append(s.t.timed, w)
	s.t.dirty = true
	s.unlock()
	w.Sleep()
	p, r := s.waiters.Finish((*owner[K])(s), w, true)
	switch {
	case r == waitq.Granted:
		return p.buf, nil
	case p.expired:
		return buf, nil
	}
	return buf, ErrClosed
}

// TryWait reports up to max events without waiting (epoll_wait with a
// timeout of 0), appended to buf. It returns buf unchanged if nothing is
// ready or max ≤ 0.
func (s *Set[K]) TryWait(buf []Event[K], max int) []Event[K] {
	if max <= 0 {
		return buf
	}
	s.mu.Lock()
	s.catchUp()
	buf = s.harvest(buf, max)
	s.unlock()
	return buf
}

// Ready returns a channel that is closed once a Wait would not block on a
// queued source: when a source is queued, or when the Set is closed. Each
// call returns a channel for the next such moment. The queued source may
// turn out no longer ready, or be taken by another caller, when a Wait or
// TryWait gets to it, as epoll's readiness may be stale. So a goroutine
// woken by it calls TryWait, and Ready again if that reports nothing.
func (s *Set[K]) Ready() <-chan struct{} {
	s.mu.Lock()
	defer s.unlock()
	s.catchUp()
	return s.ready.Arm(s.head != nil && s.open() || s.closed)
}

// Close closes the Set. From then on:
//   - Add and Modify return ErrClosed; Remove still works
//   - no source queues anything, and sources pay nothing for the Set
//   - Wait reports what is queued and still ready, each source at most
//     once more, then returns ErrClosed; blocked Waits return ErrClosed
//
// Close fires an armed Ready channel. It is idempotent.
func (s *Set[K]) Close() {
	s.mu.Lock()
	defer s.unlock()
	if s.closed {
		return
	}
	s.closed = true
	s.t.burstAt, s.t.burstDue, s.t.dirty = time.Time{}, false, true
	if s.armed != 0 {
		s.notify |= Hup
	}
	for _, r := range s.regs {
		if r.state == armed || r.state == disarmed {
			s.drop(r)
		}
		if l := r.src.Watchers(); l != nil {
			l.Remove(r)
		}
	}
	s.settle()
}

// noCopy lets go vet's copylocks check flag copies of a Set.
type noCopy struct{}

// Lock is a no-op. Its presence is what go vet looks for.
func (*noCopy) Lock() {}

// Unlock is a no-op, the pair of Lock.
func (*noCopy) Unlock() {}
