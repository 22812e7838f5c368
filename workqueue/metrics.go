package workqueue

import (
	"math"
	"math/bits"
	"sync"
	"sync/atomic"
	"time"
)

// Metrics receives what a queue measures. These are the figures of
// client-go's workqueue metrics, with the depth per priority as
// controller-runtime's priority queue keeps it. A queue with
// Config.Metrics calls its methods after it has released its lock. Added,
// Waited, Worked and Retried come from the goroutine whose call caused
// the event, so they may block briefly or call the queue. Concurrent
// events come in either order. A call's Depth reports come after its
// other events (see Depth). Without Config.Metrics the queue reads no
// clock and counts nothing for it.
type Metrics interface {
	// Depth reports that n items of priority prio are queued, and total
	// items of all priorities (Len), after a change of n. The calls come
	// one at a time, in the order of the changes. Each reports figures
	// that held together at one moment, none older than the call before.
	// Changes made while a call runs may be reported together, as their
	// latest figures only, by another goroutine than the one that made
	// them. When a call that changed a depth returns, that depth or a
	// later one has been reported. Depth may read the queue (Len, Stats),
	// but a Depth that changes a depth itself (an Add, a TryTake)
	// deadlocks. A queue whose marks have no priority reports priority 0
	// only.
	Depth(prio, n, total int)
	// Added reports a new mark, one that Add, AddAfter or AddWith
	// reports as new (client-go's adds).
	Added()
	// Waited reports, for an item handed out, how long it was queued
	// (client-go's queue latency).
	Waited(d time.Duration)
	// Worked reports, for an item Done, how long it was in flight
	// (client-go's work duration).
	Worked(d time.Duration)
	// Retried reports an AddRateLimited, or an AddWith with RateLimited
	// (client-go's retries).
	Retried()
}

// Running returns the two figures client-go updates in the background.
// One is the total time the items in flight have been in flight
// (unfinished work). The other is the longest of them (longest running
// processor). Both are 0 without Config.Metrics, which is what times the
// hand-outs. The total stays at the largest Duration once it would pass
// it. It takes O(1) time with the lock held.
func (q *Queue[T]) Running() (unfinished, longest time.Duration) {
	s := &q.s
	s.mu.Lock()
	defer s.mu.Unlock()
	r := &s.running
	if s.cfg.metrics == nil || r.n == 0 {
		return 0, 0
	}
	now := s.cfg.clock.now()
	head := s.core.Slab.Entry(r.head)
	return r.unfinished(now), since(now, s.extras.at(head.X).start)
}

// running is the list of items in flight, oldest hand-out first, kept
// only with metrics. It holds the slots of its ends. Each item's extra
// part holds those of its neighbours. Only with mu held.
type running[T comparable] struct {
	head, tail int32 // while n > 0
	n          int
	sum        wide // of their start times
}

// unfinished returns the time in flight of all the items, which is n·now
// less the sum of their start times. A few items in flight for a century
// pass the largest Duration, so it works in 128 bits and saturates there.
// It is 0 if the sum is the larger, which a user's clock set back can
// make so (times are ≥ 0 on every clock).
func (r *running[T]) unfinished(now int64) time.Duration {
	hi, lo := bits.Mul64(uint64(r.n), uint64(now))
	lo, borrow := bits.Sub64(lo, r.sum.lo, 0)
	hi, borrow = bits.Sub64(hi, r.sum.hi, borrow)
	switch {
	case borrow != 0:
		return 0
	case hi != 0 || lo > math.MaxInt64:
		return math.MaxInt64
	}
	return time.Duration(lo)
}

// add puts the item in slot e, handed out at now, at the tail of r. Its
// extra part is x. The slab s and xs hold the other items' entries and
// extra parts.
func (r *running[T]) add(s *slab[T], xs *extras[T], e int32, x *extra[T], now int64) {
	x.start, x.prev = now, r.tail
	if r.n > 0 {
		xs.at(s.Entry(r.tail).X).next = e
	} else {
		r.head = e
	}
	r.tail = e
	r.n++
	r.sum.add(now)
}

