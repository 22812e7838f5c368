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

// The eventual mode of a semaphore Counter (NewEventualSemaphore), each
// rule beside the strict mode's answer to the same calls.

// A semStep is a step on a semaphore Counter (semRun).
type semStep = modeStep[*semRun]

// A semRun is a semaphore Counter under test and the reservations its
// Reserve steps made, in order.
type semRun struct {
	c    *model.Counter
	resv []*model.Reservation
}

func sstep(what string, do func(*semRun) any, want any) semStep {
	return semStep{what, do, want, want}
}

func semAcquire(n uint64, want error) semStep {
	return sstep(fmt.Sprintf("Acquire(%d)", n), func(r *semRun) any { return r.c.Acquire(model.Live, n) }, want)
}

func semTry(n uint64, want bool) semStep {
	return sstep(fmt.Sprintf("TryAcquire(%d)", n), func(r *semRun) any { return r.c.TryAcquire(n) }, want)
}

func semUpTo(max, n uint64, want error) semStep {
	return sstep(fmt.Sprintf("AcquireUpTo(%d)", max), func(r *semRun) any {
		v, err := r.c.AcquireUpTo(model.Live, max)
		return fmt.Sprint(v, err)
	}, fmt.Sprint(n, want))
}

func semTakeAll(want uint64) semStep {
	return sstep("TakeAll", func(r *semRun) any { return r.c.TakeAll() }, want)
}

func semRead(want error) semStep {
	return sstep("Read", func(r *semRun) any { _, err := r.c.Read(); return err }, want)
}

func semWrite(n uint64, want error) semStep {
	return sstep(fmt.Sprintf("Write(%d)", n), func(r *semRun) any { return r.c.Write(n) }, want)
}

func semReserve(n uint64, want reserved) semStep {
	return sstep(fmt.Sprintf("Reserve(%d)", n), func(r *semRun) any {
		res, err := r.c.Reserve(n)
		if res == nil {
			return reserved{err, false}
		}
		r.resv = append(r.resv, res)
		return reserved{err, res.Done()}
	}, want)
}

func semAdvance(d time.Duration) semStep {
	return sstep(fmt.Sprintf("Advance(%v)", d), func(r *semRun) any { r.c.Advance(d); return nil }, nil)
}

func semCancel(i int, want bool) semStep {
	return sstep(fmt.Sprintf("Cancel of reservation %d", i), func(r *semRun) any { return r.resv[i].Cancel() }, want)
}

var semClose = sstep("Close", func(r *semRun) any { r.c.Close(); return nil }, nil)

// semDone is reservation i's Done and Err, as "done <err>" or "pending".
func semDone(i int, want string) semStep {
	return sstep(fmt.Sprintf("reservation %d", i), func(r *semRun) any {
		if !r.resv[i].Done() {
			return "pending"
		}
		return fmt.Sprintf("done %v", r.resv[i].Err())
	}, want)
}

// semLook is what the semaphore shows: Count, Waiting, Queue and Ages.
func semLook(want string) semStep {
	return sstep("the semaphore", func(r *semRun) any {
		return fmt.Sprintf("count %d waiting %d queue %v ages %v", r.c.Count(), r.c.Waiting(), r.c.Queue(), r.c.Ages())
	}, want)
}

// runSem makes the steps on a fresh semaphore with the count initial and
// the limit limit, in both modes, checking the model's invariants after
// every step.
func runSem(t *testing.T, initial, limit uint64, steps []semStep) {
	t.Helper()
	runModes(t, func(eventual bool) (*semRun, func() error) {
		r := &semRun{c: model.NewSemaphore(initial, limit)}
		if eventual {
			r.c = model.NewEventualSemaphore(initial, limit, bound)
		}
		return r, r.c.Validate
	}, steps)
}

