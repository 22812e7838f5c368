package semaphore

import (
	"github.com/evsync/evsync/internal/counter"
	"github.com/evsync/evsync/internal/watch"
)

// A *Semaphore and a *Limiter are sources of poll sets. A Semaphore is
// readable while it holds units, and writable below its limit. A Limiter
// is readable while it has free units, and writable while some are held.
// Both are closed once Close ran, and then readable too, since an acquire
// no longer blocks.
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
		}
		return nil, false
	})
}
