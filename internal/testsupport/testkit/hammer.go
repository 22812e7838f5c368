package testkit

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A Closer is an evsync counter as a hammer run sees it: something to
// close and to print.
type Closer interface {
	Close()
	String() string
}

// A Hammer is a run of Workers goroutines making Rounds steps each against
// one counter. Seed and Stream pick its randomness: the step before which
// the counter is closed is drawn from rand.NewPCG(Seed, Stream), and worker
// w draws from its own rand.NewPCG(Seed, Stream+1+w).
type Hammer struct {
	Workers, Rounds int
	Seed, Stream    uint64
}

// Run starts the workers, each calling step(w, r) Rounds times, and closes
// c once before one step drawn at random (counted from 1 across all
// workers; never, if the draw is 0), so that Close lands in the middle of
// the traffic. It returns when every worker has returned, with c closed.
func (h Hammer) Run(t testing.TB, c Closer, step func(w int, r *rand.Rand)) {
	t.Helper()
	closeAt := int64(rand.New(rand.NewPCG(h.Seed, h.Stream)).IntN(h.Workers * h.Rounds))
	var ops atomic.Int64
	var wg sync.WaitGroup
	for w := range h.Workers {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(h.Seed, h.Stream+1+uint64(w)))
			for range h.Rounds {
				if ops.Add(1) == closeAt {
					c.Close()
				}
				step(w, r)
			}
		})
	}
	finish(t, &wg, c)
}

// watchdog is how long finish lets the workers run before it decides they
// are stuck. It is a failure detector, not a synchronisation device.
const watchdog = 30 * time.Second

// finish waits for the workers, then closes c. If they are still running
// after watchdog, which can only mean a lost wake-up or lost units, it
// closes c early to free them and fails t.
func finish(t testing.TB, wg *sync.WaitGroup, c Closer) {
	t.Helper()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		c.Close()
	case <-time.After(watchdog):
		c.Close()
		<-done
		t.Fatalf("workers stuck until Close: a wake-up or units were lost (%v)", c)
	}
}