// TestEventualSemaphoreBargingBoundary makes each call that may barge
// behind a reservation of age 0, of exactly the bound, and of the bound
// and one nanosecond, after a Reserve that queues (and so looks at the
// head's age) and its Cancel. In the eventual mode the first two take the
// free unit and the last does not. Without that look all three take it.
// The strict mode never lets any of them by.
func TestEventualSemaphoreBargingBoundary(t *testing.T) {
	forms := []struct {
		name      string
		call      semStep // what it returns when it barges, and in the strict mode
		refused   any     // what it returns when it may not barge
		afterTake string  // the semaphore once it barged
		afterWait string  // the semaphore once it did not
	}{
		{"Acquire", semAcquire(1, nil).strictly(evserr.ErrWouldBlock), evserr.ErrWouldBlock,
			"count 0 waiting 1 queue [2] ages [%v]", "count 1 waiting 1 queue [2] ages [%v]"},
		{"TryAcquire", semTry(1, true).strictly(false), false,
			"count 0 waiting 1 queue [2] ages [%v]", "count 1 waiting 1 queue [2] ages [%v]"},
		{"AcquireUpTo", semUpTo(3, 1, nil).strictly(fmt.Sprint(0, evserr.ErrWouldBlock)), fmt.Sprint(0, evserr.ErrWouldBlock),
			"count 0 waiting 1 queue [2] ages [%v]", "count 1 waiting 1 queue [2] ages [%v]"},
		{"TakeAll", semTakeAll(1).strictly(uint64(0)), uint64(0),
			"count 0 waiting 1 queue [2] ages [%v]", "count 1 waiting 1 queue [2] ages [%v]"},
		{"Read", semRead(nil).strictly(evserr.ErrWouldBlock), evserr.ErrWouldBlock,
			"count 0 waiting 1 queue [2] ages [%v]", "count 1 waiting 1 queue [2] ages [%v]"},
		{"Reserve", semReserve(1, granted).strictly(queued), queued,
			"count 0 waiting 1 queue [2] ages [%v]", "count 1 waiting 2 queue [2 1] ages [%v 0s]"},
	}
	for _, f := range forms {
		for _, age := range []time.Duration{0, bound, bound + time.Nanosecond} {
			for _, noticed := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s/age=%v/noticed=%v", f.name, age, noticed), func(t *testing.T) {
					call, after := f.call, fmt.Sprintf(f.afterTake, age)
					if age > bound && noticed {
						call.want, after = f.refused, fmt.Sprintf(f.afterWait, age)
					}
					waited := semLook(after).strictly(fmt.Sprintf(f.afterWait, age))
					steps := []semStep{semReserve(2, queued), semAdvance(age)}
					if noticed {
						steps = append(steps, semReserve(3, queued), semCancel(1, true)) // the Reserve looks
					}
					runSem(t, 1, 4, append(steps,
						semLook(fmt.Sprintf("count 1 waiting 1 queue [2] ages [%v]", age)),
						call, waited,
					))
				})
			}
		}
	}
}

