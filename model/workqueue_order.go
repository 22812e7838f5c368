package model

import (
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// The order in which a WorkQueue hands out queued items, written down as
// plainly as the model can put it; the real queue must hand out the same
// items in the same order. A ReadyQ queues every item at priority 0 for
// the tenant "", where this order is FIFO.
//
// Priorities. The highest priority with a queued item is served first; a
// lower priority waits until no higher one has a queued item.
//
// Fair share. An item's tenant is a path of keys, outermost first, each
// with a weight: one key of weight 1 with WorkQueueConfig.Fairness (or
// none), FairShare.Dims keys with FairShare. Within one priority the
// tenants form a tree: a node is a prefix of their paths, its children
// the keys that come next. A node's round is its children with an item
// queued at that priority below them, in serving order, the child served
// next first. A hand-out goes down from the root, at each node to the
// first child of its round, and serves the tenant it reaches its oldest
// item at that priority (FIFO by the time it was queued). Then, at each
// node on the way, that child has had one more hand-out in its turn. It
// moves to the end of the round once it has had as many as its weight,
// or leaves the round if nothing is queued below it. A child that gets
// its first queued item joins at the end of the round, with the weight
// of the item that brought it. A child whose last item leaves otherwise
// (Removed, or raised to another priority) is deleted where it is, the
// others keeping their order. A child that comes to the front of a round
// starts its turn afresh. With one key of weight 1 each turn is one
// hand-out, and the round of one tenant is plain FIFO.

// FairShare models workqueue.Config.FairShare for a queue of ints, so
// FairShare(c) converts a workqueue.FairShare[int] c. The model keeps an
// item's keys and weights from when it became known, as the queue does,
// and encodes them in its tenant (WorkQueue.Tenant).
type FairShare struct {
	Dims   int                            // 1 to 4 (workqueue.MaxDims); 0 means 1
	Key    func(item int, dim int) string // the item's key in each dimension
	Weight func(dim int, key string) int  // nil or ≤ 0: weight 1
}

// tenantOf returns the function that gives an item's tenant, its keys and
// weights encoded (see steps), or nil for a zero f.
func (f FairShare) tenantOf() func(int) string {
	if f.Key == nil {
		return nil
	}
	dims := max(1, f.Dims)
	return func(k int) string {
		var b []byte
		for d := range dims {
			key, w := f.Key(k, d), 1
			if f.Weight != nil {
				w = max(1, f.Weight(d, key))
			}
			b = strconv.AppendQuote(b, key)
			b = strconv.AppendInt(b, int64(w), 10)
			b = append(b, ';')
		}
		return string(b)
	}
}

// shareFair sets w up for o's FairShare, if it has one. It panics for
// the configurations workqueue.NewWithConfig panics for.
func (w *wqCore) shareFair(o WorkQueueConfig) {
	f := o.FairShare
	switch {
	case o.Fairness != nil && f.Key != nil:
		panic("model: both Fairness and FairShare set")
	case f.Dims < 0 || f.Dims > 4:
		panic("model: FairShare.Dims outside [0, 4]")
	case f.Key == nil && (f.Dims != 0 || f.Weight != nil):
		panic("model: FairShare without Key")
	}
	if f := f.tenantOf(); f != nil {
		w.tenantOf, w.rq.order.decode = f, true
	}
}

// rqStep is one key of a tenant's path and its weight.
type rqStep struct {
	key    string
	weight int
}

// rqNode names a node of a priority's tree: the priority and the keys of
// its path, each quoted.
type rqNode struct {
	prio int
	path string
}

// rqEntry is one queued item with the priority and tenant it is queued at.
type rqEntry struct {
	k      int
	prio   int
	tenant string
}

// rqOrder holds the queued items. The zero value is empty and ready.
type rqOrder struct {
	fifo   []rqEntry           // in the order they were queued
	round  map[rqNode][]rqStep // per node with a queued item below, its children in serving order
	used   map[rqNode]int      // the hand-outs its round's first child has had in its turn
	decode bool                // tenants are FairShare's encoded paths, not keys
}

// steps returns the path of tenant t, outermost key first.
func (o *rqOrder) steps(t string) []rqStep {
	if !o.decode {
		return []rqStep{{t, 1}}
	}
	var out []rqStep
	for t != "" {
		q, _ := strconv.QuotedPrefix(t)
		key, _ := strconv.Unquote(q)
		t = t[len(q):]
		i := strings.IndexByte(t, ';')
		w, _ := strconv.Atoi(t[:i])
		t = t[i+1:]
		out = append(out, rqStep{key, w})
	}
	return out
}

// node returns the node of priority prio whose path is st.
func node(prio int, st []rqStep) rqNode {
	n := rqNode{prio: prio}
	for _, s := range st {
		n.path += strconv.Quote(s.key)
	}
	return n
}

func (o *rqOrder) len() int { return len(o.fifo) }

// push queues e at the tail of its priority and tenant. Each node of its
// path that had nothing queued below it joins its parent's round last.
func (o *rqOrder) push(e rqEntry) {
	if o.round == nil {
		o.round, o.used = map[rqNode][]rqStep{}, map[rqNode]int{}
	}
	st := o.steps(e.tenant)
	for d := range st {
		if !o.holds(e.prio, st[:d+1]) {
			n := node(e.prio, st[:d])
			o.round[n] = append(o.round[n], st[d])
		}
	}
	o.fifo = append(o.fifo, e)
}

// remove takes k out of the queue and returns its entry. Each node of its
// path with nothing queued below it left leaves its parent's round. k
// must be queued.
func (o *rqOrder) remove(k int) rqEntry {
	i := slices.IndexFunc(o.fifo, func(e rqEntry) bool { return e.k == k })
	e := o.fifo[i]
	o.fifo = slices.Delete(o.fifo, i, i+1)
	st := o.steps(e.tenant)
	for d := range st {
		if o.holds(e.prio, st[:d+1]) {
			continue
		}
		n := node(e.prio, st[:d])
		r := o.round[n]
		j := slices.IndexFunc(r, func(c rqStep) bool { return c.key == st[d].key })
		if j == 0 {
			delete(o.used, n) // the next child starts its turn
		}
		if r = slices.Delete(r, j, j+1); len(r) == 0 {
			delete(o.round, n)
		} else {
			o.round[n] = r
		}
	}
	return e
}

// pop hands out the next item; the queue must not be empty.
func (o *rqOrder) pop() int {
	p := o.top()
	var path []rqStep
	for n := (rqNode{prio: p}); len(o.round[n]) > 0; n = node(p, path) {
		path = append(path, o.round[n][0])
	}
	i := slices.IndexFunc(o.fifo, func(e rqEntry) bool { return e.prio == p && o.on(e, path) })
	k := o.fifo[i].k
	o.remove(k) // takes the children left with nothing out of their rounds
	for d, c := range path {
		n := node(p, path[:d])
		r := o.round[n]
		if len(r) == 0 || r[0].key != c.key {
			continue // it left
		}
		if o.used[n]++; o.used[n] >= r[0].weight {
			o.round[n], o.used[n] = append(r[1:], r[0]), 0 // its turn is over: to the end
		}
	}
	return k
}

// on reports whether e's tenant has the path st, or st as a prefix.
func (o *rqOrder) on(e rqEntry, st []rqStep) bool {
	es := o.steps(e.tenant)
	if len(es) < len(st) {
		return false
	}
	for d := range st {
		if es[d].key != st[d].key {
			return false
		}
	}
	return true
}

// top is the highest priority with a queued item.
func (o *rqOrder) top() int {
	p := o.fifo[0].prio
	for _, e := range o.fifo {
		p = max(p, e.prio)
	}
	return p
}

// holds reports whether an item is queued at priority prio below the
// node of path st.
func (o *rqOrder) holds(prio int, st []rqStep) bool {
	return slices.ContainsFunc(o.fifo, func(e rqEntry) bool { return e.prio == prio && o.on(e, st) })
}

// handOut lists every queued item in the order pops would hand them out,
// leaving o as it is.
func (o *rqOrder) handOut() []int {
	c := rqOrder{fifo: slices.Clone(o.fifo), round: map[rqNode][]rqStep{}, used: maps.Clone(o.used), decode: o.decode}
	for n, r := range o.round {
		c.round[n] = slices.Clone(r)
	}
	out := make([]int, 0, c.len())
	for c.len() > 0 {
		out = append(out, c.pop())
	}
	return out
}

var errRQOrder = errors.New("model: workqueue round out of step with the queued items")

// validate checks that each node's round holds exactly the children with
// an item queued below them, once each, and that a turn so far is
// shorter than its child's weight.
func (o *rqOrder) validate() error {
	want := map[rqNode]map[string]bool{}
	for _, e := range o.fifo {
		st := o.steps(e.tenant)
		for d := range st {
			n := node(e.prio, st[:d])
			if want[n] == nil {
				want[n] = map[string]bool{}
			}
			want[n][st[d].key] = true
		}
	}
	if len(want) != len(o.round) {
		return errRQOrder
	}
	for n, r := range o.round {
		got := map[string]bool{}
		for _, c := range r {
			got[c.key] = true
		}
		if len(got) != len(r) || !maps.Equal(got, want[n]) || o.used[n] >= r[0].weight {
			return errRQOrder
		}
	}
	for n := range o.used {
		if _, ok := o.round[n]; !ok {
			return errRQOrder
		}
	}
	return nil
}
