// Command consumer is what a module that depends on evsync builds: a
// controller-runtime controller on kube's work queue, whose reconciler
// bounds its work with an evsync semaphore. It needs no API server: a
// channel source feeds it, and it exits once every request is reconciled.
// Then a poll.Set over the limiter and a signal reports them ready.
package main

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/evsync/evsync/kube"
	"github.com/evsync/evsync/poll"
	"github.com/evsync/evsync/semaphore"
	"github.com/evsync/evsync/signal"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

const requests = 8

func main() {
	events := make(chan event.GenericEvent, requests)
	for i := range requests {
		events <- event.GenericEvent{Object: &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
			Namespace: "default", Name: fmt.Sprintf("obj-%d", i),
		}}}
	}

	lim := semaphore.NewLimiter(2) // at most two reconciles at a time
	var (
		running atomic.Int64
		over    atomic.Bool // more reconciles at once than the limiter allows
		all     sync.WaitGroup
	)
	all.Add(requests)
	r := reconcile.Func(func(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
		p, err := lim.AcquirePermit(ctx, 1)
		if err != nil {
			return reconcile.Result{}, err
		}
		defer p.Release()
		if running.Add(1) > 2 {
			over.Store(true)
		}
		running.Add(-1)
		all.Done()
		return reconcile.Result{}, nil
	})

	c, err := controller.NewUnmanaged("consumer", controller.Options{
		Reconciler:              r,
		NewQueue:                kube.NewQueue[reconcile.Request],
		MaxConcurrentReconciles: 4,
	})
	if err != nil {
		fail(err)
	}
	if err := c.Watch(source.Channel(events, &handler.EnqueueRequestForObject{})); err != nil {
		fail(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- c.Start(ctx) }()

	finished := make(chan struct{})
	go func() { all.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(time.Minute):
		fail(fmt.Errorf("not every request was reconciled within a minute"))
	}
	cancel()
	if err := <-stopped; err != nil {
		fail(err)
	}
	if err := lim.Drain(context.Background()); err != nil {
		fail(err)
	}
	if over.Load() {
		fail(fmt.Errorf("more than 2 reconciles ran at once"))
	}
	fmt.Printf("consumer: %d requests reconciled on kube.NewQueue, at most 2 at once\n", requests)
	pollBoth(lim)
}

// pollBoth waits on lim and a signal with one poll.Set: the limiter has
// every unit free, and the signal gets a write.
func pollBoth(lim *semaphore.Limiter) {
	var set poll.Set[string]
	defer set.Close()
	sig := signal.New(0)
	for name, src := range map[string]any{"limiter": lim, "signal": sig} {
		if err := set.Add(src, name, poll.In, poll.Edge); err != nil {
			fail(err)
		}
	}
	if err := sig.Add(1); err != nil {
		fail(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	got := map[string]poll.Events{}
	for len(got) < 2 {
		events, err := set.Wait(ctx, nil, 4)
		if err != nil {
			fail(err)
		}
		for _, e := range events {
			got[e.Key] = e.Events
		}
	}
	fmt.Printf("consumer: poll.Set reported %v\n", got)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "consumer:", err)
	os.Exit(1)
}