func TestEventualSemaphoreSteps(t *testing.T) {
	cases := []struct {
		name           string
		initial, limit uint64
		steps          []semStep
	}{
		{"TakeAll takes every unit behind a young head", 2, 8, []semStep{
			semReserve(3, queued), semTakeAll(2).strictly(uint64(0)),
			semLook("count 0 waiting 1 queue [3] ages [0s]").strictly("count 2 waiting 1 queue [3] ages [0s]"),
		}},
		{"TakeAll takes nothing behind an old head once a call looked", 2, 8, []semStep{
			semReserve(3, queued), semAdvance(bound + 1), semReserve(4, queued), semCancel(1, true), semTakeAll(0),
			semLook("count 2 waiting 1 queue [3] ages [10.000001ms]"),
			semWrite(1, nil), semDone(0, "done <nil>"), semTakeAll(0), semWrite(1, nil), semTakeAll(1),
		}},
		{"Write hands the units to the head, not to a barger", 0, 4, []semStep{
			semReserve(2, queued), semWrite(2, nil), semDone(0, "done <nil>"),
			semLook("count 0 waiting 0 queue [] ages []"), semTry(1, false),
		}},
		{"Write serves in order: a head that does not fit holds up one that would", 0, 8, []semStep{
			semReserve(3, queued), semReserve(1, queued), semWrite(1, nil), semDone(1, "pending"),
			semTakeAll(1).strictly(uint64(0)), // a barger may take what the one behind could not
			semWrite(3, nil), semDone(0, "done <nil>"), semDone(1, "pending").strictly("done <nil>"),
			semLook("count 0 waiting 1 queue [1] ages [0s]").strictly("count 0 waiting 0 queue [] ages []"),
		}},
		{"a raise serves in order", 0, 2, []semStep{
			semReserve(2, queued), semReserve(1, queued),
			sstep("SetLimit(3)", func(r *semRun) any { return r.c.SetLimit(3) }, nil),
			semLook("count 1 waiting 2 queue [2 1] ages [0s 0s]"), semWrite(1, nil),
			semDone(0, "done <nil>"), semDone(1, "pending"), semLook("count 0 waiting 1 queue [1] ages [0s]"),
		}},
		{"a Cancel giving units back serves in order", 3, 3, []semStep{
			semReserve(2, granted), semReserve(3, queued), semCancel(0, true),
			semDone(1, "done <nil>"), semLook("count 0 waiting 0 queue [] ages []"),
		}},
		{"Close serves what is left in order, refuses the rest, and then anyone may take", 1, 8, []semStep{
			semReserve(3, queued), semAdvance(bound + 1), semReserve(4, queued), semCancel(1, true), semReserve(1, queued),
			semTry(1, false), semClose, semDone(0, "done "+evserr.ErrClosed.Error()), semDone(2, "done <nil>"),
			semLook("count 0 waiting 0 queue [] ages []"), semWrite(2, nil), semTakeAll(2),
			semWrite(1, nil), semTry(1, true), semAcquire(1, evserr.ErrClosed),
		}},
		{"Advance serves nobody, and the next head's own age decides", 0, 4, []semStep{
			semReserve(1, queued), semAdvance(bound / 2), semReserve(2, queued), semAdvance(bound/2 + 1),
			semLook("count 0 waiting 2 queue [1 2] ages [10.000001ms 5.000001ms]"),
			semWrite(1, nil), semDone(0, "done <nil>"), semWrite(1, nil),
			semTakeAll(1).strictly(uint64(0)), // the head is 5.000001ms old now
			semWrite(1, nil), semAdvance(bound / 2), semReserve(3, queued), semCancel(2, true), semTakeAll(0),
			semLook("count 1 waiting 1 queue [2] ages [10.000001ms]").strictly("count 0 waiting 0 queue [] ages []"),
		}},
		{"arguments, a Done context and 0 units are checked as before", 1, 4, []semStep{
			semReserve(2, queued), semAcquire(5, evserr.ErrInvalid),
			sstep("Acquire(Done, 1)", func(r *semRun) any { return r.c.Acquire(model.Done, 1) }, context.Canceled),
			semAcquire(0, nil), semTry(5, false), semTry(0, true), semUpTo(0, 0, nil),
			sstep("AcquireUpTo(Done, 1)", func(r *semRun) any { _, err := r.c.AcquireUpTo(model.Done, 1); return err }, context.Canceled),
			semReserve(5, reserved{evserr.ErrInvalid, false}), semReserve(0, granted), semWrite(4, evserr.ErrWouldBlock),
			semLook("count 1 waiting 1 queue [2] ages [0s]"),
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { runSem(t, c.initial, c.limit, c.steps) })
	}
}

// TestEventualSemaphoreClock pins Now, Advance, Bound, Ages and Barges of
// a semaphore Counter, and that a Limiter's are its Counter's.
func TestEventualSemaphoreClock(t *testing.T) {
	c := model.NewEventualSemaphore(0, model.Max, bound)
	if c.Now() != 0 || !c.Barges() || len(c.Ages()) != 0 {
		t.Fatalf("a new semaphore: Now %v, Barges %v, Ages %v; want 0, true, []",
			c.Now(), c.Barges(), c.Ages())
	}
	c.Advance(0)
	c.Advance(3 * time.Second)
	if c.Now() != 3*time.Second {
		t.Fatalf("Now after Advance(0) and Advance(3s) = %v", c.Now())
	}
	if _, err := c.Reserve(1); err != nil {
		t.Fatal(err)
	}
	c.Advance(bound)
	if _, err := c.Reserve(2); err != nil {
		t.Fatal(err)
	}
	if !c.Barges() || fmt.Sprint(c.Ages()) != fmt.Sprint([]time.Duration{bound, 0}) {
		t.Fatalf("behind a reservation of age %v: Barges %v, Ages %v; want true, [%v 0s]", bound, c.Barges(), c.Ages(), bound)
	}
	c.Advance(1)
	if !c.Barges() || c.Starving() {
		t.Fatalf("before any call looked at the head of age %v: Barges %v, Starving %v; want true, false", c.Ages()[0], c.Barges(), c.Starving())
	}
	if _, err := c.Reserve(5); err != nil {
		t.Fatal(err)
	}
	if c.Barges() || !c.Starving() {
		t.Fatalf("after a Reserve that queued behind a head of age %v: Barges %v, Starving %v; want false, true", c.Ages()[0], c.Barges(), c.Starving())
	}
	c.Advance(math.MaxInt64)
	if c.Now() != math.MaxInt64 || c.Ages()[0] != math.MaxInt64-3*time.Second {
		t.Fatalf("Advance past the largest Duration: Now %v, Ages %v", c.Now(), c.Ages())
	}
	s := model.NewSemaphore(0, 4)
	if _, err := s.Reserve(1); err != nil {
		t.Fatal(err)
	}
	if s.Barges() {
		t.Fatal("a strict semaphore behind a reservation of age 0: Barges = true")
	}
}

// TestEventualSemaphorePanics: a bound that is not positive, the
// arguments NewSemaphore refuses, a negative Advance, and the clock's
// calls on a signal's Counter are programming errors.
func TestEventualSemaphorePanics(t *testing.T) {
	for name, f := range map[string]func(){
		"NewEventualSemaphore(0, Max, 0)":       func() { model.NewEventualSemaphore(0, model.Max, 0) },
		"NewEventualSemaphore(0, Max, -1ns)":    func() { model.NewEventualSemaphore(0, model.Max, -1) },
		"NewEventualSemaphore(0, 0, bound)":     func() { model.NewEventualSemaphore(0, 0, bound) },
		"NewEventualSemaphore(2, 1, bound)":     func() { model.NewEventualSemaphore(2, 1, bound) },
		"NewEventualSemaphore(0, Max+1, bound)": func() { model.NewEventualSemaphore(0, model.Max+1, bound) },
		"Advance(-1ns), eventual":               func() { model.NewEventualSemaphore(0, 1, bound).Advance(-1) },
		"Advance(-1ns), strict":                 func() { model.NewSemaphore(0, 1).Advance(-1) },
		"Advance on a signal":                   func() { model.NewSignal(0).Advance(1) },
		"Now on a signal":                       func() { model.NewSignal(0).Now() },
		"Ages on a signal":                      func() { model.NewSignal(0).Ages() },
		"Barges on a signal":                    func() { model.NewSignal(0).Barges() },
		"Starving on a signal":                  func() { model.NewSignal(0).Starving() },
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

// The eventual mode lets TakeAll take the units ahead of a young
// reservation. Once the reservation has waited longer than the bound,
// the next Write notices, and hands the units to it when they cover it.
func ExampleNewEventualSemaphore() {
	s := model.NewEventualSemaphore(1, model.Max, 10*time.Millisecond)
	r, _ := s.Reserve(2) // one unit short: it waits
	fmt.Println("young:", s.TakeAll())
	s.Write(1)

	s.Advance(11 * time.Millisecond)
	fmt.Println("old, not yet noticed:", s.TakeAll(), s.Ages())
	s.Write(1) // it notices
	fmt.Println("noticed:", s.TakeAll(), s.Starving())
	s.Write(1)
	fmt.Println("served:", r.Done(), s.Count())
	// Output:
	// young: 1
	// old, not yet noticed: 1 [11ms]
	// noticed: 0 true
	// served: true 0
}
