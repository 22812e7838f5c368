package model_test

import (
	"context"
	"slices"
	"testing"

	"github.com/evsync/evsync/internal/evserr"
	"github.com/evsync/evsync/model"
	"pgregory.net/rapid"
)

// queueModel is a ReadyQ or a WorkQueue, as the helpers use them.
type queueModel interface {
	TryTake(max int) []int
	Validate() error
}

func wantTake(t *testing.T, q queueModel, max int, want ...int) {
	t.Helper()
	if got := q.TryTake(max); !slices.Equal(got, want) {
		t.Fatalf("TryTake(%d) = %v, want %v", max, got, want)
	}
	if err := q.Validate(); err != nil {
		t.Fatal(err)
	}
}

// The kernel fact: level-triggered items re-queued at the tail after being
// reported are served round-robin under maxevents.
func TestReadyQLevelRoundRobin(t *testing.T) {
	q := model.NewReadyQ(model.Level, nil)
	for k := range 5 {
		q.Add(k)
	}
	for _, want := range [][]int{{0, 1}, {2, 3}, {4, 0}, {1, 2}, {3, 4}} {
		wantTake(t, q, 2, want...)
		q.Done(want...)
	}
}

// The kernel fact: arrivals during a scan go to the overflow list and are
// put back in arrival order.
func TestReadyQKeptAsideInArrivalOrder(t *testing.T) {
	q := model.NewReadyQ(model.Edge, nil)
	for k := range 4 {
		q.Add(k)
	}
	wantTake(t, q, 4, 0, 1, 2, 3)
	for _, k := range []int{2, 0, 3} {
		if !q.Add(k) {
			t.Fatalf("Add(%d) in flight = false", k)
		}
	}
	if q.Stats().Aside != 3 || q.Add(2) {
		t.Fatalf("Aside = %d", q.Stats().Aside)
	}
	if n := q.Done(0, 1, 2, 3, 3); n != 4 {
		t.Fatalf("Done = %d, want 4", n)
	}
	wantTake(t, q, 4, 2, 0, 3)
}

// The kernel fact: one-shot items are disarmed until re-armed.
func TestReadyQOneShot(t *testing.T) {
	q := model.NewReadyQ(model.OneShot, nil)
	q.Add(1)
	wantTake(t, q, 1, 1)
	q.Done(1)
	q.Add(1)
	wantTake(t, q, 1)
	if q.Stats().Disarmed != 1 || !q.Rearm(1) || q.Rearm(1) {
		t.Fatal("Rearm")
	}
	wantTake(t, q, 1, 1)
}

func TestReadyQCloseRules(t *testing.T) {
	q := model.NewReadyQ(model.Edge, nil)
	q.Add(1)
	q.Add(2)
	wantTake(t, q, 1, 1)
	q.Add(1)
	q.Close()
	if q.Add(3) {
		t.Fatal("Add after Close")
	}
	if items, err := q.Wait(model.Live, 5); err != nil || !slices.Equal(items, []int{2}) {
		t.Fatalf("Wait = %v, %v", items, err)
	}
	if _, err := q.Wait(model.Live, 5); err != evserr.ErrWouldBlock {
		t.Fatalf("Wait with a kept-aside mark in flight: %v, want ErrWouldBlock", err)
	}
	q.Done(1, 2)
	if items, err := q.Wait(model.Live, 5); err != nil || !slices.Equal(items, []int{1}) {
		t.Fatalf("Wait = %v, %v", items, err)
	}
	q.Done(1)
	if _, err := q.Wait(model.Live, 5); err != evserr.ErrClosed {
		t.Fatalf("Wait = %v, want ErrClosed", err)
	}
	if _, err := q.Wait(model.Live, 0); err != evserr.ErrInvalid {
		t.Fatalf("Wait(0) = %v", err)
	}
	if q.Drain(model.Live) != nil {
		t.Fatal("Drain")
	}
}

