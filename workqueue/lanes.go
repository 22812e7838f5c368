package workqueue

import (
	"slices"

	"github.com/evsync/evsync/internal/rq"
)

// A lane is a node of a level's tree of tenants (see FairShare). A leaf
// is a tenant's FIFO of queued items. An inner node serves its children
// that have queued items by weighted round robin. Without fair share a
// level's root is its one leaf. A node is in its parent's kids and ring
// while it has queued items.
//
// The ring is circular and doubly linked through the children's next and
// prev, so a child joins or leaves it in O(1), however many it has.
type lane[T comparable] struct {
	list   fifo[T]             // a leaf's queued items
	live   int                 // queued items in its subtree
	key    string              // its key among its parent's kids
	weight int                 // the length of its turn in its parent's round, ≥ 1
	up     *lane[T]            // its parent, or nil for a level's root
	level  *level[T]           // its level
	kids   map[string]*lane[T] // an inner node's children with queued items, by key
	cur    *lane[T]            // the ring's next child; nil for a lane, or with no child queued
	used   int                 // hand-outs cur has had in its current turn
	next   *lane[T]            // the child after it in its parent's ring (itself if alone)
	prev   *lane[T]            // the child before it
}

// A level is the queued items of one priority, on a tree whose root it
// is. Its live counts them.
type level[T comparable] struct {
	lane[T]      // the root
	prio    int  // its priority
	shown   int  // live as the metrics last noted it (metrics.go)
	touched bool // on the metrics' touched list
}

// lanes are a queue's queued items: the ready list, and the levels of
// other priorities, highest priority first. Only with the queue's lock
// held.
//
// Priorities and fair share put queued items on lanes other than the
// ready list (the core's List). There is one level per priority. Without
// fair share its root is its one lane. With Config.Fairness or Config.FairShare the
// root is the root of a tree of tenants whose leaves are the lanes, one
// per tenant (see FairShare). The ready list is the lane of priority 0
// without fair share. So a queue that uses neither never looks at a
// lane, and keeps its O(1) splice (see internal/rq/fifo.go).
//
// A hand-out takes the levels from the highest priority down, with the
// ready list in its place among them. Within a level the hand-out goes down the
// tree. Each node serves the child at its ring's cursor, for a turn of
// as many hand-outs in a row as the child's weight. Then the cursor moves
// on. A node that gets its first queued item joins its parent's ring
// just before the cursor. So it is served last in the current round. A
// node leaves the ring, and a level the list, when it has nothing queued.
// One dimension with weights 1 is one item per tenant per turn.
//
// Items handed out from a lane are marked in flight one by one. The
// lane's positions cannot tell in-flight items apart, since lanes come
// and go. That costs a map lookup per item. So priorities and fair share
// cost only the queues that use them.
type lanes[T comparable] struct {
	levels []*level[T]
	live   int       // queued items on all lanes
	fair   bool      // Config.Fairness or Config.FairShare is set, so every item goes to a lane
	watch  *gauge[T] // with metrics, where count notes the levels whose count changes

	// Emptied lanes and levels, kept for reuse, at most maxSpare each.
	// A tenant that keeps up joins and leaves its round at every item.
	// Reuse spares it the lane, its array and its map each time.
	spare   []*lane[T]
	spareLv []*level[T]
}

// maxSpare bounds the emptied lanes, and the emptied levels, that a
// queue keeps for reuse.
const maxSpare = 64

// onLane reports whether the queued item e is on a lane, not on the ready list.
// Its state is then queued, not listed (see rq.Locked.Where).
func onLane[T comparable](e *entry[T]) bool { return e.State == queued }

// laned reports whether an item of priority prio goes to a lane.
func (l *lanes[T]) laned(prio int) bool { return prio != 0 || l.fair }

// enqueue queues e's item at the tail of its lane (lanes.push), and with
// metrics notes when.
func (s *state[T]) enqueue(e *entry[T]) {
	if s.cfg.metrics != nil {
		s.extras.of(e).queuedAt = s.cfg.clock.now()
	}
	s.lanes.push(e, &s.extras, &s.core.List)
}

