package kube_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/kube"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
)

// The tests below pin the client-go workqueue semantics the adapter
// promises, as client-go's documentation states them, and the documented
// differences.

func newQueue(t *testing.T) *kube.Queue[string] {
	t.Helper()
	return newQueueWith(t, kube.Config[string]{})
}

// newQueueWith is newQueue with a Config.
func newQueueWith(t *testing.T, c kube.Config[string]) *kube.Queue[string] {
	t.Helper()
	q := kube.New(workqueue.NewTypedItemExponentialFailureRateLimiter[string](10*time.Millisecond, time.Second), c)
	t.Cleanup(q.ShutDown)
	return q
}

// get is Get that fails the test at shutdown.
func get(t *testing.T, q *kube.Queue[string]) string {
	t.Helper()
	item, shutdown := q.Get()
	if shutdown {
		t.Fatal("Get: shutdown, want an item")
	}
	return item
}

// started runs f in a goroutine and returns a channel closed when f
// returns. Inside a synctest bubble, synctest.Wait then tells whether f
// is blocked.
func started(f func()) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	return done
}

func returned(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

func TestAddDeduplicatesWhileQueued(t *testing.T) {
	q := newQueue(t)
	q.Add("a")
	q.Add("b")
	q.Add("a")
	if n := q.Len(); n != 2 {
		t.Fatalf("Len = %d after Add a, b, a; want 2", n)
	}
	if a, b := get(t, q), get(t, q); a != "a" || b != "b" {
		t.Fatalf("Get, Get = %q, %q; want a, b (FIFO)", a, b)
	}
	if n := q.Len(); n != 0 {
		t.Fatalf("Len = %d after both Gets; want 0", n)
	}
}

func TestAddWhileProcessingComesBackAfterDone(t *testing.T) {
	q := newQueue(t)
	q.Add("a")
	a := get(t, q)
	q.Add("a")
	q.Add("a")
	if n := q.Len(); n != 0 {
		t.Fatalf("Len = %d after Add of an item being processed; want 0 (never handed to two workers)", n)
	}
	q.Done(a)
	if n := q.Len(); n != 1 {
		t.Fatalf("Len = %d after Done; want 1 (the item is queued again, once)", n)
	}
	q.Done(get(t, q))
	if n := q.Len(); n != 0 {
		t.Fatalf("Len = %d after the second Done; want 0", n)
	}
}

func TestGetBlocksUntilAdd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(t)
		var got string
		done := started(func() { got = get(t, q) })
		synctest.Wait()
		if returned(done) {
			t.Fatal("Get returned on an empty queue")
		}
		q.Add("a")
		<-done
		if got != "a" {
			t.Fatalf("Get = %q, want a", got)
		}
	})
}

func TestAddAfter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(t)
		q.AddAfter("a", time.Second)
		q.AddAfter("b", 2*time.Second)
		q.AddAfter("b", 500*time.Millisecond) // the earlier time wins
		if n, d := q.Len(), q.Stats().Delayed; n != 0 || d != 2 {
			t.Fatalf("Len, Delayed = %d, %d after two AddAfters; want 0, 2", n, d)
		}
		time.Sleep(500 * time.Millisecond)
		synctest.Wait()
		if n := q.Len(); n != 1 {
			t.Fatalf("Len = %d at 500ms; want 1 (b)", n)
		}
		time.Sleep(500 * time.Millisecond)
		synctest.Wait()
		if b, a := get(t, q), get(t, q); b != "b" || a != "a" {
			t.Fatalf("Get, Get = %q, %q at 1s; want b, a (ready-time order)", b, a)
		}
	})
}

func TestAddAfterNonPositiveIsAdd(t *testing.T) {
	q := newQueue(t)
	q.AddAfter("a", 0)
	q.AddAfter("b", -time.Second)
	if n := q.Len(); n != 2 {
		t.Fatalf("Len = %d after AddAfter 0 and -1s; want 2", n)
	}
}

func TestAddCancelsDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(t)
		q.AddAfter("a", time.Second)
		q.Add("a")
		q.Done(get(t, q))
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if n := q.Len(); n != 0 {
			t.Fatalf("Len = %d after the cancelled delay's time; want 0 (client-go would add it again)", n)
		}
	})
}

func TestAddRateLimitedForgetNumRequeues(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(t)
		q.AddRateLimited("a") // first failure: 10ms
		if n, r := q.Len(), q.NumRequeues("a"); n != 0 || r != 1 {
			t.Fatalf("Len, NumRequeues = %d, %d after AddRateLimited; want 0, 1", n, r)
		}
		start := time.Now()
		a := get(t, q)
		if d := time.Since(start); d != 10*time.Millisecond {
			t.Fatalf("first retry after %v, want 10ms", d)
		}
		q.AddRateLimited(a) // while processing: 20ms from now, queued at Done
		q.Done(a)
		start = time.Now()
		a = get(t, q)
		if d, r := time.Since(start), q.NumRequeues(a); d != 20*time.Millisecond || r != 2 {
			t.Fatalf("second retry after %v with NumRequeues %d; want 20ms, 2", d, r)
		}
		q.Forget(a)
		if r := q.NumRequeues(a); r != 0 {
			t.Fatalf("NumRequeues = %d after Forget; want 0", r)
		}
		q.Done(a)
	})
}

