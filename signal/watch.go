package signal

import (
	"github.com/evsync/evsync/internal/counter"
	"github.com/evsync/evsync/internal/watch"
)

// A *Signal is a source of poll sets: readable while its count is above
// 0, writable below Max, closed once Close ran.
func init() {
	watch.Register(func(v any) (watch.Source, bool) {
		s, ok := v.(*Signal)
		if !ok || s == nil {
			return nil, ok
		}
		return counter.Source(&s.c), true
	})
}
