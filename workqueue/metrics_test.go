package workqueue_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/workqueue"
)

// depthLog is a Metrics that keeps every Depth reading and what was wrong
// with them: a negative figure, or two calls at once. Its hooks, if set,
// run at the start of the calls, so that a test can hold a call up.
type depthLog struct {
	onDepth, onAdded, onWaited func()
	calls                      atomic.Int32 // Depth calls under way

	mu       sync.Mutex
	readings []reading
	last     map[int]int // the last n of each priority
	total    int         // the last total
	problems []string
}

// A reading is the figures of one Depth call.
type reading struct{ prio, n, total int }

func (m *depthLog) Depth(prio, n, total int) {
	if m.calls.Add(1) != 1 {
		m.problem("two Depth calls at once")
	}
	defer m.calls.Add(-1)
	if m.onDepth != nil {
		m.onDepth()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if n < 0 || total < 0 || n > total {
		m.problems = append(m.problems, fmt.Sprintf("Depth(%d, %d, %d)", prio, n, total))
	}
	m.readings = append(m.readings, reading{prio, n, total})
	if m.last == nil {
		m.last = make(map[int]int)
	}
	m.last[prio], m.total = n, total
}

func (m *depthLog) Added() {
	if m.onAdded != nil {
		m.onAdded()
	}
}

func (m *depthLog) Waited(time.Duration) {
	if m.onWaited != nil {
		m.onWaited()
	}
}

func (*depthLog) Worked(time.Duration) {}
func (*depthLog) Retried()             {}

func (m *depthLog) problem(p string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.problems = append(m.problems, p)
}

// check fails t if a reading was wrong, or if the last total is not Len
// or not the sum of the priorities' last depths.
func (m *depthLog) check(t *testing.T, q *workqueue.Queue[int]) {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.problems) > 0 {
		t.Fatalf("%d bad readings, the first %q", len(m.problems), m.problems[0])
	}
	if m.total != q.Len() {
		t.Fatalf("the depth last reported is %d, Len is %d", m.total, q.Len())
	}
	sum := 0
	for _, n := range m.last {
		sum += n
	}
	if sum != m.total {
		t.Fatalf("the priorities' last depths %v add up to %d, the last total is %d", m.last, sum, m.total)
	}
}

// lastDepths returns the last depth of each priority, zeros left out.
func (m *depthLog) lastDepths() map[int]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	d := maps.Clone(m.last)
	maps.DeleteFunc(d, func(_, n int) bool { return n == 0 })
	return d
}

// checkPriorities fails t unless the last depths of the priorities are
// those of the queued items, which it takes and finishes.
func (m *depthLog) checkPriorities(t *testing.T, q *workqueue.Queue[int]) {
	t.Helper()
	want := m.lastDepths()
	items := q.TryTake(max(q.Len(), 1))
	got := make(map[int]int)
	for _, k := range items {
		p, _ := q.Priority(k)
		got[p]++
	}
	if !maps.Equal(got, want) {
		t.Fatalf("the last depths per priority are %v, the queued items' priorities %v", want, got)
	}
	q.Done(items...)
	m.check(t, q)
}

// once returns a function that runs f the first time it is called; the
// calls after it, also those while f runs, do nothing.
func once(f func()) func() {
	var done atomic.Bool
	return func() {
		if done.CompareAndSwap(false, true) {
			f()
		}
	}
}

// An Add's report is held up inside Depth while a TryTake takes the item.
// Reported as deltas after the unlock, the TryTake's -1 came first and the
// gauge read -1. Now the TryTake's report waits, and shows 0 after the 1.
func TestDepthReportsOfTwoCallsDoNotCross(t *testing.T) {
	entered, release, taken := make(chan struct{}), make(chan struct{}), make(chan struct{})
	m := &depthLog{
		onDepth:  once(func() { close(entered); <-release }),
		onWaited: once(func() { close(taken) }),
	}
	q := workqueue.NewWithConfig(workqueue.Config[int]{Metrics: m})
	added := make(chan struct{})
	go func() { q.Add(1); close(added) }()
	<-entered // the Add's report is under way
	took := make(chan []int, 1)
	go func() { took <- q.TryTake(1) }()
	<-taken // the TryTake holds the item; its Depth comes after Waited
	close(release)
	<-added
	wantItems(t, "TryTake", <-took, 1)
	m.check(t, q)
	if want := []reading{{0, 1, 1}, {0, 0, 0}}; !slices.Equal(m.readings, want) {
		t.Fatalf("readings %v, want %v", m.readings, want)
	}
}

