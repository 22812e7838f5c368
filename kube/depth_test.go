package kube_test

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/evsync/evsync/kube"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
)

// Producers add with priorities and short delays while workers get and
// finish, as controller-runtime's fuzz test of its priority queue does.
// The depth gauge must never read below zero, and must read 0 once the
// queue is drained.
func TestMetricsDepthNeverNegativeUnderLoad(t *testing.T) {
	for _, settable := range []bool{false, true} {
		t.Run(fmt.Sprintf("settable=%v", settable), func(t *testing.T) {
			p := &provider{settable: settable}
			q := kube.New(nil, kube.Config[string]{Name: "test", MetricsProvider: p})
			hammer(q)
			if n, d := p.depth.negative.Load(), p.depth.Load(); n != 0 || d != 0 {
				t.Fatalf("the depth gauge read below zero %d times, and %d once drained (want 0)", n, d)
			}
			if settable && p.depth.sets.Load() == 0 {
				t.Fatal("a depth gauge with Set was never set")
			}
		})
	}
}

// hammer runs 4 producers of 500 adds each and 16 workers on q, then
// shuts q down and waits until the workers have drained it.
func hammer(q *kube.Queue[string]) {
	var producers, workers sync.WaitGroup
	for i := range 4 {
		producers.Go(func() {
			r := rand.New(rand.NewPCG(uint64(i), 2))
			for range 500 {
				prio := r.IntN(5) - 2
				o := priorityqueue.AddOpts{Priority: &prio}
				if r.IntN(4) == 0 {
					o.After = time.Duration(r.IntN(1000)) * time.Microsecond
				}
				q.AddWithOpts(o, fmt.Sprint(r.IntN(100)))
			}
		})
	}
	for range 16 {
		workers.Go(func() {
			for {
				item, _, shutdown := q.GetWithPriority()
				if shutdown {
					return
				}
				q.Done(item)
			}
		})
	}
	producers.Wait()
	q.ShutDown() // queues what is delayed; the workers take it all
	workers.Wait()
}
