package model

// A SetRegistration is one Counter's registration in a Set, as
// Registration reports it.
type SetRegistration struct {
	Key      int
	Events   Events // asked for: In, Out or both
	Mode     Mode
	Queued   bool // on the ready list, though it may have no event left
	Disarmed bool // a one-shot registration that was reported: deaf until Modify
}

// Registration returns c's registration in s and true, or the zero
// SetRegistration and false if c is not in s.
func (s *Set) Registration(c *Counter) (SetRegistration, bool) {
	r := s.regs[c]
	if r == nil {
		return SetRegistration{}, false
	}
	return SetRegistration{Key: r.key, Events: r.events, Mode: r.mode, Queued: r.queued, Disarmed: r.disarmed}, true
}

// ReadyList returns the Counters whose registrations are on the ready
// list, head first: the order in which a Wait polls them. Some may have no
// event left, which the next Wait finds and drops.
func (s *Set) ReadyList() []*Counter {
	l := make([]*Counter, len(s.ready))
	for i, r := range s.ready {
		l[i] = r.src
	}
	return l
}

// Clone returns a copy of s and of the Counters cs that shares nothing
// with them: the i-th Counter it returns is the copy of cs[i]. A test
// that searches the states of a Set, as a linearizability checker does,
// steps the copy and keeps the original.
//   - The copy of s has a registration on the copy of each Counter in s,
//     with the same key, events, mode and state, and its ready list is in
//     the same order. Its Ready tickets are those of s.
//   - The copy of a Counter in s is in the copy of s and in no other Set,
//     so its wakeups reach the copy of s only. The copy of a Counter that
//     is not in s is in no Set.
//   - A Counter's pending reservations are copied, in order. A
//     Reservation the caller holds stays the original's.
//
// cs must hold every Counter in s. It may hold others, such as one
// removed from s. Clone panics if a Counter in s is missing from cs.
func (s *Set) Clone(cs []*Counter) (*Set, []*Counter) {
	t := &Set{regs: make(map[*Counter]*setReg, len(s.regs)), closed: s.closed, armed: s.armed, fires: s.fires}
	x := newCopyIndex(cs)
	counters := make([]Counter, len(cs)) // the copies, in one block
	regs := make([]setReg, 0, len(s.regs))
	sets := make([]*Set, len(cs)) // each copy's sets: an element of its own, so that Remove's delete touches no other
	for i, c := range cs {
		if d := x.find(c, i); d != nil {
			x.out[i] = d // listed twice: one copy
			continue
		}
		d := &counters[i]
		c.cloneTo(d)
		x.add(i, d)
		if r := s.regs[c]; r != nil {
			sets[i] = t
			d.sets = sets[i : i+1 : i+1]
			regs = append(regs, *r)
			nr := &regs[len(regs)-1]
			nr.src = d
			t.regs[d] = nr
		}
	}
	if len(t.regs) != len(s.regs) {
		panic("model: Clone needs every Counter in the Set")
	}
	t.ready = make([]*setReg, len(s.ready))
	for i, r := range s.ready {
		t.ready[i] = t.regs[x.find(r.src, len(cs))]
	}
	return t, x.out
}

// A copyIndex finds the copy of a Counter that Clone made: by a scan
// while the list is short, by a map beyond.
type copyIndex struct {
	cs, out []*Counter
	m       map[*Counter]*Counter
}

func newCopyIndex(cs []*Counter) *copyIndex {
	x := &copyIndex{cs: cs, out: make([]*Counter, len(cs))}
	if len(cs) > 16 {
		x.m = make(map[*Counter]*Counter, len(cs))
	}
	return x
}

// find returns the copy of c among the first n Counters, or nil.
func (x *copyIndex) find(c *Counter, n int) *Counter {
	if x.m != nil {
		return x.m[c]
	}
	for i, y := range x.cs[:n] {
		if y == c {
			return x.out[i]
		}
	}
	return nil
}

// add records d as the copy of the i-th Counter.
func (x *copyIndex) add(i int, d *Counter) {
	x.out[i] = d
	if x.m != nil {
		x.m[x.cs[i]] = d
	}
}

// cloneTo makes d a copy of c in no Set, with copies of its pending
// reservations.
func (c *Counter) cloneTo(d *Counter) {
	*d = *c
	d.sets, d.queue = nil, nil
	if len(c.queue) != 0 {
		d.queue = make([]*Reservation, len(c.queue))
	}
	for i, r := range c.queue {
		nr := *r
		nr.c = d
		d.queue[i] = &nr
	}
}

// Mute makes c hold its wakeups. Until Unmute, a call that changes c does
// not tell c's Sets; it adds the events it would have told them to what
// c holds.
//
// A real source tells its Sets after it has released its own lock, so
// another goroutine may see a change before the Sets hear of it, and a
// Set may poll the change and report it before the wakeup comes. A test
// of concurrent histories models that window in two steps: the call on
// the muted Counter, then Set.Wake with the events Unmute returned.
func (c *Counter) Mute() { c.muted = true }

// Unmute returns the events c held since Mute, forgets them, and lets c
// tell its Sets of its wakeups again.
func (c *Counter) Unmute() Events {
	ev := c.held
	c.muted, c.held = false, 0
	return ev
}

// Wake is a wakeup of c with events ev reaching s, epoll's
// ep_poll_callback. It queues c's registration if it asks for one of the
// events (Hup always counts), unless it is queued already, is a one-shot
// that was reported, or s is closed. A Counter's calls wake its Sets
// themselves; Wake delivers the wakeup of a call made on a muted Counter
// (see Mute), at the moment a test chooses.
func (s *Set) Wake(c *Counter, ev Events) { s.wake(c, ev) }
