package kube

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/evsync/evsync/workqueue"
	clientgo "k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
)

// A Queue is a controller work queue built on a workqueue.Queue. It is
// client-go's TypedRateLimitingInterface[T] and
// controller-runtime's priorityqueue.PriorityQueue[T], with workqueue's
// de-duplication, delays, priorities and shutdown. See the package
// documentation for where its behaviour differs from client-go's.
//
// New, NewQueue and NewQueueFunc make one. The zero value is not usable.
// A Queue must not be copied after first use.
//
// An Add synchronizes before the Get that returns the item. So does an
// AddAfter, AddRateLimited or AddWithOpts whose time has come. A Done
// synchronizes before the Get that returns the item next. Every Done
// synchronizes before the return of the ShutDownWithDrain it lets finish.
type Queue[T comparable] struct {
	_ noCopy

	q *workqueue.Queue[T]

	// force ends a ShutDownWithDrain, and ShutDown cancels it. As
	// client-go puts it, "ShutDown can be called after ShutDownWithDrain
	// to force ShutDownWithDrain to stop waiting". A context made with
	// WithCancel on Background starts no goroutine.
	force     context.Context
	forceStop context.CancelFunc

	// gets is what Get waits with. ShutDown cancels it (client-go's
	// shutdown), or it never ends (Config.Lossless).
	gets     context.Context
	stopGets context.CancelFunc
	lossless bool

	gauges *gauges // the unfinished-work loop, nil without metrics
}

// Config is the optional configuration of a Queue of items of type T.
// The zero value is a queue without metrics that shuts down as
// client-go's does.
type Config[T comparable] struct {
	// Name names the queue's metrics. As in client-go, a queue without
	// a name reports no metrics.
	Name string

	// MetricsProvider, with a Name, receives the queue's metrics. Depth,
	// adds, queue latency, work duration and retries come as they happen.
	// The depth comes per priority from a MetricsProviderWithPriority.
	// Unfinished work and longest running processor come every 500 ms.
	// They come from one goroutine that runs until ShutDown or
	// ShutDownWithDrain returns. A queue without a provider starts no
	// goroutine. In client-go, a queue falls back on the global provider
	// set with client-go's SetProvider. That provider cannot be reached from
	// outside client-go, so here no provider means no metrics.
	MetricsProvider clientgo.MetricsProvider

	// Lossless keeps workqueue's shutdown, which loses nothing added. Then
	// ShutDown queues every delayed item at once. Get reports shutdown
	// only once nothing is queued and no item being processed was added
	// again. This has a cost. A controller reconciles each delayed key
	// once more, with its context cancelled, before it stops. And one
	// worker that holds an item up holds up every Get. By default the
	// queue shuts down as client-go's does (see the package doc).
	Lossless bool

	// Clock, if set, is the clock the queue keeps time by, so that a test
	// can step a fake one. It times the delays, the retries' backoff, the
	// metrics' durations and the 500 ms period of the unfinished-work
	// gauges. It is the Clock of client-go's queue configs, so
	// k8s.io/utils/clock/testing's FakeClock fits. Nil is the real clock.
	// After a Step, Len, Get and Add see every item whose time the clock
	// has passed as queued at once. A delay ends d after the clock's
	// reading at the call, also on a clock set back. See workqueue.WithClock,
	// which it is passed to.
	Clock clock.WithTicker

	// Queue configures the workqueue.Queue underneath, for example with a
	// fair share between namespaces. A rate limiter given to New (not nil)
	// wins over Queue.RateLimiter. The metrics of a Name and a
	// MetricsProvider win over Queue.Metrics. With Queue.Keep, an Add of
	// a key the queue has seen makes no new entry. A Queue has no Remove,
	// and Forget is the limiter's, so a kept key then stays until the
	// queue goes. Set Keep only where the keys are bounded over the
	// queue's life.
	Queue workqueue.Config[T]
}