// An Add's report is held up before it starts, while a TryTake takes the
// item and reports. The Add's report then has nothing newer to show, and
// must not show its own, older figures.
func TestDepthReportNeverShowsOlderFigures(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	m := &depthLog{onAdded: once(func() { close(entered); <-release })}
	q := workqueue.NewWithConfig(workqueue.Config[int]{Metrics: m})
	added := make(chan struct{})
	go func() { q.Add(1); close(added) }()
	<-entered // the Add has changed the depth; its Depth comes after Added
	wantItems(t, "TryTake", q.TryTake(1), 1)
	close(release)
	<-added
	m.check(t, q)
	if want := []reading{{0, 0, 0}}; !slices.Equal(m.readings, want) {
		t.Fatalf("readings %v, want %v", m.readings, want)
	}
}

// Each priority's depth is reported on its own, with the total; a raise
// moves an item from one priority's depth to another's in one change.
// Fair share (lanes for priority 0 too) reports the same.
func TestDepthPerPriority(t *testing.T) {
	for _, fair := range []bool{false, true} {
		t.Run(fmt.Sprintf("fair=%v", fair), func(t *testing.T) {
			m := &depthLog{}
			c := workqueue.Config[int]{Metrics: m}
			if fair {
				c.Fairness = func(k int) string { return fmt.Sprint(k % 2) }
			}
			q := workqueue.NewWithConfig(c)
			q.AddWith(1, prio(1))
			q.Add(2)
			q.Add(3)
			q.AddWith(2, prio(3)) // raised from 0 to 3
			q.AddWith(4, workqueue.AddOpts{Priority: -1, After: time.Hour})
			q.Remove(3)
			wantItems(t, "TryTake", q.TryTake(1), 2)
			m.check(t, q)
			if got, want := m.lastDepths(), map[int]int{1: 1}; !maps.Equal(got, want) {
				t.Fatalf("last depths %v, want %v", got, want)
			}
			q.Close() // queues 4 at once
			wantItems(t, "TryTake", q.TryTake(2), 1, 4)
			m.check(t, q)
			want := []reading{
				{1, 1, 1}, {0, 1, 2}, {0, 2, 3},
				{0, 1, 3}, {3, 1, 3}, // the raise: one change, two priorities
				{0, 0, 2},
				{3, 0, 1},
				{-1, 1, 2},
				{1, 0, 0}, {-1, 0, 0}, // one hand-out of two priorities
			}
			if !slices.Equal(m.readings, want) {
				t.Fatalf("readings\n%v, want\n%v", m.readings, want)
			}
		})
	}
}

// Many goroutines add (with delays, priorities and retries), remove, take
// and finish, while Depth yields to widen the windows between the calls.
// Every reading is a depth that existed, no two Depth calls overlap, and
// the last readings are Len and the queued items of each priority.
func TestDepthUnderLoadNeverNegativeAndEndsAtLen(t *testing.T) {
	for _, fair := range []bool{false, true} {
		t.Run(fmt.Sprintf("fair=%v", fair), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { hammerDepth(t, fair) })
		})
	}
}

func hammerDepth(t *testing.T, fair bool) {
	m := &depthLog{}
	c := workqueue.Config[int]{
		Metrics:     m,
		RateLimiter: workqueue.ExponentialRateLimiter[int](time.Millisecond, 8*time.Millisecond),
	}
	if fair {
		c.Fairness = func(k int) string { return fmt.Sprint(k % 3) }
	}
	q := workqueue.NewWithConfig(c)
	m.onDepth = func() {
		runtime.Gosched()
		_ = q.Stats() // Depth may read the queue
	}
	var wg sync.WaitGroup
	for p := range 4 {
		wg.Go(func() { depthProducer(q, p, 1500) })
	}
	for range 3 {
		wg.Go(func() { depthConsumer(q, 1000) })
	}
	wg.Wait()
	synctest.Wait() // a timer's report too
	m.check(t, q)
	m.checkPriorities(t, q)
	q.Close() // queues every delayed item at once
	m.check(t, q)
	m.checkPriorities(t, q)
}

// depthProducer makes n marks and removals of random keys.
func depthProducer(q *workqueue.Queue[int], seed, n int) {
	r := rand.New(rand.NewPCG(uint64(seed), 1))
	for range n {
		k := r.IntN(64)
		switch r.IntN(8) {
		case 0:
			q.Remove(k)
		case 1:
			q.AddRateLimited(k)
		case 2, 3:
			q.AddWith(k, workqueue.AddOpts{After: time.Duration(r.IntN(3)) * time.Millisecond, Priority: r.IntN(4) - 1})
		default:
			q.AddWith(k, prio(r.IntN(4)-1))
		}
	}
}

// depthConsumer takes and finishes up to 4 items n times, waiting up to
// a millisecond of the fake clock for them.
func depthConsumer(q *workqueue.Queue[int], n int) {
	var batch []int
	for range n {
		ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
		batch, _ = q.WaitAppend(ctx, batch[:0], 4)
		cancel()
		q.Done(batch...)
	}
}
