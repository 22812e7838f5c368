package model

// A SetRegistration is one source's registration in a Set, as
// Registration reports it.
type SetRegistration struct {
	Key      int
	Events   Events // asked for: In, Out or both
	Mode     Mode
	Queued   bool // on the ready list, though it may have no event left
	Disarmed bool // a one-shot registration that was reported: deaf until Modify
}

// Registration returns the registration of src in s and true, or the
// zero SetRegistration and false if src is not in s. src is any source,
// as Add takes it. A value that is not one is in no Set.
func (s *Set) Registration(src any) (SetRegistration, bool) {
	if _, ok := sourceOf(src); !ok {
		return SetRegistration{}, false
	}
	r := s.regs[src]
	if r == nil {
		return SetRegistration{}, false
	}
	return SetRegistration{Key: r.id, Events: r.events, Mode: r.mode, Queued: r.queued, Disarmed: r.disarmed}, true
}

// ReadyList returns the sources whose registrations are on the ready
// list, head first: the order in which a Wait polls them. Each is the
// value Add took. Some may have no event left, which the next Wait finds
// and drops.
func (s *Set) ReadyList() []any {
	l := make([]any, len(s.ready))
	for i, r := range s.ready {
		l[i] = r.key
	}
	return l
}

// CloneSet returns a copy of s and of the sources srcs that shares
// nothing with them: the i-th source it returns is the copy of srcs[i].
// A test that searches the states of a Set, as a linearizability checker
// does, steps the copy and keeps the original.
//
// S is the type of the sources the caller keeps: *Counter, *Source,
// *DoneSource or *Deadline, or any for a mix. The copy is as follows:
//   - The copy of s has a registration on the copy of each source in s,
//     with the same key, events, mode and state, and its ready list is in
//     the same order. Its clock reads the same time, and its Ready
//     tickets and Stats are those of s.
//   - The copy of a source in s is in the copy of s and in no other Set,
//     so its wakeups reach the copy of s only. The copy of a source that
//     is not in s is in no Set.
//   - Each copy keeps its source's state: a Counter's count, limit,
//     tickets and pending reservations, in order; a Source's events; a
//     DoneSource's end or Stop; a Deadline's time. A muted source's copy
//     is muted, with the same events held (see Mute).
//   - A Reservation the caller holds stays the original's.
//
// srcs must hold every source in s. It may hold others, such as one
// removed from s, and one source twice, which is copied once. CloneSet
// panics if a source in s is missing from srcs, or if an element of srcs
// is not a source that Add takes (see Set).
func CloneSet[S any](s *Set, srcs []S) (*Set, []S) {
	t := new(Set)
	*t = *s // the clock, the tickets and the figures
	t.regs = make(map[any]*setReg, len(s.regs))
	x := newCopyIndex(len(srcs))
	out := make([]S, len(srcs))
	regs := make([]setReg, 0, len(s.regs))
	sets := make([]*Set, len(srcs)) // each copy's Sets: an element of its own, so that Remove's delete touches no other
	for i, src := range srcs {
		old := any(src)
		mustSource(old)
		if d, ok := x.find(old); ok {
			out[i] = d.(S) // listed twice: one copy
			continue
		}
		d, l := cloneSource(old)
		x.add(old, d)
		out[i] = d.(S)
		if r := s.regs[old]; r != nil {
			if l != nil {
				sets[i] = t
				l.sets = sets[i : i+1 : i+1]
			}
			regs = append(regs, *r)
			nr := &regs[len(regs)-1]
			nr.key, nr.src = d, mustSource(d)
			t.regs[d] = nr
		}
	}
	if len(t.regs) != len(s.regs) {
		panic("model: CloneSet needs every source in the Set")
	}
	t.ready = make([]*setReg, len(s.ready))
	for i, r := range s.ready {
		d, _ := x.find(r.key)
		t.ready[i] = t.regs[d]
	}
	return t, out
}

// mustSource returns src as a source, or panics if it is not one that Add
// takes.
func mustSource(src any) source {
	x, ok := sourceOf(src)
	if !ok {
		panic("model: CloneSet of a value that is not a source")
	}
	return x
}

