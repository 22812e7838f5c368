package model_test

import (
	"context"
	"strings"
	"testing"

	"github.com/evsync/evsync/internal/evserr"
	"github.com/evsync/evsync/model"
)

// A limStep is one call on a model.Limiter and what it must return: an
// error, or a bool for TryAcquire.
type limStep struct {
	what string
	do   func(l *model.Limiter) any
	want any
}

func acquire(ctx model.Ctx, n int) limStep {
	return limStep{"Acquire", func(l *model.Limiter) any { return l.Acquire(ctx, n) }, nil}
}

func try(n int) limStep {
	return limStep{"TryAcquire", func(l *model.Limiter) any { return l.TryAcquire(n) }, true}
}

func release(n int) limStep {
	return limStep{"Release", func(l *model.Limiter) any { return l.Release(n) }, nil}
}

func setLimit(n int) limStep {
	return limStep{"SetLimit", func(l *model.Limiter) any { return l.SetLimit(n) }, nil}
}

func drain(ctx model.Ctx) limStep {
	return limStep{"Drain", func(l *model.Limiter) any { return l.Drain(ctx) }, nil}
}

// took is what AcquireUpTo returns, as one comparable value.
type took struct {
	n   int
	err error
}

func upTo(ctx model.Ctx, max, n int) limStep {
	return limStep{"AcquireUpTo", func(l *model.Limiter) any { n, err := l.AcquireUpTo(ctx, max); return took{n, err} }, took{n, nil}}
}

func tryUpTo(max, n int) limStep {
	return limStep{"TryAcquireUpTo", func(l *model.Limiter) any { return l.TryAcquireUpTo(max) }, n}
}

// refused returns an AcquireUpTo step that must take nothing and fail
// with err.
func (s limStep) refused(err error) limStep { s.want = took{0, err}; return s }

var closeStep = limStep{"Close", func(l *model.Limiter) any { l.Close(); return nil }, nil}

// is returns the step with the result it must have.
func (s limStep) is(want any) limStep { s.want = want; return s }

// limStats is what Limit, InUse, Free and Closed report after the steps.
type limStats struct {
	limit, inUse, free int
	closed             bool
}

