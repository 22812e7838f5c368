package kube_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/kube"
	"github.com/evsync/evsync/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
)

// ctxGot is what a GetWithPriorityContext returned.
type ctxGot struct {
	got
	err error
}

// parkGetContext calls GetWithPriorityContext(ctx) in a goroutine and
// returns once it is parked or has returned.
func parkGetContext(ctx context.Context, q *kube.Queue[string]) <-chan ctxGot {
	return testkit.Park(func() ctxGot {
		item, priority, shutdown, err := q.GetWithPriorityContext(ctx)
		return ctxGot{got{item, priority, shutdown}, err}
	})
}

// wantCtxGot fails t unless g is want.
func wantCtxGot(t *testing.T, what string, g, want ctxGot) {
	t.Helper()
	if g.got != want.got || !errors.Is(g.err, want.err) || (want.err == nil) != (g.err == nil) {
		t.Fatalf("%s = %+v, %v; want %+v, %v", what, g.got, g.err, want.got, want.err)
	}
}

// TestGetContextCanceledBeforeTakesNothing: a context done at the call
// returns its error at once. The queued item stays queued, on an open
// queue, a shut down one, and a lossless one.
func TestGetContextCanceledBeforeTakesNothing(t *testing.T) {
	for _, c := range []struct {
		name     string
		lossless bool
		shutDown bool
	}{{"open", false, false}, {"shut down", false, true}, {"lossless", true, false}, {"lossless shut down", true, true}} {
		t.Run(c.name, func(t *testing.T) {
			q := newQueueWith(t, kube.Config[string]{Lossless: c.lossless})
			q.Add("a")
			if c.shutDown {
				q.ShutDown()
			}
			item, shutdown, err := q.GetContext(testkit.Cancelled())
			if item != "" || shutdown || !errors.Is(err, context.Canceled) {
				t.Fatalf("GetContext(cancelled) = %q, %v, %v; want \"\", false, Canceled", item, shutdown, err)
			}
			if n := q.Len(); n != 1 {
				t.Fatalf("Len = %d after a cancelled GetContext, want 1", n)
			}
			if got := get(t, q); got != "a" {
				t.Fatalf("Get = %q, want a", got)
			}
		})
	}
}

// TestGetContextCanceledWhileWaiting: a GetContext parked on an empty
// queue returns ctx's error when ctx ends, and a later Add goes to the
// queue, not to it. Its deadline ends it exactly on time.
func TestGetContextCanceledWhileWaiting(t *testing.T) {
	for _, lossless := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			q := newQueueWith(t, kube.Config[string]{Lossless: lossless})
			ctx, cancel := context.WithCancel(context.Background())
			w := parkGetContext(ctx, q)
			testkit.Pending(t, w)
			cancel()
			wantCtxGot(t, "GetWithPriorityContext", <-w, ctxGot{err: context.Canceled})
			q.Add("a")
			if n := q.Len(); n != 1 {
				t.Fatalf("Len = %d after Add, want 1: the cancelled call took it", n)
			}

			start := time.Now()
			ctx, cancel = context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			q.Done(get(t, q))
			w = parkGetContext(ctx, q)
			wantCtxGot(t, "GetWithPriorityContext at the deadline", <-w, ctxGot{err: context.DeadlineExceeded})
			if d := time.Since(start); d != time.Second {
				t.Fatalf("the deadline ended the call after %v, want 1s", d)
			}
		})
	}
}

// TestGetContextItemArrivesFirst: an item added while GetContext waits is
// returned with its priority and a nil error. Cancelling ctx afterwards
// changes nothing: the item is held until Done.
func TestGetContextItemArrivesFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(t)
		ctx, cancel := context.WithCancel(context.Background())
		w := parkGetContext(ctx, q)
		testkit.Pending(t, w)
		three := 3
		q.AddWithOpts(priorityqueue.AddOpts{Priority: &three}, "a")
		cancel()
		wantCtxGot(t, "GetWithPriorityContext", <-w, ctxGot{got: got{"a", 3, false}})
		if s := q.Stats(); s.InFlight != 1 {
			t.Fatalf("Stats().InFlight = %d, want 1", s.InFlight)
		}
		q.Done("a")
	})
}

// TestGetContextShutDown: ShutDown wakes a waiting GetContext with
// shutdown true and a nil error. After ShutDown, GetContext hands out
// what is queued, then reports shutdown, as Get does.
func TestGetContextShutDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(t)
		w := parkGetContext(context.Background(), q)
		testkit.Pending(t, w)
		q.Add("a")
		wantCtxGot(t, "GetWithPriorityContext", <-w, ctxGot{got: got{"a", 0, false}})
		q.Add("b")
		w = parkGetContext(context.Background(), q)
		wantCtxGot(t, "GetWithPriorityContext with b queued", <-w, ctxGot{got: got{"b", 0, false}})
		w = parkGetContext(context.Background(), q)
		testkit.Pending(t, w)
		q.Add("c")
		q.Done("a")
		wantCtxGot(t, "GetWithPriorityContext with c queued", <-w, ctxGot{got: got{"c", 0, false}})
		w = parkGetContext(context.Background(), q)
		testkit.Pending(t, w)
		q.ShutDown()
		wantCtxGot(t, "the waiting GetWithPriorityContext at ShutDown", <-w, ctxGot{got: got{"", 0, true}})
		item, shutdown, err := q.GetContext(context.Background())
		if item != "" || !shutdown || err != nil {
			t.Fatalf("GetContext after ShutDown = %q, %v, %v; want \"\", true, nil", item, shutdown, err)
		}
	})
}

