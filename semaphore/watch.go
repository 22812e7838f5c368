package semaphore

import (
	"github.com/evsync/evsync/internal/counter"
	"github.com/evsync/evsync/internal/watch"
)

// A *Semaphore is a source of poll sets: readable while it holds units,
// writable below its limit, closed once Close ran.
func init() {
	watch.Register(func(v any) (watch.Source, bool) {
		if s, ok := v.(*Semaphore); ok && s != nil {
			return counter.Source(&s.c), true
		}
		return nil, false
	})
}
