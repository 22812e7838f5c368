package model_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/evsync/evsync/internal/evserr"
	"github.com/evsync/evsync/model"
)

// bound is the eventual-fairness bound of these tests.
const bound = 10 * time.Millisecond

// A fairRun is a Limiter under test and the reservations its Reserve
// steps made, in order.
type fairRun struct {
	l    *model.Limiter
	resv []*model.Reservation
}

// A modeStep is one call on a run R and what it must return in the
// eventual mode (want) and in the strict one (strict).
type modeStep[R any] struct {
	what         string
	do           func(R) any
	want, strict any
}

// strictly returns the step with what it must return in the strict mode.
func (s modeStep[R]) strictly(want any) modeStep[R] { s.strict = want; return s }

// runModes makes the steps on a fresh run in each mode, eventual first.
// fresh returns the run and its model's invariant check, which runs after
// every step.
func runModes[R any](t *testing.T, fresh func(eventual bool) (R, func() error), steps []modeStep[R]) {
	t.Helper()
	for _, eventual := range []bool{true, false} {
		r, validate := fresh(eventual)
		mode := map[bool]string{false: "strict", true: "eventual"}[eventual]
		for i, s := range steps {
			want := s.strict
			if eventual {
				want = s.want
			}
			if got := s.do(r); got != want {
				t.Fatalf("%s mode, step %d: %s = %v, want %v", mode, i, s.what, got, want)
			}
			if err := validate(); err != nil {
				t.Fatalf("%s mode, after step %d (%s): %v", mode, i, s.what, err)
			}
		}
	}
}

// A fairStep is a step on a Limiter (fairRun).
type fairStep = modeStep[*fairRun]

// fstep returns a step that must return want in both modes.
func fstep(what string, do func(*fairRun) any, want any) fairStep {
	return fairStep{what, do, want, want}
}

// reserved is what a Reserve step returns: its error, and whether the
// reservation was granted at once.
type reserved struct {
	err     error
	granted bool
}

var (
	granted = reserved{nil, true}
	queued  = reserved{nil, false}
)

// The steps. Each wraps a call of limStep's (limiter_test.go) or one of
// the calls only a fairRun has.

func lim(s limStep) fairStep {
	return fstep(s.what, func(r *fairRun) any { return s.do(r.l) }, s.want)
}

func reserveStep(n int, want reserved) fairStep {
	return fstep(fmt.Sprintf("Reserve(%d)", n), func(r *fairRun) any {
		res, err := r.l.Reserve(n)
		if res == nil {
			return reserved{err, false}
		}
		r.resv = append(r.resv, res)
		return reserved{err, res.Done()}
	}, want)
}

func elapse(d time.Duration) fairStep {
	return fstep(fmt.Sprintf("Advance(%v)", d), func(r *fairRun) any { r.l.Advance(d); return nil }, nil)
}

func cancelStep(i int, want bool) fairStep {
	return fstep(fmt.Sprintf("Cancel of reservation %d", i), func(r *fairRun) any { return r.resv[i].Cancel() }, want)
}

// done is reservation i's Done and Err, as "done <err>" or "pending".
func done(i int, want string) fairStep {
	return fstep(fmt.Sprintf("reservation %d", i), func(r *fairRun) any {
		if !r.resv[i].Done() {
			return "pending"
		}
		return fmt.Sprintf("done %v", r.resv[i].Err())
	}, want)
}

// look is what the limiter shows: free units, Waiting, Queue and Ages.
func look(want string) fairStep {
	return fstep("the limiter", func(r *fairRun) any {
		return fmt.Sprintf("free %d waiting %d queue %v ages %v", r.l.Free(), r.l.Waiting(), r.l.Queue(), r.l.Ages())
	}, want)
}

// runFair makes the steps on a fresh limiter of n units in both modes,
// checking the model's invariants after every step.
func runFair(t *testing.T, n int, steps []fairStep) {
	t.Helper()
	runModes(t, func(eventual bool) (*fairRun, func() error) {
		r := &fairRun{l: model.NewLimiter(n)}
		if eventual {
			r.l = model.NewEventualLimiter(n, bound)
		}
		return r, r.l.Validate
	}, steps)
}

