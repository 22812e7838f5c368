package workqueue_test

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/internal/testsupport/rqtest"
	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/model"
	"github.com/evsync/evsync/workqueue"
	"pgregory.net/rapid"
)

// TestCtrlQueueModel drives the controller calls of a Queue (AddAfter,
// AddWith, AddRateLimited, Forget, NumRequeues, priorities, fair share)
// with the core calls, one at a time, inside a synctest bubble per run, next
// to the sequential model, whose clock moves only when the queue's does
// (Advance: a sleep, or a step of a fake clock given with WithClock, then
// synctest.Wait for the queue's timer). After each step it compares every
// result, Stats, each Ready channel, the limiter's counts and, with
// metrics, what the hooks were told.
func TestCtrlQueueModel(t *testing.T) {
	testkit.CheckModel(t, func(t *rapid.T) { rapid.SyncTest(t, ctrlProp(false)) })
}

// TestCtrlQueueMetricsModel is TestCtrlQueueModel with Config.Metrics on
// every queue: the depth the hooks add up to is Len, every new mark is one
// Added, every retry one Retried, every hand-out one Waited, every Done
// of an item in flight one Worked of exactly its time in flight, and
// Running is the model's figures.
func TestCtrlQueueMetricsModel(t *testing.T) {
	testkit.CheckModel(t, func(t *rapid.T) { rapid.SyncTest(t, ctrlProp(true)) })
}

// TestCtrlQueueTiesModel is TestCtrlQueueModel narrowed to equal ready
// times. It has three items and delays of a second or two. Its calls only
// set ready times (Replace among them), keep marks aside, hand items out
// and move the clock.
// So two items often fall due at the same moment, one of them through a
// mark kept aside while in flight. They must come out in the order their
// times were set. A Done that numbered such a mark anew was found by
// TestCtrlQueueModel in one run in eight, and by this test in nine of ten.
func TestCtrlQueueTiesModel(t *testing.T) {
	testkit.CheckModel(t, func(t *rapid.T) { rapid.SyncTest(t, tiesProp) })
}

func tiesProp(t *rapid.T) {
	cm := newCtrlMachine(t, false)
	cm.keys, cm.delays = 3, tieDelays
	t.Cleanup(func() {
		if !workqueue.Locked(cm.q) {
			cm.q.Close()
		}
	})
	actions := map[string]func(*rapid.T){
		"Add": cm.Add, "AddAfter": cm.AddAfter, "AddAfterBoth": cm.addAfterBoth, "Replace": cm.replace, "TryTake": cm.TryTake,
		"Done": cm.Done, "DoneAll": cm.doneAll, "Rearm": cm.Rearm, "Advance": cm.Advance, "": cm.Check,
	}
	// A tie that Done gets wrong takes some seven steps in order, and a
	// Repeat averages 30 of them (-rapid.steps). Three Repeats in a row
	// find it about eight times as often per check, in under twice the time.
	for range 3 {
		t.Repeat(actions)
	}
}

// addAfterBoth delays two items by the same delay, one after the other:
// their ready times are equal, and set in that order.
func (cm *ctrlMachine) addAfterBoth(t *rapid.T) {
	k, d := cm.key(t), cm.delay(t)
	l := (k + rapid.IntRange(1, cm.keys-1).Draw(t, "other")) % cm.keys
	cm.mark(t, fmt.Sprintf("AddAfter(%d, %v)", k, d), cm.q.AddAfter(k, d), cm.m.AddAfter(k, d))
	cm.mark(t, fmt.Sprintf("AddAfter(%d, %v) next", l, d), cm.q.AddAfter(l, d), cm.m.AddAfter(l, d))
}

// replace sets an item's ready time, later or earlier (AddOpts.Replace).
// Among ties it goes after the times set before it.
func (cm *ctrlMachine) replace(t *rapid.T) {
	k, d := cm.key(t), cm.delay(t)
	o := workqueue.AddOpts{After: d, Replace: true}
	cm.mark(t, fmt.Sprintf("AddWith(%d, %+v)", k, o), cm.q.AddWith(k, o), cm.m.AddWith(k, model.AddOpts(o)))
}

