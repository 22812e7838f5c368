package kube_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/workqueue"
)

// TestSynctestAddWithReplacePostponesADelayedKey is kubernetes#133560's
// progress-deadline check. A key delayed ten minutes is postponed, after
// five, to ten minutes from then. A parked Get gets it at fifteen minutes,
// not at ten. A later AddAfter keeps the earliest time, as before.
func TestSynctestAddWithReplacePostponesADelayedKey(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(t)
		start := time.Now()
		q.AddAfter("deploy", 10*time.Minute)
		time.Sleep(5 * time.Minute)
		q.AddAfter("deploy", 10*time.Minute) // the earliest time wins: still 10 minutes
		if q.AddWith("deploy", workqueue.AddOpts{After: 10 * time.Minute, Replace: true}) {
			t.Fatal("AddWith with Replace of a delayed key = true, want false (not a new mark)")
		}
		g := parkGet(q)
		time.Sleep(5*time.Minute + time.Nanosecond)
		synctest.Wait()
		testkit.Pending(t, g)
		if r := <-g; r.item != "deploy" || time.Since(start) != 15*time.Minute {
			t.Fatalf("Get = %+v at %v, want deploy at 15m0s", r, time.Since(start))
		}
		q.Done("deploy")
		q.ShutDown()
		if q.AddWith("deploy", workqueue.AddOpts{Replace: true}) {
			t.Fatal("AddWith after ShutDown = true")
		}
	})
}
