package workqueue

import "slices"

// A lane is a FIFO of the queued items of one priority and tenant.
type lane[T comparable] struct {
	list   fifo[T]
	prio   int
	tenant string
	level  *level[T] // its level
}

// A level is the lanes of one priority.
type level[T comparable] struct {
	prio    int
	ring    []*lane[T] // lanes with queued items, in round-robin order
	cur     int        // the ring's next lane
	tenants map[string]*lane[T]
	live    int  // queued items on its lanes
	shown   int  // live as the metrics last noted it (metrics.go)
	touched bool // on the metrics' touched list
}

// lanes are a queue's queued items: the ready list, and the levels of
// other priorities, highest priority first. Only with the queue's lock
// held.
//
// Priorities and fair share put queued items on lanes other than the
// ready list l.list. There is one lane per priority, or with
// Config.Fairness one lane per priority and tenant. The list l.list is
// the lane of priority 0 without fair share. So a queue that uses neither
// never looks at a lane, and keeps its O(1) splice (see internal/rq/fifo.go).
//
// A hand-out takes the levels from the highest priority down, with l.list
// in its place among them. A level is the lanes of one priority. Within
// a level the hand-out goes round the lanes' ring, one item per lane per
// turn. A lane that gets its first queued item joins the ring just before
// the cursor. So it is served last in the current round. An item of a
// new tenant thus waits for at most one hand-out per tenant ahead of it.
// A lane leaves the ring, and a level the list, when it has nothing
// queued.
//
// Items handed out from a lane are marked in flight one by one. The
// lane's positions cannot tell in-flight items apart, since lanes come
// and go. That costs a map lookup per item. So priorities and fair share
// cost only the queues that use them.
type lanes[T comparable] struct {
	list   fifo[T] // the queued items of priority 0, without fair share (internal/rq/fifo.go)
	levels []*level[T]
	live   int       // queued items on all lanes
	fair   bool      // Config.Fairness is set, so every item goes to a lane
	watch  *gauge[T] // with metrics, where count notes the levels whose count changes
}

// onLane reports whether the queued item e is on a lane, not on l.list.
// Its state is then queued, not listed (see where).
func onLane[T comparable](e *entry[T]) bool { return e.State == queued }

// laned reports whether an item of priority prio goes to a lane.
func (l *lanes[T]) laned(prio int) bool { return prio != 0 || l.fair }

// enqueue queues e's item at the tail of its lane (lanes.push), and with
// metrics notes when.
func (s *state[T]) enqueue(e *entry[T]) {
	if s.cfg.metrics != nil {
		s.extras.of(e).queuedAt = s.cfg.clock.now()
	}
	s.lanes.push(e, &s.extras)
}

// push queues e's item at the tail of its lane. That is l.list, or the
// lane of its priority and tenant. The extra parts xs hold e's, if any.
func (l *lanes[T]) push(e *entry[T], xs *extras[T]) {
	if e.X == 0 {
		e.Seq, e.State = l.list.Push(e.Item), listed
		return
	}
	x := xs.at(e.X)
	if !l.laned(x.prio) {
		e.Seq, e.State = l.list.Push(e.Item), listed
		return
	}
	l.enqueue(e, x)
}

// enqueue queues e's item, whose extra part is x, at the tail of the lane
// of x's priority and tenant.
func (l *lanes[T]) enqueue(e *entry[T], x *extra[T]) {
	ln := l.lane(x.prio, x.tenant)
	e.Seq, e.State, x.lane = ln.list.Push(e.Item), queued, ln
	l.count(ln.level, 1)
}

// unqueue takes the queued item e off its lane (Remove, a raised
// priority). The extra parts xs hold e's, if any.
func (l *lanes[T]) unqueue(e *entry[T], xs *extras[T]) {
	if !onLane(e) {
		l.list.Kill(e.Seq)
		return
	}
	x := xs.at(e.X)
	ln := x.lane
	ln.list.Kill(e.Seq)
	x.lane = nil // its state is set by the enqueue or forget that follows
	l.count(ln.level, -1)
	if ln.list.Live == 0 {
		l.drop(ln) // its priority, not the item's: a raise unqueues first with the new one set
	}
}

// queued is the number of queued items.
func (l *lanes[T]) queued() int { return l.list.Live + l.live }

