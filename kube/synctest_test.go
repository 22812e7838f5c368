package kube_test

// The tests in this file state that the package works inside a
// testing/synctest bubble. Some of it is pinned by bubble tests elsewhere,
// which are not repeated here:
//   - parks: TestGetBlocksUntilAdd (one Get), TestShutDownWithDrainWaitsForDone
//   - timers: TestAddRateLimitedForgetNumRequeues times client-go's
//     exponential limiter exactly. TestMetrics has the unfinished-work
//     goroutine tick every 500 ms of fake time and end at ShutDown.
//   - ShutDown: TestShutDownWakesGet, TestShutDownWakesAWaitingGet and
//     TestShutDownEndsShutDownWithDrain

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/kube"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
)

// got is what a Get or GetWithPriority returned.
type got struct {
	item     string
	priority int
	shutdown bool
}

// parkGet calls GetWithPriority in a goroutine and returns once it is
// parked, as testkit.Park does. Its result arrives on the channel.
func parkGet(q *kube.Queue[string]) <-chan got {
	return testkit.Park(func() got {
		item, priority, shutdown := q.GetWithPriority()
		return got{item, priority, shutdown}
	})
}

// TestSynctestGetsParkUntilAnAdd: workers blocked in Get park durably,
// and each add wakes one of them, in the order they came, with the item
// and its priority.
func TestSynctestGetsParkUntilAnAdd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(t)
		workers := []<-chan got{parkGet(q), parkGet(q), parkGet(q)}
		for _, w := range workers {
			testkit.Pending(t, w)
		}
		two := 2
		q.Add("a")
		q.AddWithOpts(priorityqueue.AddOpts{Priority: &two}, "b")
		q.Add("c")
		for i, want := range []got{{"a", 0, false}, {"b", 2, false}, {"c", 0, false}} {
			if g := <-workers[i]; g != want {
				t.Fatalf("worker %d got %+v, want %+v", i, g, want)
			}
			q.Done(want.item)
		}
	})
}

// TestSynctestDelaysEndOnTime: the queue's timer runs on the bubble's
// clock. An AddAfter wakes a parked Get exactly at its time, and not a
// nanosecond before. So does the first AddRateLimited of NewQueue's
// default limiter, 5 ms later.
func TestSynctestDelaysEndOnTime(t *testing.T) {
	for _, c := range []struct {
		name string
		add  func(q workqueue.TypedRateLimitingInterface[string])
		at   time.Duration
	}{
		{"AddAfter", func(q workqueue.TypedRateLimitingInterface[string]) { q.AddAfter("a", 3*time.Second) }, 3 * time.Second},
		{"AddRateLimited", func(q workqueue.TypedRateLimitingInterface[string]) { q.AddRateLimited("a") }, 5 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := kube.NewQueue[string]("test", nil)
				t.Cleanup(q.ShutDown)
				start := time.Now()
				c.add(q)
				res := testkit.Park(func() string { item, _ := q.Get(); return item })
				time.Sleep(c.at - time.Nanosecond)
				synctest.Wait()
				testkit.Pending(t, res)
				if n := q.Len(); n != 0 {
					t.Fatalf("Len = %d a nanosecond early, want 0", n)
				}
				if item := <-res; item != "a" || time.Since(start) != c.at {
					t.Fatalf("Get = %q after %v, want a after %v", item, time.Since(start), c.at)
				}
				q.Done("a")
			})
		})
	}
}

// TestSynctestShutDownWakesEveryParkedGet: the shutdowns settle every Get
// parked on a queue with metrics, with an item being processed and one
// delayed. ShutDown drops the delayed item, so every Get reports shutdown.
// With Lossless it queues the item at once for the first Get.
// ShutDownWithDrain wakes the Gets as ShutDown does and returns at the
// last Done. Past the delay nothing comes, and the bubble ends with
// nothing running, the metrics goroutine included, or synctest.Test would
// fail.
func TestSynctestShutDownWakesEveryParkedGet(t *testing.T) {
	shutDown := func(q *kube.Queue[string]) <-chan struct{} { q.ShutDown(); return closedChan() }
	withDrain := func(q *kube.Queue[string]) <-chan struct{} { return started(q.ShutDownWithDrain) }
	for _, c := range []struct {
		name     string
		lossless bool
		shutDown func(q *kube.Queue[string]) <-chan struct{} // closed when it returns
		drains   bool                                        // it returns only at the last Done
		first    got                                         // the first Get's result, the others' is shutdown
	}{
		{"ShutDown", false, shutDown, false, got{shutdown: true}},
		{"ShutDown, Lossless", true, shutDown, false, got{item: "b"}},
		{"ShutDownWithDrain", false, withDrain, true, got{shutdown: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := newQueueWith(t, kube.Config[string]{Name: "test", MetricsProvider: new(provider), Lossless: c.lossless})
				q.Add("a")
				a := get(t, q)
				q.AddAfter("b", time.Hour)
				gets := []<-chan got{parkGet(q), parkGet(q), parkGet(q)}

				start := time.Now()
				done := c.shutDown(q)
				for i, g := range gets {
					want := got{shutdown: true}
					if i == 0 {
						want = c.first
					}
					if r := <-g; r != want {
						t.Fatalf("Get %d at shutdown = %+v, want %+v", i, r, want)
					}
				}
				if took := time.Since(start); took != 0 {
					t.Fatalf("the Gets were settled %v after the shutdown began, want at once", took)
				}
				synctest.Wait()
				if c.drains && returned(done) {
					t.Fatal("ShutDownWithDrain returned while a is being processed")
				}
				q.Done(a)
				if c.first.item != "" {
					q.Done(c.first.item)
				}
				<-done
				time.Sleep(2 * time.Hour)
				if item, shutdown := q.Get(); !shutdown {
					t.Fatalf("Get after the delay = %q, want shutdown", item)
				}
			})
		})
	}
}

// closedChan returns a closed channel.
func closedChan() <-chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

// TestSynctestBubblesShareNothing: a Queue belongs to the bubble that uses
// it, and the queues of other bubbles share no channel, timer or goroutine
// with it. Each of several bubbles in turn runs a queue with metrics,
// parked Gets and delays, and a channel or timer from an earlier bubble
// would panic.
func TestSynctestBubblesShareNothing(t *testing.T) {
	for round := range 3 {
		synctest.Test(t, func(t *testing.T) {
			q := newQueueWith(t, kube.Config[string]{Name: "test", MetricsProvider: new(provider)})
			var workers []<-chan got
			for range 6 {
				workers = append(workers, parkGet(q))
			}
			items := []string{"a", "b", "c", "d", "e", "f"}
			for i, item := range items {
				q.AddAfter(item, time.Duration(i+1)*time.Second)
			}
			for i, w := range workers {
				if g := <-w; g.item != items[i] || g.shutdown {
					t.Fatalf("round %d: worker %d got %+v, want %s", round, i, g, items[i])
				}
				q.Done(items[i])
			}
			q.ShutDown()
		})
	}
}