func TestRetryStateForgottenWhenItemLeaves(t *testing.T) {
	q := newQueue(t)
	q.AddWithOpts(priorityqueue.AddOpts{RateLimited: true, After: -1}, "a")
	q.Add("a") // now, rather than after the delay
	a := get(t, q)
	if r := q.NumRequeues(a); r != 1 {
		t.Fatalf("NumRequeues = %d while processing; want 1", r)
	}
	q.Done(a) // no mark left: the item leaves the queue
	if r := q.NumRequeues(a); r != 0 {
		t.Fatalf("NumRequeues = %d after the item left the queue; want 0", r)
	}
}

func TestAddWithOptsPriority(t *testing.T) {
	q := newQueue(t)
	one, two := 1, 2
	q.Add("low")
	q.AddWithOpts(priorityqueue.AddOpts{Priority: &one}, "mid1", "mid2")
	q.AddWithOpts(priorityqueue.AddOpts{Priority: &two}, "high")
	q.AddWithOpts(priorityqueue.AddOpts{Priority: &two}, "mid1") // raised: tail of priority 2
	var got []string
	prios := map[string]int{"high": 2, "mid1": 2, "mid2": 1, "low": 0}
	for q.Len() > 0 {
		item, prio, shutdown := q.GetWithPriority()
		if shutdown || prio != prios[item] {
			t.Fatalf("GetWithPriority = %q, %d, %v; want priority %d", item, prio, shutdown, prios[item])
		}
		got = append(got, item)
	}
	want := []string{"high", "mid1", "mid2", "low"}
	if len(got) != len(want) {
		t.Fatalf("hand-outs %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("hand-outs %q, want %q", got, want)
		}
	}
}

func TestAddWithOptsRateLimitedTakesSoonerAfter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(t)
		q.AddWithOpts(priorityqueue.AddOpts{RateLimited: true, After: time.Millisecond}, "a")
		start := time.Now()
		q.Done(get(t, q))
		if d := time.Since(start); d != time.Millisecond {
			t.Fatalf("ready after %v, want 1ms (After is sooner than the limiter's 10ms)", d)
		}
	})
}

func TestShutDownWakesGet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(t)
		var shutdown bool
		done := started(func() { _, shutdown = q.Get() })
		synctest.Wait()
		if q.ShuttingDown() {
			t.Fatal("ShuttingDown before ShutDown")
		}
		q.ShutDown()
		<-done
		if !shutdown || !q.ShuttingDown() {
			t.Fatalf("Get's shutdown, ShuttingDown = %v, %v after ShutDown; want true, true", shutdown, q.ShuttingDown())
		}
	})
}

func TestShutDownHandsOutWhatIsQueued(t *testing.T) {
	q := newQueue(t)
	q.Add("a")
	q.Add("b")
	q.ShutDown()
	q.Add("c") // ignored
	if n := q.Len(); n != 2 {
		t.Fatalf("Len = %d after ShutDown and Add; want 2", n)
	}
	if a, b := get(t, q), get(t, q); a != "a" || b != "b" {
		t.Fatalf("Get, Get = %q, %q after ShutDown; want a, b", a, b)
	}
	if _, shutdown := q.Get(); !shutdown {
		t.Fatal("Get on a shut down, empty queue: want shutdown")
	}
}

// TestShutDownGetDoesNotWaitForAWorker is client-go's shutdown: Get
// reports shutdown once nothing is queued, even while a worker holds an
// item that was added again. Its Done still queues the item, and the next
// Get hands it out.
func TestShutDownGetDoesNotWaitForAWorker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(t)
		q.Add("a")
		a := get(t, q)
		q.Add("a") // before ShutDown: queued again at Done
		q.ShutDown()
		if _, shutdown := q.Get(); !shutdown {
			t.Fatal("Get with nothing queued after ShutDown: want shutdown")
		}
		q.Done(a)
		if got := get(t, q); got != "a" {
			t.Fatalf("Get = %q, want a", got)
		}
		q.Done("a")
		if _, shutdown := q.Get(); !shutdown {
			t.Fatal("Get: want shutdown")
		}
	})
}

