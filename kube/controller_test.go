package kube_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/evsync/evsync/kube"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// object returns the i-th test object: metadata is all a GenericEvent
// and EnqueueRequestForObject need.
func object(i int) client.Object {
	return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
		Namespace: fmt.Sprintf("ns-%d", i%5),
		Name:      fmt.Sprintf("obj-%d", i),
	}}
}

// plan is how a test reconciler treats one object: it fails the first
// failures attempts, with an error (a rate-limited retry) or, if
// requeueAfter, with a RequeueAfter result (a plain delayed retry).
type plan struct {
	failures     int
	requeueAfter bool
}

func planFor(i int) plan { return plan{failures: i % 4, requeueAfter: i%3 == 0} }

// reconciler counts attempts per request and checks what the queue
// promises a controller: no request is reconciled by two workers at once,
// each succeeds once, and an error-retried one has NumRequeues equal to
// its failures when it succeeds.
type reconciler struct {
	t     *testing.T
	plans map[reconcile.Request]plan
	queue func() *kube.Queue[reconcile.Request]
	succ  sync.WaitGroup // one per request, Done at its success

	mu       sync.Mutex
	attempts map[reconcile.Request]int
	busy     map[reconcile.Request]bool
}

func (r *reconciler) Reconcile(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
	n, p, ok := r.begin(req)
	defer r.end(req)
	switch {
	case !ok:
		return reconcile.Result{}, nil
	case n <= p.failures && p.requeueAfter:
		return reconcile.Result{RequeueAfter: time.Millisecond}, nil
	case n <= p.failures:
		return reconcile.Result{}, errors.New("transient")
	}
	if n > p.failures+1 {
		r.t.Errorf("%v reconciled %d times, want %d: it succeeded before", req, n, p.failures+1)
		return reconcile.Result{}, nil
	}
	want := p.failures
	if p.requeueAfter {
		want = 0 // the controller Forgets before a RequeueAfter
	}
	if got := r.queue().NumRequeues(req); got != want {
		r.t.Errorf("%v: NumRequeues = %d at success, want %d", req, got, want)
	}
	r.succ.Done()
	return reconcile.Result{}, nil
}

// begin records an attempt and returns its number (from 1) and the
// request's plan.
func (r *reconciler) begin(req reconcile.Request) (int, plan, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, ok := r.plans[req]
	if !ok {
		r.t.Errorf("reconciled %v, which was never sent", req)
	}
	if r.busy[req] {
		r.t.Errorf("%v reconciled by two workers at once", req)
	}
	r.busy[req] = true
	r.attempts[req]++
	return r.attempts[req], p, ok
}

func (r *reconciler) end(req reconcile.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.busy[req] = false
}

