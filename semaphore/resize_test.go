package semaphore_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/semaphore"
)

func TestRaisingTheLimitServesQueuedAcquirersInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSemaphore(2, semaphore.WithLimit(2))
		ctx := context.Background()
		testkit.MustNil(t, s.Acquire(ctx, 2))
		first := park(ctx, s, 2)
		second := park(ctx, s, 1)
		testkit.MustNil(t, s.SetLimit(4)) // two free units: the head (2) is served, not the one behind
		testkit.MustNil(t, <-first)
		synctest.Wait()
		testkit.Pending(t, second)
		testkit.MustNil(t, s.SetLimit(5))
		testkit.MustNil(t, <-second)
		testkit.WantCount(t, s, 0)
	})
}

func TestLoweringTheLimitBelowWhatIsHeldIsADebt(t *testing.T) {
	s := newSemaphore(10, semaphore.WithLimit(10))
	ctx := context.Background()
	testkit.MustNil(t, s.Acquire(ctx, 8)) // 8 held, 2 free
	testkit.MustNil(t, s.SetLimit(4))     // 6 fewer: the 2 free go, 4 are owed
	if st := s.Stats(); st.Count != 0 || st.Limit != 4 || st.Debt != 4 {
		t.Fatalf("after SetLimit(4): %v", st)
	}
	if s.TryAcquire(1) {
		t.Fatal("TryAcquire succeeded while in debt")
	}
	testkit.MustNil(t, s.Release(3)) // pays 3 of the debt
	if st := s.Stats(); st.Count != 0 || st.Debt != 1 {
		t.Fatalf("after Release(3): %v", st)
	}
	testkit.MustNil(t, s.Release(5)) // more than the limit: 1 pays the debt, 4 are free
	if st := s.Stats(); st.Count != 4 || st.Debt != 0 {
		t.Fatalf("after Release(5): %v", st)
	}
	if err := s.Release(1); !errors.Is(err, semaphore.ErrWouldBlock) {
		t.Fatalf("a stray Release at the new limit = %v", err)
	}
	if got := s.String(); got != "semaphore{count=4 limit=4 waiting=0 writers=0}" {
		t.Fatalf("String() = %q", got)
	}
}

func TestARaiseInDebtPaysTheDebtFirst(t *testing.T) {
	s := newSemaphore(6, semaphore.WithLimit(6))
	testkit.MustNil(t, s.Acquire(context.Background(), 6))
	testkit.MustNil(t, s.SetLimit(2)) // debt 4
	testkit.MustNil(t, s.SetLimit(5)) // 3 of the debt forgiven
	if st := s.Stats(); st.Count != 0 || st.Debt != 1 {
		t.Fatalf("after the raise: %v", st)
	}
	testkit.MustNil(t, s.Release(6))
	testkit.WantCount(t, s, 5)
}

func TestSetLimitRefusals(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSemaphore(4, semaphore.WithLimit(4))
		ctx, cancel := context.WithCancel(context.Background())
		testkit.MustNil(t, s.Acquire(ctx, 4))
		waiter := park(ctx, s, 3)
		for _, limit := range []uint64{0, 2, semaphore.Max + 1} {
			if err := s.SetLimit(limit); !errors.Is(err, semaphore.ErrInvalid) {
				t.Fatalf("SetLimit(%d) = %v, want ErrInvalid", limit, err)
			}
		}
		testkit.WantCount(t, s, 0)
		cancel()
		testkit.ErrIs(t, "the waiter", <-waiter, context.Canceled)
		testkit.MustNil(t, s.SetLimit(2)) // nobody queued for more now
		s.Close()
		if err := s.SetLimit(8); !errors.Is(err, semaphore.ErrClosed) || s.Stats().Limit != 2 {
			t.Fatalf("SetLimit after Close = %v, limit %d", err, s.Stats().Limit)
		}
	})
}

// TestResizeUnderAStandingQueue has 64 goroutines take and give back
// random amounts while another resizes the limit at random: every
// acquire is served, nothing is lost (once all is given back and the
// limit is restored the count is the limit again, debt 0), and no
// release by a holder is ever refused (a holder always has room, debt
// first).
// EVSYNC_RESIZE_OPS sets the number of operations (default 20,000).
func TestResizeUnderAStandingQueue(t *testing.T) {
	ops := 20000
	if v, err := strconv.Atoi(os.Getenv("EVSYNC_RESIZE_OPS")); err == nil {
		ops = v
	}
	const limit = 8
	s := newSemaphore(limit, semaphore.WithLimit(limit))
	ctx := context.Background()
	var left atomic.Int64
	left.Store(int64(ops))
	var wg sync.WaitGroup
	for g := range 64 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 7))
			for left.Add(-1) >= 0 {
				n := 1 + r.Uint64N(2)
				if err := s.Acquire(ctx, n); err != nil { // the limit never goes below 2
					t.Errorf("Acquire(%d) = %v", n, err)
					return
				}
				runtime.Gosched()                    // hold for a moment: the others queue up behind
				if err := s.Release(n); err != nil { // a holder always has room: debt first
					t.Errorf("Release(%d) by its holder = %v", n, err)
					return
				}
			}
		})
	}
	done := make(chan struct{})
	go func() {
		r := rand.New(rand.NewPCG(99, 7))
		for {
			select {
			case <-done:
				return
			default:
			}
			_ = s.SetLimit(2 + r.Uint64N(12)) // refused while a larger request is queued
			runtime.Gosched()
		}
	}()
	wg.Wait()
	close(done)
	for s.SetLimit(limit) != nil {
		runtime.Gosched()
	}
	if st := s.Stats(); st.Count != limit || st.Debt != 0 || st.Waiting != 0 {
		t.Fatalf("after the storm: %v (want every unit back)", st)
	}
}
