package coalesce_test

import (
	"testing"
	"time"

	"github.com/evsync/evsync/coalesce"
)

// BenchmarkWakeFlush opens and closes a window per loop: Wake arms the
// timer and Flush stops it. BenchmarkWake never gets past the open
// window, so this is the path that sets timers and reads the time. Each
// policy reads the time at a different point (debounce at the arming,
// adaptive at the wakeup).
func BenchmarkWakeFlush(b *testing.B) {
	for _, c := range []struct {
		name string
		opts []coalesce.Option
	}{
		{"policy=audit", nil},
		{"policy=debounce", []coalesce.Option{coalesce.WithMaxWait(2 * time.Second)}},
		{"policy=adaptive", []coalesce.Option{coalesce.WithAdaptive()}},
	} {
		b.Run(c.name+"/impl=evsync", func(b *testing.B) {
			b.ReportAllocs()
			w := coalesce.New(time.Second, c.opts...)
			defer w.Close()
			for b.Loop() {
				w.Wake()
				w.Flush()
			}
		})
	}
}