// New returns an empty queue whose AddRateLimited waits as rateLimiter
// says. A nil rateLimiter means config.Queue.RateLimiter. If that is nil
// too, it means workqueue.DefaultRateLimiter, the same as client-go's
// DefaultTypedControllerRateLimiter. New panics if config.Queue.Mode is
// not a workqueue.Mode (see workqueue.NewWithConfig).
func New[T comparable](rateLimiter clientgo.TypedRateLimiter[T], config Config[T]) *Queue[T] {
	c := config.Queue
	if rateLimiter != nil {
		c.RateLimiter = rateLimiter // the method sets are the same
	}
	var m *metrics
	if config.Name != "" && config.MetricsProvider != nil {
		m = newMetrics(config.MetricsProvider, config.Name)
		c.Metrics = m
	}
	w := &Queue[T]{q: workqueue.NewWithConfig(c, workqueue.WithClock(config.Clock)), lossless: config.Lossless}
	w.force, w.forceStop = context.WithCancel(context.Background())
	w.gets, w.stopGets = context.Background(), func() {}
	if !config.Lossless {
		w.gets, w.stopGets = context.WithCancel(context.Background())
	}
	if m != nil {
		w.gauges = startGauges(w.q, m, config.Clock)
	}
	return w
}

// NewQueue is New without metrics, in the shape of controller-runtime's
// controller.Options.NewQueue. The name is not used (see Config.Name). The
// queue it returns is a *Queue[T], which controller-runtime's controller
// uses through its PriorityQueue methods.
func NewQueue[T comparable](name string, rateLimiter clientgo.TypedRateLimiter[T]) clientgo.TypedRateLimitingInterface[T] {
	return New(rateLimiter, Config[T]{})
}

// NewQueueFunc returns a controller.Options.NewQueue that makes each
// queue with New and config, named after the controller if config.Name
// is empty. The item type T comes from config, so it need not be given.
func NewQueueFunc[T comparable](config Config[T]) func(name string, rateLimiter clientgo.TypedRateLimiter[T]) clientgo.TypedRateLimitingInterface[T] {
	return func(name string, rateLimiter clientgo.TypedRateLimiter[T]) clientgo.TypedRateLimitingInterface[T] {
		c := config
		if c.Name == "" {
			c.Name = name
		}
		return New(rateLimiter, c)
	}
}

var _ priorityqueue.PriorityQueue[int] = (*Queue[int])(nil)

// Add marks item as needing processing. It never blocks.
//   - An item already queued stays where it is.
//   - An item being processed is queued again at its Done.
//   - A delayed item is queued now, and its delay is cancelled.
//
// After ShutDown, Add does nothing.
func (w *Queue[T]) Add(item T) { w.q.Add(item) }

// AddAfter adds item after duration. A duration ≤ 0 is Add. A delayed
// item keeps the earlier of its ready times. After ShutDown it does
// nothing.
func (w *Queue[T]) AddAfter(item T, duration time.Duration) { w.q.AddAfter(item, duration) }

// AddRateLimited adds item after the delay its rate limiter gives it
// (When) and counts a retry. After ShutDown it does nothing.
func (w *Queue[T]) AddRateLimited(item T) { w.q.AddRateLimited(item) }

// AddWithOpts adds each item with the options o.
//   - The delay is o.After. With o.RateLimited, it is the smaller of
//     o.After, if above 0, and the rate limiter's When.
//   - The priority is *o.Priority, or 0 if o.Priority is nil.
//
// The earliest ready time and the highest priority of an item's marks
// win. After ShutDown it does nothing.
func (w *Queue[T]) AddWithOpts(o priorityqueue.AddOpts, items ...T) {
	ro := workqueue.AddOpts{After: o.After, RateLimited: o.RateLimited}
	if o.Priority != nil {
		ro.Priority = *o.Priority
	}
	for _, item := range items {
		w.q.AddWith(item, ro)
	}
}

// AddWith marks item with workqueue's options o, and reports whether the
// mark is new (workqueue.Queue.AddWith). It says what
// controller-runtime's AddOpts cannot. With o.Replace the mark's ready
// time replaces the item's, later or earlier, in one step. So a
// controller postpones a delayed check to d from now (kubernetes#133560),
// which AddAfter cannot do. After ShutDown it does nothing and returns
// false.
func (w *Queue[T]) AddWith(item T, o workqueue.AddOpts) bool { return w.q.AddWith(item, o) }

// Forget clears item's retry state in the rate limiter. The queue also
// forgets it by itself once the item has left the queue (see the package
// documentation).
func (w *Queue[T]) Forget(item T) { w.q.Forget(item) }

// NumRequeues returns the rate limiter's count of item's retries.
func (w *Queue[T]) NumRequeues(item T) int { return w.q.NumRequeues(item) }