// TestControllerReconcilesEverything runs a real controller-runtime
// controller, with no API server: a channel source feeds it GenericEvents
// for a few hundred objects, and the reconciler fails some of them a few
// times, by error and by RequeueAfter, before they succeed.
func TestControllerReconcilesEverything(t *testing.T) {
	const n = 300
	events := make(chan event.GenericEvent, n)
	r := &reconciler{
		t:        t,
		plans:    make(map[reconcile.Request]plan),
		attempts: make(map[reconcile.Request]int),
		busy:     make(map[reconcile.Request]bool),
	}
	wantRetries := 0
	for i := range n {
		obj := object(i)
		events <- event.GenericEvent{Object: obj}
		r.plans[reconcile.Request{NamespacedName: client.ObjectKeyFromObject(obj)}] = planFor(i)
		if p := planFor(i); !p.requeueAfter {
			wantRetries += p.failures
		}
	}
	r.succ.Add(n)

	metrics := new(provider)
	newQueue := kube.NewQueueFunc(kube.Config[reconcile.Request]{MetricsProvider: metrics})
	queues := make(chan *kube.Queue[reconcile.Request], 1)
	r.queue = sync.OnceValue(func() *kube.Queue[reconcile.Request] { return <-queues })
	skip := true
	c, err := controller.NewUnmanaged("kube-test", controller.Options{
		Reconciler:              r,
		MaxConcurrentReconciles: 4,
		SkipNameValidation:      &skip,
		// Short backoffs, so that the retries take milliseconds.
		RateLimiter: workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](time.Millisecond, 10*time.Millisecond),
		NewQueue: func(name string, rl workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
			q := newQueue(name, rl).(*kube.Queue[reconcile.Request])
			queues <- q
			return q
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Watch(source.Channel(events, &handler.EnqueueRequestForObject{})); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stopped := make(chan error, 1)
	go func() { stopped <- c.Start(ctx) }()
	r.succ.Wait() // every object reconciled to success
	cancel()
	if err := <-stopped; err != nil {
		t.Fatalf("Start: %v", err)
	}

	r.mu.Lock()
	defer r.mu.Unlock()
	tries := 0
	for req, p := range r.plans {
		if got := r.attempts[req]; got != p.failures+1 {
			t.Errorf("%v reconciled %d times, want %d", req, got, p.failures+1)
		}
		tries += r.attempts[req]
	}
	if got := metrics.retries.Load(); got != int64(wantRetries) {
		t.Errorf("retries metric = %d, want %d (the error retries)", got, wantRetries)
	}
	if st := r.queue().Stats(); st.Queued != 0 || st.Delayed != 0 || st.InFlight != 0 || !st.Closed {
		t.Errorf("queue after Start returned: %v, delayed %d; want empty and closed", st, st.Delayed)
	}
	if got := len(metrics.work.values()); got != tries {
		t.Errorf("work duration observed %d times, want one per reconcile: %d", got, tries)
	}
	t.Logf("%d objects, %d reconciles, %d rate-limited retries", n, tries, wantRetries)
}

// signalQueue is a kube.Queue that reports each AddWithOpts once it has
// taken effect.
type signalQueue struct {
	*kube.Queue[reconcile.Request]
	added chan struct{}
}

func (s signalQueue) AddWithOpts(o priorityqueue.AddOpts, items ...reconcile.Request) {
	s.Queue.AddWithOpts(o, items...)
	s.added <- struct{}{}
}

// shutDownDelayed runs a controller over n objects whose reconciler asks
// to see each again in an hour, cancels it once every request is delayed,
// and returns the context errors its reconciles saw, in order.
func shutDownDelayed(t *testing.T, n int, config kube.Config[reconcile.Request]) []error {
	t.Helper()
	events := make(chan event.GenericEvent, n)
	for i := range n {
		events <- event.GenericEvent{Object: object(i)}
	}
	var (
		mu   sync.Mutex
		errs []error // ctx.Err() of each reconcile
	)
	rec := reconcile.Func(func(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
		mu.Lock()
		defer mu.Unlock()
		errs = append(errs, ctx.Err())
		return reconcile.Result{RequeueAfter: time.Hour}, nil
	})
	added := make(chan struct{}, 2*n)
	skip := true
	c, err := controller.NewUnmanaged("kube-shutdown-test", controller.Options{
		Reconciler:         rec,
		SkipNameValidation: &skip,
		NewQueue: func(name string, rl workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
			return signalQueue{kube.New(rl, config), added}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Watch(source.Channel(events, &handler.EnqueueRequestForObject{})); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stopped := make(chan error, 1)
	go func() { stopped <- c.Start(ctx) }()
	for range n {
		<-added // a reconcile asked for an hour's delay, and the queue has it
	}
	cancel()
	if err := <-stopped; err != nil {
		t.Fatalf("Start: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	return errs
}

// TestControllerShutDownDropsDelayed: by default a controller stops as it
// does on client-go's queue. With 300 requests delayed for an hour, none
// is reconciled again once its context is cancelled.
func TestControllerShutDownDropsDelayed(t *testing.T) {
	errs := shutDownDelayed(t, 300, kube.Config[reconcile.Request]{})
	if len(errs) != 300 {
		t.Fatalf("%d reconciles of 300 objects delayed an hour; want 300, none after the stop", len(errs))
	}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("reconcile %d saw its context ended: %v", i, err)
		}
	}
}

// TestControllerLosslessShutDownReconcilesDelayed: with Config.Lossless a
// request the reconciler asked to see again in an hour is reconciled once
// more, with the cancelled context, before Start returns.
func TestControllerLosslessShutDownReconcilesDelayed(t *testing.T) {
	errs := shutDownDelayed(t, 1, kube.Config[reconcile.Request]{Lossless: true})
	if len(errs) != 2 || errs[0] != nil || !errors.Is(errs[1], context.Canceled) {
		t.Fatalf("reconciles saw contexts ending with %v; want [nil, context.Canceled]", errs)
	}
}