func TestReadyQReadyTickets(t *testing.T) {
	q := model.NewReadyQ(model.Edge, nil)
	tk := q.Ready()
	if q.Fired(tk) {
		t.Fatal("fired on an empty queue")
	}
	q.Add(1)
	if !q.Fired(tk) || !q.Fired(q.Ready()) {
		t.Fatal("not fired after Add")
	}
	if err := q.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestReadyQRemove(t *testing.T) {
	q := model.NewReadyQ(model.Level, func(k int) bool { return k != 2 })
	q.Add(1)
	q.Add(2)
	q.Add(3)
	if !q.Remove(3) || q.Remove(3) || q.Remove(9) {
		t.Fatal("Remove")
	}
	wantTake(t, q, 5, 1, 2)
	q.Remove(1)
	q.Done(1, 2)
	wantTake(t, q, 5) // 1 removed, 2 no longer ready
	if len(q.Known()) != 0 {
		t.Fatalf("Known = %v", q.Known())
	}
}

// TestReadyQDoneContextStops: Wait and Drain with a done context return
// context.Canceled and take nothing; Next makes its Done first.
func TestReadyQDoneContextStops(t *testing.T) {
	q := model.NewReadyQ(model.Level, nil)
	q.Add(1)
	if items, err := q.Wait(model.Done, 1); items != nil || err != context.Canceled {
		t.Fatalf("Wait(Done) = %v, %v", items, err)
	}
	if _, err := q.Wait(model.Done, 0); err != evserr.ErrInvalid {
		t.Fatalf("Wait(Done, 0) = %v", err)
	}
	if err := q.Drain(model.Done); err != context.Canceled {
		t.Fatalf("Drain(Done) = %v", err)
	}
	if got := q.TryTake(1); !slices.Equal(got, []int{1}) {
		t.Fatalf("TryTake = %v", got)
	}
	if items, err := q.Next(model.Done, []int{1}, 1); items != nil || err != context.Canceled {
		t.Fatalf("Next(Done) = %v, %v", items, err)
	}
	if q.InFlight() != 0 || !slices.Equal(q.Queue(), []int{1}) {
		t.Fatalf("Next(Done) did not finish the level item: queue %v, in flight %d", q.Queue(), q.InFlight())
	}
}

// TestReadyQDoneIsOneStep: a Done with a recheck function and more than
// 64 items is one step, as the real Done is: a repeat is ignored however
// far from the first copy, and the kept-aside marks go back before the
// level items across the whole call.
func TestReadyQDoneIsOneStep(t *testing.T) {
	q := model.NewReadyQ(model.Level, func(int) bool { return true })
	var ks []int
	for k := range 100 {
		q.Add(k)
		ks = append(ks, k)
	}
	wantTake(t, q, 100, ks...)
	q.Add(99) // kept aside
	if n := q.Done(append(ks, 0)...); n != 100 {
		t.Fatalf("Done of 100 items, 0 twice, = %d, want 100", n)
	}
	wantTake(t, q, 200, append([]int{99}, ks[:99]...)...)
}

// TestReadyQNextWithMaxZeroReturnsItsArgument: Next with max ≤ 0 returns
// ks unchanged and ErrInvalid, as the real Next returns done. It finishes
// nothing, so the items stay in flight and their holder still has them.
func TestReadyQNextWithMaxZeroReturnsItsArgument(t *testing.T) {
	for _, max := range []int{0, -1} {
		q := model.NewReadyQ(model.Edge, nil)
		q.Add(1)
		q.Add(2)
		held := q.TryTake(2)
		items, err := q.Next(model.Live, held, max)
		if err != evserr.ErrInvalid || !slices.Equal(items, held) {
			t.Fatalf("Next(%v, %d) = %v, %v; want %v, ErrInvalid", held, max, items, err, held)
		}
		if q.InFlight() != 2 {
			t.Fatalf("Next(%v, %d) finished items: %d in flight, want 2", held, max, q.InFlight())
		}
	}
}

// TestReadyQModelInvariants steps the ready list through random calls and
// checks its invariants after each, and that a hand-out takes the head of
// Queue().
func TestReadyQModelInvariants(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		mode := model.Mode(rapid.Uint8Range(uint8(model.Edge), uint8(model.OneShot)).Draw(t, "mode"))
		notReady := map[int]bool{}
		q := model.NewReadyQ(mode, func(k int) bool { return !notReady[k] })
		key := rapid.IntRange(0, 8)
		t.Repeat(map[string]func(*rapid.T){
			"Add": func(t *rapid.T) { q.Add(key.Draw(t, "k")) },
			"AddMode": func(t *rapid.T) {
				q.AddMode(key.Draw(t, "k"), model.Mode(rapid.IntRange(0, 3).Draw(t, "mode")))
			},
			"TryTake": func(t *rapid.T) {
				want := q.Queue()
				got := q.TryTake(rapid.IntRange(1, 3).Draw(t, "max"))
				if !slices.Equal(got, want[:len(got)]) {
					t.Fatalf("TryTake = %v, Queue() was %v", got, want)
				}
			},
			"Done": func(t *rapid.T) {
				held := q.InFlightItems()
				if len(held) == 0 {
					t.Skip("nothing in flight")
				}
				q.Done(rapid.SliceOfDistinct(rapid.SampledFrom(held), rapid.ID).Draw(t, "ks")...)
			},
			"Recheck": func(t *rapid.T) {
				k := key.Draw(t, "k")
				notReady[k] = !notReady[k]
			},
			"Remove": func(t *rapid.T) { q.Remove(key.Draw(t, "k")) },
			"Rearm":  func(t *rapid.T) { q.Rearm(key.Draw(t, "k")) },
			"Close": func(t *rapid.T) {
				if rapid.IntRange(0, 9).Draw(t, "rarely") == 0 {
					q.Close()
				}
			},
			"": func(t *rapid.T) {
				if err := q.Validate(); err != nil {
					t.Fatal(err)
				}
				if st := q.Stats(); st.Queued != len(q.Queue()) || st.Delayed != 0 || st.InFlight != len(q.InFlightItems()) {
					t.Fatalf("Stats %+v, Queue %v, in flight %v", st, q.Queue(), q.InFlightItems())
				}
			},
		})
	})
}
