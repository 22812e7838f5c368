package workqueue_test

import (
	"context"
	"slices"
	"testing"

	"github.com/evsync/evsync/internal/testsupport/rqtest"
	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/readyq"
	"github.com/evsync/evsync/workqueue"
)

var bg = context.Background()

// result is what a Wait returned.
type result struct {
	items []int
	err   error
}

// parkWait calls Wait in a goroutine and, inside a synctest bubble,
// returns once the call is blocked (or done).
func parkWait(ctx context.Context, q *workqueue.Queue[int], max int) <-chan result {
	return testkit.Park(func() result {
		items, err := q.Wait(ctx, max)
		return result{items, err}
	})
}

func wantItems(t *testing.T, what string, got []int, want ...int) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
}

func mustWait(t *testing.T, q *workqueue.Queue[int], max int, want ...int) {
	t.Helper()
	got, err := q.Wait(bg, max)
	testkit.MustNil(t, err)
	wantItems(t, "Wait", got, want...)
}

func add(q *workqueue.Queue[int], items ...int) {
	for _, k := range items {
		q.Add(k)
	}
}

// impl is workqueue as the ready list's suite sees it (rqtest).
var impl = rqtest.Impl{
	Name:    "workqueue",
	New:     func() rqtest.Queue[int] { return listed[int]{workqueue.New[int]()} },
	NewWith: func(c readyq.Config[int]) rqtest.Queue[int] { return listed[int]{workqueue.NewWithConfig(config(c))} },
	NewStringWith: func(c readyq.Config[string]) rqtest.Queue[string] {
		return listed[string]{workqueue.NewWithConfig(config(c))}
	},
	Zero:          func() rqtest.Queue[int] { return listed[int]{new(workqueue.Queue[int])} },
	ZeroString:    func() rqtest.Queue[string] { return listed[string]{new(workqueue.Queue[string])} },
	Slots:         func(q rqtest.Queue[int]) int { return workqueue.Slots(q.(listed[int]).Queue) },
	SetBigBatch:   workqueue.SetBigBatch,
	SetCopyHook:   workqueue.SetCopyHook,
	CopiesOutside: workqueue.CopiesOutside,
	Entries:       func(q rqtest.Queue[int]) int { return workqueue.Entries(q.(listed[int]).Queue) },
}

// TestReadyList runs the ready list's behaviour suite (rqtest), which
// readyq runs too: everything readyq does, workqueue does the same way.
func TestReadyList(t *testing.T) { rqtest.Run(t, impl) }

// TestQueueModel drives every ready-list call of a Queue next to
// model.ReadyQ and compares every result and, after each step, the whole
// observable state (rqtest.CheckModel). The controller's calls are
// checked against model.WorkQueue by ctrl_rapid_test.go.
func TestQueueModel(t *testing.T) { rqtest.CheckModel(t, impl) }

// FuzzQueueModel is TestQueueModel as a native fuzz target.
func FuzzQueueModel(f *testing.F) { rqtest.FuzzModel(f, impl) }

// listed is a workqueue.Queue as the suite's Queue: its Stats leaves out
// the delayed items, which the ready list has none of.
type listed[T comparable] struct{ *workqueue.Queue[T] }

func (l listed[T]) Stats() readyq.Stats {
	s := l.Queue.Stats()
	return readyq.Stats{Queued: s.Queued, InFlight: s.InFlight, Aside: s.Aside, Disarmed: s.Disarmed,
		Waiting: s.Waiting, Draining: s.Draining, Closed: s.Closed}
}

// config is readyq's configuration as workqueue's.
func config[T comparable](c readyq.Config[T]) workqueue.Config[T] {
	return workqueue.Config[T]{Mode: c.Mode, Recheck: c.Recheck, Keep: c.Keep}
}
