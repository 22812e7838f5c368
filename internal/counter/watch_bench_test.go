package counter_test

import (
	"testing"

	"github.com/evsync/evsync/internal/counter"
	"github.com/evsync/evsync/internal/watch"
)

// ignore is a watcher that ignores its wakeups, as a registration that
// does not ask for them does.
type ignore struct{}

func (ignore) Wake(watch.Events) {}

// BenchmarkWatchedWrite is one goroutine's Write(1) on a plain counter,
// with a Take every 1,024 writes, by the state of its one watcher:
//
//   - watcher=none: no watcher, the counter as it was before watchers.
//   - watcher=queued: a watcher that is not armed, as a registration
//     already on its set's ready list is. The write must cost what it
//     costs with none.
//   - watcher=armed: an armed watcher, as a registration waiting for its
//     next wakeup is: every write takes a locked section and wakes it.
func BenchmarkWatchedWrite(b *testing.B) {
	for _, state := range []string{"none", "queued", "armed"} {
		b.Run("watcher="+state, func(b *testing.B) {
			c := new(counter.Counter)
			if state != "none" {
				counter.Watchers(c).Add(ignore{})
			}
			if state == "armed" {
				counter.Arm(c, 1)
			}
			i := 0
			for b.Loop() {
				_ = c.Write(counter.Plain, 1)
				if i++; i&1023 == 0 {
					c.TryRead(counter.Plain, 0)
				}
			}
		})
	}
}