// TestEventualBargingBoundary makes each call that may barge behind a
// reservation of age 0, of exactly the bound, and of the bound and one
// nanosecond, after a Reserve that queues (and so looks at the head's
// age) and its Cancel. In the eventual mode the first two take the free
// unit and the last does not. Without that look, all three take it:
// nothing has noticed the old head yet. The strict mode never lets any
// of them by.
func TestEventualBargingBoundary(t *testing.T) {
	forms := []struct {
		name      string
		call      fairStep // with what it returns when it barges, and in the strict mode when it does not
		refused   any      // what it returns when it may not barge
		afterTake string   // the limiter once it barged, with the head's age
		afterWait string   // the limiter once it did not
	}{
		{"Acquire", lim(acquire(model.Live, 1)).strictly(evserr.ErrWouldBlock), evserr.ErrWouldBlock,
			"free 0 waiting 1 queue [2] ages [%v]", "free 1 waiting 1 queue [2] ages [%v]"},
		{"TryAcquire", lim(try(1)).strictly(false), false,
			"free 0 waiting 1 queue [2] ages [%v]", "free 1 waiting 1 queue [2] ages [%v]"},
		{"AcquireUpTo", lim(upTo(model.Live, 3, 1)).strictly(took{0, evserr.ErrWouldBlock}), took{0, evserr.ErrWouldBlock},
			"free 0 waiting 1 queue [2] ages [%v]", "free 1 waiting 1 queue [2] ages [%v]"},
		{"TryAcquireUpTo", lim(tryUpTo(3, 1)).strictly(0), 0,
			"free 0 waiting 1 queue [2] ages [%v]", "free 1 waiting 1 queue [2] ages [%v]"},
		{"Reserve", reserveStep(1, granted).strictly(queued), queued,
			"free 0 waiting 1 queue [2] ages [%v]", "free 1 waiting 2 queue [2 1] ages [%v 0s]"},
	}
	for _, f := range forms {
		for _, age := range []time.Duration{0, bound, bound + time.Nanosecond} {
			for _, noticed := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s/age=%v/noticed=%v", f.name, age, noticed), func(t *testing.T) {
					call, after := f.call, fmt.Sprintf(f.afterTake, age)
					if age > bound && noticed {
						call.want, after = f.refused, fmt.Sprintf(f.afterWait, age)
					}
					waited := look(after).strictly(fmt.Sprintf(f.afterWait, age))
					steps := []fairStep{lim(acquire(model.Live, 3)), reserveStep(2, queued), elapse(age)}
					if noticed {
						steps = append(steps, reserveStep(3, queued), cancelStep(1, true)) // the Reserve looks
					}
					runFair(t, 4, append(steps,
						look(fmt.Sprintf("free 1 waiting 1 queue [2] ages [%v]", age)),
						call, waited,
					))
				})
			}
		}
	}
}

