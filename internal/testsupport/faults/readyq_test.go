package faults_test

// The readyq fault tests: the same storms, Close races and panicking
// callbacks as for the counters, for the ready queue.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/evsync/evsync/readyq"
)

// rqKeys is the key space of the readyq tests: small, so that marks pile
// up on items in flight and are kept aside.
const rqKeys = 16

// holders checks that no item is held by two consumers at once.
type holders [rqKeys]atomic.Bool

// take records a hand-out, describing a second holder.
func (h *holders) take(items []int) error {
	for _, k := range items {
		if !h[k].CompareAndSwap(false, true) {
			return fmt.Errorf("item %d handed to two consumers at once", k)
		}
	}
	return nil
}

// give records that the items are about to be Done.
func (h *holders) give(items []int) {
	for _, k := range items {
		h[k].Store(false)
	}
}

// TestReadyqCancellationStormConserves has producers mark items of an
// edge-triggered queue while consumers Wait, Next and TryTake under
// contexts that end at random points and Done what they get. No item is
// held twice at once, consumers are handed every mark without any Close
// (they stop only once hand-outs reach the marks that reported true), and
// after Close nothing more comes out: hand-outs = new marks, exactly.
func TestReadyqCancellationStormConserves(t *testing.T) {
	const producers, consumers, marks = 3, 3, 3000
	q := readyq.New[int]()
	var marked, handed atomic.Uint64
	var producing atomic.Int32
	producing.Store(producers)
	var held holders
	var c crew
	for p := range producers {
		c.Go(func() {
			defer producing.Add(-1)
			r := rand.New(rand.NewPCG(31, uint64(p)))
			for range marks {
				if q.Add(r.IntN(rqKeys)) {
					marked.Add(1)
				}
				if r.IntN(8) == 0 {
					runtime.Gosched() // let consumers in between marks
				}
			}
		})
	}
	for k := range consumers {
		c.Go(func() {
			r := rand.New(rand.NewPCG(32, uint64(k)))
			var batch []int
			for producing.Load() != 0 || handed.Load() != marked.Load() {
				var err error
				if batch, err = rqConsume(q, r, batch, &held, &handed); err != nil {
					t.Error(err)
					return
				}
			}
			held.give(batch)
			q.Done(batch...)
		})
	}
	c.Wait(t, describe("%v (%d marks, %d handed out)", q, marked.Load, handed.Load), q.Close)
	q.Close()
	if items := q.TryTake(rqKeys); len(items) != 0 {
		t.Fatalf("after every mark was handed out and Close: TryTake = %v", items)
	}
	if items, err := q.Wait(context.Background(), 1); err != readyq.ErrClosed {
		t.Fatalf("Wait on a closed, empty queue = %v, %v", items, err)
	}
	if got, want := handed.Load(), marked.Load(); got != want {
		t.Fatalf("%d items handed out for %d new marks (%v)", got, want, q)
	}
	if st := q.Stats(); st.Queued != 0 || st.InFlight != 0 || st.Aside != 0 || st.Waiting != 0 {
		t.Fatalf("after the storm: %v", st)
	}
}

// rqConsume makes one consumer step: Done for the previous batch, then a
// Wait, Next or TryTake for a new one, whose items it checks and counts.
func rqConsume(q *readyq.Queue[int], r *rand.Rand, batch []int, held *holders, handed *atomic.Uint64) ([]int, error) {
	ctx, stop := stormCtx(r)
	defer stop()
	max := 1 + r.IntN(4)
	held.give(batch)
	var err error
	switch r.IntN(3) {
	case 0:
		q.Done(batch...)
		batch, err = q.Wait(ctx, max)
	case 1:
		batch, err = q.Next(ctx, batch, max)
	default:
		q.Done(batch...)
		batch = q.TryTake(max)
	}
	if err := ctxErr("Wait", ctx, err); err != nil {
		return nil, err
	}
	if err != nil && len(batch) != 0 {
		return nil, fmt.Errorf("Wait returned %v with error %v", batch, err)
	}
	handed.Add(uint64(len(batch)))
	return batch, held.take(batch)
}

