package kube_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/evsync/evsync/kube"
	"github.com/evsync/evsync/workqueue"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// A controller-runtime controller switches to evsync's work queue with
// one line in its Options, NewQueue. This one runs without an API server,
// fed by a channel source.
func ExampleNewQueue() {
	events := make(chan event.GenericEvent, 3)
	for i := range 3 {
		events <- event.GenericEvent{Object: object(i)}
	}
	var (
		mu   sync.Mutex
		seen []string
		all  sync.WaitGroup
	)
	all.Add(3)
	r := reconcile.Func(func(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, req.String())
		all.Done()
		return reconcile.Result{}, nil
	})

	skip := true // the example may run more than once in a process
	c, err := controller.NewUnmanaged("example", controller.Options{
		Reconciler:         r,
		NewQueue:           kube.NewQueue[reconcile.Request], // the switch
		SkipNameValidation: &skip,
	})
	if err != nil {
		panic(err)
	}
	if err := c.Watch(source.Channel(events, &handler.EnqueueRequestForObject{})); err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error)
	go func() { stopped <- c.Start(ctx) }()
	all.Wait()
	cancel()
	if err := <-stopped; err != nil {
		panic(err)
	}
	slices.Sort(seen)
	fmt.Println(seen)
	// Output: [ns-0/obj-0 ns-1/obj-1 ns-2/obj-2]
}

// A Queue is also a client-go work queue, used with Get, then Done. An
// item added while it is processed comes back after its Done. Priorities
// order the hand-outs, and an item keeps its priority while the queue
// knows it.
func ExampleQueue() {
	q := kube.New(nil, kube.Config[string]{})
	urgent := 10
	q.Add("a")
	q.AddWithOpts(priorityqueue.AddOpts{Priority: &urgent}, "b")
	item, _ := q.Get()
	fmt.Println(item)
	q.Add(item) // added while processing, so kept until Done, still at priority 10
	q.Done(item)
	q.ShutDown() // what is queued is still handed out
	for {
		item, shutdown := q.Get()
		if shutdown {
			break
		}
		fmt.Println(item)
		q.Done(item)
	}
	// Output:
	// b
	// b
	// a
}

// NewQueueFunc passes a workqueue.Config through. Here it is a fair share of
// the hand-outs between namespaces, so that one busy namespace does not
// hold up the others. The item type comes from the Config.
func ExampleNewQueueFunc() {
	opts := controller.Options{
		NewQueue: kube.NewQueueFunc(kube.Config[reconcile.Request]{
			Queue: workqueue.Config[reconcile.Request]{
				Fairness: func(r reconcile.Request) string { return r.Namespace },
			},
		}),
	}
	q := opts.NewQueue("example", nil) // what the controller does at Start
	defer q.ShutDown()
	for _, key := range []string{"busy/a", "busy/b", "busy/c", "quiet/x"} {
		ns, name, _ := strings.Cut(key, "/")
		q.Add(reconcile.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}})
	}
	for q.Len() > 0 {
		req, _ := q.Get()
		fmt.Println(req)
		q.Done(req)
	}
	// Output:
	// busy/a
	// quiet/x
	// busy/b
	// busy/c
}

// A worker stops when its own context ends, while the queue stays open
// for the others: scaling workers down needs no ShutDown.
func ExampleQueue_GetContext() {
	q := kube.New[string](nil, kube.Config[string]{})
	defer q.ShutDown()
	q.Add("a")
	ctx, stop := context.WithCancel(context.Background())
	worker := func() error {
		for {
			item, shutdown, err := q.GetContext(ctx)
			if shutdown || err != nil {
				return err
			}
			fmt.Println("processed", item)
			q.Done(item)
			stop() // this worker is told to stop after one item
		}
	}
	fmt.Println("worker returned:", worker())
	fmt.Println("shutting down:", q.ShuttingDown())
	// Output:
	// processed a
	// worker returned: context canceled
	// shutting down: false
}
