package waitq

// A Notifier is the channel behind a primitive's Ready. The first Fire
// that finds the primitive ready closes it. The zero value has no channel
// armed. Its methods are called only with the owner's lock held.
type Notifier struct {
	ch chan struct{}
}

// closedCh is always ready. Ready returns it when no wait is needed.
var closedCh = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// ClosedChan returns a channel that is always ready (closed), without
// allocating.
func ClosedChan() <-chan struct{} { return closedCh }

// Arm returns a closed channel if ready, else the channel the next Fire
// with ready true closes (made if none is armed).
func (n *Notifier) Arm(ready bool) <-chan struct{} {
	if ready {
		return closedCh
	}
	if n.ch == nil {
		n.ch = make(chan struct{})
	}
	return n.ch
}

// Armed reports whether a channel waits for a Fire.
func (n *Notifier) Armed() bool { return n.ch != nil }

// Fire closes the armed channel, if any, when ready holds.
func (n *Notifier) Fire(ready bool) {
	if ready && n.ch != nil {
		close(n.ch)
		n.ch = nil
	}
}
