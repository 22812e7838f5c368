package poll_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/poll"
	"github.com/evsync/evsync/signal"
)

// The hand-off: an edge wakeup while nothing is queued goes straight to a
// blocked Wait. These tests pin what must not change with it.

// TestALevelWakeupOfABlockedWaitIsQueuedAgain: a level source that stays
// ready after it was reported to a blocked Wait is reported again by the
// next TryWait. Only edge registrations are handed off; a level one goes
// through the ready list, and is queued again at its tail.
func TestALevelWakeupOfABlockedWaitIsQueuedAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var set poll.Set[int]
		defer set.Close()
		sig := signal.New(0)
		if err := set.Add(sig, 1, poll.In, poll.Level); err != nil {
			t.Fatal(err)
		}
		done := goWait(&set, 4)
		synctest.Wait() // blocked
		if err := sig.Add(1); err != nil {
			t.Fatal(err)
		}
		if r := <-done; r.err != nil || len(r.evs) != 1 || r.evs[0].Key != 1 {
			t.Fatalf("Wait = %v, %v, want [{1 in}]", r.evs, r.err)
		}
		if evs := set.TryWait(nil, 4); len(evs) != 1 || evs[0] != (poll.Event[int]{Key: 1, Events: poll.In}) {
			t.Fatalf("TryWait = %v, want the level source, still ready, again", evs)
		}
	})
}

// TestAWaitTimeoutServedByAWakeupStopsTheTimer: a blocked WaitTimeout
// that a wakeup serves leaves the Set's list of timed waits. So the timer
// stops, and the end it had does not end a later Wait.
func TestAWaitTimeoutServedByAWakeupStopsTheTimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var set poll.Set[int]
		defer set.Close()
		sig := signal.New(0)
		if err := set.Add(sig, 1, poll.In, poll.Edge); err != nil {
			t.Fatal(err)
		}
		done := goWaitTimeout(&set, nil, 4, time.Hour)
		synctest.Wait()
		if !set.Stats().Timer {
			t.Fatal("a blocked WaitTimeout armed no timer")
		}
		if err := sig.Add(1); err != nil {
			t.Fatal(err)
		}
		if r := <-done; r.err != nil || len(r.evs) != 1 {
			t.Fatalf("WaitTimeout = %v, %v, want [{1 in}]", r.evs, r.err)
		}
		if set.Stats().Timer {
			t.Fatal("the timer is still armed for a WaitTimeout that was served")
		}
		sig.Take()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Hour)
		defer cancel()
		start := time.Now()
		_, err := set.Wait(ctx, nil, 4)
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != 2*time.Hour {
			t.Fatalf("a later Wait returned %v after %v, want its context's end after 2h", err, time.Since(start))
		}
	})
}

// TestABurstHoldsALoneWakeupOfABlockedWait: under WithBurst(k, d), a lone
// edge wakeup of a blocked Wait is reported d after it came, not at once.
func TestABurstHoldsALoneWakeupOfABlockedWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const d = 10 * time.Millisecond
		set := poll.New[int](poll.WithBurst(4, d))
		defer set.Close()
		sig := signal.New(0)
		if err := set.Add(sig, 1, poll.In, poll.Edge); err != nil {
			t.Fatal(err)
		}
		done := goWait(set, 4)
		synctest.Wait()
		start := time.Now()
		if err := sig.Add(1); err != nil {
			t.Fatal(err)
		}
		r := <-done
		if r.err != nil || len(r.evs) != 1 || time.Since(start) != d {
			t.Fatalf("Wait = %v, %v after %v, want [{1 in}] after %v", r.evs, r.err, time.Since(start), d)
		}
	})
}
