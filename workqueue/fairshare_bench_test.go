package workqueue_test

import (
	"strconv"
	"testing"

	"github.com/evsync/evsync/workqueue"
)

// BenchmarkFairShare measures Add+TryTake(1)+Done of int keys 0…1023,
// over 16 tenants, without fair share (impl=none), with Config.Fairness
// (impl=one), and with a Config.FairShare of 2 dimensions, 4 clusters of
// 4 namespaces, cluster 0 of weight 3 (impl=two).
//   - shape=empty: one item queued at a time, so its tenant joins the
//     round and leaves it at every op (a controller that keeps up);
//   - shape=backlog: all 1024 keys queued, each handed out, Done, and
//     added again at its tenant's tail (a controller behind).
//
// The shape=tenants rows have n tenants (10³, 10⁵) of one item each, all
// queued: impl=one with key k its own tenant, impl=two with k%16 and k
// as its dimensions. Each item handed out leaves its tenant's round, and
// its add joins it again. So they measure join and leave on a round of n.
func BenchmarkFairShare(b *testing.B) {
	names := make([]string, 16)
	for i := range names {
		names[i] = strconv.Itoa(i)
	}
	impls := []struct {
		name string
		c    workqueue.Config[int]
	}{
		{"none", workqueue.Config[int]{}},
		{"one", workqueue.Config[int]{Fairness: func(k int) string { return names[k%16] }}},
		{"two", workqueue.Config[int]{FairShare: workqueue.FairShare[int]{
			Dims: 2,
			Key: func(k, dim int) string {
				if dim == 0 {
					return names[k%4]
				}
				return names[k/4%4]
			},
			Weight: func(dim int, key string) int {
				if dim == 0 && key == "0" {
					return 3
				}
				return 1
			},
		}}},
	}
	for _, shape := range []string{"empty", "backlog"} {
		for _, impl := range impls {
			b.Run("shape="+shape+"/impl="+impl.name, func(b *testing.B) {
				q := workqueue.NewWithConfig(impl.c)
				if shape == "backlog" {
					for k := range 1024 {
						q.Add(k)
					}
				}
				buf := make([]int, 0, 1)
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					if shape == "empty" {
						q.Add(i & 1023)
					}
					buf = q.TryTakeAppend(buf[:0], 1)
					q.Done(buf...)
					if shape == "backlog" {
						q.Add(buf[0])
					}
				}
			})
		}
	}
	for _, n := range []int{1_000, 100_000} {
		keys := make([]string, n)
		for i := range keys {
			keys[i] = strconv.Itoa(i)
		}
		impls := []struct {
			name string
			c    workqueue.Config[int]
		}{
			{"one", workqueue.Config[int]{Fairness: func(k int) string { return keys[k] }}},
			{"two", workqueue.Config[int]{FairShare: workqueue.FairShare[int]{
				Dims: 2,
				Key: func(k, dim int) string {
					if dim == 0 {
						return names[k%16]
					}
					return keys[k]
				},
			}}},
		}
		for _, impl := range impls {
			b.Run("shape=tenants"+strconv.Itoa(n)+"/impl="+impl.name, func(b *testing.B) {
				q := workqueue.NewWithConfig(impl.c)
				for k := range n {
					q.Add(k)
				}
				buf := make([]int, 0, 1)
				b.ReportAllocs()
				for b.Loop() {
					buf = q.TryTakeAppend(buf[:0], 1)
					q.Done(buf...)
					q.Add(buf[0])
				}
			})
		}
	}
}
