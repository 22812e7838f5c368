package counter_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/internal/clk"
	"github.com/evsync/evsync/internal/counter"
	"github.com/evsync/evsync/internal/evserr"
	"pgregory.net/rapid"
)

// TestInvariantsAtRest drives a counter through random calls, waiting
// ones among them, and after each waits until every goroutine is parked.
// Then the package doc's invariants must hold (CheckInvariants). What the
// calls return is for the facades' model tests; here only the counter's
// state is checked. A semaphore counter is eventually fair in half the
// runs, and Age then moves the bubble's clock across the bound.
func TestInvariantsAtRest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) { rapid.Check(bubbleT{t}, checkInvariantsAtRest) })
}

// A bubbleT is a bubble's *testing.T, hidden from rapid: rapid asks a
// *testing.T for its Deadline, on which a bubble's T panics.
type bubbleT struct{ *testing.T }

func checkInvariantsAtRest(t *rapid.T) {
	t.Repeat(rapid.StateMachineActions(newRestMachine(t)))
}

// A restMachine is a counter in one mode, with the calls parked on it and
// the reservations it holds. Calls that only a semaphore makes skip in
// Plain mode.
type restMachine struct {
	c      *counter.Counter
	m      counter.Mode
	parked []parked
	resv   []*counter.Reservation
}

// A parked call's result arrives on done; cancel ends its context (nil
// for a context that never ends).
type parked struct {
	cancel context.CancelFunc
	done   <-chan error
}

func newRestMachine(t *rapid.T) *restMachine {
	rm := &restMachine{c: new(counter.Counter)}
	if rapid.Bool().Draw(t, "plain") {
		rm.m = plain
		var d counter.Delayer
		if rapid.Bool().Draw(t, "delayed") {
			d = new(notes)
		}
		rm.c.Init(0, rapid.SampledFrom([]uint64{0, 1, 3, counter.CountMask, counter.Max}).Draw(t, "initial"), d)
	} else {
		limit := drawRestLimit(t)
		rm.c.Init(limit, rapid.Uint64Range(0, min(limit, 8)).Draw(t, "initial"), nil)
		if rapid.Bool().Draw(t, "stops") {
			rm.c.StopReadsAtClose()
		}
		if rapid.Bool().Draw(t, "eventual") {
			counter.SetFairness(rm.c, time.Millisecond, clk.Clock{})
		}
	}
	t.Cleanup(func() {
		for _, p := range rm.parked {
			if p.cancel != nil {
				p.cancel()
			}
		}
		rm.c.Close() // what no cancel ends, Close does
		synctest.Wait()
	})
	return rm
}

// drawRestLimit draws a small limit, where debts and back-pressure come
// often, or Max.
func drawRestLimit(t *rapid.T) uint64 {
	return rapid.OneOf(rapid.Uint64Range(1, 8), rapid.Just(counter.Max)).Draw(t, "limit")
}

// amount draws a request or a write: small, or at the edges of the limit
// and of the word's count field.
func (rm *restMachine) amount(t *rapid.T) uint64 {
	l := rm.c.Limit()
	return rapid.OneOf(
		rapid.Uint64Range(0, 4),
		rapid.SampledFrom([]uint64{l - 1, l, l + 1, counter.CountMask, counter.CountMask + 1}),
	).Draw(t, "n")
}

func (rm *restMachine) semaphoreOnly(t *rapid.T) {
	if rm.m != sem {
		t.Skip("a semaphore's call")
	}
}

// park starts call in a goroutine with a context that can end, or, if
// never, one that cannot.
func (rm *restMachine) park(never bool, call func(context.Context) error) {
	ctx, cancel := context.Background(), context.CancelFunc(nil)
	if !never {
		ctx, cancel = context.WithCancel(ctx)
	}
	done := make(chan error, 1)
	go func() { done <- call(ctx) }()
	rm.parked = append(rm.parked, parked{cancel, done})
}