// TestReadyqCloseRacesEveryCall races Close with each readyq call: a mark
// made before Close is handed out exactly once (also after Close), one
// refused is not, a mark kept aside for an item in flight is still queued
// by a Done racing Close, and a blocked Wait or Drain returns.
func TestReadyqCloseRacesEveryCall(t *testing.T) {
	newQ := func() *readyq.Queue[int] { return readyq.New[int]() }
	t.Run("Add", func(t *testing.T) {
		var added bool
		raceClose(t, newQ, func(q *readyq.Queue[int], _ *rand.Rand) []func() {
			return []func(){func() { added = q.Add(1) }}
		}, func(q *readyq.Queue[int]) error {
			if items := q.TryTake(2); len(items) != int(b2u(added)) {
				return fmt.Errorf("Add = %v, then TryTake after Close = %v", added, items)
			}
			return nil
		})
	})
	t.Run("Wait", func(t *testing.T) {
		var added bool
		var items []int
		var err error
		raceClose(t, newQ, func(q *readyq.Queue[int], _ *rand.Rand) []func() {
			return []func(){
				func() { items, err = q.Wait(context.Background(), 4) },
				func() { added = q.Add(1) },
			}
		}, func(q *readyq.Queue[int]) error {
			if len(items) != int(b2u(added)) || (err == nil) != added {
				return fmt.Errorf("Add = %v; Wait = %v, %v", added, items, err)
			}
			return oneOf("Wait", err, nil, readyq.ErrClosed)
		})
	})
	t.Run("DoneWithMarkAside", func(t *testing.T) {
		var items []int
		var err error
		raceClose(t, newQ, func(q *readyq.Queue[int], _ *rand.Rand) []func() {
			q.Add(1)
			q.TryTake(1)
			q.Add(1) // kept aside: Done queues it again, even after Close
			return []func(){
				func() { q.Done(1) },
				func() { items, err = q.Wait(context.Background(), 4) },
			}
		}, func(q *readyq.Queue[int]) error {
			if len(items) != 1 || err != nil {
				return fmt.Errorf("the mark kept aside was not handed out: Wait = %v, %v", items, err)
			}
			return nil
		})
	})
	t.Run("Drain", func(t *testing.T) {
		var err error
		raceClose(t, newQ, func(q *readyq.Queue[int], _ *rand.Rand) []func() {
			q.Add(1)
			q.TryTake(1)
			return []func(){
				func() { err = q.Drain(context.Background()) },
				func() { q.Done(1) },
			}
		}, func(q *readyq.Queue[int]) error { return oneOf("Drain", err, nil) })
	})
}

// recheckPanics is a level queue's recheck function that panics for
// item bad while armed, and otherwise reports items not ready (so that
// Done forgets them).
type recheckPanics struct {
	bad   int
	armed atomic.Bool
}

func (p *recheckPanics) ready(item int) bool {
	if p.armed.Load() && item == p.bad {
		panic(errConsumer)
	}
	return false
}

// TestReadyqPanickingRecheck: a recheck function that panics in Done
// reaches Done's caller and Done changes nothing, however many items it
// was given (it rechecks them all before it takes the lock, and used to
// finish the earlier groups of 64 before the panic): every item stays in
// flight. Nothing is left locked: a second Done of the same items
// finishes them all, the queue drains and closes, and a Wait then returns
// ErrClosed.
func TestReadyqPanickingRecheck(t *testing.T) {
	for _, n := range []int{5, 100} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			p := &recheckPanics{bad: n - 1}
			q := readyq.NewWithConfig(readyq.Config[int]{Mode: readyq.Level, Recheck: p.ready})
			items := make([]int, n)
			for i := range items {
				items[i] = i
				q.Add(i)
			}
			if got := q.TryTake(n); len(got) != n {
				t.Fatalf("TryTake(%d) = %d items", n, len(got))
			}
			before := q.Stats()
			p.armed.Store(true)
			wantPanic(t, "Done", func() { q.Done(items...) })
			if st := q.Stats(); st != before {
				t.Fatalf("after the panic: %v, want it unchanged, %v", st, before)
			}
			p.armed.Store(false)
			var done int
			within(t, "Done after the panic", func() { done = q.Done(items...) })
			if done != n || q.InFlight() != 0 || q.Len() != 0 {
				t.Fatalf("second Done = %d, want %d (%v)", done, n, q)
			}
			within(t, "Add, TryTake, Drain and Close after the panic", func() {
				q.Add(0)
				q.Done(q.TryTake(1)...)
				if err := q.Drain(context.Background()); err != nil {
					t.Errorf("Drain = %v", err)
				}
				q.Close()
			})
			if got, err := q.Wait(context.Background(), 1); err != readyq.ErrClosed {
				t.Fatalf("Wait after Close = %v, %v", got, err)
			}
		})
	}
}

// TestReadyqPanickingRecheckInNext: Next makes its Done first; when the
// recheck panics, the panic reaches Next's caller before it waits, and
// the next Next finishes the Done and hands out what is queued.
func TestReadyqPanickingRecheckInNext(t *testing.T) {
	p := &recheckPanics{bad: 1}
	q := readyq.NewWithConfig(readyq.Config[int]{Mode: readyq.Level, Recheck: p.ready})
	defer q.Close()
	q.Add(1)
	batch := q.TryTake(1)
	q.Add(2)
	p.armed.Store(true)
	wantPanic(t, "Next", func() { _, _ = q.Next(context.Background(), batch, 4) })
	p.armed.Store(false)
	var got []int
	var err error
	within(t, "Next after the panic", func() { got, err = q.Next(context.Background(), batch, 4) })
	if err != nil || len(got) != 1 || got[0] != 2 || q.InFlight() != 1 {
		t.Fatalf("Next after the panic = %v, %v (%v)", got, err, q)
	}
}

