// Package watch is how an evsync source tells the poll sets that watch
// it of its wakeups, as an eventfd calls ep_poll_callback for each epoll
// instance it is in.
//
// A source holds a List of Watchers, one per set it is in. After each
// change that can wake a watcher, the source calls the List's Wake with
// the change's events, on the goroutine that made the change and after
// it released its own lock. A Watcher filters what it does not ask for
// and queues itself on its set's ready list.
//
// Wake costs a source nothing while no watcher wants it: the source then
// does not call it at all (see internal/counter's armed watchers). The
// List is copied on write, so Wake takes no lock.
package watch

import (
	"slices"
	"sync"
	"sync/atomic"
)

// Events is a set of readiness events. Its values are poll's.
type Events uint8

// The events a source wakes its watchers with.
const (
	In  Events = 1 << iota // readable, or a write happened (EPOLLIN)
	Out                    // writable, or a read happened (EPOLLOUT)
	Hup                    // the source is closed (EPOLLHUP)
)

// A Watcher is told of a source's wakeups. Wake runs on the goroutine of
// the call that changed the source, with none of the source's locks held.
// It must not block.
type Watcher interface{ Wake(ev Events) }

// A List is a source's watchers. The zero value is an empty List. A List
// must not be copied after first use.
type List struct {
	mu sync.Mutex                // serializes Add and Remove
	ws atomic.Pointer[[]Watcher] // the watchers, replaced whole by Add and Remove
}

// Add adds w.
func (l *List) Add(w Watcher) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var ws []Watcher
	if p := l.ws.Load(); p != nil {
		ws = slices.Clone(*p)
	}
	ws = append(ws, w)
	l.ws.Store(&ws)
}

// Remove removes w and reports whether it was there. A Wake that loaded
// the List before Remove may still call w once Remove has returned, so w
// must ignore wakeups once its set has removed it.
func (l *List) Remove(w Watcher) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := l.ws.Load()
	if p == nil || !slices.Contains(*p, w) {
		return false
	}
	ws := slices.DeleteFunc(slices.Clone(*p), func(x Watcher) bool { return x == w })
	if len(ws) == 0 {
		l.ws.Store(nil)
	} else {
		l.ws.Store(&ws)
	}
	return true
}

// Len returns the number of watchers.
func (l *List) Len() int {
	if p := l.ws.Load(); p != nil {
		return len(*p)
	}
	return 0
}

// Wake calls each watcher's Wake with ev, in the order they were added.
func (l *List) Wake(ev Events) {
	if p := l.ws.Load(); p != nil {
		for _, w := range *p {
			w.Wake(ev)
		}
	}
}
