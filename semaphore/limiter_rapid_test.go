package semaphore_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/model"
	"github.com/evsync/evsync/semaphore"
	"pgregory.net/rapid"
)

// TestLimiterModel drives every call of a Limiter, its permits and its
// reservations, one at a time, next to model.Limiter and compares every
// result. A call that would wait is made with a cancelled context
// (testkit.CheckBlocking). Each run draws the mode, strict or eventually
// fair (fair_rapid_test.go).
func TestLimiterModel(t *testing.T) { testkit.CheckModel(t, testLimiterModel) }

// FuzzLimiterModel is TestLimiterModel as a native fuzz target.
func FuzzLimiterModel(f *testing.F) { testkit.FuzzModel(f, 3, 4, testLimiterModel) }

func testLimiterModel(t *rapid.T) {
	t.Repeat(rapid.StateMachineActions(newLimMachine(t)))
}

type limMachine struct {
	l     *semaphore.Limiter
	m     *model.Limiter
	clock machineClock
	perms []limPermit
	resv  []limReservation
}

// limPermit is a permit (held through a pointer, as a Permit is not
// copied) and the units the model says it holds.
type limPermit struct {
	p *semaphore.Permit
	n int
}

func newLimMachine(t *rapid.T) *limMachine {
	n := rapid.OneOf(
		rapid.SampledFrom([]int{1, 2, 3, 1<<36 - 1, 1 << 36, math.MaxInt32}),
		rapid.IntRange(1, 16),
	).Draw(t, "n")
	lm := &limMachine{clock: drawMode(t)}
	lm.l = semaphore.NewLimiter(n, lm.clock.opts()...)
	if lm.clock.eventual {
		lm.m = model.NewEventualLimiter(n, machineBound)
	} else {
		lm.m = model.NewLimiter(n)
	}
	return lm
}

// Advance moves the limiter's fake clock and the model's on by the same
// step (drawAdvance). A strict limiter ignores it.
func (lm *limMachine) Advance(t *rapid.T) {
	d := drawAdvance(t, lm.m.Ages())
	lm.clock.fc.Step(d)
	lm.m.Advance(d)
}

// amount draws a request or release size concentrated at the edges: 0, 1,
// negative, around the limit, the free units and the units in use (an
// over-release is one more than those), and the ends of int.
func (lm *limMachine) amount(t *rapid.T, label string) int {
	l, f, u := lm.m.Limit(), lm.m.Free(), lm.m.InUse()
	edges := []int{-1, 0, 1, 2, l - 1, l, l + 1, f - 1, f, f + 1, u - 1, u, u + 1, math.MaxInt, math.MinInt}
	return rapid.OneOf(
		rapid.SampledFrom(edges),
		rapid.IntRange(0, 8),
		rapid.SampledFrom(edges),
		rapid.IntRange(-2, l+2),
	).Draw(t, label)
}

func (lm *limMachine) Acquire(t *rapid.T) {
	n := lm.amount(t, "n")
	testkit.CheckBlocking(t, fmt.Sprintf("Acquire(%d)", n),
		func(ctx context.Context) error { return lm.l.Acquire(ctx, n) },
		func(c model.Ctx) error { return lm.m.Acquire(c, n) })
}

func (lm *limMachine) TryAcquire(t *rapid.T) {
	n := lm.amount(t, "n")
	if got, want := lm.l.TryAcquire(n), lm.m.TryAcquire(n); got != want {
		t.Fatalf("TryAcquire(%d) = %v, want %v", n, got, want)
	}
}

// upToMax draws AcquireUpTo's max: the amounts of Acquire, where the
// free units and the ends of int are edges, and a negative one is a bad
// argument.
func (lm *limMachine) upToMax(t *rapid.T) int { return lm.amount(t, "max") }

func (lm *limMachine) AcquireUpTo(t *rapid.T) {
	max := lm.upToMax(t)
	var got, want int
	testkit.CheckBlocking(t, fmt.Sprintf("AcquireUpTo(%d)", max),
		func(ctx context.Context) (err error) { got, err = lm.l.AcquireUpTo(ctx, max); return err },
		func(c model.Ctx) (err error) { want, err = lm.m.AcquireUpTo(c, max); return err })
	if got != want {
		t.Fatalf("AcquireUpTo(%d) took %d, want %d", max, got, want)
	}
}

func (lm *limMachine) TryAcquireUpTo(t *rapid.T) {
	max := lm.upToMax(t)
	if got, want := lm.l.TryAcquireUpTo(max), lm.m.TryAcquireUpTo(max); got != want {
		t.Fatalf("TryAcquireUpTo(%d) = %d, want %d", max, got, want)
	}
}

