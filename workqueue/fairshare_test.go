package workqueue_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/evsync/evsync/workqueue"
)

// Tests of Config.FairShare: several dimensions, weights and the bad
// configurations. fairshare_rapid_test.go has the property that a flood
// cannot reorder or starve another tenant.

// hundreds is a one-dimension FairShare: item 100·i+j is tenant i, whose
// weight is weights[i] (1 for a tenant past the end).
func hundreds(weights ...int) workqueue.FairShare[int] {
	return workqueue.FairShare[int]{
		Key: func(k, _ int) string { return strconv.Itoa(k / 100) },
		Weight: func(_ int, key string) int {
			if i, _ := strconv.Atoi(key); i < len(weights) {
				return weights[i]
			}
			return 1
		},
	}
}

func sharedQueue(f workqueue.FairShare[int], items ...int) *workqueue.Queue[int] {
	q := workqueue.NewWithConfig(workqueue.Config[int]{FairShare: f})
	for _, k := range items {
		q.Add(k)
	}
	return q
}

// takeAll hands out everything with TryTake(n).
func takeAll(q *workqueue.Queue[int], n int) []int {
	var out []int
	for got := q.TryTake(n); len(got) > 0; got = q.TryTake(n) {
		out = append(out, got...)
	}
	return out
}

// TestFairShareWeightGivesTurnsOfThatManyHandOuts: a tenant of weight 3
// gets three hand-outs in a row for each one of a tenant of weight 1 (an
// answer ≤ 0 is 1), in batches of any size, which may end in the middle
// of a turn.
func TestFairShareWeightGivesTurnsOfThatManyHandOuts(t *testing.T) {
	items := []int{1, 2, 3, 4, 5, 6, 7, 101, 102, 103, 201}
	want := []int{1, 2, 3, 101, 201, 4, 5, 6, 102, 7, 103}
	for _, n := range []int{1, 2, 4, 5, 11} {
		got := takeAll(sharedQueue(hundreds(3, -1, 0), items...), n)
		wantItems(t, fmt.Sprintf("batches of %d", n), got, want...)
	}
}

// clusterNS is a two-dimension FairShare: item 100·c+10·n+j is in
// cluster c, namespace n. Cluster weights are clusters[c] (1 past the
// end), and every namespace has weight 1.
func clusterNS(clusters ...int) workqueue.FairShare[int] {
	return workqueue.FairShare[int]{
		Dims: 2,
		Key: func(k, dim int) string {
			if dim == 0 {
				return "c" + strconv.Itoa(k/100)
			}
			return "n" + strconv.Itoa(k/10%10)
		},
		Weight: func(dim int, key string) int {
			if i, _ := strconv.Atoi(key[1:]); dim == 0 && i < len(clusters) {
				return clusters[i]
			}
			return 1
		},
	}
}

// TestFairShareTwoDimensions: hand-outs go round the clusters, and each
// cluster's turns go round its namespaces. A cluster of weight 2 gets two
// hand-outs per turn, spread over its namespaces.
func TestFairShareTwoDimensions(t *testing.T) {
	items := []int{1, 2, 3, 11, 12, 101, 102}
	wantItems(t, "weights 1", takeAll(sharedQueue(clusterNS(), items...), 1), 1, 101, 11, 102, 2, 12, 3)
	wantItems(t, "c0 weighs 2", takeAll(sharedQueue(clusterNS(2), items...), 3), 1, 11, 101, 2, 12, 102, 3)
	wantItems(t, "c1 weighs 2", takeAll(sharedQueue(clusterNS(1, 2), items...), 3), 1, 101, 102, 11, 2, 12, 3)
}

// TestFairShareJoinsLastDuringATurn: a tenant that gets its first item
// while another is in the middle of its turn is served after that turn
// and after every tenant already in the round.
func TestFairShareJoinsLastDuringATurn(t *testing.T) {
	q := sharedQueue(hundreds(3), 1, 2, 3, 4, 101)
	wantItems(t, "TryTake", q.TryTake(1), 1)
	q.Add(201)
	wantItems(t, "the rest", takeAll(q, 8), 2, 3, 101, 201, 4)
}

// TestFairShareNextTenantStartsAFreshTurn: when the tenant in the middle
// of its turn leaves the round (Remove), the next one gets a whole turn.
func TestFairShareNextTenantStartsAFreshTurn(t *testing.T) {
	q := sharedQueue(hundreds(3, 2), 1, 2, 101, 102, 103, 201)
	wantItems(t, "TryTake", q.TryTake(1), 1)
	q.Remove(2)
	wantItems(t, "the rest", takeAll(q, 1), 101, 102, 201, 103)
}

