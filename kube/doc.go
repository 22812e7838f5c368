// Package kube is a readyq.Queue as a Kubernetes controller work queue:
// it implements client-go's workqueue.TypedRateLimitingInterface and
// controller-runtime's priorityqueue.PriorityQueue, so a controller
// switches to it with one line:
//
//	c, err := controller.NewUnmanaged("pods", controller.Options{
//		Reconciler: r,
//		NewQueue:   kube.NewQueue[reconcile.Request],
//	})
//
// (the type argument is needed: Go does not infer it in a composite
// literal). With metrics, or with readyq options such as fair sharing
// between namespaces, use NewQueueFunc:
//
//	NewQueue: kube.NewQueueFunc[reconcile.Request](kube.Config{
//		MetricsProvider: provider,
//		Options: []readyq.Option{readyq.WithFairness(func(r reconcile.Request) string {
//			return r.Namespace
//		})},
//	}),
//
// The package is a module of its own (github.com/evsync/evsync/kube, with
// a replace directive pointing at the main module), so client-go and
// controller-runtime never enter the main module's build graph.
//
// # The mapping
//
//	client-go / controller-runtime     readyq
//	Add, AddAfter, AddRateLimited      Add, AddAfter, AddRateLimited
//	AddWithOpts(o, items...)           AddWith(item, AddOpts{After, RateLimited, *Priority}) per item
//	Get, GetWithPriority               Wait(context.Background(), 1); ErrClosed is shutdown
//	Done                               Done
//	Forget, NumRequeues                Forget, NumRequeues (the rate limiter's)
//	Len                                Len (queued items only)
//	ShutDown                           Close
//	ShutDownWithDrain                  Close, then Drain
//	ShuttingDown                       Stats().Closed
//	MetricsProvider                    WithMetrics, plus Running every 500 ms
//
// # Where it differs from client-go and controller-runtime
//
// Delayed items at shutdown. ShutDown queues every delayed item at once,
// and Get hands it out before it reports shutdown: nothing delayed is
// lost (readyq's Close). client-go's queue drops delayed items at
// ShutDown, and controller-runtime's priority queue stops handing out
// anything at all. In a controller this means that once its context is
// cancelled, its workers still reconcile each queued and each delayed
// request once (with the cancelled context) before Start returns.
//
// Drain. ShutDownWithDrain waits until nothing is queued, delayed or
// being processed. client-go's waits until nothing is being processed,
// which can happen while items are still queued (a worker between Done
// and Get); controller-runtime's priority queue does not drain at all.
//
// Add of a delayed item queues it now and cancels the delay. client-go
// queues it now and adds it again when the delay ends, so the item may be
// processed twice.
//
// Retry state. When an item leaves the queue (its Done finds no new
// mark), the queue calls the rate limiter's Forget for it if
// AddRateLimited was called for it, so its next failure starts at the
// first delay. client-go keeps the failures until the caller's Forget.
//
// Priorities. An item keeps the highest priority of any mark while the
// queue knows it, including marks made while it is processed; so a
// reconciler cannot lower a priority with its Result. controller-runtime's
// priority queue takes the priority of a mark made during processing as
// it is. GetWithPriority reports the item's priority (readyq's Priority).
//
// Metrics. Only a queue given both a Name and a MetricsProvider reports
// metrics (there is no global provider). Retries count the rate-limited
// adds only (AddRateLimited, AddWithOpts with RateLimited): client-go
// counts every AddAfter, and controller-runtime's priority queue every
// delayed add. Adds count the marks that queue, delay or keep aside an
// item, and depth the queued items. A provider with controller-runtime's
// depth gauge per priority (see MetricsProviderWithPriority) gets the
// depth of each priority, as controller-runtime's priority queue reports
// it. A depth gauge never reads below zero. Such a queue runs one
// goroutine, which sets the unfinished-work and longest-running gauges
// every 500 ms, as client-go's does, until ShutDown or ShutDownWithDrain
// returns; a queue with metrics that is never shut down keeps it running.
// Without metrics the queue has no goroutine at all.
package kube