func TestEventualLimiterSteps(t *testing.T) {
	cases := []struct {
		name  string
		n     int
		steps []fairStep
	}{
		{"Release hands the units to the head, not to a barger", 4, []fairStep{
			lim(acquire(model.Live, 3)), reserveStep(2, queued), lim(release(1)),
			done(0, "done <nil>"), look("free 0 waiting 0 queue [] ages []"), lim(try(1).is(false)),
		}},
		{"Release serves in order: a head that does not fit holds up one that would", 4, []fairStep{
			lim(acquire(model.Live, 4)), reserveStep(3, queued), reserveStep(1, queued), lim(release(1)),
			done(1, "pending"), look("free 1 waiting 2 queue [3 1] ages [0s 0s]"),
			lim(try(1)).strictly(false), // a barger may take what the waiter behind could not
			lim(release(3)), done(0, "done <nil>"), done(1, "pending").strictly("done <nil>"),
			look("free 0 waiting 1 queue [1] ages [0s]").strictly("free 0 waiting 0 queue [] ages []"),
		}},
		{"a raise serves in order", 2, []fairStep{
			lim(acquire(model.Live, 2)), reserveStep(2, queued), reserveStep(1, queued), lim(setLimit(3)),
			look("free 1 waiting 2 queue [2 1] ages [0s 0s]"), lim(setLimit(5)),
			done(0, "done <nil>"), done(1, "done <nil>"), look("free 0 waiting 0 queue [] ages []"),
		}},
		{"a Cancel giving units back serves in order", 3, []fairStep{
			reserveStep(2, granted), reserveStep(3, queued), cancelStep(0, true),
			done(1, "done <nil>"), look("free 0 waiting 0 queue [] ages []"),
		}},
		{"Advance serves nobody, and an old head makes Reserve queue once a call noticed it", 4, []fairStep{
			lim(acquire(model.Live, 3)), reserveStep(2, queued), elapse(bound + 1),
			reserveStep(3, queued), cancelStep(1, true), // the Reserve looks
			reserveStep(1, queued), look("free 1 waiting 2 queue [2 1] ages [10.000001ms 0s]"),
			lim(try(1).is(false)), // the head's age decides, not the newest one's
			elapse(5 * bound), done(2, "pending"),
			look("free 1 waiting 2 queue [2 1] ages [60.000001ms 50ms]"),
			cancelStep(0, true), done(2, "done <nil>"), look("free 0 waiting 0 queue [] ages []"),
		}},
		{"the next head's own age decides", 3, []fairStep{
			lim(acquire(model.Live, 3)), reserveStep(1, queued), elapse(bound / 2),
			reserveStep(2, queued), elapse(bound/2 + 1),
			look("free 0 waiting 2 queue [1 2] ages [10.000001ms 5.000001ms]"),
			lim(release(1)), done(0, "done <nil>"), lim(release(1)),
			lim(try(1)).strictly(false), // the head is 5ms old now
			elapse(bound / 2), lim(release(1)),
			lim(try(1).is(false)), // 10.000001ms old now
			look("free 1 waiting 1 queue [2] ages [10.000001ms]").strictly("free 0 waiting 0 queue [] ages []"),
		}},
		{"arguments, a Done context and 0 units are checked as before", 4, []fairStep{
			lim(acquire(model.Live, 3)), reserveStep(2, queued),
			lim(acquire(model.Live, -1).is(evserr.ErrInvalid)), lim(acquire(model.Live, 5).is(evserr.ErrInvalid)),
			lim(acquire(model.Done, 1).is(context.Canceled)), lim(acquire(model.Live, 0)),
			lim(try(-1).is(false)), lim(try(5).is(false)), lim(try(0)),
			lim(upTo(model.Live, -1, 0).refused(evserr.ErrInvalid)), lim(upTo(model.Done, 1, 0).refused(context.Canceled)),
			lim(upTo(model.Live, 0, 0)), lim(tryUpTo(0, 0)), lim(tryUpTo(-1, 0)),
			reserveStep(-1, reserved{evserr.ErrInvalid, false}), reserveStep(5, reserved{evserr.ErrInvalid, false}),
			reserveStep(0, granted), lim(release(-1).is(evserr.ErrInvalid)), lim(release(4).is(evserr.ErrOverRelease)),
			lim(drain(model.Done).is(context.Canceled)),
			look("free 1 waiting 1 queue [2] ages [0s]"),
		}},
		{"Close refuses the waiting and every later acquire, barging or not", 4, []fairStep{
			lim(acquire(model.Live, 3)), reserveStep(2, queued), lim(closeStep), done(0, "done "+evserr.ErrClosed.Error()),
			lim(acquire(model.Live, 1).is(evserr.ErrClosed)), lim(try(1).is(false)), lim(tryUpTo(1, 0)),
			lim(upTo(model.Live, 1, 0).refused(evserr.ErrClosed)), reserveStep(1, reserved{evserr.ErrClosed, false}),
			lim(release(3)), lim(drain(model.Live)), look("free 4 waiting 0 queue [] ages []"),
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { runFair(t, c.n, c.steps) })
	}
}

// TestEventualLargeHeadNotStarved: eight workers hold a unit each and,
// at every tick, give it back and take it again at once. A reservation
// for all eight units waits behind them. While it is young the workers
// barge past it. Once it is older than the bound nobody takes a unit
// ahead of it, and it has them all after one more round of releases.
// In the strict mode the workers never barge, and it has them after the
// first round.
func TestEventualLargeHeadNotStarved(t *testing.T) {
	const workers, tick = 8, time.Millisecond
	for _, eventual := range []bool{true, false} {
		l := model.NewLimiter(workers)
		if eventual {
			l = model.NewEventualLimiter(workers, bound)
		}
		for range workers {
			if !l.TryAcquire(1) {
				t.Fatal("a worker could not take its first unit")
			}
		}
		head, err := l.Reserve(workers)
		if err != nil || head.Done() {
			t.Fatalf("Reserve(%d) with nothing free = done %v, %v; want it pending", workers, head.Done(), err)
		}
		barged := time.Duration(-1) // when a worker last barged, or -1 if none did
		releases := 0
		for !head.Done() {
			if l.Now() > 2*bound {
				t.Fatalf("eventual %v: the head still waits after %v, with the bound %v", eventual, l.Now(), bound)
			}
			l.Advance(tick)
			for range workers {
				if head.Done() {
					break
				}
				if err := l.Release(1); err != nil {
					t.Fatal(err)
				}
				releases++
				if l.TryAcquire(1) {
					barged = l.Now()
					releases--
				}
			}
		}
		want := time.Duration(-1)
		if eventual {
			want = bound // the last tick at which the head was at most bound old
		}
		if barged != want {
			t.Errorf("eventual %v: the workers last barged at %v, want %v", eventual, barged, want)
		}
		if releases != workers || l.Free() != 0 || l.InUse() != workers {
			t.Errorf("eventual %v: the head got %d released units, free %d, in use %d; want %d, 0, %d",
				eventual, releases, l.Free(), l.InUse(), workers, workers)
		}
	}
}

// TestEventualLimiterClock pins Now, Advance, Bound and Barges.
func TestEventualLimiterClock(t *testing.T) {
	l := model.NewEventualLimiter(1, bound)
	if l.Now() != 0 || l.Bound() != bound || !l.Barges() {
		t.Fatalf("a new limiter: Now %v, Bound %v, Barges %v; want 0, %v, true", l.Now(), l.Bound(), l.Barges(), bound)
	}
	l.Advance(0)
	l.Advance(3 * time.Second)
	if l.Now() != 3*time.Second {
		t.Fatalf("Now after Advance(0) and Advance(3s) = %v", l.Now())
	}
	if err := l.Acquire(model.Live, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Reserve(1); err != nil {
		t.Fatal(err)
	}
	if !l.Barges() || l.Ages()[0] != 0 {
		t.Fatalf("behind a new reservation: Barges %v, Ages %v; want true, [0s]", l.Barges(), l.Ages())
	}
	l.Advance(bound + 1)
	if !l.Barges() || l.Starving() {
		t.Fatalf("before any call noticed the head of age %v: Barges %v, Starving %v; want true, false", l.Ages()[0], l.Barges(), l.Starving())
	}
	if err := l.Release(0); err != nil {
		t.Fatal(err)
	}
	if !l.Barges() {
		t.Fatal("a Release(0), which adds nothing, noticed the old head")
	}
	if err := l.Acquire(model.Live, 1); err != evserr.ErrWouldBlock || !l.Barges() {
		t.Fatalf("Acquire(1) with nothing free = %v, and then Barges %v: it would wait, and it looks at nothing", err, l.Barges())
	}
	if _, err := l.Reserve(1); err != nil {
		t.Fatal(err)
	}
	if l.Barges() || !l.Starving() {
		t.Fatalf("after a Reserve that queued behind a head of age %v: Barges %v, Starving %v; want false, true", l.Ages()[0], l.Barges(), l.Starving())
	}
	l.Advance(math.MaxInt64)
	if l.Now() != math.MaxInt64 || l.Ages()[0] != math.MaxInt64-3*time.Second {
		t.Fatalf("Advance past the largest Duration: Now %v, Ages %v", l.Now(), l.Ages())
	}
	s := model.NewLimiter(1)
	if err := s.Acquire(model.Live, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Reserve(1); err != nil {
		t.Fatal(err)
	}
	if s.Bound() != 0 || s.Barges() {
		t.Fatalf("a strict limiter behind a reservation of age 0: Bound %v, Barges %v; want 0, false", s.Bound(), s.Barges())
	}
}

// TestEventualLimiterPanics: a bound that is not positive, a limit below
// 1 and a negative Advance are programming errors.
func TestEventualLimiterPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"NewEventualLimiter(1, 0)":     func() { model.NewEventualLimiter(1, 0) },
		"NewEventualLimiter(1, -1ns)":  func() { model.NewEventualLimiter(1, -1) },
		"NewEventualLimiter(0, bound)": func() { model.NewEventualLimiter(0, bound) },
		"Advance(-1ns), eventual":      func() { model.NewEventualLimiter(1, bound).Advance(-1) },
		"Advance(-1ns), strict":        func() { model.NewLimiter(1).Advance(-1) },
	} {
		func() {
			defer func() {
				if s, _ := recover().(string); !strings.HasPrefix(s, "model: ") {
					t.Errorf("%s panicked with %q, want a \"model: \" message", name, s)
				}
			}()
			f()
		}()
	}
}

// The eventual mode lets a caller take a free unit ahead of a young
// reservation. Once the reservation has waited longer than the bound,
// the next release notices, and nobody takes a unit ahead of it after
// that.
func ExampleNewEventualLimiter() {
	l := model.NewEventualLimiter(2, 10*time.Millisecond)
	l.Acquire(model.Live, 1)
	r, _ := l.Reserve(2) // both units: it waits
	fmt.Println("young:", l.TryAcquire(1))
	l.Release(1)

	l.Advance(11 * time.Millisecond)
	fmt.Println("old, not yet noticed:", l.TryAcquire(1), l.Ages())
	l.Release(1) // it notices
	fmt.Println("noticed:", l.TryAcquire(1), l.Starving())
	l.Release(1)
	fmt.Println("served:", r.Done(), l.Free())
	// Output:
	// young: true
	// old, not yet noticed: true [11ms]
	// noticed: false true
	// served: true 0
}