// TestFairShareKeepsAnItemsFirstAnswers: Key and Weight are asked at
// every mark, outside the lock; the queue keeps the answers of an item's
// first mark while it knows the item, and a tenant's node keeps the
// weight of the item that made it while it has queued items.
func TestFairShareKeepsAnItemsFirstAnswers(t *testing.T) {
	var q *workqueue.Queue[int]
	w, calls := 1, 0
	q = workqueue.NewWithConfig(workqueue.Config[int]{Mode: workqueue.Level, FairShare: workqueue.FairShare[int]{
		Key: func(k, _ int) string {
			if workqueue.Locked(q) {
				t.Error("Key called with the lock held")
			}
			calls++
			return strconv.Itoa(k / 100)
		},
		Weight: func(int, string) int { return w },
	}})
	q.Add(1) // tenant 0 made with weight 1
	w = 2
	q.Add(2) // weight 2 kept with item 2, but the node has 1
	q.Add(101)
	q.Add(102)
	if calls != 4 {
		t.Fatalf("Key called %d times for 4 marks", calls)
	}
	wantItems(t, "TryTake", q.TryTake(4), 1, 101, 102, 2)
	w = 3
	q.Add(1) // in flight: its tenant stays "0", with weight 1
	q.Done(1, 2, 101, 102)
	// Tenant 0 is made again by 1, with weight 1 from its first mark,
	// not 3; tenant 1 by 101, with weight 2.
	wantItems(t, "after Done", takeAll(q, 1), 1, 101, 102, 2)
}

func TestFairShareBadConfigPanics(t *testing.T) {
	key := func(int, int) string { return "" }
	for _, c := range []struct {
		name string
		c    workqueue.Config[int]
		want string
	}{
		{"both", workqueue.Config[int]{Fairness: func(int) string { return "" }, FairShare: workqueue.FairShare[int]{Key: key}}, "both set"},
		{"dims past MaxDims", workqueue.Config[int]{FairShare: workqueue.FairShare[int]{Dims: workqueue.MaxDims + 1, Key: key}}, "outside [0, MaxDims]"},
		{"dims -1", workqueue.Config[int]{FairShare: workqueue.FairShare[int]{Dims: -1, Key: key}}, "outside [0, MaxDims]"},
		{"weight alone", workqueue.Config[int]{FairShare: workqueue.FairShare[int]{Weight: func(int, string) int { return 1 }}}, "no Key"},
		{"dims alone", workqueue.Config[int]{FairShare: workqueue.FairShare[int]{Dims: 2}}, "no Key"},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				r, _ := recover().(string)
				if !strings.HasPrefix(r, "workqueue: ") || !strings.Contains(r, c.want) {
					t.Fatalf("panic %q, want one with %q", r, c.want)
				}
			}()
			workqueue.NewWithConfig(c.c)
		})
	}
	q := workqueue.NewWithConfig(workqueue.Config[int]{FairShare: workqueue.FairShare[int]{Dims: workqueue.MaxDims, Key: key}})
	q.Add(1) // MaxDims itself is fine
	wantItems(t, "TryTake", q.TryTake(1), 1)
}

// TestAPanickingKeyOrWeightLeavesTheQueueUsable: the mark panics with
// nothing changed, and no lock is left held.
func TestAPanickingKeyOrWeightLeavesTheQueueUsable(t *testing.T) {
	for _, dim := range []int{0, 1} {
		for _, inWeight := range []bool{false, true} {
			f := clusterNS()
			key, weight := f.Key, f.Weight
			f.Key = func(k, d int) string {
				if k < 0 && d == dim && !inWeight {
					panic("no key")
				}
				return key(max(k, 0), d)
			}
			f.Weight = func(d int, s string) int {
				if inWeight && d == dim && s == "c0" || s == "n0" && inWeight && d == dim {
					panic("no weight")
				}
				return weight(d, s)
			}
			q := sharedQueue(f, 111)
			func() {
				defer func() {
					if recover() == nil {
						t.Fatalf("dim %d, in Weight %v: no panic", dim, inWeight)
					}
				}()
				q.Add(-1)
			}()
			if workqueue.Locked(q) || q.Len() != 1 {
				t.Fatalf("after the panic: locked %v, Len %d", workqueue.Locked(q), q.Len())
			}
			q.Add(112)
			wantItems(t, "TryTake", q.TryTake(8), 111, 112)
		}
	}
}