// push queues e's item at the tail of its lane. That is list, the ready
// list, or the lane of its priority and tenant. The extra parts xs hold
// e's, if any.
func (l *lanes[T]) push(e *entry[T], xs *extras[T], list *fifo[T]) {
	if e.X == 0 {
		e.Seq, e.State = list.Push(e.Item), rq.Listed
		return
	}
	x := xs.at(e.X)
	if !l.laned(x.prio) {
		e.Seq, e.State = list.Push(e.Item), rq.Listed
		return
	}
	ln := l.leaf(x.prio, xs, e.X)
	e.Seq, e.State, x.lane = ln.list.Push(e.Item), queued, ln
	l.fill(ln, 1)
}

// unqueue takes the queued item e off its lane, or off list, the ready
// list (Remove, a raised priority). The extra parts xs hold e's, if any.
func (l *lanes[T]) unqueue(e *entry[T], xs *extras[T], list *fifo[T]) {
	if !onLane(e) {
		list.Kill(e.Seq)
		return
	}
	x := xs.at(e.X)
	ln := x.lane
	ln.list.Kill(e.Seq)
	x.lane = nil // its state is set by the enqueue or forget that follows
	l.drain(ln, 1)
}

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

// leaf returns the lane of priority prio and the tenant of the extra part
// x, whose keys xs holds. It makes the lane, the nodes above it and the
// level if need be. They join their rings when they get an item (fill).
func (l *lanes[T]) leaf(prio int, xs *extras[T], x int32) *lane[T] {
	i, found := slices.BinarySearchFunc(l.levels, prio, byPrio)
	if !found {
		l.levels = slices.Insert(l.levels, i, l.newLevel(prio))
	}
	n := &l.levels[i].lane
	for d := range xs.dims {
		st := xs.step(x, d)
		c := n.kids[st.key]
		if c == nil {
			c = l.newLane(st, n)
			if n.kids == nil {
				n.kids = make(map[string]*lane[T])
			}
			n.kids[st.key] = c
		}
		n = c
	}
	return n
}

// newLevel returns an empty level of priority prio, a spare one if there
// is one the metrics are done with (its last count noted: not touched).
func (l *lanes[T]) newLevel(prio int) *level[T] {
	if n := len(l.spareLv); n > 0 && !l.spareLv[n-1].touched {
		lv := l.spareLv[n-1]
		l.spareLv[n-1], l.spareLv = nil, l.spareLv[:n-1]
		lv.prio = prio
		return lv
	}
	lv := &level[T]{prio: prio}
	lv.level = lv
	return lv
}

// newLane returns an empty child of up, with the key and weight of st, a
// spare one if there is one.
func (l *lanes[T]) newLane(st *step, up *lane[T]) *lane[T] {
	n := len(l.spare)
	if n == 0 {
		return &lane[T]{key: st.key, weight: st.weight, up: up, level: up.level}
	}
	c := l.spare[n-1]
	l.spare[n-1], l.spare = nil, l.spare[:n-1]
	c.key, c.weight, c.up, c.level = st.key, st.weight, up, up.level
	return c
}

// keep keeps the lane c, which has just left its parent, for reuse if
// there is room. Empty, it has no item and no child left. Its array and
// map keep their room.
func (l *lanes[T]) keep(c *lane[T]) {
	if len(l.spare) < maxSpare {
		c.key, c.up, c.level = "", nil, nil
		l.spare = append(l.spare, c)
	}
}

// fill counts d > 0 more queued items on the lane n and the nodes above
// it. A node that had none joins its parent's ring.
func (l *lanes[T]) fill(n *lane[T], d int) {
	lv := n.level
	for ; n.up != nil; n = n.up {
		n.live += d
		if n.live == d {
			n.up.join(n)
		}
	}
	l.count(lv, d)
}