// FuzzCtrlQueueModel is TestCtrlQueueModel as a native fuzz target.
func FuzzCtrlQueueModel(f *testing.F) {
	testkit.FuzzModel(f, 13, 17, func(t *rapid.T) { rapid.SyncTest(t, ctrlProp(false)) })
}

func ctrlProp(withMetrics bool) func(*rapid.T) {
	return func(t *rapid.T) {
		cm := newCtrlMachine(t, withMetrics)
		t.Cleanup(func() {
			if !workqueue.Locked(cm.q) { // a call that panicked must not hang the run
				cm.q.Close() // stops the timer: nothing fires after the run
			}
		})
		t.Repeat(rapid.StateMachineActions(cm))
	}
}

// ctrlKeys is the item space: small, so that marks collide.
const ctrlKeys = 8

type ctrlMachine struct {
	q        *workqueue.Queue[int]
	m        *model.WorkQueue
	notReady [ctrlKeys]bool // the recheck function's answers (false: ready)
	ready    []rqtest.ReadyChan
	// defaultLimiter: the queue has DefaultRateLimiter, whose token bucket
	// (burst 100) the model does not have; retries stay below the burst.
	defaultLimiter bool
	fair           bool            // Config.Fairness or Config.FairShare
	keys           int             // items 0 … keys-1, at most ctrlKeys
	delays         []time.Duration // what AddAfter and AddWith draw from

	step func(time.Duration) // moves the queue's time (drawClock)

	metrics *ctrlMetrics // nil without Config.Metrics
	adds    int          // marks the model reported new
	start   map[int]time.Duration
	worked  time.Duration // Σ of the Worked the queue must have reported
	taken   int           // items handed out
	done    int           // Done of items in flight
}

var ctrlPriorities = []int{0, 0, 0, 1, -1, 2, math.MinInt, math.MaxInt}

func newCtrlMachine(t *rapid.T, withMetrics bool) *ctrlMachine {
	cm := &ctrlMachine{start: map[int]time.Duration{}, keys: ctrlKeys, delays: ctrlDelays}
	mode := rapid.IntRange(0, 2).Draw(t, "mode")
	c := workqueue.Config[int]{Mode: workqueue.Mode(mode), Keep: rapid.Bool().Draw(t, "keep")} // invisible, so not the model's
	mo := model.WorkQueueConfig{Mode: model.Mode(mode)}
	if rapid.Bool().Draw(t, "recheck") {
		mo.Recheck = func(k int) bool { return !cm.notReady[k] }
		c.Recheck = mo.Recheck
	}
	switch rapid.IntRange(0, 3).Draw(t, "fairness") {
	case 1:
		mo.Fairness = func(k int) string { return fmt.Sprint(k % 3) }
	case 2:
		mo.Fairness = func(int) string { return "" } // one tenant: every item on a lane
	case 3:
		mo.FairShare = drawFairShare(t)
		c.FairShare = workqueue.FairShare[int](mo.FairShare)
		cm.fair = true
	}
	if mo.Fairness != nil {
		cm.fair = true
		c.Fairness = mo.Fairness
	}
	limits := [][2]time.Duration{
		{0, 0}, // the default limiter
		{model.DefaultBaseDelay, model.DefaultMaxDelay},
		{time.Millisecond, 8 * time.Millisecond},
		{3 * time.Millisecond, 3 * time.Millisecond},
	}
	l := rapid.SampledFrom(limits).Draw(t, "limiter")
	if l[0] == 0 {
		cm.defaultLimiter = true
	} else {
		mo.BaseDelay, mo.MaxDelay = l[0], l[1]
		c.RateLimiter = ctrlLimiter(t, &mo)
	}
	if withMetrics {
		cm.metrics = &ctrlMetrics{}
		c.Metrics = cm.metrics
	}
	opts, step := drawClock(t)
	cm.q, cm.step = workqueue.NewWithConfig(c, opts...), step
	cm.m = model.NewWorkQueueWith(mo)
	return cm
}