// cloneSource returns a copy of src, a source that Add takes, in no Set,
// and the copy's list of Sets (nil for a Deadline).
func cloneSource(src any) (any, *setList) {
	switch x := src.(type) {
	case *Counter:
		d := cloneCounter(x)
		return d, &d.sets
	case *Source:
		d := *x
		d.list.sets = nil
		return &d, &d.list
	case *DoneSource:
		d := *x
		d.list.sets = nil
		return &d, &d.list
	}
	d := *src.(*Deadline)
	return &d, nil
}

// cloneCounter returns a copy of c in no Set, with copies of its pending
// reservations.
func cloneCounter(c *Counter) *Counter {
	d := new(Counter)
	*d = *c
	d.sets.sets, d.queue = nil, nil
	if len(c.queue) != 0 {
		d.queue = make([]*Reservation, len(c.queue))
	}
	for i, r := range c.queue {
		nr := *r
		nr.c = d
		d.queue[i] = &nr
	}
	return d
}

// A copyIndex finds the copy of a source that CloneSet made: by a scan
// while the list is short, by a map beyond.
type copyIndex struct {
	olds, news []any
	m          map[any]any
}

func newCopyIndex(n int) *copyIndex {
	x := &copyIndex{olds: make([]any, 0, n), news: make([]any, 0, n)}
	if n > 16 {
		x.m = make(map[any]any, n)
	}
	return x
}

// find returns the copy of src, and whether there is one. src must be
// comparable, which every source is.
func (x *copyIndex) find(src any) (any, bool) {
	if x.m != nil {
		d, ok := x.m[src]
		return d, ok
	}
	for i, y := range x.olds {
		if y == src {
			return x.news[i], true
		}
	}
	return nil, false
}

// add records d as the copy of src.
func (x *copyIndex) add(src, d any) {
	x.olds, x.news = append(x.olds, src), append(x.news, d)
	if x.m != nil {
		x.m[src] = d
	}
}

// WakingSource is the constraint of Mute and Unmute: the sources that
// wake their Sets by their own calls. A Deadline is not one: its Set's
// clock wakes it.
type WakingSource interface {
	*Counter | *Source | *DoneSource
}

// Mute makes src hold its wakeups. Until Unmute, a call that wakes src's
// Sets does not tell them. It adds the events it would have told them to
// what src holds. The calls are a Counter's, a Source's Notify and a
// DoneSource's End.
//
// A real source tells its Sets after it has released its own lock, so
// another goroutine may see a change before the Sets hear of it, and a
// Set may poll the change and report it before the wakeup comes. A test
// of concurrent histories models that window in two steps: the call on
// the muted source, then Set.Wake with the events Unmute returned. (For
// a Source, SetEvents and a later Notify do the same.)
//
// Mute panics if src is a nil pointer, as a method would.
func Mute[S WakingSource](src S) { listOf(src).muted = true }

// Unmute returns the events src held since Mute, forgets them, and lets
// src tell its Sets of its wakeups again. It panics if src is a nil
// pointer, as a method would.
func Unmute[S WakingSource](src S) Events {
	l := listOf(src)
	ev := l.held
	l.muted, l.held = false, 0
	return ev
}

// listOf returns the list of Sets of src, a WakingSource, or panics if
// src is a nil pointer.
func listOf(src any) *setList {
	switch x := src.(type) {
	case *Counter:
		if x != nil {
			return &x.sets
		}
	case *Source:
		if x != nil {
			return &x.list
		}
	case *DoneSource:
		if x != nil {
			return &x.list
		}
	}
	panic("model: Mute or Unmute of a nil source")
}

// Wake is a wakeup of src with events ev reaching s, epoll's
// ep_poll_callback. It queues the registration of src if it asks for one
// of the events (Hup always counts), unless it is queued already, is a
// one-shot that was reported, or s is closed. It does nothing if src is
// not in s. Bits other than In, Out and Hup are ignored.
//
// A source's calls wake its Sets themselves. Wake delivers the wakeup of
// a call made on a muted source (see Mute), at the moment a test
// chooses. For a Deadline it stands for its time coming, with In.
func (s *Set) Wake(src any, ev Events) {
	if _, ok := sourceOf(src); ok {
		s.wake(src, ev)
	}
}
