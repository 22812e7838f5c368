package faults_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/evsync/evsync/internal/testkit"
	"github.com/evsync/evsync/semaphore"
)

// limiter is a semaphore with the permits of one Close race.
type limiter struct {
	s        *semaphore.Semaphore
	held     semaphore.Permit
	acquired semaphore.Permit // the zero Permit until AcquirePermit succeeds
}

func (l *limiter) Close()         { l.s.Close() }
func (l *limiter) String() string { return l.s.String() }

// TestResizeAndPermitsRaceCloseAndCancellation races SetLimit, a permit's
// Release, an AcquirePermit whose context ends soon and Close on a
// limiter: whatever the order, once every permit is released and the
// limit put back, every unit is home (count = limit, no debt), and a
// permit is never given back twice.
func TestResizeAndPermitsRaceCloseAndCancellation(t *testing.T) {
	const limit = 4
	raceClose(t, func() *limiter {
		l := &limiter{s: semaphore.NewLimiter(limit)}
		l.held, _ = l.s.TryAcquirePermit(3)
		return l
	}, func(l *limiter, r *rand.Rand) []func() {
		ctx, stop := testkit.CancelSoon(r)
		newLimit := 1 + r.Uint64N(2*limit)
		return []func(){
			func() { _ = l.s.SetLimit(newLimit) },
			func() { l.held.Release() },
			func() {
				defer stop()
				l.acquired, _ = l.s.AcquirePermit(ctx, 2)
			},
			func() { _, _ = l.s.AcquireUpTo(context.Background(), 0) },
		}
	}, func(l *limiter) error {
		if l.held.N() != 0 && !l.held.Release() {
			return fmt.Errorf("the held permit could not go back: %v", l.s)
		}
		if l.acquired.N() != 0 && !l.acquired.Release() {
			return fmt.Errorf("the acquired permit could not go back: %v", l.s)
		}
		if l.held.Release() || l.acquired.Release() {
			return fmt.Errorf("a permit was given back twice: %v", l.s)
		}
		st := l.s.Stats()
		if st.Debt != 0 || st.Count != st.Limit {
			return fmt.Errorf("units lost: %v", st)
		}
		return nil
	})
}
