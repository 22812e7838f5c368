package semaphore

import (
	"github.com/evsync/evsync/internal/counter"
	"github.com/evsync/evsync/internal/watch"
)

// A *Semaphore, a *Limiter and a *Group are sources of poll sets. A
// Semaphore is readable while it holds units, and writable below its
// limit. A Limiter is readable while it has free units, and writable
// while some are held. A Group is its limiter: readable while slots are
// free, and writable while functions run. A Semaphore and a Limiter are
// closed once Close ran, and then readable too, since an acquire no
// longer blocks. A Group has no Close, so it is never closed.
//
// The cases are the exact pointer types. A type that embeds one of them
// is not a source, since a Set keys its registrations by the value added.
func init() {
	watch.Register(func(v any) (watch.Source, bool) {
		switch s := v.(type) {
		case *Semaphore:
			if s == nil {
				return nil, true
			}
			return counter.Source(&s.c), true
		case *Limiter:
			if s == nil {
				return nil, true
			}
			return counter.Source(&s.c), true
		case *Group:
			if s == nil {
				return nil, true
			}
			return counter.Source(&s.l.c), true
		}
		return nil, false
	})
}