// TestShutDownWakesAWaitingGet: a Get blocked on an empty queue returns
// shutdown at ShutDown, with an item still being processed and added
// again.
func TestShutDownWakesAWaitingGet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(t)
		q.Add("a")
		a := get(t, q)
		q.Add("a")
		var shutdown bool
		done := started(func() { _, shutdown = q.Get() })
		synctest.Wait()
		if returned(done) {
			t.Fatal("Get returned on an empty, open queue")
		}
		q.ShutDown()
		<-done
		if !shutdown {
			t.Fatal("the waiting Get: want shutdown")
		}
		q.Done(a)
	})
}

// TestShutDownDropsDelayedItems: ShutDown drops what is delayed, as
// client-go's does, whether delayed by AddAfter, AddRateLimited or an
// AddAfter while the item is processed.
func TestShutDownDropsDelayedItems(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(t)
		q.Add("c")
		c := get(t, q)
		q.AddAfter("a", time.Hour)
		q.AddRateLimited("b")
		q.AddAfter("c", time.Hour)
		q.Add("d")
		q.ShutDown()
		if st := q.Stats(); st.Delayed != 0 {
			t.Fatalf("Stats after ShutDown = %v: want nothing delayed", st)
		}
		q.Done(c)
		if got := get(t, q); got != "d" {
			t.Fatalf("Get = %q, want d", got)
		}
		q.Done("d")
		time.Sleep(2 * time.Hour)
		if item, shutdown := q.Get(); !shutdown {
			t.Fatalf("Get = %q after the delays: want shutdown (they were dropped)", item)
		}
	})
}

// TestLosslessShutDownKeepsAddWhileProcessing: with Config.Lossless a Get
// after ShutDown waits for the Done of an item added again.
func TestLosslessShutDownKeepsAddWhileProcessing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueueWith(t, kube.Config[string]{Lossless: true})
		q.Add("a")
		a := get(t, q)
		q.Add("a") // before ShutDown: queued again at Done
		q.ShutDown()
		var got string
		done := started(func() { got = get(t, q) })
		synctest.Wait()
		if returned(done) {
			t.Fatal("Get returned while the item being processed has a pending add")
		}
		q.Done(a)
		<-done
		if got != "a" {
			t.Fatalf("Get = %q, want a", got)
		}
		q.Done(got)
		if _, shutdown := q.Get(); !shutdown {
			t.Fatal("Get: want shutdown")
		}
	})
}

// TestLosslessShutDownQueuesDelayedItems: with Config.Lossless nothing
// delayed is lost at ShutDown.
func TestLosslessShutDownQueuesDelayedItems(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueueWith(t, kube.Config[string]{Lossless: true})
		q.AddAfter("a", time.Hour)
		start := time.Now()
		q.ShutDown()
		if a := get(t, q); a != "a" || time.Since(start) != 0 {
			t.Fatalf("Get = %q after %v; want a at once (nothing delayed is lost)", a, time.Since(start))
		}
		q.Done("a")
		if _, shutdown := q.Get(); !shutdown {
			t.Fatal("Get: want shutdown")
		}
	})
}

func TestShutDownWithDrainWaitsForDone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(t)
		q.Add("a")
		q.Add("b")
		a := get(t, q)
		drained := started(q.ShutDownWithDrain)
		synctest.Wait()
		if !q.ShuttingDown() {
			t.Fatal("ShuttingDown = false during ShutDownWithDrain")
		}
		q.Add("c") // ignored
		q.Done(a)
		synctest.Wait()
		if returned(drained) {
			t.Fatal("ShutDownWithDrain returned while b is queued")
		}
		b := get(t, q)
		synctest.Wait()
		if returned(drained) {
			t.Fatal("ShutDownWithDrain returned while b is being processed")
		}
		q.Done(b)
		<-drained
		if _, shutdown := q.Get(); !shutdown {
			t.Fatal("Get after the drain: want shutdown")
		}
	})
}

func TestShutDownEndsShutDownWithDrain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(t)
		q.Add("a")
		a := get(t, q)
		drained := started(q.ShutDownWithDrain)
		synctest.Wait()
		if returned(drained) {
			t.Fatal("ShutDownWithDrain returned while a is being processed")
		}
		q.ShutDown()
		<-drained
		q.Done(a)
		q.ShutDownWithDrain() // after ShutDown: does not wait
	})
}

func TestNewQueueIsPriorityQueue(t *testing.T) {
	q := kube.NewQueue[string]("test", nil)
	defer q.ShutDown()
	if _, ok := q.(priorityqueue.PriorityQueue[string]); !ok {
		t.Fatalf("NewQueue returned a %T, not a priorityqueue.PriorityQueue", q)
	}
	q.AddRateLimited("a") // the default limiter: 5ms for a first failure
	if r := q.NumRequeues("a"); r != 1 {
		t.Fatalf("NumRequeues = %d with the default limiter; want 1", r)
	}
}
