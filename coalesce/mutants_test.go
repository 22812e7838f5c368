package coalesce_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/coalesce"
)

// TestFlushRacingTheTimerThenNewWindow: a Flush at the moment the timer
// fires may come too late to stop its run, which is then on its way. An
// event that opens the next window right after the Flush, before that run
// has come, must still get the window's full delay: the run on its way
// belongs to the flushed window and must find nothing to do, however the
// new window's timer is set up. Each window ends with exactly one wakeup
// for its own event, and Close returns.
func TestFlushRacingTheTimerThenNewWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const d = 5 * time.Millisecond
		w := coalesce.New(d)
		for range 50 {
			w.Wake()
			time.Sleep(d) // fake clock: the timer fires now, its run races the Flush
			w.Flush()
			w.Wake() // a new window, opened before the timer's run may have come
			synctest.Wait()
			want(t, w, 1, 1) // the flushed event only: the new one waits for its delay
			time.Sleep(d)
			synctest.Wait()
			want(t, w, 1, 1)
		}
		w.Close()
	})
}
