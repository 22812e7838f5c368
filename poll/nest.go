package poll

import (
	"reflect"
	"sync"

	"github.com/evsync/evsync/internal/watch"
)

// A Set is a source of other Sets, as an epoll instance can be added to
// another. It is readable (In) while it has a source queued, and closed
// (In|Hup) once Close ran. A source queued on it is a write: it wakes
// the armed registrations of the Sets it is in, after its lock is
// released. Close wakes them with Hup.
//
// A Set cannot be added to itself, nor to a Set it holds, directly or
// through others: that Add returns ErrInvalid (epoll's ELOOP). Adds of
// Sets take one package-wide lock for that check, as epoll's take its
// epnested_mutex.

// What a Set's Poll reads (Set.shown).
const (
	shownQueued = 1 << iota // a source is queued
	shownClosed             // Close ran
)

// nestable is a Set of any key type, as another Set sees it.
type nestable interface {
	nested() []nestable
}

// setSourceOf is a Set as a watch.Source: the key a Set holds it by.
type setSourceOf interface {
	watch.Source
	nestable() nestable
}

// Sets are sources too. The finder takes a *Set[K] of any K by its exact
// type (watch.Is), never a type that embeds a Set.
func init() {
	watch.RegisterGeneric(reflect.TypeFor[*Set[int]](), func(v any) watch.Source {
		return v.(interface{ asSource() watch.Source }).asSource()
	})
}

// asSource returns s as a source. Only the finder above calls it, on a
// non-nil *Set[K] itself (watch.RegisterGeneric).
func (s *Set[K]) asSource() watch.Source { return setSource[K]{s} }

// nested returns the Sets that s holds.
func (s *Set[K]) nested() []nestable {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ns []nestable
	for ws := range s.regs {
		if n, ok := ws.(setSourceOf); ok {
			ns = append(ns, n.nestable())
		}
	}
	return ns
}

// setSource is a Set as a watch.Source.
type setSource[K comparable] struct{ s *Set[K] }

// nestable returns the Set.
func (x setSource[K]) nestable() nestable { return x.s }

// Watchers returns the Set's watch list.
func (x setSource[K]) Watchers() *watch.List { return &x.s.watch }

// Arm counts the armed registrations of the Sets s is in. Its section
// queues nothing, so its unlock tells nobody: a Set may call it with its
// own lock held.
func (x setSource[K]) Arm(d int) {
	s := x.s
	s.mu.Lock()
	s.armed += d
	if s.armed < 0 {
		s.mu.Unlock()
		panic("poll: more registrations disarmed than armed")
	}
	s.unlock()
}

// Poll reads what the Set's last unlock published.
func (x setSource[K]) Poll() watch.Events {
	switch v := x.s.shown.Load(); {
	case v&shownClosed != 0:
		return watch.In | watch.Hup
	case v&shownQueued != 0:
		return watch.In
	}
	return 0
}

// nestMu serializes the Adds of Sets, so that two cannot make a loop
// together.
var nestMu sync.Mutex

// sourceOf returns src as a source, or the error that says why it is not
// one, for the call op.
func sourceOf(op string, src any) (watch.Source, error) {
	ws, known := watch.Of(src)
	switch x := ws.(type) {
	case nil:
		return nil, badSource(op, src, known)
	case userSource:
		if x.s.poll == nil {
			return nil, invalid("%s: a *poll.Source not made by NewSource, or made with a nil function", op)
		}
	case doneSource:
		if x.d.stop == nil {
			return nil, invalid("%s: a *poll.Done not made by OnDone, or made of a nil context", op)
		}
	}
	return ws, nil
}

// reaches reports whether to is from, or a Set that from holds, directly
// or through others.
func reaches(from nestable, to any) bool {
	if any(from) == to {
		return true
	}
	for _, n := range from.nested() {
		if reaches(n, to) {
			return true
		}
	}
	return false
}
