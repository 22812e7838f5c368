package faults_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/semaphore"
)

// limiter is a Limiter with the permits and results of one Close race.
type limiter struct {
	l        *semaphore.Limiter
	held     semaphore.Permit
	acquired semaphore.Permit // the zero Permit until AcquirePermit succeeds
	took     bool             // TryAcquire(1) took a unit
	newLimit int
	ctx      context.Context // AcquirePermit's
	setErr   error
	acqErr   error
	overErr  error
	zeroErr  error
}

func (l *limiter) Close()         { l.l.Close() }
func (l *limiter) String() string { return l.l.String() }

// overRelease is more units than a race's limiter ever has in use (3
// held, 2 acquired, 1 tried): its Release is always ErrOverRelease.
const overRelease = 7

// TestResizeAndPermitsRaceCloseAndCancellation races SetLimit, a permit's
// Release, an AcquirePermit whose context ends soon, a TryAcquire, an
// Acquire of 0, a stray over-release and Close on a Limiter. Whatever the
// order, each call returns one of its outcomes, and after Close every
// acquire is refused even with units free. Once every holder has given
// back, every unit is home and Drain returns. A permit never gives back
// twice.
func TestResizeAndPermitsRaceCloseAndCancellation(t *testing.T) {
	const limit = 4
	raceClose(t, func() *limiter {
		l := &limiter{l: semaphore.NewLimiter(limit)}
		l.held, _ = l.l.TryAcquirePermit(3)
		return l
	}, func(l *limiter, r *rand.Rand) []func() {
		ctx, stop := testkit.CancelSoon(r)
		l.ctx, l.newLimit = ctx, 1+r.IntN(2*limit)
		return []func(){
			func() { l.setErr = l.l.SetLimit(l.newLimit) },
			func() { l.held.Release() },
			func() {
				defer stop()
				l.acquired, l.acqErr = l.l.AcquirePermit(ctx, 2)
			},
			func() { l.took = l.l.TryAcquire(1) },
			func() { l.zeroErr = l.l.Acquire(context.Background(), 0) },
			func() { l.overErr = l.l.Release(overRelease) },
		}
	}, checkLimiterRace)
}

// checkLimiterRace checks one race's outcomes, then gives every unit
// back and checks that all are home.
func checkLimiterRace(l *limiter) error {
	cut := l.newLimit < 2 // below the AcquirePermit of 2, which may have been queued
	if err := raceOutcomes(l, cut); err != nil {
		return err
	}
	if err := l.l.Acquire(context.Background(), 0); err != semaphore.ErrClosed || l.l.TryAcquire(1) {
		return fmt.Errorf("an acquire after Close went through (Acquire(0) = %v): %v", err, l.l)
	}
	if l.held.N() != 0 && !l.held.Release() {
		return fmt.Errorf("the held permit could not go back: %v", l.l)
	}
	if l.acquired.N() != 0 && !l.acquired.Release() {
		return fmt.Errorf("the acquired permit could not go back: %v", l.l)
	}
	if l.took && l.l.Release(1) != nil {
		return fmt.Errorf("the unit TryAcquire took could not go back: %v", l.l)
	}
	if l.held.Release() || l.acquired.Release() {
		return fmt.Errorf("a permit was given back twice: %v", l.l)
	}
	if st := l.l.Stats(); st.InUse != 0 || st.Free != st.Limit || st.Waiting != 0 || !st.Closed {
		return fmt.Errorf("units lost: %v", st)
	}
	ctx, cancel := context.WithTimeout(context.Background(), watchdog) // a failure detector only
	defer cancel()
	if err := l.l.Drain(ctx); err != nil {
		return fmt.Errorf("Drain with every unit home = %v: %v", err, l.l)
	}
	return nil
}

// raceOutcomes checks that each raced call returned one of its outcomes.
func raceOutcomes(l *limiter, cut bool) error {
	if err := oneOf("Release of more than is held", l.overErr, semaphore.ErrOverRelease); err != nil {
		return err
	}
	if err := oneOf("Acquire(0)", l.zeroErr, nil, semaphore.ErrClosed); err != nil {
		return err
	}
	setWant := []error{nil, semaphore.ErrClosed}
	acqWant := []error{nil, semaphore.ErrClosed, l.ctx.Err()}
	if cut {
		setWant = append(setWant, semaphore.ErrInvalid) // refused below the queued AcquirePermit
		acqWant = append(acqWant, semaphore.ErrInvalid) // above the limit SetLimit set
	}
	if err := oneOf(fmt.Sprintf("SetLimit(%d)", l.newLimit), l.setErr, setWant...); err != nil {
		return err
	}
	if err := oneOf("AcquirePermit(2)", l.acqErr, acqWant...); err != nil {
		return err
	}
	if want := 2 * b2i(l.acqErr == nil); l.acquired.N() != want {
		return fmt.Errorf("AcquirePermit(2) = %v with a permit of %d", l.acqErr, l.acquired.N())
	}
	return nil
}

// b2i is 1 for true and 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