func (rm *restMachine) Write(t *rapid.T) {
	n := rm.amount(t)
	switch err := rm.c.Write(rm.m, n); err {
	case nil, evserr.ErrWouldBlock, evserr.ErrInvalid, evserr.ErrClosed:
	default:
		t.Fatalf("Write(%d) = %v", n, err)
	}
}

func (rm *restMachine) TryRead(t *rapid.T) { rm.c.TryRead(rm.m, rm.amount(t)) }

func (rm *restMachine) TakeAll(t *rapid.T) {
	rm.semaphoreOnly(t)
	rm.c.TryReadUpTo(rapid.Uint64Range(0, 3).Draw(t, "max"))
}

func (rm *restMachine) Read(t *rapid.T) {
	n, never := rm.amount(t), rapid.Bool().Draw(t, "never ends")
	rm.park(never, func(ctx context.Context) error { _, err := rm.c.Read(ctx, rm.m, n); return err })
}

func (rm *restMachine) ReadUpTo(t *rapid.T) {
	rm.semaphoreOnly(t)
	max := rm.amount(t)
	rm.park(false, func(ctx context.Context) error { _, err := rm.c.ReadUpTo(ctx, max); return err })
}

func (rm *restMachine) WriteWait(t *rapid.T) {
	n := rm.amount(t)
	rm.park(false, func(ctx context.Context) error { return rm.c.WriteWait(ctx, rm.m, n) })
}

func (rm *restMachine) Drain(t *rapid.T) {
	rm.semaphoreOnly(t)
	rm.park(false, rm.c.Drain)
}

// Cancel ends the context of a parked call (a no-op if it has returned).
func (rm *restMachine) Cancel(t *rapid.T) {
	if len(rm.parked) == 0 {
		t.Skip("nothing parked")
	}
	if p := rapid.SampledFrom(rm.parked).Draw(t, "call"); p.cancel != nil {
		p.cancel()
	}
}

func (rm *restMachine) Ready(*rapid.T) { rm.c.Ready() }

// Age lets the bubble's clock move on, so that an eventually fair
// counter's oldest reader passes its bound.
func (rm *restMachine) Age(t *rapid.T) {
	time.Sleep(rapid.SampledFrom([]time.Duration{time.Microsecond, 600 * time.Microsecond, 2 * time.Millisecond}).Draw(t, "age"))
}

func (rm *restMachine) Writable(*rapid.T) { rm.c.Writable() }

func (rm *restMachine) Reserve(t *rapid.T) {
	rm.semaphoreOnly(t)
	r := new(counter.Reservation)
	if rm.c.Reserve(r, rm.amount(t)) == nil {
		rm.resv = append(rm.resv, r)
	}
}

func (rm *restMachine) CancelReservation(t *rapid.T) {
	if len(rm.resv) == 0 {
		t.Skip("no reservation")
	}
	rapid.SampledFrom(rm.resv).Draw(t, "reservation").Cancel()
}

func (rm *restMachine) SetLimit(t *rapid.T) {
	rm.semaphoreOnly(t)
	_ = rm.c.SetLimit(drawRestLimit(t))
}

func (rm *restMachine) Serve(*rapid.T) { rm.c.Serve() }

func (rm *restMachine) Close(t *rapid.T) {
	if rapid.IntRange(0, 3).Draw(t, "close") == 0 {
		rm.c.Close()
	}
}

// Check waits until every goroutine is parked, drops the calls that have
// returned, and checks the invariants.
func (rm *restMachine) Check(t *rapid.T) {
	synctest.Wait()
	waiting := rm.parked[:0]
	for _, p := range rm.parked {
		select {
		case <-p.done:
			if p.cancel != nil {
				p.cancel()
			}
		default:
			waiting = append(waiting, p)
		}
	}
	rm.parked = waiting
	if err := counter.CheckInvariants(rm.c); err != nil {
		t.Fatal(err)
	}
}