// Len returns the number of items queued, neither delayed nor being
// processed.
func (w *Queue[T]) Len() int { return w.q.Len() }

// Get waits until an item is queued and returns it with shutdown false.
// The caller processes it and then calls Done. Items are handed out
// highest priority first, in the order they were queued within a
// priority. After ShutDown, Get hands out what is still queued. Then it
// returns the zero T and shutdown true, as client-go's Get does. With
// Config.Lossless, it keeps waiting while an item being processed was
// added again, since its Done queues it.
func (w *Queue[T]) Get() (item T, shutdown bool) {
	if item, ok := w.tryOne(); ok {
		return item, false
	}
	var one [1]T
	items, err := w.q.WaitAppend(w.gets, one[:0], 1)
	switch {
	case err == nil:
		return items[0], false
	case err == workqueue.ErrClosed:
		return item, true
	}
	return w.afterShutDown()
}

// tryOne hands out the oldest queued item, if any, without waiting. It
// takes it into an array on its own stack, so that a Get that finds an
// item queued allocates nothing. A blocked Get is owed nothing it could
// take, since a caller only blocks while nothing is queued. So trying
// first hands out what Wait would.
func (w *Queue[T]) tryOne() (item T, ok bool) {
	var one [1]T
	if items := w.q.TryTakeAppend(one[:0], 1); len(items) == 1 {
		return items[0], true
	}
	return item, false
}

// afterShutDown is Get once ShutDown has ended its wait: it hands out
// what is queued without waiting, or reports shutdown.
func (w *Queue[T]) afterShutDown() (item T, shutdown bool) {
	if item, ok := w.tryOne(); ok {
		return item, false
	}
	return item, true
}

// errGetNilCtx is GetContext's error for a nil context, built once.
var errGetNilCtx = fmt.Errorf("kube: get: nil context: %w", workqueue.ErrInvalid)

// GetContext is Get that also returns when ctx ends, so that a worker can
// stop without a ShutDown of the queue (kubernetes#131185). It returns:
//   - the item, false and nil, as Get does
//   - the zero T, true and nil once Get would report shutdown
//   - the zero T, false and ctx.Err() at once if ctx is already done, or
//     when ctx ends while it waits; it then takes nothing, even if items
//     are queued or the queue is shut down
//   - the zero T, false and an error matching workqueue.ErrInvalid at
//     once for a nil ctx
//
// An item handed out to the call is returned, even if ctx ends at the
// same moment. So no item is lost to a cancellation: the caller holds
// each item it is given and must call Done for it.
//
// Why this shape. client-go's interface fixes Get() without arguments, so
// the context takes a new name, as net.Dialer's DialContext does.
// controller-runtime's GetWithPriority is fixed too, hence
// GetWithPriorityContext. Get's results keep their places and the error
// comes last. So a worker loop that used Get adds one check, and a
// shutdown needs no error of its own. The error is ctx's, so
// errors.Is(err, context.Canceled) works.
//
// It waits through workqueue.Queue.Wait, with a context that ends with
// ctx or at ShutDown. A call that finds an item queued allocates nothing,
// as Get does. A call that has to wait makes one allocation for the
// item, and without Config.Lossless a few more for that context.
func (w *Queue[T]) GetContext(ctx context.Context) (item T, shutdown bool, err error) {
	if ctx == nil {
		return item, false, errGetNilCtx
	}
	if err := ctx.Err(); err != nil {
		return item, false, err
	}
	if w.gets.Err() != nil { // shut down already: nothing to wait for
		item, shutdown = w.afterShutDown()
		return item, shutdown, nil
	}
	// An item queued needs no wait, and so no merged context: hand it out
	// as Wait would, oldest first. Only a call that must wait pays for one.
	if item, ok := w.tryOne(); ok {
		return item, false, nil
	}
	wait := ctx
	if !w.lossless {
		// Wait takes one context, so end it with ctx or with w.gets.
		// Both are cancelCtx chains from Background here, so AfterFunc
		// starts no goroutine unless w.gets ends first.
		var cancel context.CancelFunc
		wait, cancel = context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(w.gets, cancel)()
	}
	var one [1]T
	items, err := w.q.WaitAppend(wait, one[:0], 1)
	switch {
	case err == nil:
		return items[0], false, nil
	case err == workqueue.ErrClosed:
		return item, true, nil
	case ctx.Err() != nil: // Wait took nothing
		return item, false, ctx.Err()
	}
	item, shutdown = w.afterShutDown()
	return item, shutdown, nil
}

