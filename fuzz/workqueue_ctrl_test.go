package fuzz_test

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sync"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/model"
	"github.com/evsync/evsync/workqueue"
)

// The controller calls of FuzzWorkqueue: delays, priorities, rate-limited
// retries, fair share and metrics (see workqueue_test.go for the format).
//
// A delay is one byte: '0'…'9' are 0, 1ns, 1ms, 2ms, 5ms, 10ms, 100ms,
// 1s, 1h and -1ns, '-' is -1h, '_' math.MinInt64, any other byte one of
// the ten modulo 10. A priority is one byte: '0'…'9' are 0, 1, 2, 3, -1,
// -2, 5, 10, 100 and -100, '_' math.MinInt, '+' math.MaxInt, any other
// byte one of the ten modulo 10. The clock (P) moves on by its delay, or,
// for a delay ≤ 0, to the next ready time exactly.

var (
	rqDelays     = [...]time.Duration{0, 1, time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond, 10 * time.Millisecond, 100 * time.Millisecond, time.Second, time.Hour, -1}
	rqPriorities = [...]int{0, 1, 2, 3, -1, -2, 5, 10, 100, -100}
)

// delay decodes a delay.
func (d *decoder) delay() time.Duration {
	switch b := d.byte(); {
	case b == '-':
		return -time.Hour
	case b == '_':
		return math.MinInt64
	case '0' <= b && b <= '9':
		return rqDelays[b-'0']
	default:
		return rqDelays[int(b)%len(rqDelays)]
	}
}

// priority decodes a priority.
func (d *decoder) priority() int {
	switch b := d.byte(); {
	case b == '_':
		return math.MinInt
	case b == '+':
		return math.MaxInt
	case '0' <= b && b <= '9':
		return rqPriorities[b-'0']
	default:
		return rqPriorities[int(b)%len(rqPriorities)]
	}
}

// rqCtrl is what a run keeps for the controller calls.
type rqCtrl struct {
	fair bool // Config.Fairness
	// defaultLimiter: the queue has DefaultRateLimiter, whose token
	// bucket (burst 100) the model does not have; retries stay below the
	// burst.
	defaultLimiter bool
	metrics        *rqMetrics // nil without Config.Metrics

	adds   int                   // marks the model reported new
	start  map[int]time.Duration // items in flight: when they were handed out
	taken  int                   // items handed out
	done   int                   // items in flight Done
	worked time.Duration         // Σ of their times in flight
}

// construct applies the option bits 2, 4, 8 and 16 (see FuzzWorkqueue)
// to the queue's configuration qc and the model's options mo.
func (c *rqCtrl) construct(tl tally, flags int, mo *model.WorkQueueConfig, qc *workqueue.Config[int]) {
	c.start = map[int]time.Duration{}
	switch {
	case flags&16 != 0:
		c.fair = true
		mo.FairShare = fuzzFairShare
		qc.FairShare = workqueue.FairShare[int](mo.FairShare)
		tl.hit("New", "fair share")
	case flags&2 != 0:
		c.fair = true
		mo.Fairness = func(k int) string { return fmt.Sprint(k % 3) }
		qc.Fairness = mo.Fairness
		tl.hit("New", "fairness")
	}
	if flags&4 != 0 {
		c.metrics = &rqMetrics{}
		qc.Metrics = c.metrics
		tl.hit("New", "metrics")
	}
	if flags&8 != 0 {
		mo.BaseDelay, mo.MaxDelay = time.Millisecond, 8*time.Millisecond
		qc.RateLimiter = workqueue.ExponentialRateLimiter[int](mo.BaseDelay, mo.MaxDelay)
		tl.hit("New", "short limiter")
	} else {
		c.defaultLimiter = true
	}
}

// fuzzFairShare is option bit 16's fair share: two dimensions, item k's
// keys k%2 and k/2%2, key "0" of dimension 0 of weight 3, key "1" of
// dimension 1 of weight 2, the others of weight 1.
var fuzzFairShare = model.FairShare{
	Dims: 2,
	Key: func(k, dim int) string {
		if dim == 0 {
			return fmt.Sprint(k % 2)
		}
		return fmt.Sprint(k / 2 % 2)
	},
	Weight: func(dim int, key string) int {
		switch {
		case dim == 0 && key == "0":
			return 3
		case dim == 1 && key == "1":
			return 2
		}
		return 1
	},
}

