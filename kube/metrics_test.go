package kube_test

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/kube"
	"k8s.io/client-go/util/workqueue"
)

func TestMetrics(t *testing.T) {
	// The bubble also checks that the gauge goroutine is gone once
	// ShutDown returns: synctest.Test fails if a goroutine outlives f.
	synctest.Test(t, func(t *testing.T) {
		p := new(provider)
		limiter := workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Second, time.Minute)
		q := kube.New(limiter, kube.Config[string]{Name: "test", MetricsProvider: p, Lossless: true})
		t.Cleanup(q.ShutDown)
		if !slices.Equal(p.names, []string{"test"}) {
			t.Fatalf("metrics made for %q, want [test]", p.names)
		}
		q.Add("a")
		q.Add("a") // not a new mark: not an add
		q.Add("b")
		if d, a := p.depth.Load(), p.adds.Load(); d != 2 || a != 2 {
			t.Fatalf("depth, adds = %d, %d after Add a, a, b; want 2, 2", d, a)
		}
		time.Sleep(100 * time.Millisecond)
		a := get(t, q)
		if d := p.depth.Load(); d != 1 {
			t.Fatalf("depth = %d after a Get; want 1", d)
		}
		time.Sleep(time.Second) // the gauge goroutine ticks at 500ms and 1s
		synctest.Wait()
		if u, l, n := p.unfinished.value(), p.longest.value(), p.unfinished.sets.Load(); u != 0.9 || l != 0.9 || n != 2 {
			t.Fatalf("unfinished, longest = %v, %v after %d updates; want 0.9, 0.9 (a in flight since 100ms) after 2", u, l, n)
		}
		q.AddRateLimited(a)
		q.Done(a)
		if r := p.retries.Load(); r != 1 {
			t.Fatalf("retries = %d after AddRateLimited; want 1", r)
		}
		if got := p.latency.values(); !slices.Equal(got, []float64{0.1}) {
			t.Fatalf("latency observations %v, want [0.1]", got)
		}
		if got := p.work.values(); !slices.Equal(got, []float64{1}) {
			t.Fatalf("work duration observations %v, want [1]", got)
		}
		q.ShutDown() // queues a at once
		q.Done(get(t, q))
		q.Done(get(t, q))
		if d := p.depth.Load(); d != 0 {
			t.Fatalf("depth = %d with nothing queued; want 0", d)
		}
		if u, l := p.unfinished.value(), p.longest.value(); u != 0 || l != 0 {
			t.Fatalf("unfinished, longest = %v, %v after ShutDown; want the final 0, 0", u, l)
		}
	})
}

func TestMetricsNeedAName(t *testing.T) {
	p := new(provider)
	q := kube.New(nil, kube.Config[string]{MetricsProvider: p})
	defer q.ShutDown()
	q.Add("a")
	if len(p.names) != 0 || p.adds.Load() != 0 {
		t.Fatalf("an unnamed queue made metrics for %q and counted %d adds; want none", p.names, p.adds.Load())
	}
}

func TestNewQueueFuncNamesAfterController(t *testing.T) {
	p := new(provider)
	q := kube.NewQueueFunc(kube.Config[string]{MetricsProvider: p})("ctrl", nil)
	defer q.ShutDown()
	if !slices.Equal(p.names, []string{"ctrl"}) {
		t.Fatalf("metrics made for %q, want [ctrl]", p.names)
	}
}
