//go:build evsynchooks

package counter_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/internal/clk"
	"github.com/evsync/evsync/internal/counter"
	"github.com/evsync/evsync/internal/testsupport/gates"
	"github.com/evsync/evsync/internal/testsupport/testkit"
)

// fairBound is the eventual-fairness bound of the window tests.
const fairBound = time.Millisecond

// newFairCounter is a Semaphore counter of limit units, initial of them
// there, that lets readers barge for fairBound.
func newFairCounter(limit, initial uint64) *counter.Counter {
	c := newCounter(limit, initial, nil)
	counter.SetFairness(c, fairBound, clk.Clock{})
	return c
}

// A barge stopped between its look at the oldest reader's age and its
// take: meanwhile that reader passes the bound, and a reader that comes
// then makes the counter starve. The barge must fail, and queue behind
// the oldest reader, which the next write serves.
func TestHookBargeFailsOnceTheCounterStartedStarving(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newFairCounter(2, 1) // one unit held
		t.Cleanup(c.Close)
		ctx := context.Background()
		head := start(func() error { return c.TakeSlow(ctx, 2) })
		synctest.Wait()
		testkit.Pending(t, head)
		if counter.Word(c)&counter.NotifyBit == 0 {
			t.Fatalf("word %#x: a queued reader that may be barged sets notify", counter.Word(c))
		}

		g := gates.Arm(t, counter.PBarge)
		barger := start(func() error { return c.TakeSlow(ctx, 1) })
		g.Wait(t) // it judged the head within the bound
		time.Sleep(fairBound + time.Nanosecond)
		late := start(func() error { return c.TakeSlow(ctx, 1) })
		synctest.Wait() // late saw the head overdue, made the counter starve and queued
		if counter.Word(c)&counter.SlowBit == 0 {
			t.Fatalf("word %#x: a starving counter with readers queued sets slow", counter.Word(c))
		}
		g.Open()
		synctest.Wait()
		testkit.Pending(t, barger) // its CAS from the word it judged failed
		testkit.Pending(t, late)
		if c.Count() != 1 {
			t.Fatalf("count %d, want the 1 unit left for the head", c.Count())
		}
		testkit.MustNil(t, c.Write(counter.Semaphore, 1))
		testkit.MustNil(t, gates.Receive(t, "the head", head))
		testkit.Pending(t, barger)
	})
}