func (lm *limMachine) AcquirePermitUpTo(t *rapid.T) {
	max := lm.upToMax(t)
	p := new(semaphore.Permit)
	var want int
	testkit.CheckBlocking(t, fmt.Sprintf("AcquirePermitUpTo(%d)", max),
		func(ctx context.Context) (err error) { *p, err = lm.l.AcquirePermitUpTo(ctx, max); return err },
		func(c model.Ctx) (err error) { want, err = lm.m.AcquireUpTo(c, max); return err })
	lm.keep(t, "AcquirePermitUpTo", p, want, want != 0)
}

func (lm *limMachine) TryAcquirePermitUpTo(t *rapid.T) {
	max := lm.upToMax(t)
	p := new(semaphore.Permit)
	*p = lm.l.TryAcquirePermitUpTo(max)
	want := lm.m.TryAcquireUpTo(max)
	lm.keep(t, "TryAcquirePermitUpTo", p, want, want != 0)
}

// Release draws over-releases too (the units in use plus one, the limit
// plus one): ErrOverRelease, changing nothing.
func (lm *limMachine) Release(t *rapid.T) {
	n := lm.amount(t, "n")
	testkit.SameErr(t, fmt.Sprintf("Release(%d)", n), lm.l.Release(n), lm.m.Release(n))
}

func (lm *limMachine) SetLimit(t *rapid.T) {
	l, u := lm.m.Limit(), lm.m.InUse()
	n := rapid.OneOf(
		rapid.IntRange(-1, 12),
		rapid.SampledFrom([]int{l - 1, l + 1, u, u - 1, u + 1, math.MaxInt32}),
	).Draw(t, "limit")
	testkit.SameErr(t, fmt.Sprintf("SetLimit(%d)", n), lm.l.SetLimit(n), lm.m.SetLimit(n))
}

func (lm *limMachine) Drain(t *rapid.T) {
	testkit.CheckBlocking(t, "Drain",
		func(ctx context.Context) error { return lm.l.Drain(ctx) },
		func(c model.Ctx) error { return lm.m.Drain(c) })
}

// Close closes on one draw in four (a no-op step otherwise), so that most
// runs spend a while open before they close.
func (lm *limMachine) Close(t *rapid.T) {
	if testkit.DrawClose(t) {
		lm.l.Close()
		lm.m.Close()
	}
}

func (lm *limMachine) AcquirePermit(t *rapid.T) {
	n := lm.amount(t, "n")
	p := new(semaphore.Permit)
	var got error
	testkit.CheckBlocking(t, fmt.Sprintf("AcquirePermit(%d)", n),
		func(ctx context.Context) (err error) { *p, err = lm.l.AcquirePermit(ctx, n); got = err; return err },
		func(c model.Ctx) error { return lm.m.Acquire(c, n) })
	lm.keep(t, "AcquirePermit", p, n, got == nil)
}

func (lm *limMachine) TryAcquirePermit(t *rapid.T) {
	n := lm.amount(t, "n")
	p := new(semaphore.Permit)
	var ok bool
	*p, ok = lm.l.TryAcquirePermit(n)
	if want := lm.m.TryAcquire(n); ok != want {
		t.Fatalf("TryAcquirePermit(%d) = %v, want %v", n, ok, want)
	}
	lm.keep(t, "TryAcquirePermit", p, n, ok)
}

// keep checks a permit just returned for n units, the zero Permit unless
// ok, and keeps it if ok.
func (lm *limMachine) keep(t *rapid.T, what string, p *semaphore.Permit, n int, ok bool) {
	if !ok {
		n = 0
	}
	if p.N() != n {
		t.Fatalf("%s: the permit holds %d, want %d", what, p.N(), n)
	}
	if ok {
		lm.perms = append(lm.perms, limPermit{p, n})
	}
}

func (lm *limMachine) permit(t *rapid.T) *limPermit {
	if len(lm.perms) == 0 {
		t.Skip("no permit")
	}
	return &lm.perms[rapid.IntRange(0, len(lm.perms)-1).Draw(t, "permit")]
}

// PermitRelease gives a permit's units back once: a repeat, or a permit
// emptied by Merge, Split or Forget, returns false and changes nothing.
func (lm *limMachine) PermitRelease(t *rapid.T) {
	p := lm.permit(t)
	want := p.n != 0 && lm.m.Release(p.n) == nil
	if want {
		p.n = 0
	}
	if got := p.p.Release(); got != want {
		t.Fatalf("Permit.Release() = %v, want %v", got, want)
	}
}