// drain counts d fewer queued items on the lane n and the nodes above it,
// none of whose turns it ends (Remove). A node left with none leaves its
// parent's ring, and an empty level the list.
func (l *lanes[T]) drain(n *lane[T], d int) {
	lv := n.level
	for n.up != nil {
		p := n.up
		n.live -= d
		if n.live == 0 {
			p.leave(n)
			l.keep(n)
		}
		n = p
	}
	l.count(lv, -d)
	l.dropIfEmpty(lv)
}

// served counts the k items just handed out from the lane n, which the
// cursors of the nodes above it named. Each node's child on n's path
// goes on with its turn. The turn ends after the child's weight of
// hand-outs, or when the child has nothing queued left.
func (l *lanes[T]) served(n *lane[T], k int) {
	lv := n.level
	for n.up != nil {
		p := n.up
		n.live -= k
		switch p.used += k; {
		case n.live == 0:
			p.leave(n) // the cursor now names the next child
			l.keep(n)
		case p.used >= n.weight:
			p.used, p.cur = 0, p.cur.next
		}
		n = p
	}
	l.count(lv, -k)
	l.dropIfEmpty(lv)
}

// join puts the child c, which just got a queued item, into p's ring
// just before the cursor: last in the current round. Alone, it has the
// cursor. It takes O(1).
func (p *lane[T]) join(c *lane[T]) {
	n := p.cur
	if n == nil {
		c.next, c.prev, p.cur = c, c, c
		return
	}
	c.next, c.prev = n, n.prev
	n.prev.next = c
	n.prev = c
}

// leave takes the child c, which has nothing queued left, out of p's
// ring and kids. If c had the cursor, the next child has it, with a turn
// of its own. It takes O(1).
func (p *lane[T]) leave(c *lane[T]) {
	delete(p.kids, c.key)
	if p.cur == c {
		p.used, p.cur = 0, c.next
		if c.next == c {
			p.cur = nil
		}
	}
	c.prev.next = c.next
	c.next.prev = c.prev
	c.next, c.prev = nil, nil
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

// dropIfEmpty takes lv out of the list if it has nothing queued, and
// keeps it for reuse if there is room.
func (l *lanes[T]) dropIfEmpty(lv *level[T]) {
	if lv.live != 0 {
		return
	}
	i, _ := slices.BinarySearchFunc(l.levels, lv.prio, byPrio)
	l.levels = slices.Delete(l.levels, i, i+1)
	if len(l.spareLv) < maxSpare {
		l.spareLv = append(l.spareLv, lv)
	}
}

// handOut takes up to max queued items, highest priority first, with
// list, the ready list, in priority 0's place, appends them to buf and
// marks them in flight. The caller counts them. It copies under the lock.
// It is the hand-out of queues that have items on lanes. The index ix,
// the slab sl and the extra parts xs are the queue's.
func (l *lanes[T]) handOut(buf []T, max int, list *fifo[T], ix *index[T], sl *slab[T], xs *extras[T]) []T {
	start := len(buf)
	n := 0
	for n < max {
		lv := l.first()
		if lv == nil || (lv.prio < 0 && list.Live > 0) {
			break
		}
		buf = l.takeLevel(lv, buf, max-n, ix, sl, xs)
		n = len(buf) - start
	}
	if k := min(max-n, list.Live); k > 0 {
		arr := list.Arr
		lo, hi := list.Splice(k)
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

// take takes up to max items off the lanes of level lv and appends them
// to buf. The caller marks them in flight. It goes down the tree by the
// cursors, and takes from the lane it reaches as many items in a row as
// every turn on the way still allows.
func (l *lanes[T]) take(lv *level[T], buf []T, max int) []T {
	for max > 0 && lv.live > 0 {
		n, k := &lv.lane, max
		for n.cur != nil { // an inner node: a lane has no cursor
			c := n.cur
			k = min(k, c.weight-n.used)
			n = c
		}
		k = min(k, n.list.Live)
		arr := n.list.Arr
		lo, hi := n.list.Splice(k)
		buf = arr.CopyOut(buf, lo, hi)
		max -= k
		l.served(n, k)
	}
	return buf
}
