package workqueue_test

import (
	"testing"

	"github.com/evsync/evsync/workqueue"
)

// TestKeepForgetsPriorityAndRetries: a kept item keeps no priority and
// no retry count, so its next mark is a new item's. The ready
// list's part of Keep is in the suite (rqtest's keep.go).
func TestKeepForgetsPriorityAndRetries(t *testing.T) {
	q := workqueue.NewWithConfig(workqueue.Config[int]{Keep: true})
	q.AddWith(1, workqueue.AddOpts{Priority: 5})
	q.AddRateLimited(1) // queued: it counts a retry and keeps the earlier (immediate) mark
	if got := q.TryTake(1); len(got) != 1 {
		t.Fatalf("TryTake(1) = %v, want [1]", got)
	}
	if p, known := q.Priority(1); p != 5 || !known {
		t.Fatalf("Priority(1) in flight = %d, %v, want 5, true", p, known)
	}
	q.Done(1)
	if p, known := q.Priority(1); p != 0 || known {
		t.Fatalf("Priority(1) kept = %d, %v, want 0, false", p, known)
	}
	if n := q.NumRequeues(1); n != 0 {
		t.Fatalf("NumRequeues(1) kept = %d, want 0: the limiter forgets it as for a forgotten item", n)
	}
	q.AddWith(1, workqueue.AddOpts{Priority: 2})
	if p, known := q.Priority(1); p != 2 || !known {
		t.Fatalf("Priority(1) marked again = %d, %v, want 2, true (the new mark's)", p, known)
	}
}