// GetWithPriority is Get that also returns the item's priority. That is
// the highest priority of its adds since the queue last forgot it.
func (w *Queue[T]) GetWithPriority() (item T, priority int, shutdown bool) {
	item, shutdown = w.Get()
	if !shutdown {
		priority, _ = w.q.Priority(item)
	}
	return item, priority, shutdown
}

// GetWithPriorityContext is GetContext that also returns the item's
// priority, as GetWithPriority does. Its outcomes are GetContext's, with
// priority 0 whenever no item is returned.
func (w *Queue[T]) GetWithPriorityContext(ctx context.Context) (item T, priority int, shutdown bool, err error) {
	item, shutdown, err = w.GetContext(ctx)
	if !shutdown && err == nil {
		priority, _ = w.q.Priority(item)
	}
	return item, priority, shutdown, err
}

// Done marks item as processed. If it was added while being processed,
// it is queued again, or delayed if its time has not come. Done of an
// item not being processed does nothing.
func (w *Queue[T]) Done(item T) { w.q.Done(item) }

// ShutDown makes the queue ignore every later add and drops the delayed
// items, as client-go's ShutDown does. It also ends a ShutDownWithDrain
// that is waiting. Get hands out what is queued and then reports
// shutdown. With Config.Lossless, ShutDown queues the delayed items
// instead (see Config.Lossless). With metrics, ShutDown returns after the
// unfinished-work goroutine has stopped. It is idempotent.
func (w *Queue[T]) ShutDown() {
	w.close()
	w.forceStop()
	w.gauges.stop()
}

// ShutDownWithDrain is ShutDown that then waits until every item is
// processed, with nothing queued, delayed or being processed. Workers must
// keep calling Get and Done meanwhile, or it waits until a ShutDown. After
// a ShutDown it does not wait. With metrics, the unfinished-work figures
// keep being reported while it waits.
func (w *Queue[T]) ShutDownWithDrain() {
	w.close()
	_ = w.q.Drain(w.force) // nil, or Canceled after ShutDown
	w.gauges.stop()
}

// close closes the workqueue.Queue as the configuration says and ends the
// waits of Get.
func (w *Queue[T]) close() {
	if w.lossless {
		w.q.Close()
		return
	}
	w.q.CloseDiscardingDelays()
	w.stopGets()
}

// ShuttingDown reports whether ShutDown or ShutDownWithDrain was called.
func (w *Queue[T]) ShuttingDown() bool { return w.q.Stats().Closed }

// Stats returns a snapshot of the underlying workqueue.Queue (see
// workqueue.Queue.Stats).
func (w *Queue[T]) Stats() workqueue.Stats { return w.q.Stats() }

// noCopy lets go vet's copylocks check flag copies of a Queue.
type noCopy struct{}

// Lock is a no-op. Its presence is what go vet looks for.
func (*noCopy) Lock() {}

// Unlock is a no-op, the pair of Lock.
func (*noCopy) Unlock() {}

// gauges is the goroutine that sets the unfinished-work and
// longest-running gauges, which client-go updates every 500 ms.
type gauges struct {
	quit chan struct{}
	once sync.Once
	wg   sync.WaitGroup
}

// gaugePeriod is client-go's unfinished-work update period.
const gaugePeriod = 500 * time.Millisecond

// startGauges starts the gauges' goroutine, which ticks on c (nil: the
// real clock). The ticker is made before the goroutine starts. So on a
// fake clock the first tick is due gaugePeriod after New, however late the
// goroutine runs.
func startGauges[T comparable](q *workqueue.Queue[T], m *metrics, c clock.WithTicker) *gauges {
	if c == nil {
		c = clock.RealClock{}
	}
	g := &gauges{quit: make(chan struct{})}
	t := c.NewTicker(gaugePeriod)
	g.wg.Go(func() {
		defer t.Stop()
		for {
			select {
			case <-g.quit:
				m.running(q.Running()) // the last figures, 0 after a drain
				return
			case <-t.C():
				m.running(q.Running())
			}
		}
	})
	return g
}

// stop ends the goroutine and waits for it. It accepts a nil g.
func (g *gauges) stop() {
	if g == nil {
		return
	}
	g.once.Do(func() { close(g.quit) })
	g.wg.Wait()
}
