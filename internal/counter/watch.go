package counter

import "github.com/evsync/evsync/internal/watch"

// The poll sets that watch a counter (internal/watch) are told of its
// changes by unlock, after it has released the lock:
//
//   - a write, a write of 0 included, wakes them with In
//   - a read that takes units wakes them with Out
//   - SetLimit wakes them with In and Out, and Close with Hup
//
// That is eventfd's rule: every write wakes its epoll instances with
// EPOLLIN, and every read with EPOLLOUT.
//
// Only armed watchers are told. A set arms its registration while it
// needs the next wakeup, and disarms it once the registration is queued,
// since a queued registration absorbs every wakeup (epoll's ready list
// holds an item once). While a watcher is armed, needsSlow keeps slow
// set, so every change of the count takes a locked section, and unlock
// tells the watchers what the section did. While none is armed, nothing
// changes: the fast paths run as before and nobody is told. So a counter
// nobody watches, or whose watchers are all queued, pays nothing for
// them, not even a load.
//
// These are functions, not methods, so that the Counter's method set
// stays what the facades use.

// Watchers returns c's watch list, to which a set adds its registration.
func Watchers(c *Counter) *watch.List { return &c.watch }

// Arm changes the number of c's armed watchers by d (+1 to arm one, -1 to
// disarm it). The caller pairs its calls, and re-polls the counter after
// arming, since only changes after Arm returns wake the watcher.
func Arm(c *Counter, d int) {
	l := c.lock()
	l.armed += d
	if l.armed < 0 {
		panic("counter: more watchers disarmed than armed")
	}
	c.unlock(l)
}

// Source returns c as a poll set's source. Its Poll reads c as an
// eventfd is polled: In while the count is above 0 or c is closed, Out
// while c is open and below its limit, Hup once closed.
func Source(c *Counter) watch.Source { return source{c} }

// source is a Counter as a watch.Source.
type source struct{ c *Counter }

// Watchers returns the counter's watch list.
func (s source) Watchers() *watch.List { return &s.c.watch }

// Arm is Arm of the counter.
func (s source) Arm(d int) { Arm(s.c, d) }

// Poll reads the counter as Source says, with atomic loads.
func (s source) Poll() watch.Events {
	w := s.c.word.Load()
	count := w & countMask
	if w&bigBit != 0 {
		count = s.c.big.Load()
	}
	if w&closedBit != 0 {
		return watch.In | watch.Hup
	}
	var ev watch.Events
	if count != 0 {
		ev |= watch.In
	}
	if count < s.c.Limit() {
		ev |= watch.Out
	}
	return ev
}
