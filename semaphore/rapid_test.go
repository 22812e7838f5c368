package semaphore_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/model"
	"github.com/evsync/evsync/semaphore"
	"pgregory.net/rapid"
)

// TestSemaphoreModel drives every call of a Semaphore, one at a time,
// next to the sequential reference model and compares every result.
// Permits belong to a Limiter: TestLimiterModel checks them. Each run
// draws the mode, strict or eventually fair (fair_rapid_test.go).
func TestSemaphoreModel(t *testing.T) { testkit.CheckModel(t, testSemaphoreModel) }

// FuzzSemaphoreModel is TestSemaphoreModel as a native fuzz target.
func FuzzSemaphoreModel(f *testing.F) { testkit.FuzzModel(f, 1, 2, testSemaphoreModel) }

func testSemaphoreModel(t *rapid.T) {
	t.Repeat(rapid.StateMachineActions(newSemMachine(t)))
}

type semMachine struct {
	s     *semaphore.Semaphore
	m     *model.Counter
	clock machineClock
	resv  []semReservation
	ready testkit.ReadyChans
	out   testkit.ReadyChans // Writable's, with out.Writable set
}

type semReservation struct {
	r *semaphore.Reservation
	m *model.Reservation
}

// newSemMachine draws the mode, then the construction. The zero value
// is strict only.
func newSemMachine(t *rapid.T) *semMachine {
	sm := &semMachine{clock: drawMode(t)}
	first := 0
	if sm.clock.eventual {
		first = 1
	}
	limit := semaphore.Max
	switch rapid.IntRange(first, 2).Draw(t, "construct") {
	case 0: // the zero value: count 0, limit Max
		sm.s, sm.m = new(semaphore.Semaphore), model.NewSemaphore(0, semaphore.Max)
		return sm
	case 1:
		initial := testkit.Initial(limit).Draw(t, "initial")
		sm.s = semaphore.New(initial, sm.clock.opts()...)
		sm.m = sm.newModel(initial, limit)
	default:
		limit = drawLimit(t)
		initial := testkit.Initial(limit).Draw(t, "initial")
		sm.s = semaphore.New(initial, sm.clock.opts(semaphore.WithLimit(limit))...)
		sm.m = sm.newModel(initial, limit)
	}
	return sm
}

// newModel is the model of a semaphore of the drawn mode.
func (sm *semMachine) newModel(initial, limit uint64) *model.Counter {
	if sm.clock.eventual {
		return model.NewEventualSemaphore(initial, limit, machineBound)
	}
	return model.NewSemaphore(initial, limit)
}

// Advance moves the semaphore's fake clock and the model's on by the same
// step (drawAdvance). A strict semaphore ignores it.
func (sm *semMachine) Advance(t *rapid.T) {
	d := drawAdvance(t, sm.m.Ages())
	sm.clock.fc.Step(d)
	sm.m.Advance(d)
}

func drawLimit(t *rapid.T) uint64 {
	return rapid.OneOf(
		rapid.SampledFrom([]uint64{1, 2, 3, semaphore.Max - 1, semaphore.Max, 1 << 32, 1 << 63}),
		rapid.Uint64Range(1, 16),
		rapid.Uint64Range(1, semaphore.Max),
	).Draw(t, "limit")
}

// amount draws a request or release size concentrated at the edges
// (testkit.Amount), with the need of the head of the queue as a target
// besides the limit: the values that fill or just miss a waiter.
func (sm *semMachine) amount(t *rapid.T, label string) uint64 {
	var head []uint64
	if q := sm.m.Queue(); len(q) != 0 {
		head = q[:1]
	}
	return testkit.Amount(sm.m.Count(), sm.m.Limit(), head...).Draw(t, label)
}

func (sm *semMachine) Acquire(t *rapid.T) {
	n := sm.amount(t, "n")
	testkit.CheckBlocking(t, "Acquire",
		func(ctx context.Context) error { return sm.s.Acquire(ctx, n) },
		func(c model.Ctx) error { return sm.m.Acquire(c, n) })
}

func (sm *semMachine) AcquireUpTo(t *rapid.T) {
	max := sm.amount(t, "max")
	var got, want uint64
	testkit.CheckBlocking(t, "AcquireUpTo",
		func(ctx context.Context) (err error) { got, err = sm.s.AcquireUpTo(ctx, max); return err },
		func(c model.Ctx) (err error) { want, err = sm.m.AcquireUpTo(c, max); return err })
	if got != want {
		t.Fatalf("AcquireUpTo(%d) took %d, want %d", max, got, want)
	}
}

func (sm *semMachine) TakeAll(t *rapid.T) {
	if got, want := sm.s.TakeAll(), sm.m.TakeAll(); got != want {
		t.Fatalf("TakeAll() = %d, want %d", got, want)
	}
}

func (sm *semMachine) TryAcquire(t *rapid.T) {
	n := sm.amount(t, "n")
	if got, want := sm.s.TryAcquire(n), sm.m.TryAcquire(n); got != want {
		t.Fatalf("TryAcquire(%d) = %v, want %v", n, got, want)
	}
}

