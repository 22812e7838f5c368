package kube_test

import (
	"maps"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/kube"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
)

// A provider with controller-runtime's depth gauge per priority, through
// its method or kube's interface, gets the depth of each priority, and
// only of the items queued (not delayed), as controller-runtime's
// priority queue reports it. A raise moves an item from one priority's
// series to another's.
func TestMetricsDepthPerPriority(t *testing.T) {
	for _, shape := range []string{"controller-runtime", "kube"} {
		t.Run("provider="+shape, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { depthPerPriority(t, shape) })
		})
	}
}

func depthPerPriority(t *testing.T, shape string) {
	p := newPrioProvider()
	var mp workqueue.MetricsProvider = p
	if shape == "kube" {
		mp = kubeProvider{p}
	}
	q := kube.New(nil, kube.Config[string]{Name: "test", MetricsProvider: mp})
	t.Cleanup(q.ShutDown)
	at := func(prio int) priorityqueue.AddOpts { return priorityqueue.AddOpts{Priority: &prio} }
	q.AddWithOpts(at(1), "a")
	q.Add("b")
	q.Add("c")
	q.AddWithOpts(at(2), "c") // raised from 0 to 2
	later := at(-100)
	later.After = time.Second
	q.AddWithOpts(later, "d")
	if item, prio, _ := q.GetWithPriority(); item != "c" || prio != 2 {
		t.Fatalf("GetWithPriority = %q, %d; want c, 2", item, prio)
	}
	q.Done("c")
	time.Sleep(time.Second) // d's delay ends
	synctest.Wait()
	for _, want := range []string{"a", "b", "d"} {
		if item := get(t, q); item != want {
			t.Fatalf("Get = %q, want %q", item, want)
		}
		q.Done(want)
	}
	series := p.readings()
	want := map[int][]int{1: {1, 0}, 0: {1, 2, 1, 0}, 2: {1, 0}, -100: {1, 0}}
	if !maps.EqualFunc(series, want, slices.Equal) {
		t.Fatalf("depth series per priority %v, want %v", series, want)
	}
	if !slices.Equal(p.names, []string{"test"}) || p.negative != 0 {
		t.Fatalf("gauge made for %q, %d readings below zero; want [test], 0", p.names, p.negative)
	}
}

// The hammer of TestMetricsDepthNeverNegativeUnderLoad, with the depth
// per priority: no priority's gauge reads below zero, and each reads 0
// once the queue is drained.
func TestMetricsDepthPerPriorityNeverNegativeUnderLoad(t *testing.T) {
	p := newPrioProvider()
	q := kube.New(nil, kube.Config[string]{Name: "test", MetricsProvider: p})
	hammer(q)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.negative != 0 {
		t.Fatalf("the depth gauges read below zero %d times", p.negative)
	}
	for prio, s := range p.series {
		if n := s[len(s)-1]; n != 0 {
			t.Fatalf("priority %d's depth gauge reads %d once drained, want 0", prio, n)
		}
	}
}
