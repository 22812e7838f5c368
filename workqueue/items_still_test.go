package workqueue_test

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/workqueue"
)

// The tests below pin the cases where an Add that reports false still
// owes the work of a change: the quick release of a duplicate Add (add's
// still, items.go) must not skip them.

// TestDuplicateAddOnUserClockServesTheDueItems: an Add that reports
// false, on a user's clock whose time has passed a delayed item's, queues
// that item first and hands it to the blocked Wait. The Add must wake
// that caller, or it waits on with the item handed to it.
func TestDuplicateAddOnUserClockServesTheDueItems(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newStalled()
		q := workqueue.New[int](workqueue.WithClock(c))
		q.Add(1)
		wantItems(t, "TryTake", q.TryTake(1), 1)
		if !q.Add(1) { // in flight: the mark is kept aside
			t.Fatal("first Add of an item in flight reported false")
		}
		q.AddAfter(2, 15*ms)
		waiting := parkWait(bg, q, 8)
		c.jump(20 * ms) // 2 is due, and no timer fires
		if q.Add(1) {
			t.Fatal("second Add of an item in flight reported true")
		}
		synctest.Wait()
		select {
		case r := <-waiting:
			if r.err != nil {
				t.Fatalf("the blocked Wait returned %v", r.err)
			}
			wantItems(t, "the blocked Wait", r.items, 2)
		default:
			t.Fatalf("the blocked Wait still waits with 2 due and handed to it: %v", q)
		}
	})
}

// whenHook is the recording limiter (sched_test.go) with no delay,
// whose When runs onWhen first.
type whenHook struct {
	*limiter
	onWhen func()
}

func (l *whenHook) When(k int) time.Duration {
	l.onWhen()
	return l.limiter.When(k)
}

// TestRetryClosedMeanwhileIsForgottenBeforeItReturns: an AddRateLimited
// whose queue is closed while its limiter counts the retry reports false.
// The retry it counted is of an item the queue does not know. So the
// limiter forgets it before the call returns, and not at some later
// call's unlock.
func TestRetryClosedMeanwhileIsForgottenBeforeItReturns(t *testing.T) {
	lim := &whenHook{limiter: newLimiter(0)}
	q := workqueue.NewWithConfig(workqueue.Config[int]{RateLimiter: lim})
	lim.onWhen = q.Close // between Add's look at closed and its lock
	if q.AddRateLimited(7) {
		t.Fatal("AddRateLimited after Close reported true")
	}
	wantItems(t, "Forget calls", lim.forgotten(), 7)
}

// TestDuplicateAddThatRaisesReportsTheDepths: an Add of a queued item
// reports false, but a priority it raises moves the item to another
// priority's depth: a lane's or the ready list's. The metrics see both depths change by the time the
// Add returns.
func TestDuplicateAddThatRaisesReportsTheDepths(t *testing.T) {
	m := &depthLog{}
	q := workqueue.NewWithConfig(workqueue.Config[int]{Metrics: m})
	q.AddWith(1, prio(-2))
	q.Add(2)
	if q.AddWith(1, prio(-1)) { // from lane to lane
		t.Fatal("AddWith of a queued item reported true")
	}
	if q.Add(1) { // from -1 to 0: onto the ready list
		t.Fatal("Add of a queued item reported true")
	}
	m.check(t, q)
	want := []reading{
		{-2, 1, 1}, {0, 1, 2},
		{-2, 0, 2}, {-1, 1, 2}, // the raise to -1
		{0, 2, 2}, {-1, 0, 2}, // the raise to 0
	}
	if !slices.Equal(m.readings, want) {
		t.Fatalf("readings\n%v, want\n%v", m.readings, want)
	}
}
