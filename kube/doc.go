// Package kube is evsync's workqueue.Queue (github.com/evsync/evsync/workqueue)
// as a Kubernetes controller work queue. It implements client-go's
// TypedRateLimitingInterface (k8s.io/client-go/util/workqueue) and
// controller-runtime's priorityqueue.PriorityQueue. So a controller
// switches to it with one line:
//
//	c, err := controller.NewUnmanaged("pods", controller.Options{
//		Reconciler: r,
//		NewQueue:   kube.NewQueue[reconcile.Request],
//	})
//
// The type argument is needed, because Go does not infer it in a
// composite literal. With metrics, or with a workqueue.Config such as fair
// sharing between namespaces, use NewQueueFunc. It takes the type from its
// Config:
//
//	NewQueue: kube.NewQueueFunc(kube.Config[reconcile.Request]{
//		MetricsProvider: provider,
//		Queue: workqueue.Config[reconcile.Request]{
//			Fairness: func(r reconcile.Request) string { return r.Namespace },
//		},
//	}),
//
// The package is a module of its own (github.com/evsync/evsync/kube), so
// client-go and controller-runtime never enter the main module's build
// graph. It requires a version of the main module that has every API it
// calls: a release, or between releases a commit's pseudo-version
// (RELEASING.md). In the repository, go.work serves the tree instead.
//
// # The mapping
//
//	client-go / controller-runtime     evsync's workqueue
//	Add, AddAfter, AddRateLimited      Add, AddAfter, AddRateLimited
//	AddWithOpts(o, items...)           AddWith(item, AddOpts{After, RateLimited, *Priority}) per item
//	(none) AddWith(item, o)            AddWith(item, o), with every workqueue.AddOpts (Replace)
//	Get, GetWithPriority               Wait(ctx, 1), ctx ended by ShutDown; then TryTake(1)
//	(none) GetContext(ctx)             the same, ctx also ended by the caller's ctx
//	(none) GetWithPriorityContext(ctx) the same, with Priority
//	Done                               Done
//	Forget, NumRequeues                Forget, NumRequeues (the rate limiter's)
//	Len                                Len (queued items only)
//	ShutDown                           CloseDiscardingDelays (Close with Config.Lossless)
//	ShutDownWithDrain                  the same, then Drain
//	ShuttingDown                       Stats().Closed
//	MetricsProvider                    workqueue.Config.Metrics, plus Running every 500 ms
//	Clock                              workqueue.WithClock, and the 500 ms ticker
//
// # Where it differs from client-go and controller-runtime
//
// Shutdown. By default ShutDown is client-go's. Later adds are ignored,
// delayed items are dropped, and Get hands out what is queued, then
// reports shutdown. It does so even while a worker still holds an item
// that was added again. The priority queue of controller-runtime reports
// shutdown at once, with items still queued. Config.Lossless keeps
// evsync's shutdown instead. ShutDown then queues every delayed item. So a
// controller reconciles each delayed key once more, with its context
// cancelled, before Start returns. And Get waits for items being
// processed that were added again.
//
// Drain. ShutDownWithDrain waits until nothing is queued, delayed or
// being processed. In client-go, it waits until nothing is being
// processed. The two differ only when no worker calls Get any more. Then
// items still queued keep this one waiting, while client-go's returns.
// The priority queue of controller-runtime does not drain at all.
//
// A Config.Clock. After a fake clock's Step, every call sees each item
// whose time the clock has passed as queued. Len counts it, and Get
// returns it without waiting. In client-go, the queue's goroutine queues
// it later, so a test must poll.
//
// Add of a delayed item queues it now and cancels the delay. In client-go,
// Add queues it now and adds it again when the delay ends. So the item may
// be processed twice.
//
// Retry state. An item leaves the queue when its Done finds no new mark.
// The queue then calls the rate limiter's Forget for it, if
// AddRateLimited was called for it. So its next failure starts at the
// first delay. In client-go, the failures stay until the caller's Forget.
//
// Priorities. An item keeps the highest priority of any mark while the
// queue knows it, including marks made while it is processed. So a
// reconciler cannot lower a priority with its Result. The priority queue
// of controller-runtime takes the priority of a mark made during
// processing as it is. GetWithPriority reports the item's priority
// (evsync's Queue.Priority).
//
// A Get with a context. Neither client-go nor controller-runtime has one
// (kubernetes#131185). GetContext and GetWithPriorityContext return when
// the caller's context ends, with its error. So a controller can stop
// some of its workers without a ShutDown of the queue. A call whose
// context ends takes nothing. An item it was handed is returned.
//
// A postponed check. In client-go and controller-runtime the earliest
// ready time of a key wins, so a later AddAfter cannot postpone it
// (kubernetes#133560). AddWith with workqueue.AddOpts's Replace sets the
// key's ready time, later or earlier, in one step.
//
// Metrics. Only a queue given both a Name and a MetricsProvider reports
// metrics, since there is no global provider. Retries count the
// rate-limited adds only (AddRateLimited, AddWithOpts with RateLimited).
// In contrast, client-go counts every AddAfter, and controller-runtime's
// priority queue every delayed add. Adds count the marks that queue, delay
// or keep aside an item, and depth the queued items.
//
// A provider with controller-runtime's depth gauge per priority (see
// MetricsProviderWithPriority) gets the depth of each priority. That is
// how controller-runtime's priority queue reports it. A depth gauge never
// reads below zero.
//
// A queue with metrics runs one goroutine. It sets the unfinished-work and
// longest-running gauges every 500 ms, as client-go's does, until ShutDown
// or ShutDownWithDrain returns. A queue with metrics that is never shut
// down keeps it running. Without metrics the queue has no goroutine at
// all. The exception is a Config.Clock. Then one goroutine waits on its
// timer while an item is delayed (see workqueue.WithClock).
//
// The queue works inside a testing/synctest bubble. A blocked Get or
// ShutDownWithDrain is durably blocked, so synctest.Wait returns while it
// waits. Delays, retries and the 500 ms metrics updates run on the
// bubble's fake clock. Make each Queue in the bubble that uses it. Its
// channels, timers and goroutine belong to that bubble, so it must not be
// shared with another bubble or with code outside. Shut a queue with
// metrics down before the bubble ends, or synctest.Test fails on its
// goroutine.
package kube
