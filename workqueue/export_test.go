package workqueue

// SetBigBatch makes every queue copy hand-outs of more than n slots
// outside its lock (n ≥ 1; 0 for the default), so that tests reach that
// path with small batches. Tests that use it must not run in parallel.
func SetBigBatch(n int) {
	if n == 0 {
		n = defaultBigBatch
	}
	bigBatch = n
}

// SetCopyHook has every queue call f while it copies a large batch out,
// after the lock is released (nil: no hook).
func SetCopyHook(f func()) { copyHook = f }

// Slots returns the size of q's ready-list array (0 before the first Add).
func Slots[T comparable](q *Queue[T]) int {
	q.s.mu.Lock()
	defer q.s.mu.Unlock()
	return q.s.core.Slots()
}

// Locked reports whether q's state lock is held, by anyone: a call that
// panicked must not leave it held.
func Locked[T comparable](q *Queue[T]) bool {
	if q.s.mu.TryLock() {
		q.s.mu.Unlock()
		return false
	}
	return true
}

// Probes reports whether q probes its items before it takes the lock
// (internal/rq/keys.go).
func Probes[T comparable](q *Queue[T]) bool { return q.s.cfg.keys.Probes() }

// Entries returns the number of entries q holds, kept ones included
// (Config.Keep).
func Entries[T comparable](q *Queue[T]) int {
	q.s.mu.Lock()
	defer q.s.mu.Unlock()
	return q.s.core.Slab.Live() // kept ones included
}
