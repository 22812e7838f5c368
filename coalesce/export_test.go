package coalesce

// Lock and Unlock take and release w's lock, for tests that check that a
// call does not need it.
func Lock(w *Waker)   { w.win.Lock() }
func Unlock(w *Waker) { w.win.Unlock() }

// Received is what Wait does with a token it has received from C (open:
// C was not closed yet), for tests that land a call between the receive
// and the count: (0, nil) means that Wait goes on waiting.
func Received(w *Waker, open bool) (uint64, error) { return w.received(open) }