func (lm *limMachine) PermitSplit(t *rapid.T) {
	p := lm.permit(t)
	k := rapid.IntRange(-1, p.n+1).Draw(t, "k")
	q := new(semaphore.Permit)
	var err error
	*q, err = p.p.Split(k)
	if ok := k > 0 && k <= p.n; ok != (err == nil) || ok && q.N() != k || !ok && q.N() != 0 {
		t.Fatalf("Split(%d) of %d = %d units, %v", k, p.n, q.N(), err)
	}
	if err == nil {
		p.n -= k
		lm.perms = append(lm.perms, limPermit{q, k})
	}
}

func (lm *limMachine) PermitMerge(t *rapid.T) {
	p, q := lm.permit(t), lm.permit(t)
	err := p.p.Merge(q.p)
	if p == q {
		testkit.SameErr(t, "Merge with itself", err, semaphore.ErrInvalid)
		return
	}
	testkit.MustNil(t, err)
	p.n, q.n = p.n+q.n, 0
}

// PermitMergeForeign merges a permit of another limiter: refused while
// the permit holds units, else the permit takes the other's unit, and its
// Release gives it back there.
func (lm *limMachine) PermitMergeForeign(t *rapid.T) {
	p := lm.permit(t)
	other := newLimiter(1)
	q, _ := other.TryAcquirePermit(1)
	err := p.p.Merge(&q)
	if p.n != 0 {
		testkit.SameErr(t, "Merge of another limiter's permit", err, semaphore.ErrInvalid)
		if q.N() != 1 || other.Stats().InUse != 1 {
			t.Fatalf("a refused Merge moved units: the other permit holds %d, %v", q.N(), other)
		}
		return
	}
	testkit.MustNil(t, err)
	if q.N() != 0 || !p.p.Release() || other.Stats().InUse != 0 || p.p.N() != 0 {
		t.Fatalf("an empty permit did not take the other's unit back there: %d, %v", q.N(), other)
	}
}

// PermitForget drops a permit's units: the model keeps them in use for
// good.
func (lm *limMachine) PermitForget(t *rapid.T) {
	p := lm.permit(t)
	if got := p.p.Forget(); got != p.n {
		t.Fatalf("Forget() = %d, want %d", got, p.n)
	}
	p.n = 0
}

func (lm *limMachine) Check(t *rapid.T) {
	if err := lm.m.Validate(); err != nil {
		t.Fatalf("the model broke an invariant: %v", err)
	}
	want := semaphore.LimiterStats{
		Limit:   lm.m.Limit(),
		InUse:   lm.m.InUse(),
		Free:    lm.m.Free(),
		Waiting: lm.m.Waiting(),
		Closed:  lm.m.Closed(),
	}
	if st := lm.l.Stats(); st != want {
		t.Fatalf("Stats() = %+v, want %+v", st, want)
	}
	if s := lm.l.String(); s != want.String() {
		t.Fatalf("String() = %q, want %q", s, want.String())
	}
	for i, p := range lm.perms {
		if got := p.p.N(); got != p.n {
			t.Fatalf("permit #%d holds %d, want %d", i, got, p.n)
		}
	}
	for i, p := range lm.resv {
		if got, want := testkit.IsClosed(p.r.Done()), p.m.Done(); got != want {
			t.Fatalf("Done() of reservation #%d (for %d) closed = %v, want %v", i, p.m.Need(), got, want)
		}
		if got, want := p.r.Err(), p.m.Err(); got != want {
			t.Fatalf("Err() of reservation #%d (for %d) = %v, want %v", i, p.m.Need(), got, want)
		}
	}
}

// limReservation is a reservation of the limiter and the model's.
type limReservation struct {
	r *semaphore.Reservation
	m *model.Reservation
}

// Reserve joins the queue. A pending reservation holds up every Acquire
// and TryAcquire behind it, and Close refuses it.
func (lm *limMachine) Reserve(t *rapid.T) {
	n := lm.amount(t, "n")
	r, err := lm.l.Reserve(n)
	mr, want := lm.m.Reserve(n)
	testkit.SameErr(t, fmt.Sprintf("Reserve(%d)", n), err, want)
	if (r == nil) != (mr == nil) {
		t.Fatalf("Reserve(%d) returned reservation %v, model %v", n, r != nil, mr != nil)
	}
	if r != nil {
		lm.resv = append(lm.resv, limReservation{r, mr})
	}
}

// ReservationCancel gives a reservation up: its place in the queue, or
// the units it was granted.
func (lm *limMachine) ReservationCancel(t *rapid.T) {
	if len(lm.resv) == 0 {
		t.Skip("no reservation")
	}
	p := lm.resv[rapid.IntRange(0, len(lm.resv)-1).Draw(t, "reservation")]
	if got, want := p.r.Cancel(), p.m.Cancel(); got != want {
		t.Fatalf("Cancel() of a reservation for %d = %v, want %v", p.m.Need(), got, want)
	}
}