// unhashable calls f, which must panic with the runtime's error for an
// unhashable map key, and describes any other outcome.
func unhashable(what string, f func()) error {
	p := recovered(f)
	if err, ok := p.(runtime.Error); ok && strings.Contains(err.Error(), "hash of unhashable type") {
		return nil
	}
	return fmt.Errorf("%s panicked with %v, want the runtime's unhashable-key error", what, p)
}

// TestReadyqUnhashableItemsDoNotWedge has producers and consumers of a
// Queue[any] hand int items around while each of them, now and then,
// gives a call an unhashable item ([]int) too: Add, Remove and Rearm of
// it, and a Done with it in the middle of a batch, panic and are
// recovered, and the goroutine goes on. Nothing is wedged and nothing is
// half done: no item is held twice at once, consumers are handed every
// mark that reported true, and the queue ends empty. (These calls used to
// panic holding the lock, and every other goroutine then blocked for good;
// the Done left the items before the bad one out of the queue.)
func TestReadyqUnhashableItemsDoNotWedge(t *testing.T) {
	const producers, consumers, marks = 2, 2, 2000
	q := readyq.New[any]()
	var marked, handed atomic.Uint64
	var producing atomic.Int32
	producing.Store(producers)
	var held holders
	var c crew
	for p := range producers {
		c.Go(func() {
			defer producing.Add(-1)
			r := rand.New(rand.NewPCG(41, uint64(p)))
			for i := range marks {
				k := r.IntN(rqKeys)
				if i%16 == 0 {
					rqBadCalls(t, q, k)
				}
				if q.Add(k) {
					marked.Add(1)
				}
			}
		})
	}
	for k := range consumers {
		c.Go(func() {
			r := rand.New(rand.NewPCG(42, uint64(k)))
			var batch []any
			for producing.Load() != 0 || handed.Load() != marked.Load() {
				batch = rqConsumeAny(t, q, r, batch, &held, &handed)
			}
			held.give(anyInts(batch))
			q.Done(batch...)
		})
	}
	// The rescue runs Close in a goroutine of its own: with the lock left
	// held, Close would block too, and the watchdog could not report.
	c.Wait(t, describe("%v (%d marks, %d handed out)", q, marked.Load, handed.Load), func() { go q.Close() })
	if got, want := handed.Load(), marked.Load(); got != want {
		t.Fatalf("%d items handed out for %d new marks (%v)", got, want, q)
	}
	if st := q.Stats(); st.Queued != 0 || st.InFlight != 0 || st.Aside != 0 {
		t.Fatalf("after the run: %v", st)
	}
}

// rqBadCalls makes the calls that take one item with an unhashable one.
func rqBadCalls(t *testing.T, q *readyq.Queue[any], k int) {
	for what, f := range map[string]func(){
		"Add":    func() { q.Add([]int{k}) },
		"Remove": func() { q.Remove([]int{k}) },
		"Rearm":  func() { q.Rearm([]int{k}) },
	} {
		if err := unhashable(what, f); err != nil {
			t.Error(err)
		}
	}
}

// rqConsumeAny is one consumer step of TestReadyqUnhashableItemsDoNotWedge:
// Done for the previous batch (one time in four first with an unhashable
// item in its middle, which must change nothing), then a Wait or a
// TryTake for a new one, whose items it checks and counts.
func rqConsumeAny(t *testing.T, q *readyq.Queue[any], r *rand.Rand, batch []any, held *holders, handed *atomic.Uint64) []any {
	held.give(anyInts(batch))
	if len(batch) != 0 && r.IntN(4) == 0 {
		bad := slices.Insert(slices.Clone(batch), len(batch)/2, any([]int{0}))
		if err := unhashable("Done", func() { q.Done(bad...) }); err != nil {
			t.Error(err)
		}
	}
	if n := q.Done(batch...); n != len(batch) {
		t.Errorf("Done of the %d items held = %d: a Done that panicked finished some", len(batch), n)
	}
	max := 1 + r.IntN(4)
	if r.IntN(2) == 0 {
		ctx, stop := stormCtx(r)
		defer stop()
		var err error
		batch, err = q.WaitAppend(ctx, batch[:0], max)
		if err := ctxErr("Wait", ctx, err); err != nil {
			t.Error(err)
		}
	} else {
		batch = q.TryTakeAppend(batch[:0], max)
		if len(batch) == 0 {
			runtime.Gosched()
		}
	}
	handed.Add(uint64(len(batch)))
	if err := held.take(anyInts(batch)); err != nil {
		t.Error(err)
	}
	return batch
}

// anyInts converts the items of a Queue[any] of ints.
func anyInts(items []any) []int {
	ks := make([]int, len(items))
	for i, k := range items {
		ks[i] = k.(int)
	}
	return ks
}