// count changes the number of queued items on the lanes of lv by d. With
// metrics it also notes lv for them, even once lv is dropped. The last
// count of a dropped lv, 0, is still to be reported.
func (l *lanes[T]) count(lv *level[T], d int) {
	l.live += d
	lv.live += d
	if g := l.watch; g != nil && !lv.touched {
		lv.touched = true
		g.touched = append(g.touched, lv)
	}
}

// lane returns the lane of prio and tenant, making it (and its level) if
// need be. A new lane joins its level's ring last.
func (l *lanes[T]) lane(prio int, tenant string) *lane[T] {
	i, found := slices.BinarySearchFunc(l.levels, prio, byPrio)
	if !found {
		l.levels = slices.Insert(l.levels, i, &level[T]{prio: prio})
	}
	lv := l.levels[i]
	if ln := lv.tenants[tenant]; ln != nil {
		return ln
	}
	ln := &lane[T]{prio: prio, tenant: tenant, level: lv}
	if lv.tenants == nil {
		lv.tenants = make(map[string]*lane[T])
	}
	lv.tenants[tenant] = ln
	lv.ring = slices.Insert(lv.ring, lv.cur, ln)
	lv.cur = (lv.cur + 1) % len(lv.ring)
	return ln
}

// byPrio orders levels by descending priority.
func byPrio[T comparable](lv *level[T], prio int) int {
	switch {
	case lv.prio > prio:
		return -1
	case lv.prio < prio:
		return 1
	}
	return 0
}

// drop takes the empty lane ln out of its level's ring, and the level out
// of the list if it was its last lane.
func (l *lanes[T]) drop(ln *lane[T]) {
	i, _ := slices.BinarySearchFunc(l.levels, ln.prio, byPrio)
	lv := l.levels[i]
	j := slices.Index(lv.ring, ln)
	lv.ring = slices.Delete(lv.ring, j, j+1)
	delete(lv.tenants, ln.tenant)
	switch {
	case len(lv.ring) == 0:
		l.levels = slices.Delete(l.levels, i, i+1)
	case j < lv.cur:
		lv.cur--
	case lv.cur == len(lv.ring):
		lv.cur = 0
	}
}

// handOut takes up to max queued items, highest priority first, appends
// them to buf and marks them in flight. The caller counts them. It copies
// under the lock. It is the hand-out of queues that have items on lanes.
// The index ix, the slab sl and the extra parts xs are the queue's.
func (l *lanes[T]) handOut(buf []T, max int, ix *index[T], sl *slab[T], xs *extras[T]) []T {
	start := len(buf)
	n := 0
	for n < max {
		lv := l.first()
		if lv == nil || (lv.prio < 0 && l.list.Live > 0) {
			break
		}
		buf = l.takeLevel(lv, buf, max-n, ix, sl, xs)
		n = len(buf) - start
	}
	if k := min(max-n, l.list.Live); k > 0 {
		arr := l.list.Arr
		lo, hi := l.list.Splice(k)
		buf = arr.CopyOut(buf, lo, hi)
		n += k
	}
	for n < max && l.live > 0 {
		buf = l.takeLevel(l.first(), buf, max-n, ix, sl, xs)
		n = len(buf) - start
	}
	return buf
}

// first returns the level of the highest priority, or nil.
func (l *lanes[T]) first() *level[T] {
	if len(l.levels) == 0 {
		return nil
	}
	return l.levels[0]
}

// takeLevel hands out up to max items of level lv (take), appends them
// to buf and marks them in flight. The caller counts them. The index ix,
// the slab sl and the extra parts xs are the queue's.
func (l *lanes[T]) takeLevel(lv *level[T], buf []T, max int, ix *index[T], sl *slab[T], xs *extras[T]) []T {
	start := len(buf)
	buf = l.take(lv, buf, max)
	for _, item := range buf[start:] {
		e, _ := ix.Find(sl, item)
		e.State, xs.at(e.X).lane = inFlight, nil
	}
	return buf
}

// take takes up to max items off the lanes of level lv, round-robin, one
// item per lane per turn, and appends them to buf. The caller marks them
// in flight.
func (l *lanes[T]) take(lv *level[T], buf []T, max int) []T {
	for ; max > 0 && len(lv.ring) > 0; max-- {
		ln := lv.ring[lv.cur]
		arr := ln.list.Arr
		lo, hi := ln.list.Splice(1)
		buf = arr.CopyOut(buf, lo, hi)
		l.count(lv, -1)
		if ln.list.Live == 0 {
			l.drop(ln) // the cursor now names the next lane
		} else {
			lv.cur = (lv.cur + 1) % len(lv.ring)
		}
	}
	return buf
}