// remove takes the item in slot e out of r. Its extra part is x. The
// slab s and xs hold the other items' entries and extra parts.
func (r *running[T]) remove(s *slab[T], xs *extras[T], e int32, x *extra[T]) {
	if r.head != e {
		xs.at(s.Entry(x.prev).X).next = x.next
	} else {
		r.head = x.next
	}
	if r.tail != e {
		xs.at(s.Entry(x.next).X).prev = x.prev
	} else {
		r.tail = x.prev
	}
	x.prev, x.next = 0, 0
	r.n--
	r.sum.sub(x.start)
}

// since returns the time from t to now, or 0 if a user's clock set back
// makes now the earlier.
func since(now, t int64) time.Duration { return time.Duration(max(now-t, 0)) }

// wide is an unsigned 128-bit sum of start times, which no number of
// items in flight can wrap.
type wide struct{ hi, lo uint64 }

func (w *wide) add(v int64) {
	var carry uint64
	w.lo, carry = bits.Add64(w.lo, uint64(v), 0)
	w.hi += carry
}

func (w *wide) sub(v int64) {
	var borrow uint64
	w.lo, borrow = bits.Sub64(w.lo, uint64(v), 0)
	w.hi -= borrow
}

// A post is what a locked section leaves to do after the unlock. It holds
// the metrics the section measured, and the items whose retry state the
// limiter is to forget.
type post[T comparable] struct {
	depth          bool // it changed a depth, which deliver reports
	adds           int
	waited, worked []time.Duration
	forgot         []T
}

// A mailbox holds the post of the current locked section, and a spare
// one, delivered already, for the next section to reuse. So a queue in a
// steady state allocates no post.
type mailbox[T comparable] struct {
	cur   *post[T]                // the current locked section's, or nil; only with mu held
	spare atomic.Pointer[post[T]] // stored by deliver after the unlock
}

// posting returns the post of the current locked section. Only with mu
// held.
func (b *mailbox[T]) posting() *post[T] {
	if b.cur == nil {
		if b.cur = b.spare.Swap(nil); b.cur == nil {
			b.cur = new(post[T])
		}
	}
	return b.cur
}

// take returns the post of the current locked section, or nil for none,
// and ends it. Only with mu held, just before the unlock.
func (b *mailbox[T]) take() *post[T] {
	p := b.cur
	b.cur = nil
	return p
}

// recycle empties p, delivered, and keeps it as the spare.
func (b *mailbox[T]) recycle(p *post[T]) {
	clear(p.forgot)
	p.depth, p.adds = false, 0
	p.waited, p.worked, p.forgot = p.waited[:0], p.worked[:0], p.forgot[:0]
	b.spare.Store(p)
}

// deliver does what a locked section posted, after the unlock. The
// caller recycles p then.
func (c *settings[T]) deliver(p *post[T]) {
	if m := c.metrics; m != nil {
		for range p.adds {
			m.Added()
		}
		for _, d := range p.waited {
			m.Waited(d)
		}
		for _, d := range p.worked {
			m.Worked(d)
		}
		if p.depth {
			c.gauge.report(m)
		}
	}
	for _, item := range p.forgot {
		c.limiter().Forget(item)
	}
}

