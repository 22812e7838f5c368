package workqueue_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/evsync/evsync/workqueue"
	"pgregory.net/rapid"
)

// TestFairShareFloodsNeitherReorderNorStarve: under any interleaving of
// adds, floods of one tenant and hand-outs of any size, with 1 to 3
// dimensions and weights 1 to 3,
//   - each tenant's items come out in the order they were added, and
//   - an item that is its tenant's oldest waits for at most T₀ hand-outs,
//     its own included, where T₀ is FairShare's bound from the weights
//     of the nodes that had queued items meanwhile.
func TestFairShareFloodsNeitherReorderNorStarve(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		dims := rapid.IntRange(1, 3).Draw(t, "dims")
		weights := map[string]int{}
		for d := range dims {
			for _, k := range floodKeys {
				weights[fmt.Sprint(d, k)] = rapid.IntRange(1, 3).Draw(t, "weight")
			}
		}
		fc := &floodCheck{dims: dims, weights: weights, paths: map[int][]string{}, leaves: map[string][]int{},
			start: map[int]int{}, seen: map[int]map[string]bool{}}
		fc.q = workqueue.NewWithConfig(workqueue.Config[int]{FairShare: workqueue.FairShare[int]{
			Dims:   dims,
			Key:    func(k, d int) string { return fc.paths[k][d] },
			Weight: func(d int, key string) int { return weights[fmt.Sprint(d, key)] },
		}})
		t.Repeat(map[string]func(*rapid.T){
			"Add":   func(t *rapid.T) { fc.add(fc.drawPath(t)) },
			"Flood": fc.flood,
			"Take":  func(t *rapid.T) { fc.take(t, rapid.IntRange(1, 4).Draw(t, "max")) },
			"":      func(*rapid.T) {},
		})
		for fc.q.Len() > 0 {
			fc.take(t, 8)
		}
		if n := fc.queued(); n != 0 {
			t.Fatalf("%d items never handed out", n)
		}
	})
}

var floodKeys = []string{"a", "b", "c"}

// floodCheck is TestFairShareFloodsNeitherReorderNorStarve's queue and
// what it expects of it.
type floodCheck struct {
	q       *workqueue.Queue[int]
	dims    int
	weights map[string]int   // by fmt.Sprint(dim, key)
	paths   map[int][]string // each item's keys
	leaves  map[string][]int // each tenant's queued items, oldest first
	next    int              // the next item
	handed  int              // hand-outs so far
	start   map[int]int      // for the oldest item of each tenant: hand-outs when it became the oldest
	seen    map[int]map[string]bool
}

func (fc *floodCheck) drawPath(t *rapid.T) []string {
	p := make([]string, fc.dims)
	for d := range p {
		p[d] = rapid.SampledFrom(floodKeys).Draw(t, "key")
	}
	return p
}

// flood adds 5 to 40 items of one tenant.
func (fc *floodCheck) flood(t *rapid.T) {
	p := fc.drawPath(t)
	for range rapid.IntRange(5, 40).Draw(t, "n") {
		fc.add(p)
	}
}

// add adds a new item of the tenant p. Every oldest item waiting notes
// that p's nodes have a queued item.
func (fc *floodCheck) add(p []string) {
	k := fc.next
	fc.next++
	fc.paths[k] = p
	leaf := strings.Join(p, "/")
	fc.leaves[leaf] = append(fc.leaves[leaf], k)
	if len(fc.leaves[leaf]) == 1 {
		fc.head(k)
	}
	for _, s := range fc.seen {
		notePrefixes(s, p)
	}
	if !fc.q.Add(k) {
		panic("Add of a new item reported false")
	}
}

// head notes that k became its tenant's oldest queued item now.
func (fc *floodCheck) head(k int) {
	fc.start[k] = fc.handed
	s := map[string]bool{}
	for _, items := range fc.leaves {
		if len(items) > 0 {
			notePrefixes(s, fc.paths[items[0]])
		}
	}
	fc.seen[k] = s
}

func notePrefixes(s map[string]bool, p []string) {
	for i := 1; i <= len(p); i++ {
		s[strings.Join(p[:i], "/")] = true
	}
}

// take takes up to max items and checks each against its tenant's FIFO
// and the bound.
func (fc *floodCheck) take(t *rapid.T, max int) {
	for _, k := range fc.q.TryTake(max) {
		fc.handed++
		leaf := strings.Join(fc.paths[k], "/")
		items := fc.leaves[leaf]
		if len(items) == 0 || items[0] != k {
			t.Fatalf("item %d of tenant %s handed out ahead of %v", k, leaf, items)
		}
		if waited, bound := fc.handed-fc.start[k], fc.bound(k); waited > bound {
			t.Fatalf("item %d of tenant %s waited %d hand-outs, bound %d", k, leaf, waited, bound)
		}
		delete(fc.start, k)
		delete(fc.seen, k)
		fc.leaves[leaf] = items[1:]
		if len(items) > 1 {
			fc.head(items[1])
		}
	}
}

// bound is FairShare's T₀ for k: T_D = 1 and
// T_{i−1} = T_i + ⌈T_i / w_i⌉·O_i, O_i the weights of the siblings of
// k's node at depth i that had queued items while k waited.
func (fc *floodCheck) bound(k int) int {
	p, seen := fc.paths[k], fc.seen[k]
	T := 1
	for i := fc.dims; i >= 1; i-- {
		w := fc.weights[fmt.Sprint(i-1, p[i-1])]
		o := 0
		for _, key := range floodKeys {
			sib := strings.Join(append(p[:i-1:i-1], key), "/")
			if key != p[i-1] && seen[sib] {
				o += fc.weights[fmt.Sprint(i-1, key)]
			}
		}
		T += (T + w - 1) / w * o
	}
	return T
}

func (fc *floodCheck) queued() int {
	n := 0
	for _, items := range fc.leaves {
		n += len(items)
	}
	return n
}
