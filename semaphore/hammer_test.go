package semaphore_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/semaphore"
)

// ledger counts units in and out so that conservation can be checked at
// the end: initial + released = acquired + final count.
type ledger struct{ released, acquired, held atomic.Uint64 }

// TestHammerMutualExclusion runs acquirers of a semaphore of limit L under
// random cancellation and a Close at a random moment: at no time do the
// holders hold more than L units, every call returns, nothing is lost.
// The run's watchdog closes s early if the workers are stuck, which can
// only mean lost units: Close then frees them and the test fails.
func TestHammerMutualExclusion(t *testing.T) {
	const limit, workers, rounds = 3, 8, 1500
	for seed := range uint64(4) {
		s := newSemaphore(limit, semaphore.WithLimit(limit))
		var l ledger
		h := testkit.Hammer{Workers: workers, Rounds: rounds, Seed: seed, Stream: 0}
		h.Run(t, s, func(_ int, r *rand.Rand) {
			holdAndReturn(t, s, r, &l, limit)
		})
		if got, want := s.Count()+l.acquired.Load(), limit+l.released.Load(); got != want {
			t.Fatalf("seed %d: count+acquired = %d, initial+released = %d", seed, got, want)
		}
		if st := s.Stats(); st.Waiting != 0 || st.WritersWaiting != 0 {
			t.Fatalf("seed %d: waiters left: %v", seed, st)
		}
	}
}

// holdAndReturn acquires 1 or 2 units by one of the three wait forms,
// checks the bound, and releases them (if the semaphore is still open).
func holdAndReturn(t *testing.T, s *semaphore.Semaphore, r *rand.Rand, l *ledger, limit uint64) {
	n := uint64(1 + r.IntN(2))
	if !acquire(s, r, n, testkit.CancelSoonOrNever) {
		return
	}
	l.acquired.Add(n)
	if h := l.held.Add(n); h > limit {
		t.Errorf("%d units held at once, limit %d", h, limit)
	}
	l.held.Add(-n)
	if s.Release(n) == nil {
		l.released.Add(n)
	}
}

// acquire takes n units with Acquire, TryAcquire or a Reservation, each
// under a context from newCtx, and reports whether it holds them.
func acquire(s *semaphore.Semaphore, r *rand.Rand, n uint64, newCtx func(*rand.Rand) (context.Context, func())) bool {
	ctx, stop := newCtx(r)
	defer stop()
	switch r.IntN(3) {
	case 0:
		err := s.Acquire(ctx, n)
		if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, semaphore.ErrClosed) {
			panic(err)
		}
		return err == nil
	case 1:
		return s.TryAcquire(n)
	}
	res, err := s.Reserve(n)
	if err != nil {
		return false
	}
	select {
	case <-res.Done():
		return res.Err() == nil
	case <-ctx.Done():
		return !res.Cancel()
	}
}

// TestHammerConservation mixes writers (Release, ReleaseWait) and readers
// (Acquire, TryAcquire, Reserve) of arbitrary sizes near a small limit,
// with random cancellation and a Close: every unit is accounted for.
// Blocking calls always get a context that ends, since the goroutines
// that could unblock them may have finished.
func TestHammerConservation(t *testing.T) {
	const limit, workers, rounds = 5, 8, 1500
	for seed := range uint64(4) {
		s := newSemaphore(2, semaphore.WithLimit(limit))
		var l ledger
		h := testkit.Hammer{Workers: workers, Rounds: rounds, Seed: seed, Stream: 99}
		h.Run(t, s, func(w int, r *rand.Rand) {
			n := uint64(r.IntN(limit + 1))
			if w%2 == 0 {
				write(s, r, n, &l)
			} else if acquire(s, r, n, testkit.CancelSoon) {
				l.acquired.Add(n)
			}
		})
		if got, want := s.Count()+l.acquired.Load(), 2+l.released.Load(); got != want {
			t.Fatalf("seed %d: count+acquired = %d, initial+released = %d", seed, got, want)
		}
	}
}

func write(s *semaphore.Semaphore, r *rand.Rand, n uint64, l *ledger) {
	var err error
	if r.IntN(2) == 0 {
		err = s.Release(n)
	} else {
		ctx, stop := testkit.CancelSoon(r) // nobody may be left to make room
		err = s.ReleaseWait(ctx, n)
		stop()
	}
	if err == nil {
		l.released.Add(n)
	}
}
