package model

import (
	"errors"
	"maps"
	"slices"
)

// The order in which a WorkQueue hands out queued items, written down as
// plainly as the model can put it; the real queue must hand out the same
// items in the same order. A ReadyQ queues every item at priority 0 for
// the tenant "", where this order is FIFO.
//
// Priorities. The highest priority with a queued item is served first; a
// lower priority waits until no higher one has a queued item.
//
// Fair share. Within one priority the tenants with queued items at that
// priority form a round, a list in serving order, the tenant served next
// first (a ring read from its cursor). A hand-out serves the first tenant
// its oldest item at that priority (FIFO by the time it was queued), then
// moves that tenant to the end of the round, or drops it if it has no
// item queued at that priority left. A tenant that gets its first queued
// item at a priority joins at the end: every tenant already in the round
// is served once before it, tenants joining later are served after it. A
// tenant whose last item at a priority leaves otherwise (Removed, or
// raised to another priority) is deleted where it is, the others keeping
// their order. Without a tenant function every item has the tenant "", and
// the round of one tenant is plain FIFO.

// rqEntry is one queued item with the priority and tenant it is queued at.
type rqEntry struct {
	k      int
	prio   int
	tenant string
}

// rqOrder holds the queued items. The zero value is empty and ready.
type rqOrder struct {
	fifo  []rqEntry        // in the order they were queued
	round map[int][]string // per priority with a queued item, in serving order
}

func (o *rqOrder) len() int { return len(o.fifo) }

// push queues e at the tail of its priority and tenant, its tenant joining
// the ring last if it had no item queued at that priority.
func (o *rqOrder) push(e rqEntry) {
	if !o.holds(e.prio, e.tenant) {
		if o.round == nil {
			o.round = map[int][]string{}
		}
		o.round[e.prio] = append(o.round[e.prio], e.tenant)
	}
	o.fifo = append(o.fifo, e)
}

// remove takes k out of the queue and returns its entry; its tenant leaves
// the round if that was its last item at that priority. k must be queued.
func (o *rqOrder) remove(k int) rqEntry {
	i := slices.IndexFunc(o.fifo, func(e rqEntry) bool { return e.k == k })
	e := o.fifo[i]
	o.fifo = slices.Delete(o.fifo, i, i+1)
	if o.holds(e.prio, e.tenant) {
		return e
	}
	r := slices.DeleteFunc(o.round[e.prio], func(t string) bool { return t == e.tenant })
	if len(r) == 0 {
		delete(o.round, e.prio)
	} else {
		o.round[e.prio] = r
	}
	return e
}

// pop hands out the next item; the queue must not be empty.
func (o *rqOrder) pop() int {
	p := o.top()
	t := o.round[p][0]
	i := slices.IndexFunc(o.fifo, func(e rqEntry) bool { return e.prio == p && e.tenant == t })
	k := o.fifo[i].k
	o.remove(k) // drops t from the round if that was its last item
	if r := o.round[p]; len(r) > 0 && r[0] == t {
		o.round[p] = append(r[1:], t) // still there: to the end
	}
	return k
}

// top is the highest priority with a queued item.
func (o *rqOrder) top() int {
	p := o.fifo[0].prio
	for _, e := range o.fifo {
		p = max(p, e.prio)
	}
	return p
}

func (o *rqOrder) holds(prio int, tenant string) bool {
	return slices.ContainsFunc(o.fifo, func(e rqEntry) bool { return e.prio == prio && e.tenant == tenant })
}

// handOut lists every queued item in the order pops would hand them out,
// leaving o as it is.
func (o *rqOrder) handOut() []int {
	c := rqOrder{fifo: slices.Clone(o.fifo), round: map[int][]string{}}
	for p, r := range o.round {
		c.round[p] = slices.Clone(r)
	}
	out := make([]int, 0, c.len())
	for c.len() > 0 {
		out = append(out, c.pop())
	}
	return out
}

var errRQOrder = errors.New("model: workqueue round out of step with the queued items")

// validate checks that each priority's round holds exactly the tenants
// with an item queued at that priority, once each.
func (o *rqOrder) validate() error {
	want := map[int]map[string]bool{}
	for _, e := range o.fifo {
		if want[e.prio] == nil {
			want[e.prio] = map[string]bool{}
		}
		want[e.prio][e.tenant] = true
	}
	if len(want) != len(o.round) {
		return errRQOrder
	}
	for p, r := range o.round {
		got := map[string]bool{}
		for _, t := range r {
			got[t] = true
		}
		if len(got) != len(r) || !maps.Equal(got, want[p]) {
			return errRQOrder
		}
	}
	return nil
}
