package signal_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/signal"
)

// TestHammerConservation: writers Add and AddWait near Max, readers Take
// and Wait, all under random cancellation, with a Close at a random moment.
// Every unit is read exactly once: reads + final count = initial + adds.
func TestHammerConservation(t *testing.T) {
	const workers, rounds = 8, 1500
	for seed := range uint64(4) {
		initial := signal.Max - 50
		s := signal.New(initial)
		var added, read atomic.Uint64
		h := testkit.Hammer{Workers: workers, Rounds: rounds, Seed: seed, Stream: 0}
		h.Run(t, s, func(w int, r *rand.Rand) {
			if w%2 == 0 {
				added.Add(write(s, r))
			} else {
				read.Add(readOnce(s, r))
			}
		})
		// The totals can pass 1<<64: compare modulo 1<<64, which still
		// catches any unit lost or read twice (never 1<<64 of them).
		if got, want := read.Load()+s.Count(), initial+added.Load(); got != want {
			t.Fatalf("seed %d: read+count = %d, initial+added = %d", seed, got, want)
		}
	}
}

func write(s *signal.Signal, r *rand.Rand) uint64 {
	n := uint64(r.IntN(40))
	var err error
	if r.IntN(2) == 0 {
		err = s.Add(n)
	} else {
		ctx, stop := testkit.CancelSoon(r)
		err = s.AddWait(ctx, n)
		stop()
	}
	if err != nil && !errors.Is(err, signal.ErrWouldBlock) && !errors.Is(err, signal.ErrClosed) && !errors.Is(err, context.Canceled) {
		panic(err)
	}
	if err != nil {
		return 0
	}
	return n
}

func readOnce(s *signal.Signal, r *rand.Rand) uint64 {
	if r.IntN(3) == 0 {
		return s.Take()
	}
	ctx, stop := testkit.CancelSoon(r)
	defer stop()
	v, err := s.Wait(ctx)
	if err != nil && v != 0 {
		panic("an error with a value")
	}
	return v
}
