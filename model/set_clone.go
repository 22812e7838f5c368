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
	copies := make(map[*Counter]*Counter, len(cs))
	out := make([]*Counter, len(cs))
	for i, c := range cs {
		d := copies[c]
		if d == nil {
			d = c.clone()
			if s.regs[c] != nil {
				d.sets = []*Set{t}
			}
			copies[c] = d
		}
		out[i] = d
	}
	for c, r := range s.regs {
		d := copies[c]
		if d == nil {
			panic("model: Clone needs every Counter in the Set")
		}
		nr := *r
		nr.src = d
		t.regs[d] = &nr
	}
	t.ready = make([]*setReg, len(s.ready))
	for i, r := range s.ready {
		t.ready[i] = t.regs[copies[r.src]]
	}
	return t, out
}

// clone returns a copy of c in no Set, with copies of its pending
// reservations.
func (c *Counter) clone() *Counter {
	d := *c
	d.sets, d.queue = nil, nil
	if len(c.queue) != 0 {
		d.queue = make([]*Reservation, len(c.queue))
	}
	for i, r := range c.queue {
		nr := *r
		nr.c = &d
		d.queue[i] = &nr
	}
	return &d
}
