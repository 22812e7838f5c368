package readyq

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

// CopiesOutside is whether large hand-outs are copied after the unlock:
// false in the readyq_copyall twin.
const CopiesOutside = copyOutside

// Slots returns the size of q's ready-list array (0 before the first Add).
func Slots[T comparable](q *Queue[T]) int {
	l := q.lock()
	defer q.mu.Unlock()
	return l.Slots()
}

// Locked reports whether q's lock is held, by anyone: a call that
// panicked must not leave it held.
func Locked[T comparable](q *Queue[T]) bool {
	if q.mu.TryLock() {
		q.mu.Unlock()
		return false
	}
	return true
}

// Probes reports whether q probes its items before it takes the lock
// (internal/rq's Keys).
func Probes[T comparable](q *Queue[T]) bool { return q.keys.Probes() }

// Entries returns the number of entries q holds, kept ones included
// (Config.Keep).
func Entries[T comparable](q *Queue[T]) int {
	l := q.lock()
	defer q.mu.Unlock()
	return l.Slab.Live() // kept ones included
}
