package signal

import (
	"github.com/evsync/evsync/internal/counter"
	"github.com/evsync/evsync/internal/watch"
)

// A *Signal is a source of poll sets: readable while its count is above
// 0, writable below Max, closed once Close ran.
func init() {
	watch.Register(func(v any) (watch.Source, bool) {
		if s, ok := v.(*Signal); ok && s != nil {
			return counter.Source(&s.c), true
		}
		return nil, false
	})
}
