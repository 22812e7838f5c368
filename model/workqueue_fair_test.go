package model_test

import (
	"fmt"
	"testing"

	"github.com/evsync/evsync/model"
)

// Tests of fair share over several dimensions with weights
// (WorkQueueConfig.FairShare).

// byHundreds is a one-dimension FairShare: item 100·i+j has the key
// "a"+i, whose weight is weights[key] (1 if absent).
func byHundreds(weights map[string]int) model.FairShare {
	return model.FairShare{
		Key:    func(k, _ int) string { return tenantByHundreds(k) },
		Weight: func(_ int, key string) int { return weights[key] },
	}
}

func shared(f model.FairShare) *model.WorkQueue {
	return model.NewWorkQueueWith(model.WorkQueueConfig{FairShare: f})
}

// TestFairShareWeightIsATurnOfThatManyHandOuts: a tenant of weight 3 gets
// three hand-outs in a row for each one of a tenant of weight 1.
func TestFairShareWeightIsATurnOfThatManyHandOuts(t *testing.T) {
	q := shared(byHundreds(map[string]int{"a": 3, "b": -2})) // -2: weight 1
	for _, k := range []int{1, 2, 3, 4, 5, 6, 7, 101, 102, 103} {
		q.Add(k)
	}
	wantQueue(t, q, 1, 2, 3, 101, 4, 5, 6, 102, 7, 103)
	valid(t, q)
}

// TestFairShareTwoDimensions: hand-outs go round the clusters (dimension
// 0), and within each cluster's turn round its namespaces (dimension 1).
func TestFairShareTwoDimensions(t *testing.T) {
	q := shared(model.FairShare{Dims: 2, Key: func(k, dim int) string {
		if dim == 0 {
			return fmt.Sprint("c", k/100)
		}
		return fmt.Sprint("n", k/10%10)
	}})
	for _, k := range []int{1, 2, 3, 11, 12, 101, 102} {
		q.Add(k)
	}
	wantQueue(t, q, 1, 101, 11, 102, 2, 12, 3)
	wantTake(t, q, 2, 1, 101)
	q.Add(121) // a new namespace of c1 joins c1's round last, after n0
	wantQueue(t, q, 11, 102, 2, 121, 12, 3)
	valid(t, q)
}

// TestFairShareJoinsLastDuringATurn: a tenant that joins while another is
// in the middle of its turn is served after that turn and every other
// tenant's.
func TestFairShareJoinsLastDuringATurn(t *testing.T) {
	q := shared(byHundreds(map[string]int{"a": 3}))
	for _, k := range []int{1, 2, 3, 4, 101} {
		q.Add(k)
	}
	wantTake(t, q, 1, 1) // a has had one of its three
	q.Add(201)
	wantQueue(t, q, 2, 3, 101, 201, 4)
	valid(t, q)
}

// TestFairShareNextTenantStartsAFreshTurn: when the tenant in the middle
// of its turn leaves (Remove), the next one gets a whole turn.
func TestFairShareNextTenantStartsAFreshTurn(t *testing.T) {
	q := shared(byHundreds(map[string]int{"a": 3, "b": 2}))
	for _, k := range []int{1, 2, 101, 102, 103, 201} {
		q.Add(k)
	}
	wantTake(t, q, 1, 1)
	q.Remove(2)
	wantQueue(t, q, 101, 102, 201, 103)
	valid(t, q)
}

// TestFairShareNodeKeepsTheWeightItWasMadeWith: weights are asked when an
// item becomes known; a tenant's node has the weight of the item that
// brought it into the round until it leaves.
func TestFairShareNodeKeepsTheWeightItWasMadeWith(t *testing.T) {
	w := 1
	q := shared(model.FairShare{
		Key:    func(k, _ int) string { return tenantByHundreds(k) },
		Weight: func(int, string) int { return w },
	})
	q.Add(1) // a, weight 1
	w = 2
	q.Add(2) // a's node keeps weight 1
	q.Add(3)
	q.Add(101) // b, weight 2
	q.Add(102)
	wantQueue(t, q, 1, 101, 102, 2, 3)
	wantTake(t, q, 5, 1, 101, 102, 2, 3)
	q.Add(4) // a comes back, made by 4's weight 2
	q.Add(5)
	q.Add(103)
	wantQueue(t, q, 4, 5, 103)
}

func TestFairShareBadConfigPanics(t *testing.T) {
	key := func(int, int) string { return "" }
	for name, c := range map[string]model.WorkQueueConfig{
		"both":         {Fairness: func(int) string { return "" }, FairShare: model.FairShare{Key: key}},
		"dims 5":       {FairShare: model.FairShare{Dims: 5, Key: key}},
		"dims -1":      {FairShare: model.FairShare{Dims: -1, Key: key}},
		"weight alone": {FairShare: model.FairShare{Weight: func(int, string) int { return 1 }}},
		"dims alone":   {FairShare: model.FairShare{Dims: 2}},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			model.NewWorkQueueWith(c)
		})
	}
}