// ctrlStep makes the operation F, H, I, J, O or P (i = 0…5).
func (r *rqRun) ctrlStep(i int, d *decoder) string {
	switch i {
	case 0:
		k, after := d.key(), d.delay()
		return r.mark("AddAfter", k, r.mode, 0, func() (bool, bool) {
			return r.q.AddAfter(k, after), r.m.AddAfter(k, after)
		}) + fmt.Sprintf(" (item %d, after %v)", k, after)
	case 1:
		k, after, f := d.key(), d.delay(), d.byte()
		return r.addWith(k, after, f&1 == 1, f&2 != 0, d.priority())
	case 2:
		k := d.key()
		if !r.retryAllowed() {
			r.tl.hit("AddRateLimited", "skipped: default limiter's burst")
			return "AddRateLimited skipped"
		}
		return r.mark("AddRateLimited", k, r.mode, 0, func() (bool, bool) {
			return r.q.AddRateLimited(k), r.m.AddRateLimited(k)
		}) + fmt.Sprintf(" (item %d)", k)
	case 3:
		k := d.key()
		if r.m.NumRequeues(k) != 0 {
			r.tl.hit("Forget", "had retries")
		} else {
			r.tl.hit("Forget", "none")
		}
		r.q.Forget(k)
		r.m.Forget(k)
		return fmt.Sprintf("Forget(%d)", k)
	case 4:
		k := d.key()
		got, want := r.q.NumRequeues(k), r.m.NumRequeues(k)
		if got != want {
			r.fail("NumRequeues(%d) = %d, model %d", k, got, want)
		}
		r.tl.hit("NumRequeues", fmt.Sprint(min(want, 2)))
		return fmt.Sprintf("NumRequeues(%d) = %d", k, got)
	}
	return r.advance(d.delay())
}

func (r *rqRun) addWith(k int, after time.Duration, limited, replace bool, prio int) string {
	if limited && !r.retryAllowed() {
		limited = false
	}
	o := workqueue.AddOpts{After: after, RateLimited: limited, Priority: prio, Replace: replace}
	p, _ := r.m.Priority(k)
	raises := slices.Contains(r.m.Queue(), k) && prio > p
	before := r.where(k)
	desc := r.mark("AddWith", k, r.mode, prio, func() (bool, bool) {
		return r.q.AddWith(k, o), r.m.AddWith(k, model.AddOpts(o))
	})
	if limited {
		r.tl.hit("AddWith", "rate limited")
	}
	if raises {
		r.tl.hit("AddWith", "raised a queued item")
	}
	switch after := r.where(k); {
	case replace && before == rqDelayed && after == rqDelayed:
		r.tl.hit("AddWith", "replace: a delayed item's time moved")
	case replace && before == rqQueued && after == rqDelayed:
		r.tl.hit("AddWith", "replace: a queued item delayed")
	}
	return desc + fmt.Sprintf(" (item %d, %+v)", k, o)
}

// retryAllowed reports whether another retry keeps the default limiter's
// token bucket out of the picture (it starts with 100 tokens).
func (r *rqRun) retryAllowed() bool { return !r.ctrl.defaultLimiter || r.m.Retries() < 90 }

// advance moves the bubble's clock and the model's on by d (d ≤ 0: to
// the next ready time), stopping at each ready time on the way, where the
// queue's timer queues what is due and settles the parked calls.
func (r *rqRun) advance(d time.Duration) string {
	if d <= 0 {
		d = 0
		if at, ok := r.nextReady(); ok {
			d = at - r.m.Now()
		}
	}
	delayed, taken := r.m.Stats().Delayed, r.ctrl.taken
	end := r.m.Now() + d
	for {
		at, ok := r.nextReady()
		if !ok || at > end {
			break
		}
		r.sleep(at - r.m.Now())
	}
	r.sleep(end - r.m.Now())
	switch {
	case r.m.Stats().Delayed == delayed:
		r.tl.hit("Advance", "nothing due")
	case r.ctrl.taken != taken:
		r.tl.hit("Advance", "handed to a parked Wait")
	default:
		r.tl.hit("Advance", "queued delayed items")
	}
	return fmt.Sprintf("Advance(%v) to %v", d, r.m.Now())
}