func TestLimiterSteps(t *testing.T) {
	cases := []struct {
		name  string
		n     int
		steps []limStep
		after limStats
	}{
		{"acquire and release", 3, []limStep{
			acquire(model.Live, 2), try(1), try(1).is(false),
			acquire(model.Live, 1).is(evserr.ErrWouldBlock),
			release(3), acquire(model.Live, 3), release(1),
		}, limStats{3, 2, 1, false}},
		{"bad arguments change nothing", 2, []limStep{
			acquire(model.Live, -1).is(evserr.ErrInvalid), acquire(model.Live, 3).is(evserr.ErrInvalid),
			acquire(model.Done, 3).is(evserr.ErrInvalid), try(-1).is(false), try(3).is(false),
			release(-1).is(evserr.ErrInvalid), setLimit(0).is(evserr.ErrInvalid), setLimit(-2).is(evserr.ErrInvalid),
		}, limStats{2, 0, 2, false}},
		{"a done context takes nothing even with units free", 2, []limStep{
			acquire(model.Done, 1).is(context.Canceled), acquire(model.Done, 0).is(context.Canceled),
			drain(model.Done).is(context.Canceled),
		}, limStats{2, 0, 2, false}},
		{"zero units", 1, []limStep{
			acquire(model.Live, 1), acquire(model.Live, 0), try(0), release(0),
		}, limStats{1, 1, 0, false}},
		{"over-release changes nothing", 4, []limStep{
			release(1).is(evserr.ErrOverRelease), acquire(model.Live, 2),
			release(3).is(evserr.ErrOverRelease), release(5).is(evserr.ErrOverRelease),
			release(1),
		}, limStats{4, 1, 3, false}},
		{"Close refuses acquires with units free", 3, []limStep{
			acquire(model.Live, 1), closeStep,
			acquire(model.Live, 1).is(evserr.ErrClosed), acquire(model.Live, 0).is(evserr.ErrClosed),
			acquire(model.Live, 4).is(evserr.ErrInvalid), acquire(model.Done, 1).is(context.Canceled),
			try(1).is(false), try(0).is(false), setLimit(5).is(evserr.ErrClosed), setLimit(0).is(evserr.ErrInvalid),
			closeStep,
		}, limStats{3, 1, 2, true}},
		{"holders give back after Close and Drain waits for them", 3, []limStep{
			acquire(model.Live, 2), closeStep, drain(model.Live).is(evserr.ErrWouldBlock),
			release(1), drain(model.Live).is(evserr.ErrWouldBlock), release(2).is(evserr.ErrOverRelease),
			release(1), drain(model.Live),
		}, limStats{3, 0, 3, true}},
		{"a cut below what is held is a debt", 4, []limStep{
			acquire(model.Live, 3), setLimit(2), try(1).is(false),
			release(1), try(1).is(false), release(3).is(evserr.ErrOverRelease),
		}, limStats{2, 2, 0, false}},
		{"releases pay the debt, then free units", 4, []limStep{
			acquire(model.Live, 3), setLimit(2), release(2), drain(model.Live).is(evserr.ErrWouldBlock),
			release(1), drain(model.Live), acquire(model.Live, 3).is(evserr.ErrInvalid),
		}, limStats{2, 0, 2, false}},
		{"a raise pays the debt first", 4, []limStep{
			acquire(model.Live, 4), setLimit(1), setLimit(3), try(1).is(false), release(2), try(1),
		}, limStats{3, 3, 0, false}},
		{"up to max takes what is free, at most max", 5, []limStep{
			tryUpTo(2, 2), upTo(model.Live, 1, 1), tryUpTo(9, 2), tryUpTo(1, 0),
			upTo(model.Live, 3, 0).refused(evserr.ErrWouldBlock), release(3), upTo(model.Live, 9, 3),
		}, limStats{5, 5, 0, false}},
		{"up to 0 or a negative max takes nothing", 2, []limStep{
			tryUpTo(0, 0), tryUpTo(-1, 0), upTo(model.Live, 0, 0),
			upTo(model.Live, -1, 0).refused(evserr.ErrInvalid), upTo(model.Done, -1, 0).refused(evserr.ErrInvalid),
			upTo(model.Done, 0, 0).refused(context.Canceled), upTo(model.Done, 1, 0).refused(context.Canceled),
		}, limStats{2, 0, 2, false}},
		{"up to takes nothing after Close with units free", 3, []limStep{
			acquire(model.Live, 1), closeStep, tryUpTo(3, 0),
			upTo(model.Live, 3, 0).refused(evserr.ErrClosed), upTo(model.Live, 0, 0).refused(evserr.ErrClosed),
			upTo(model.Done, 1, 0).refused(context.Canceled), upTo(model.Live, -1, 0).refused(evserr.ErrInvalid),
		}, limStats{3, 1, 2, true}},
		{"up to in debt takes nothing", 4, []limStep{
			acquire(model.Live, 4), setLimit(2), release(2), tryUpTo(4, 0),
			upTo(model.Live, 4, 0).refused(evserr.ErrWouldBlock), release(1), tryUpTo(4, 1),
		}, limStats{2, 2, 0, false}},
		{"a cut takes free units", 5, []limStep{
			acquire(model.Live, 1), setLimit(3), try(3).is(false), try(2),
		}, limStats{3, 3, 0, false}},
	}
	// No case reserves, so the eventual mode must give the same results.
	modes := map[string]func(n int) *model.Limiter{
		"strict":   model.NewLimiter,
		"eventual": func(n int) *model.Limiter { return model.NewEventualLimiter(n, bound) },
	}
	for _, c := range cases {
		for mode, newLimiter := range modes {
			t.Run(mode+"/"+c.name, func(t *testing.T) {
				l := newLimiter(c.n)
				for i, s := range c.steps {
					if got := s.do(l); got != s.want {
						t.Fatalf("step %d: %s = %v, want %v", i, s.what, got, s.want)
					}
				}
				got := limStats{l.Limit(), l.InUse(), l.Free(), l.Closed()}
				if got != c.after {
					t.Fatalf("after the steps: %+v, want %+v", got, c.after)
				}
			})
		}
	}
}

func TestNewLimiterBelowOne(t *testing.T) {
	for _, n := range []int{0, -1} {
		func() {
			defer func() {
				if s, _ := recover().(string); !strings.HasPrefix(s, "model: ") {
					t.Fatalf("NewLimiter(%d) panicked with %q, want a \"model: \" message", n, s)
				}
			}()
			model.NewLimiter(n)
		}()
	}
}

// TestLimiterUpToNeverTakesAheadOfAReservation: with a reservation
// pending, TryAcquireUpTo takes nothing and AcquireUpTo would wait,
// although a unit is free; once the reservation leaves, both take it.
func TestLimiterUpToNeverTakesAheadOfAReservation(t *testing.T) {
	l := model.NewLimiter(3)
	if err := l.Acquire(model.Live, 2); err != nil {
		t.Fatal(err)
	}
	r, err := l.Reserve(2)
	if err != nil || r.Done() {
		t.Fatalf("Reserve(2) with 1 free = %v, done %v", err, r.Done())
	}
	if n := l.TryAcquireUpTo(3); n != 0 {
		t.Fatalf("TryAcquireUpTo(3) behind a reservation = %d, want 0", n)
	}
	if n, err := l.AcquireUpTo(model.Live, 3); n != 0 || err != evserr.ErrWouldBlock {
		t.Fatalf("AcquireUpTo(3) behind a reservation = %d, %v, want it to wait", n, err)
	}
	r.Cancel()
	if n := l.TryAcquireUpTo(3); n != 1 {
		t.Fatalf("TryAcquireUpTo(3) once the reservation left = %d, want 1", n)
	}
}