// A gauge is a queue's depth reporting (Config.Metrics only). Its first
// three fields are used only with mu held.
//
// The depth reaches the metrics as absolute figures, in lock order. Deltas
// reported after the unlock commute in sum but not in order. An Add's +1
// and a Get's -1 could arrive as -1, then +1, and the gauge read -1.
//
// So a locked section that changes a depth writes the new figures to the
// box before it unlocks. They replace the figures of the same priority
// not yet reported, so the box holds what the last section left. After
// the unlock, the section's goroutine takes the report lock, empties the
// box and reports what it held. The report lock orders the takes, and
// each take is newer than the one before. So readings never go back in
// time, and each is a depth that existed. A reading may skip figures that
// a later section replaced before the take.
//
// Lock order is mu, then box.mu. The report lock is never taken with mu
// held, and box.mu is never held while Depth runs. So a locked section
// never waits for a report. A goroutine waits for the report lock only
// while the takes ahead of it are reported, at most one call per
// priority each.
type gauge[T comparable] struct {
	list    int         // the ready list's Live as last noted
	touched []*level[T] // levels whose count changed since measure looked
	noted   []prioDepth // the current section's changes

	box struct {
		mu      sync.Mutex
		total   int         // Len after the last section that changed a depth
		changed []prioDepth // the depths changed since the last take, one per priority
	}

	reporting sync.Mutex  // the report lock: held by the goroutine that takes the box and reports it
	out       []prioDepth // the take being reported, only with reporting held
}

// A prioDepth is the number n of queued items of priority prio.
type prioDepth struct{ prio, n int }

// still reports whether measure would note nothing: the ready list
// holds list items as last noted, and no level changed. Only with mu
// held.
func (g *gauge[T]) still(list int) bool { return list == g.list && len(g.touched) == 0 }

// measure notes the depths that changed for the metrics before the
// unlock, and writes them to the box. The ready list holds list items,
// and the lanes l the others. It reports whether it wrote any, for
// deliver to report. Only with mu held.
func (g *gauge[T]) measure(list int, l *lanes[T]) bool {
	if list != g.list {
		g.list = list
		g.noted = append(g.noted, prioDepth{0, list})
	}
	for _, lv := range g.touched {
		lv.touched = false
		if lv.live != lv.shown { // a level dropped meanwhile has live 0
			lv.shown = lv.live
			g.noted = append(g.noted, prioDepth{lv.prio, lv.live})
		}
	}
	clear(g.touched)
	g.touched = g.touched[:0]
	if len(g.noted) == 0 {
		return false
	}
	g.box.mu.Lock()
	g.box.total = list + l.live
	for _, d := range g.noted {
		g.box.changed = replace(g.box.changed, d)
	}
	g.box.mu.Unlock()
	g.noted = g.noted[:0]
	return true
}

// replace sets the depth of d's priority in ds to d's, adding it if ds
// has none. Priorities changed between two takes are few.
func replace(ds []prioDepth, d prioDepth) []prioDepth {
	for i := range ds {
		if ds[i].prio == d.prio {
			ds[i].n = d.n
			return ds
		}
	}
	return append(ds, d)
}

// report takes the depths in the box and reports them to m, after a
// locked section wrote some. The box may be empty by then. The take of a
// goroutine ahead then had them, and has reported them once report is
// ours.
func (g *gauge[T]) report(m Metrics) {
	g.reporting.Lock()
	defer g.reporting.Unlock() // also if Depth panics
	g.box.mu.Lock()
	take, total := g.box.changed, g.box.total
	g.box.changed = g.out[:0] // the last take's array, reported by now
	g.box.mu.Unlock()
	g.out = take
	for _, d := range take {
		m.Depth(d.prio, d.n, total)
	}
}

// started times the items just handed out. Only with mu held and metrics
// set.
func (s *state[T]) started(items []T) {
	if len(items) == 0 {
		return
	}
	now := s.cfg.clock.now()
	p := s.mail.posting()
	for _, item := range items {
		e := s.core.Lookup(item)
		x := s.extras.of(e)
		p.waited = append(p.waited, since(now, x.queuedAt))
		s.running.add(&s.core.Slab, &s.extras, e.ID, x, now)
	}
}

// finished times the item e, Done. Only with mu held and metrics set.
func (s *state[T]) finished(e *entry[T]) {
	if e.X == 0 { // handed out before metrics were set, which cannot happen since metrics are set by New
		return
	}
	x := s.extras.at(e.X)
	p := s.mail.posting()
	p.worked = append(p.worked, since(s.cfg.clock.now(), x.start))
	s.running.remove(&s.core.Slab, &s.extras, e.ID, x)
}