// nextReady is the model's first ready time, if an item is delayed: the
// time the queue's timer is armed for.
func (r *rqRun) nextReady() (time.Duration, bool) {
	if ds := r.m.Delays(); len(ds) != 0 {
		return ds[0].At, true
	}
	return 0, false
}

// sleep moves both clocks on by d and settles the parked calls.
func (r *rqRun) sleep(d time.Duration) {
	time.Sleep(d)
	synctest.Wait() // the timer has run, and the calls it woke have returned
	r.m.Advance(d)
	r.settle()
}

// handedOut notes the items just handed out (by the model), for Running
// and the metrics.
func (r *rqRun) handedOut(items []int) {
	for _, k := range items {
		r.ctrl.start[k] = r.m.Now()
	}
	r.ctrl.taken += len(items)
}

// finished notes the items of a Done that were in flight (before[i]).
func (r *rqRun) finished(ks []int, before []rqWhere) {
	for i, k := range ks {
		if s, ok := r.ctrl.start[k]; ok && before[i] == rqInFlight && !slices.Contains(ks[:i], k) {
			r.ctrl.worked += r.m.Now() - s
			r.ctrl.done++
			delete(r.ctrl.start, k)
		}
	}
}

// checkCtrl compares the limiter's counts and the priorities of every
// item, Running and the metrics with the model.
func (r *rqRun) checkCtrl(desc string) {
	for k := range rqKeys {
		if got, want := r.q.NumRequeues(k), r.m.NumRequeues(k); got != want {
			r.fail("after %s: NumRequeues(%d) = %d, model %d", desc, k, got, want)
		}
		p, known := r.q.Priority(k)
		if wp, wknown := r.m.Priority(k); p != wp || known != wknown {
			r.fail("after %s: Priority(%d) = %d, %v, model %d, %v", desc, k, p, known, wp, wknown)
		}
	}
	var un, long time.Duration
	if r.ctrl.metrics != nil {
		for _, s := range r.ctrl.start {
			un += r.m.Now() - s
			long = max(long, r.m.Now()-s)
		}
	}
	if gu, gl := r.q.Running(); gu != un || gl != long {
		r.fail("after %s: Running() = %v, %v, want %v, %v", desc, gu, gl, un, long)
	}
	if r.ctrl.metrics == nil {
		return
	}
	want := rqMetricsSeen{
		depth: r.m.Len(), adds: r.ctrl.adds, retries: int(r.m.Retries()),
		waited: r.ctrl.taken, worked: r.ctrl.done, workedSum: r.ctrl.worked,
	}
	if got := r.ctrl.metrics.snapshot(); got != want {
		r.fail("after %s: metrics %+v, want %+v", desc, got, want)
	}
	byPrio := make(map[int]int)
	for _, k := range r.m.Queue() {
		p, _ := r.m.Priority(k)
		byPrio[p]++
	}
	if got := r.ctrl.metrics.depths(); !maps.Equal(got, byPrio) {
		r.fail("after %s: depth per priority %v, model %v", desc, got, byPrio)
	}
}

// rqMetrics adds up what a queue reports to its Metrics.
type rqMetrics struct {
	mu    sync.Mutex
	seen  rqMetricsSeen
	prios map[int]int // the last depth reported of each priority, but 0
}

type rqMetricsSeen struct {
	depth, adds, retries, waited, worked int
	workedSum                            time.Duration
}

// Depth keeps the last total and the last depth of each priority.
func (m *rqMetrics) Depth(prio, n, total int) {
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
func (m *rqMetrics) depths() map[int]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.prios)
}

func (m *rqMetrics) Added()   { m.mu.Lock(); m.seen.adds++; m.mu.Unlock() }
func (m *rqMetrics) Retried() { m.mu.Lock(); m.seen.retries++; m.mu.Unlock() }

func (m *rqMetrics) Waited(d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if d < 0 {
		m.seen.waited = math.MinInt // shows as a mismatch
	}
	m.seen.waited++
}

func (m *rqMetrics) Worked(d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seen.worked++
	m.seen.workedSum += d
}

func (m *rqMetrics) snapshot() rqMetricsSeen {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.seen
}
