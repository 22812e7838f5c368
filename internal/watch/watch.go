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
// does not call it at all (see internal/counter's armed watchers). Wake
// takes no lock.
package watch

import (
	"reflect"
	"strings"
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
//
// It is a linked list that Add and Remove never change in place: Add
// puts a node in front, Remove copies the nodes in front of the one it
// takes out. So a Wake walks the version it loaded, whole. A source's
// first watcher costs one node of 24 bytes.
type List struct {
	mu   sync.Mutex           // serializes Add and Remove
	head atomic.Pointer[node] // the newest watcher first
}

type node struct {
	w    Watcher
	next *node
}

// Add adds w.
func (l *List) Add(w Watcher) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.head.Store(&node{w, l.head.Load()})
}

// Remove removes w and reports whether it was there. A Wake that loaded
// the List before Remove may still call w once Remove has returned, so w
// must ignore wakeups once its set has removed it.
func (l *List) Remove(w Watcher) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	var front []*node
	for n := l.head.Load(); n != nil; n = n.next {
		if n.w != w {
			front = append(front, n)
			continue
		}
		rest := n.next
		for i := len(front) - 1; i >= 0; i-- {
			rest = &node{front[i].w, rest}
		}
		l.head.Store(rest)
		return true
	}
	return false
}

// Len returns the number of watchers.
func (l *List) Len() int {
	n := 0
	for x := l.head.Load(); x != nil; x = x.next {
		n++
	}
	return n
}

// Wake calls each watcher's Wake with ev, the newest first.
func (l *List) Wake(ev Events) {
	for n := l.head.Load(); n != nil; n = n.next {
		n.w.Wake(ev)
	}
}

// A Source is a value a poll set can watch, as the set sees it.
type Source interface {
	// Watchers returns the source's watch list.
	Watchers() *List
	// Arm changes the number of the source's armed watchers by d: +1
	// when a registration starts to need the next wakeup, -1 when it no
	// longer does (queued, disarmed or removed). Only armed watchers are
	// sure to be told of a change. After arming, the set polls the source
	// again, since only changes after Arm returns are told.
	Arm(d int)
	// Poll returns the events that hold now, with atomic loads only: In
	// if a read would not block, Out if a write of 1 would not, Hup once
	// the source is closed.
	Poll() Events
}

// finders are the functions Register added, one per package of sources.
// They are added by the packages' init functions, before any lookup.
var finders []func(v any) (Source, bool)

// Register adds f, which returns the Source of a value of its package's
// source types and reports whether v is of one of them. For a nil pointer
// of such a type, f returns nil and true. A package of sources calls
// Register from its init function.
//
// f must decide by v's exact type, never by its methods: a type that
// embeds a source has the source's methods too, promoted, and calling
// one through a nil pointer it embeds panics. A type switch does that for
// a plain type, and Is for a generic one.
func Register(f func(v any) (Source, bool)) { finders = append(finders, f) }

// Of returns the Source of v and true, nil and true if v is a nil pointer
// of a source type, or nil and false if v is of no source type any
// package registered.
func Of(v any) (Source, bool) {
	for _, f := range finders {
		if s, ok := f(v); ok {
			return s, true
		}
	}
	return nil, false
}

// Is reports whether v is a pointer to the type named name declared in
// the package whose path is pkg. A generic type matches with any type
// arguments: Is(v, "…/readyq", "Queue") for a *readyq.Queue[T] of every
// T. A type that embeds that type does not match.
func Is(v any, pkg, name string) bool {
	t := reflect.TypeOf(v)
	if t == nil || t.Kind() != reflect.Pointer {
		return false
	}
	t = t.Elem()
	n := t.Name()
	return t.PkgPath() == pkg && strings.HasPrefix(n, name) && (len(n) == len(name) || n[len(name)] == '[')
}

// Embedded returns the type of a source that v's type embeds, as a
// pointer type, and false if it embeds none. It looks one level deep,
// through a pointer to a struct too. It is for error messages: a value
// that embeds a source is not one, and the message can say which to
// pass instead.
func Embedded(v any) (reflect.Type, bool) {
	t := reflect.TypeOf(v)
	if t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil, false
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.Anonymous {
			continue
		}
		ft := f.Type
		if ft.Kind() != reflect.Pointer {
			ft = reflect.PointerTo(ft)
		}
		if _, ok := Of(reflect.Zero(ft).Interface()); ok {
			return ft, true
		}
	}
	return nil, false
}