// TestGetContextShutDownWithAnItemAddedAgain is client-go's shutdown: a
// waiting GetContext reports shutdown at ShutDown even while a worker
// holds an item that was added again, which Done would queue.
func TestGetContextShutDownWithAnItemAddedAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(t)
		q.Add("a")
		a := get(t, q)
		q.Add("a")
		w := parkGetContext(context.Background(), q)
		testkit.Pending(t, w)
		q.ShutDown()
		wantCtxGot(t, "the waiting GetWithPriorityContext at ShutDown", <-w, ctxGot{got: got{"", 0, true}})
		q.Done(a)
	})
}

// TestGetContextAfterShutDownHandsOutWhatIsQueued: after ShutDown,
// GetContext hands out the queued items without waiting, then reports
// shutdown. With Lossless, it reports shutdown once nothing is queued.
func TestGetContextAfterShutDownHandsOutWhatIsQueued(t *testing.T) {
	for _, lossless := range []bool{false, true} {
		q := newQueueWith(t, kube.Config[string]{Lossless: lossless})
		q.Add("a")
		q.ShutDown()
		item, shutdown, err := q.GetContext(context.Background())
		if item != "a" || shutdown || err != nil {
			t.Fatalf("lossless %v: GetContext = %q, %v, %v; want a, false, nil", lossless, item, shutdown, err)
		}
		q.Done("a")
		item, shutdown, err = q.GetContext(context.Background())
		if item != "" || !shutdown || err != nil {
			t.Fatalf("lossless %v: GetContext = %q, %v, %v; want \"\", true, nil", lossless, item, shutdown, err)
		}
	}
}

// TestGetContextNilContext: a nil context is refused with an error that
// matches workqueue.ErrInvalid, and nothing is taken.
func TestGetContextNilContext(t *testing.T) {
	q := newQueue(t)
	q.Add("a")
	item, priority, shutdown, err := q.GetWithPriorityContext(testkit.NilContext)
	if item != "" || priority != 0 || shutdown || !errors.Is(err, workqueue.ErrInvalid) {
		t.Fatalf("GetWithPriorityContext(nil) = %q, %d, %v, %v; want ErrInvalid", item, priority, shutdown, err)
	}
	if n := q.Len(); n != 1 {
		t.Fatalf("Len = %d after a refused call, want 1", n)
	}
}

// TestGetContextLosesNothing races workers whose contexts end at random
// points against adds. Every item added is either returned by a
// GetContext or still queued at the end: a cancelled call never takes
// an item it does not return.
func TestGetContextLosesNothing(t *testing.T) {
	const workers, items = 4, 400
	q := newQueue(t)
	var mu sync.Mutex
	seen := map[int]bool{}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for range items {
				ctx, stop := testkit.CancelSoon(r)
				item, shutdown, err := q.GetContext(ctx)
				stop()
				if shutdown {
					t.Error("GetContext reported shutdown on an open queue")
					return
				}
				if err != nil {
					continue
				}
				mu.Lock()
				seen[len(item)] = true
				mu.Unlock()
				q.Done(item)
			}
		})
	}
	for i := 1; i <= items; i++ {
		q.Add(string(make([]byte, i))) // item i is i bytes long
	}
	wg.Wait()
	left := 0
	for q.Len() > 0 {
		item := get(t, q)
		seen[len(item)] = true
		q.Done(item)
		left++
	}
	for i := 1; i <= items; i++ {
		if !seen[i] {
			t.Fatalf("item %d lost: neither returned nor queued (%d left queued)", i, left)
		}
	}
}

// TestGetContextOfAQueuedItemAllocatesAsGet: a call that finds an item
// queued hands it out without the merged context a wait needs, so it
// allocates no more than Get.
func TestGetContextOfAQueuedItemAllocatesAsGet(t *testing.T) {
	q := newQueue(t)
	ctx := context.Background()
	get := testing.AllocsPerRun(1000, func() {
		q.Add("a")
		item, _ := q.Get()
		q.Done(item)
	})
	getContext := testing.AllocsPerRun(1000, func() {
		q.Add("a")
		item, _, _ := q.GetContext(ctx)
		q.Done(item)
	})
	if getContext > get {
		t.Fatalf("Add, GetContext, Done: %v allocations; want at most Add, Get, Done's %v", getContext, get)
	}
}

// TestGetOfAQueuedItemAllocatesNothing: Get and GetContext take an item
// already queued into an array on their own stack, so a controller's
// Add, Get, Done cycle allocates nothing (controller-runtime's
// BenchmarkAddGetDone).
func TestGetOfAQueuedItemAllocatesNothing(t *testing.T) {
	q := kube.New[int](nil, kube.Config[int]{})
	defer q.ShutDown()
	ctx := context.Background()
	q.Add(1)
	item, _ := q.Get() // the first cycle grows the queue's arrays
	q.Done(item)
	for name, get := range map[string]func() int{
		"Get":        func() int { item, _ := q.Get(); return item },
		"GetContext": func() int { item, _, _ := q.GetContext(ctx); return item },
	} {
		if n := testing.AllocsPerRun(1000, func() {
			q.Add(1)
			q.Done(get())
		}); n != 0 {
			t.Errorf("Add, %s, Done: %v allocations; want 0", name, n)
		}
	}
}
