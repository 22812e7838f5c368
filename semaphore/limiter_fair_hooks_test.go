//go:build evsynchooks

package semaphore_test

// The eventual mode in a window that no sequential test reaches: a woken
// waiter stopped before it looks at the count. Built with -tags
// evsynchooks.

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/evsync/evsync/internal/counter"
	"github.com/evsync/evsync/internal/testsupport/gates"
	"github.com/evsync/evsync/internal/testsupport/testkit"
)

// TestHookLimiterEventualWokenWaiterKeepsItsPlace: a release wakes the
// head to take its unit, and a barger takes the unit first. The head
// finds it gone and waits again, still first in line. So the next
// release is its, not that of the waiter behind it.
func TestHookLimiterEventualWokenWaiterKeepsItsPlace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newFair(1)
		ctx := context.Background()
		testkit.MustNil(t, l.Acquire(ctx, 1))
		first := parkLimiter(ctx, l, 1)
		second := parkLimiter(ctx, l, 1)

		published := gates.Arm(t, counter.PPublish)
		released := make(chan error, 1)
		go func() { released <- l.Release(1) }()
		published.Wait(t) // the release's section woke the head, and has not yet unlocked
		locking := gates.Arm(t, counter.PLockWait)
		published.Open()
		locking.Wait(t) // the woken head, before its own section
		if !l.TryAcquire(1) {
			t.Fatal("a barger could not take the unit the woken head had not yet taken")
		}
		locking.Open()
		synctest.Wait()
		testkit.MustNil(t, gates.Receive(t, "the release", released))
		testkit.Pending(t, first)
		testkit.Pending(t, second)
		if st := l.Stats(); st.Free != 0 || st.Waiting != 2 {
			t.Fatalf("Stats = %v, want nothing free and both waiting", st)
		}

		testkit.MustNil(t, l.Release(1))
		testkit.MustNil(t, gates.Receive(t, "the first waiter", first))
		testkit.Pending(t, second)
		testkit.MustNil(t, l.Release(1))
		testkit.MustNil(t, gates.Receive(t, "the second waiter", second))
	})
}