// drawFairShare draws a FairShare of 1 to 3 dimensions over the run's
// items: each item's key in each dimension is "a" or "b", and each key's
// weight 1 to 3 (or 0 or less, which is 1).
func drawFairShare(t *rapid.T) model.FairShare {
	dims := rapid.IntRange(1, 3).Draw(t, "dims")
	keys := rapid.SliceOfN(rapid.SampledFrom([]string{"a", "b"}), ctrlKeys*dims, ctrlKeys*dims).Draw(t, "keys")
	weights := map[string]int{}
	for d := range dims {
		for _, k := range []string{"a", "b"} {
			weights[fmt.Sprint(d, k)] = rapid.IntRange(-1, 3).Draw(t, "weight")
		}
	}
	f := model.FairShare{Dims: dims, Key: func(k, dim int) string { return keys[k*dims+dim] }}
	if rapid.Bool().Draw(t, "weighted") {
		f.Weight = func(dim int, key string) int { return weights[fmt.Sprint(dim, key)] }
	}
	return f
}

// ctrlLimiter returns the exponential limiter of mo's delays, with a
// jitter drawn for both it and mo. The two get sources of the same seed,
// so they cut each retry by the same u.
func ctrlLimiter(t *rapid.T, mo *model.WorkQueueConfig) workqueue.RateLimiter[int] {
	mo.Jitter = rapid.SampledFrom([]float64{0, 0.1, 0.5, 1}).Draw(t, "jitter")
	if mo.Jitter == 0 {
		return workqueue.ExponentialRateLimiter[int](mo.BaseDelay, mo.MaxDelay)
	}
	seed := rapid.Uint64().Draw(t, "jitter seed")
	mo.Rand = rand.New(rand.NewPCG(seed, 0)).Float64
	l, err := workqueue.ExponentialRateLimiterWith[int](workqueue.Backoff{
		Base: mo.BaseDelay, Max: mo.MaxDelay, Jitter: mo.Jitter, Rand: rand.New(rand.NewPCG(seed, 0)).Float64,
	})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// key draws one of the run's items.
func (cm *ctrlMachine) key(t *rapid.T) int { return rapid.IntRange(0, cm.keys-1).Draw(t, "item") }

// ctrlDelays are a run's delays: non-positive ones (Add), ties, and some
// past the limiter's delays. TestCtrlQueueTiesModel draws from tieDelays
// instead, where most positive delays are a second.
var (
	ctrlDelays = []time.Duration{
		math.MinInt64, -time.Hour, -1, 0,
		1, time.Millisecond, time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond,
		10 * time.Millisecond, time.Second,
	}
	tieDelays = []time.Duration{time.Second, time.Second, 2 * time.Second, 0, -1} // rapid favours the first
)

// delay draws a delay from the run's set.
func (cm *ctrlMachine) delay(t *rapid.T) time.Duration {
	return rapid.SampledFrom(cm.delays).Draw(t, "after")
}

// mark compares a mark's results and counts the new ones for the metrics.
func (cm *ctrlMachine) mark(t *rapid.T, what string, got, want bool) {
	if got != want {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
	if want {
		cm.adds++
	}
}

func (cm *ctrlMachine) Add(t *rapid.T) {
	k := cm.key(t)
	cm.mark(t, fmt.Sprintf("Add(%d)", k), cm.q.Add(k), cm.m.Add(k))
}

func (cm *ctrlMachine) AddMode(t *rapid.T) {
	k := cm.key(t)
	m := rapid.IntRange(0, 3).Draw(t, "mode") // 3 is not a Mode
	cm.mark(t, fmt.Sprintf("AddMode(%d, %d)", k, m), cm.q.AddMode(k, workqueue.Mode(m)), cm.m.AddMode(k, model.Mode(m)))
}

func (cm *ctrlMachine) AddAfter(t *rapid.T) {
	k, d := cm.key(t), cm.delay(t)
	cm.mark(t, fmt.Sprintf("AddAfter(%d, %v)", k, d), cm.q.AddAfter(k, d), cm.m.AddAfter(k, d))
}

func (cm *ctrlMachine) AddWith(t *rapid.T) {
	k, d := cm.key(t), cm.delay(t)
	limited := rapid.Bool().Draw(t, "rate limited") && cm.retryAllowed()
	p := rapid.SampledFrom(ctrlPriorities).Draw(t, "priority")
	replace := rapid.Bool().Draw(t, "replace")
	o := workqueue.AddOpts{After: d, RateLimited: limited, Priority: p, Replace: replace}
	cm.mark(t, fmt.Sprintf("AddWith(%d, %+v)", k, o), cm.q.AddWith(k, o), cm.m.AddWith(k, model.AddOpts(o)))
}

func (cm *ctrlMachine) AddRateLimited(t *rapid.T) {
	k := cm.key(t)
	if !cm.retryAllowed() {
		return
	}
	cm.mark(t, fmt.Sprintf("AddRateLimited(%d)", k), cm.q.AddRateLimited(k), cm.m.AddRateLimited(k))
}

// retryAllowed reports whether another retry keeps the default limiter's
// token bucket out of the picture (it starts with 100 tokens).
func (cm *ctrlMachine) retryAllowed() bool { return !cm.defaultLimiter || cm.m.Retries() < 90 }

func (cm *ctrlMachine) Forget(t *rapid.T) {
	k := cm.key(t)
	cm.q.Forget(k)
	cm.m.Forget(k)
}

func (cm *ctrlMachine) NumRequeues(t *rapid.T) {
	k := cm.key(t)
	if got, want := cm.q.NumRequeues(k), cm.m.NumRequeues(k); got != want {
		t.Fatalf("NumRequeues(%d) = %d, want %d", k, got, want)
	}
}

func (cm *ctrlMachine) TryTake(t *rapid.T) {
	max := rapid.SampledFrom([]int{-1, 0, 1, 1, 2, 3, 8}).Draw(t, "max")
	want := cm.m.TryTake(max)
	got := cm.q.TryTake(max)
	if !slices.Equal(got, want) {
		t.Fatalf("TryTake(%d) = %v, want %v (model queue was %v)", max, got, want, slices.Concat(want, cm.m.Queue()))
	}
	cm.handedOut(got)
}

func (cm *ctrlMachine) Wait(t *rapid.T) {
	max := rapid.SampledFrom([]int{0, 1, 2, 8}).Draw(t, "max")
	c := testkit.DrawCtx(t)
	want, werr := cm.m.Wait(c, max)
	ctx, werr := testkit.PickCtx(c, werr)
	got, err := cm.q.Wait(ctx, max)
	testkit.SameErr(t, "Wait", err, werr)
	if !slices.Equal(got, want) {
		t.Fatalf("Wait(%d) = %v, want %v", max, got, want)
	}
	cm.handedOut(got)
}

// WaitForTimer parks a Wait while nothing is queued and something is
// delayed, moves the clock to the first ready time and checks that the
// queue's timer handed the Wait what the model queues then.
func (cm *ctrlMachine) WaitForTimer(t *rapid.T) {
	at, ok := nextReady(cm.m)
	if !ok || cm.m.Len() != 0 {
		return
	}
	max := rapid.SampledFrom([]int{1, 2, 8}).Draw(t, "max")
	// The model has no waiters: it queues the items, firing an armed
	// Ready channel, where the queue hands them to the Wait, which fires
	// nothing unless items are left. Those channels are no longer checked.
	cm.ready = slices.DeleteFunc(cm.ready, func(r rqtest.ReadyChan) bool { return !cm.m.Fired(r.Ticket) })
	ch := testkit.Park(func() result {
		items, err := cm.q.Wait(bg, max)
		return result{items, err}
	})
	testkit.Pending(t, ch)
	if n := cm.q.Stats().Waiting; n != 1 {
		t.Fatalf("Stats().Waiting = %d with a Wait parked", n)
	}
	cm.advance(at - cm.m.Now())
	want, err := cm.m.Wait(model.Live, max)
	testkit.MustNil(t, err)
	select {
	case r := <-ch:
		testkit.MustNil(t, r.err)
		if !slices.Equal(r.items, want) {
			t.Fatalf("Wait woken by the timer at %v = %v, want %v", at, r.items, want)
		}
		cm.handedOut(r.items)
	default:
		t.Fatalf("Wait still blocked at %v, when the model queues %v", at, want)
	}
}

// Done is called with a mix of items in flight, others and repeats.
func (cm *ctrlMachine) Done(t *rapid.T) {
	held := cm.m.InFlightItems()
	ks := make([]int, rapid.IntRange(0, 4).Draw(t, "n"))
	for i := range ks {
		if len(held) != 0 && rapid.IntRange(0, 3).Draw(t, "held") != 0 {
			ks[i] = rapid.SampledFrom(held).Draw(t, "item")
		} else {
			ks[i] = cm.key(t)
		}
	}
	cm.finish(t, held, ks)
}

// doneAll ends the hand-out of every item in flight.
func (cm *ctrlMachine) doneAll(t *rapid.T) {
	held := cm.m.InFlightItems()
	cm.finish(t, held, held)
}

// finish calls Done(ks...) and notes, for the metrics, the time in flight
// of those of ks that were held.
func (cm *ctrlMachine) finish(t *rapid.T, held, ks []int) {
	if got, want := cm.q.Done(ks...), cm.m.Done(ks...); got != want {
		t.Fatalf("Done(%v) = %d, want %d", ks, got, want)
	}
	for _, k := range ks {
		if s, ok := cm.start[k]; ok && slices.Contains(held, k) {
			cm.worked += cm.m.Now() - s
			cm.done++
			delete(cm.start, k)
		}
	}
}

func (cm *ctrlMachine) Remove(t *rapid.T) {
	k := cm.key(t)
	if got, want := cm.q.Remove(k), cm.m.Remove(k); got != want {
		t.Fatalf("Remove(%d) = %v, want %v", k, got, want)
	}
}

func (cm *ctrlMachine) Rearm(t *rapid.T) {
	k := cm.key(t)
	if got, want := cm.q.Rearm(k), cm.m.Rearm(k); got != want {
		t.Fatalf("Rearm(%d) = %v, want %v", k, got, want)
	}
}

// SetReady changes what the recheck function (if any) reports for an item.
func (cm *ctrlMachine) SetReady(t *rapid.T) {
	cm.notReady[cm.key(t)] = !rapid.Bool().Draw(t, "ready")
}

// Advance moves the bubble's clock and the model's by the same amount,
// ties with delays included.
func (cm *ctrlMachine) Advance(t *rapid.T) {
	d := rapid.SampledFrom([]time.Duration{
		0, 1, time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond, 10 * time.Millisecond, time.Second, time.Hour,
	}).Draw(t, "d")
	if d == 0 { // to the next ready time exactly, if any
		if at, ok := nextReady(cm.m); ok {
			d = at - cm.m.Now()
		}
	}
	cm.advance(d)
}

func (cm *ctrlMachine) advance(d time.Duration) {
	cm.step(d)
	synctest.Wait() // the queue's timer has run
	cm.m.Advance(d)
}

func (cm *ctrlMachine) Drain(t *rapid.T) {
	testkit.CheckBlocking(t, "Drain", cm.q.Drain, cm.m.Drain)
}

func (cm *ctrlMachine) Ready(t *rapid.T) {
	ch, ticket := cm.q.Ready(), cm.m.Ready()
	if got, want := testkit.IsClosed(ch), cm.m.Fired(ticket); got != want {
		t.Fatalf("Ready() ready at once = %v, want %v", got, want)
	}
	cm.ready = append(cm.ready, rqtest.ReadyChan{Ch: ch, Ticket: ticket})
	if len(cm.ready) > 8 {
		cm.ready = cm.ready[1:]
	}
}

func (cm *ctrlMachine) Close(t *rapid.T) {
	if testkit.DrawClose(t) {
		cm.q.Close()
		cm.m.Close()
	}
}

// handedOut notes the hand-out times of items, for the metrics.
func (cm *ctrlMachine) handedOut(items []int) {
	for _, k := range items {
		cm.start[k] = cm.m.Now()
	}
	cm.taken += len(items)
}

func (cm *ctrlMachine) Check(t *rapid.T) {
	if err := cm.m.Validate(); err != nil {
		t.Fatal(err)
	}
	want := workqueue.Stats(cm.m.Stats())
	if got := cm.q.Stats(); got != want {
		t.Fatalf("Stats() = %+v, want %+v (model queue %v, delayed %v)", got, want, cm.m.Queue(), cm.m.Delays())
	}
	if cm.q.Len() != want.Queued || cm.q.InFlight() != want.InFlight {
		t.Fatalf("Len, InFlight = %d, %d, want %d, %d", cm.q.Len(), cm.q.InFlight(), want.Queued, want.InFlight)
	}
	if s := cm.q.String(); s != want.String() {
		t.Fatalf("String() = %q, want %q", s, want.String())
	}
	for i, r := range cm.ready {
		if got, want := testkit.IsClosed(r.Ch), cm.m.Fired(r.Ticket); got != want {
			t.Fatalf("Ready channel #%d closed = %v, want %v", i, got, want)
		}
	}
	for k := range ctrlKeys {
		// The limiter keeps nothing the queue forgot.
		if got, want := cm.q.NumRequeues(k), cm.m.NumRequeues(k); got != want {
			t.Fatalf("NumRequeues(%d) = %d, want %d", k, got, want)
		}
		p, known := cm.q.Priority(k)
		if wp, wknown := cm.m.Priority(k); p != wp || known != wknown {
			t.Fatalf("Priority(%d) = %d, %v, want %d, %v", k, p, known, wp, wknown)
		}
	}
	cm.checkMetrics(t)
}

// checkMetrics compares what the hooks were told, and Running, with the
// model and the hand-out times the run noted.
func (cm *ctrlMachine) checkMetrics(t *rapid.T) {
	un, long := cm.q.Running()
	var wantUn, wantLong time.Duration
	if cm.metrics != nil {
		for _, s := range cm.start {
			wantUn += cm.m.Now() - s
			wantLong = max(wantLong, cm.m.Now()-s)
		}
	}
	if un != wantUn || long != wantLong {
		t.Fatalf("Running() = %v, %v, want %v, %v", un, long, wantUn, wantLong)
	}
	if cm.metrics == nil {
		return
	}
	got := cm.metrics.snapshot()
	want := ctrlMetricsSeen{
		depth: cm.m.Len(), adds: cm.adds, retries: int(cm.m.Retries()),
		waited: cm.taken, worked: cm.done, workedSum: cm.worked,
	}
	if got != want {
		t.Fatalf("metrics %+v, want %+v", got, want)
	}
	if got, want := cm.metrics.depths(), queuedByPriority(cm.m); !maps.Equal(got, want) {
		t.Fatalf("depth per priority %v, want %v", got, want)
	}
}

// nextReady is the model's first ready time, if an item is delayed: the
// time the queue's timer is armed for.
func nextReady(m *model.WorkQueue) (time.Duration, bool) {
	if ds := m.Delays(); len(ds) != 0 {
		return ds[0].At, true
	}
	return 0, false
}

// queuedByPriority counts the model's queued items of each priority.
func queuedByPriority(m *model.WorkQueue) map[int]int {
	n := make(map[int]int)
	for _, k := range m.Queue() {
		p, _ := m.Priority(k)
		n[p]++
	}
	return n
}

// ctrlMetrics adds up what a queue reports to its Metrics.
type ctrlMetrics struct {
	mu    sync.Mutex
	seen  ctrlMetricsSeen
	prios map[int]int // the last depth reported of each priority, but 0
}

type ctrlMetricsSeen struct {
	depth, adds, retries, waited, worked int
	workedSum                            time.Duration
}

// Depth keeps the last total and the last depth of each priority.
func (m *ctrlMetrics) Depth(prio, n, total int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seen.depth = total
	if m.prios == nil {
		m.prios = make(map[int]int)
	}
	if n == 0 {
		delete(m.prios, prio)
	} else {
		m.prios[prio] = n
	}
}

// depths returns the last depth reported of each priority, those at 0
// left out.
func (m *ctrlMetrics) depths() map[int]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.prios)
}

func (m *ctrlMetrics) Added()   { m.mu.Lock(); m.seen.adds++; m.mu.Unlock() }
func (m *ctrlMetrics) Retried() { m.mu.Lock(); m.seen.retries++; m.mu.Unlock() }

func (m *ctrlMetrics) Waited(d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if d < 0 {
		panic(fmt.Sprintf("Waited(%v)", d))
	}
	m.seen.waited++
}

func (m *ctrlMetrics) Worked(d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seen.worked++
	m.seen.workedSum += d
}

func (m *ctrlMetrics) snapshot() ctrlMetricsSeen {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.seen
}