func (sm *semMachine) Release(t *rapid.T) {
	n := sm.amount(t, "n")
	testkit.SameErr(t, "Release", sm.s.Release(n), sm.m.Write(n))
}

func (sm *semMachine) ReleaseWait(t *rapid.T) {
	n := sm.amount(t, "n")
	testkit.CheckBlocking(t, "ReleaseWait",
		func(ctx context.Context) error { return sm.s.ReleaseWait(ctx, n) },
		func(c model.Ctx) error { return sm.m.WriteWait(c, n) })
}

func (sm *semMachine) Drain(t *rapid.T) {
	testkit.CheckBlocking(t, "Drain",
		func(ctx context.Context) error { return sm.s.Drain(ctx) },
		func(c model.Ctx) error { return sm.m.Drain(c) })
}

func (sm *semMachine) Reserve(t *rapid.T) {
	n := sm.amount(t, "n")
	r, err := sm.s.Reserve(n)
	mr, want := sm.m.Reserve(n)
	testkit.SameErr(t, "Reserve", err, want)
	if (r == nil) != (mr == nil) {
		t.Fatalf("Reserve(%d) returned reservation %v, model %v", n, r != nil, mr != nil)
	}
	if r != nil {
		sm.resv = append(sm.resv, semReservation{r, mr})
	}
}

func (sm *semMachine) pick(t *rapid.T) semReservation {
	if len(sm.resv) == 0 {
		t.Skip("no reservation")
	}
	return sm.resv[rapid.IntRange(0, len(sm.resv)-1).Draw(t, "reservation")]
}

func (sm *semMachine) ReservationCancel(t *rapid.T) {
	p := sm.pick(t)
	if got, want := p.r.Cancel(), p.m.Cancel(); got != want {
		t.Fatalf("Cancel() of a reservation for %d = %v, want %v", p.m.Need(), got, want)
	}
}

func (sm *semMachine) Ready(t *rapid.T) {
	sm.ready.Add(t, sm.m, sm.s.Ready(), sm.m.Ready())
}

func (sm *semMachine) Writable(t *rapid.T) {
	sm.out.Writable = true
	sm.out.Add(t, sm.m, sm.s.Writable(), sm.m.Writable())
}

// Close closes on one draw in four (a no-op step otherwise), so that most
// runs spend a while open before they close.
func (sm *semMachine) Close(t *rapid.T) {
	if testkit.DrawClose(t) {
		sm.s.Close()
		sm.m.Close()
	}
}

// TestSemaphoreNewInvalid checks that New and WithLimit panic with a
// "semaphore: " message for an initial count above the limit and a limit
// outside 1..Max.
func TestSemaphoreNewInvalid(t *testing.T) { rapid.Check(t, checkNewInvalid) }

func checkNewInvalid(t *rapid.T) {
	limit := drawLimit(t)
	switch rapid.IntRange(0, 2).Draw(t, "bad") {
	case 0:
		initial := rapid.Uint64Min(limit+1).Draw(t, "initial above limit")
		testkit.WantPanic(t, "semaphore: ", func() { newSemaphore(initial, semaphore.WithLimit(limit)) })
	case 1:
		testkit.WantPanic(t, "semaphore: ", func() { semaphore.WithLimit(0) })
	default:
		testkit.WantPanic(t, "semaphore: ", func() { semaphore.WithLimit(semaphore.Max + 1) })
	}
	testkit.WantPanic(t, "semaphore: ", func() { newSemaphore(1<<64 - 1) })
}

func (sm *semMachine) SetLimit(t *rapid.T) {
	limit := rapid.OneOf(
		rapid.Uint64Range(0, 12),
		rapid.Just(sm.m.Limit()+1),
		rapid.Just(max(sm.m.Limit(), 2)-1),
		rapid.Just(semaphore.Max),
		rapid.Just(semaphore.Max+1),
	).Draw(t, "limit")
	testkit.SameErr(t, fmt.Sprintf("SetLimit(%d)", limit), sm.s.SetLimit(limit), sm.m.SetLimit(limit))
}

func (sm *semMachine) Check(t *rapid.T) {
	testkit.CheckCounter(t, sm.m, sm.s, semaphore.Stats{
		Count:   sm.m.Count(),
		Limit:   sm.m.Limit(),
		Waiting: sm.m.Waiting(),
		Closed:  sm.m.Closed(),
		Debt:    sm.m.Debt(),
	})
	for i, p := range sm.resv {
		if got, want := testkit.IsClosed(p.r.Done()), p.m.Done(); got != want {
			t.Fatalf("Done() of reservation #%d (for %d) closed = %v, want %v", i, p.m.Need(), got, want)
		}
		if got, want := p.r.Err(), p.m.Err(); got != want {
			t.Fatalf("Err() of reservation #%d (for %d) = %v, want %v", i, p.m.Need(), got, want)
		}
	}
	sm.ready.Check(t, sm.m)
	sm.out.Check(t, sm.m)
}
