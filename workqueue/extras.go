package workqueue

// extra is the part of an entry that only priorities, fair share and
// metrics use, so that queues without them keep small entries without
// pointers. extras recycles it when the queue forgets its entry. Only
// with mu held.
type extra[T comparable] struct {
	prio int      // the highest priority of its marks since the queue last forgot it
	lane *lane[T] // the lane it is queued on, or nil for the ready list or not queued

	queuedAt, start int64 // for metrics, when it was queued and when handed out
	prev, next      int32 // for metrics, the slots of its neighbours in the list of items in flight
}

// extras holds a queue's extra parts. Only with mu held.
//
// It stores them by value in pages like the slab's entries (internal/rq/slab.go), and
// names each by its number, its slot plus 1, which an entry keeps in x.
// So an entry's x is 0 while it has none. A pointer to an extra part
// stays valid only until the next one is made, as for entries. Released
// parts are recycled, so that a queue in a steady state allocates
// nothing.
//
// With fair share each part has the keys and weights of its item's
// tenant too, dims steps in a row in steps.
type extras[T comparable] struct {
	parts paged[extra[T]]
	free  []int32     // released parts' numbers
	used  int         // slots handed out at least once
	dims  int         // the steps of each part: the fair share's dimensions, or 0
	steps paged[step] // part x's are at (x-1)·dims …
}

// step returns step d of the extra part x's tenant.
func (xs *extras[T]) step(x int32, d int) *step { return xs.steps.At(int(x-1)*xs.dims + d) }

// at returns the extra part x (an entry's x, not 0).
func (xs *extras[T]) at(x int32) *extra[T] { return xs.parts.At(int(x - 1)) }

// of returns e's extra part, making it if need be. The pointer stays
// valid until the next extra part is made.
func (xs *extras[T]) of(e *entry[T]) *extra[T] {
	if e.X == 0 {
		x, p := xs.alloc()
		e.X = x
		return p
	}
	return xs.at(e.X)
}

// prio returns e's priority.
func (xs *extras[T]) prio(e *entry[T]) int {
	if e.X == 0 {
		return 0
	}
	return xs.at(e.X).prio
}

// fresh sets up the extra part of e, an entry the queue starts to know
// with the mark o, if it needs one: with a priority, with fair share
// (p.n > 0), or if it has one already. The tenant p is the item's.
func (xs *extras[T]) fresh(e *entry[T], o markOpts, p *path) {
	e.Retried = o.retried
	if e.X == 0 && o.prio == 0 && p.n == 0 {
		return
	}
	xs.of(e).prio = o.prio
	for d := range p.n {
		*xs.step(e.X, d) = p.s[d]
	}
}

// raise gives e the priority prio if it is higher than e's, and reports
// whether it was.
func (xs *extras[T]) raise(e *entry[T], prio int) bool {
	if prio <= xs.prio(e) {
		return false
	}
	xs.of(e).prio = prio
	return true
}

// alloc returns a new zero extra part and its number.
func (xs *extras[T]) alloc() (int32, *extra[T]) {
	if n := len(xs.free); n > 0 {
		x := xs.free[n-1]
		xs.free = xs.free[:n-1]
		return x, xs.at(x)
	}
	if xs.used == xs.parts.Cap() {
		xs.parts.Grow()
	}
	xs.used++
	for xs.used*xs.dims > xs.steps.Cap() {
		xs.steps.Grow()
	}
	return int32(xs.used), xs.parts.At(xs.used - 1)
}

// release clears the extra part x, keeping no item alive, and puts it on
// the free list. The entry that had it is released next (slab.release).
func (xs *extras[T]) release(x int32) {
	*xs.at(x) = extra[T]{}
	for d := range xs.dims {
		*xs.step(x, d) = step{}
	}
	xs.free = append(xs.free, x)
}
