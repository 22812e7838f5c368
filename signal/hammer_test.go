package signal_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evsync/evsync/signal"
)

// cancelSoon returns a context cancelled by another goroutine after a
// random number of scheduler yields, so cancellation lands at every point
// of a blocking call; stop waits for that goroutine.
func cancelSoon(r *rand.Rand) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	yields := r.IntN(20)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range yields {
			runtime.Gosched()
		}
		cancel()
	}()
	return ctx, func() { cancel(); <-done }
}

// TestHammerConservation: writers Add and AddWait near Max, readers Take
// and Wait, all under random cancellation, with a Close at a random moment.
// Every unit is read exactly once: reads + final count = initial + adds.
func TestHammerConservation(t *testing.T) {
	const workers, rounds = 8, 1500
	for seed := range uint64(4) {
		initial := signal.Max - 50
		s := signal.New(initial)
		var added, read atomic.Uint64
		var wg sync.WaitGroup
		closeAt := rand.New(rand.NewPCG(seed, 0)).IntN(workers * rounds)
		var ops atomic.Int64
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := rand.New(rand.NewPCG(seed, uint64(w)+1))
				for range rounds {
					if ops.Add(1) == int64(closeAt) {
						s.Close()
					}
					if w%2 == 0 {
						added.Add(write(s, r))
					} else {
						read.Add(readOnce(s, r))
					}
				}
			}()
		}
		finish(t, &wg, s)
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
		ctx, stop := cancelSoon(r)
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
	ctx, stop := cancelSoon(r)
	defer stop()
	v, err := s.Wait(ctx)
	if err != nil && v != 0 {
		panic("an error with a value")
	}
	return v
}

// finish waits for the workers, then closes s; a watchdog closes s early
// if they are stuck, and fails the test.
func finish(t *testing.T, wg *sync.WaitGroup, s *signal.Signal) {
	t.Helper()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		s.Close()
	case <-time.After(30 * time.Second):
		s.Close()
		<-done
		t.Fatalf("workers stuck until Close (%v)", s)
	}
}
