package semaphore_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/evsync/evsync/semaphore"
)

// start runs Acquire in a goroutine and returns the channel its result
// arrives on. Inside a synctest bubble, synctest.Wait() after start
// guarantees the call is parked (or done).
func start(ctx context.Context, s *semaphore.Semaphore, n uint64) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- s.Acquire(ctx, n) }()
	return ch
}

// pending reports whether no result has arrived on ch yet.
func pending(ch <-chan error) bool {
	select {
	case err := <-ch:
		panic(err) // a settled call we expected to be waiting
	default:
		return true
	}
}

func mustNil(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestAcquireFastPathAndCount(t *testing.T) {
	s := semaphore.New(3)
	mustNil(t, s.Acquire(context.Background(), 2))
	if got := s.Count(); got != 1 {
		t.Fatalf("Count = %d, want 1", got)
	}
	if !s.TryAcquire(1) || s.TryAcquire(1) {
		t.Fatal("TryAcquire: want true then false")
	}
	mustNil(t, s.Release(3))
	if got := s.Count(); got != 3 {
		t.Fatalf("Count = %d, want 3", got)
	}
}

func TestZeroValueIsUsable(t *testing.T) {
	var s semaphore.Semaphore
	if s.TryAcquire(1) {
		t.Fatal("zero value has units")
	}
	mustNil(t, s.Release(semaphore.Max))
	if err := s.Release(1); !errors.Is(err, semaphore.ErrWouldBlock) {
		t.Fatalf("Release past Max: %v", err)
	}
	if st := s.Stats(); st.Limit != semaphore.Max || st.Count != semaphore.Max {
		t.Fatalf("Stats = %+v", st)
	}
}

func TestAcquireZeroReturnsAtOnce(t *testing.T) {
	s := semaphore.New(0)
	mustNil(t, s.Acquire(context.Background(), 0))
	if !s.TryAcquire(0) {
		t.Fatal("TryAcquire(0) = false")
	}
	mustNil(t, s.Release(0))
}

func TestBadArguments(t *testing.T) {
	s := semaphore.New(1, semaphore.WithLimit(4))
	ctx := context.Background()
	for name, err := range map[string]error{
		"Acquire above limit":     s.Acquire(ctx, 5),
		"Acquire nil ctx":         s.Acquire(nilCtx, 1),
		"Release above limit":     s.Release(5),
		"ReleaseWait above limit": s.ReleaseWait(ctx, 5),
		"ReleaseWait nil ctx":     s.ReleaseWait(nilCtx, 1),
	} {
		if !errors.Is(err, semaphore.ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
	if _, err := s.Reserve(5); !errors.Is(err, semaphore.ErrInvalid) {
		t.Errorf("Reserve above limit: %v", err)
	}
	if s.TryAcquire(5) {
		t.Error("TryAcquire above limit succeeded")
	}
	if got := s.Count(); got != 1 {
		t.Errorf("Count = %d after refused calls, want 1", got)
	}
}

func TestReleaseAllOnesIsInvalid(t *testing.T) {
	s := semaphore.New(0)
	if err := s.Release(1<<64 - 1); !errors.Is(err, semaphore.ErrInvalid) {
		t.Fatalf("Release(1<<64-1) = %v, want ErrInvalid (eventfd EINVAL)", err)
	}
}

func TestReleaseOverflowChangesNothing(t *testing.T) {
	s := semaphore.New(semaphore.Max - 1)
	if err := s.Release(2); !errors.Is(err, semaphore.ErrWouldBlock) {
		t.Fatalf("Release(2) = %v, want ErrWouldBlock", err)
	}
	mustNil(t, s.Release(1))
	if s.Count() != semaphore.Max {
		t.Fatalf("Count = %d, want Max", s.Count())
	}
}

func TestConstructorPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"initial above limit": func() { semaphore.New(5, semaphore.WithLimit(4)) },
		"limit zero":          func() { semaphore.WithLimit(0) },
		"limit above Max":     func() { semaphore.WithLimit(semaphore.Max + 1) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				r, _ := recover().(string)
				if len(r) < 11 || r[:11] != "semaphore: " {
					t.Fatalf("panic = %q, want a \"semaphore: ...\" message", r)
				}
			}()
			f()
		})
	}
}

func TestAcquireCanceledChangesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := semaphore.New(0)
		ctx, cancel := context.WithCancel(context.Background())
		res := start(ctx, s, 1)
		synctest.Wait()
		cancel()
		if err := <-res; !errors.Is(err, context.Canceled) {
			t.Fatalf("Acquire = %v, want context.Canceled", err)
		}
		if st := s.Stats(); st.Count != 0 || st.Waiting != 0 {
			t.Fatalf("after cancel: %v", st)
		}
	})
}

func TestAcquireWithDoneContextFailsOnlyIfItMustWait(t *testing.T) {
	s := semaphore.New(1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	mustNil(t, s.Acquire(ctx, 1)) // units there: taken even though ctx is done
	if err := s.Acquire(ctx, 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("Acquire = %v, want context.Canceled", err)
	}
	if s.Stats().Waiting != 0 {
		t.Fatal("a done context left a waiter queued")
	}
}

func TestLargeAcquireDoesNotStarve(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := semaphore.New(0, semaphore.WithLimit(10))
		ctx := context.Background()
		big := start(ctx, s, 3)
		synctest.Wait()
		small := start(ctx, s, 1)
		synctest.Wait()
		for range 2 {
			mustNil(t, s.Release(1))
			synctest.Wait()
			pending(big)
			pending(small) // a unit is there, but the big request is ahead
		}
		mustNil(t, s.Release(1))
		mustNil(t, <-big)
		synctest.Wait()
		pending(small)
		mustNil(t, s.Release(1))
		mustNil(t, <-small)
	})
}

func TestTryAcquireDoesNotJumpTheQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := semaphore.New(1)
		res := start(context.Background(), s, 2)
		synctest.Wait()
		if s.TryAcquire(1) {
			t.Fatal("TryAcquire took a unit while a waiter was queued")
		}
		if err := s.Acquire(canceled(), 1); !errors.Is(err, context.Canceled) {
			t.Fatalf("Acquire behind a waiter = %v, want it to wait", err)
		}
		mustNil(t, s.Release(1))
		mustNil(t, <-res)
	})
}

func canceled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

func TestCanceledHeadLetsOthersProceed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := semaphore.New(1)
		ctx, cancel := context.WithCancel(context.Background())
		head := start(ctx, s, 2)
		synctest.Wait()
		behind := start(context.Background(), s, 1)
		synctest.Wait()
		pending(behind)
		cancel()
		if err := <-head; !errors.Is(err, context.Canceled) {
			t.Fatalf("head = %v", err)
		}
		mustNil(t, <-behind) // the unit that was there all along
	})
}

func TestFIFOOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := semaphore.New(0)
		const n = 8
		order := make(chan int, n)
		for i := range n {
			go func() {
				if s.Acquire(context.Background(), 1) == nil {
					order <- i
				}
			}()
			synctest.Wait() // i is queued before i+1 starts
		}
		for i := range n {
			mustNil(t, s.Release(1))
			if got := <-order; got != i {
				t.Fatalf("grant %d went to waiter %d", i, got)
			}
		}
	})
}

func TestGrantRacingCancelIsNotLost(t *testing.T) {
	// The unit is handed over while ctx is live; ctx ends before the
	// waiter runs. The call must succeed (it took effect first), never
	// report ctx.Err() with the unit gone.
	synctest.Test(t, func(t *testing.T) {
		s := semaphore.New(0)
		ctx, cancel := context.WithCancel(context.Background())
		res := start(ctx, s, 1)
		synctest.Wait()
		mustNil(t, s.Release(1))
		cancel()
		mustNil(t, <-res)
		if s.Count() != 0 {
			t.Fatalf("Count = %d, want 0 (the waiter holds the unit)", s.Count())
		}
	})
}

func TestCanceledWaiterIsSkippedByRelease(t *testing.T) {
	// ctx ends before the Release: whoever sees it first (the granter or
	// the waiter), the unit must stay in the count.
	synctest.Test(t, func(t *testing.T) {
		s := semaphore.New(0)
		ctx, cancel := context.WithCancel(context.Background())
		res := start(ctx, s, 1)
		synctest.Wait()
		cancel()
		mustNil(t, s.Release(1))
		if err := <-res; !errors.Is(err, context.Canceled) {
			t.Fatalf("Acquire = %v, want context.Canceled", err)
		}
		if s.Count() != 1 {
			t.Fatalf("Count = %d, want 1", s.Count())
		}
	})
}

func TestCloseServesWhatIsLeftThenRefuses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := semaphore.New(2, semaphore.WithLimit(4))
		ctx := context.Background()
		big := start(ctx, s, 3)
		synctest.Wait()
		fits := start(ctx, s, 2)
		synctest.Wait()
		mustNil(t, s.Release(2)) // count 4: big (3) is served, fits waits
		mustNil(t, <-big)
		synctest.Wait()
		pending(fits)
		s.Close()
		if err := <-fits; !errors.Is(err, semaphore.ErrClosed) {
			t.Fatalf("waiter for 2 with 1 left = %v, want ErrClosed", err)
		}
		mustNil(t, s.Acquire(ctx, 1)) // what was released stays readable
		if err := s.Acquire(ctx, 1); !errors.Is(err, semaphore.ErrClosed) {
			t.Fatalf("Acquire on empty closed = %v", err)
		}
		if err := s.Release(1); !errors.Is(err, semaphore.ErrClosed) {
			t.Fatalf("Release after Close = %v", err)
		}
		if err := s.ReleaseWait(ctx, 1); !errors.Is(err, semaphore.ErrClosed) {
			t.Fatalf("ReleaseWait after Close = %v", err)
		}
		s.Close() // idempotent
		if !s.Stats().Closed {
			t.Fatal("Stats().Closed = false")
		}
	})
}

func TestCloseServesQueueInOrderWhileItFits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := semaphore.New(2)
		ctx := context.Background()
		a := start(ctx, s, 3) // cannot be served: refused at Close
		synctest.Wait()
		b := start(ctx, s, 2) // behind a; fits in what is left
		synctest.Wait()
		s.Close()
		if err := <-a; !errors.Is(err, semaphore.ErrClosed) {
			t.Fatalf("a = %v, want ErrClosed", err)
		}
		mustNil(t, <-b)
	})
}

func TestReleaseWaitBackPressure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := semaphore.New(2, semaphore.WithLimit(2))
		res := make(chan error, 1)
		go func() { res <- s.ReleaseWait(context.Background(), 2) }()
		synctest.Wait()
		if s.Stats().WritersWaiting != 1 {
			t.Fatalf("writer not waiting: %v", s)
		}
		if !s.TryAcquire(1) {
			t.Fatal("TryAcquire")
		}
		synctest.Wait()
		if s.Count() != 1 {
			t.Fatalf("one unit of room must not admit a 2-unit write: %v", s)
		}
		mustNil(t, s.Acquire(context.Background(), 1))
		mustNil(t, <-res)
		if s.Count() != 2 {
			t.Fatalf("Count = %d, want 2", s.Count())
		}
	})
}

func TestReleaseWaitCanceledAndClosed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := semaphore.New(1, semaphore.WithLimit(1))
		ctx, cancel := context.WithCancel(context.Background())
		a := make(chan error, 1)
		go func() { a <- s.ReleaseWait(ctx, 1) }()
		b := make(chan error, 1)
		synctest.Wait()
		go func() { b <- s.ReleaseWait(context.Background(), 1) }()
		synctest.Wait()
		cancel()
		if err := <-a; !errors.Is(err, context.Canceled) {
			t.Fatalf("a = %v", err)
		}
		s.Close()
		if err := <-b; !errors.Is(err, semaphore.ErrClosed) {
			t.Fatalf("b = %v", err)
		}
		if s.Count() != 1 {
			t.Fatalf("Count = %d, want 1", s.Count())
		}
	})
}

func TestReady(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := semaphore.New(0)
		ch := s.Ready()
		select {
		case <-ch:
			t.Fatal("Ready at count 0")
		default:
		}
		fired := make(chan struct{})
		go func() { <-ch; close(fired) }()
		synctest.Wait()
		mustNil(t, s.Release(1))
		<-fired
		<-s.Ready() // count is non-zero: ready at once
		s.TryAcquire(1)
		ch = s.Ready()
		s.Close()
		<-ch
		<-s.Ready()
	})
}

func TestStringNeverBlocks(t *testing.T) {
	s := semaphore.New(3, semaphore.WithLimit(8))
	if got, want := s.String(), "semaphore{count=3 limit=8 waiting=0 writers=0}"; got != want {
		t.Fatalf("String = %q, want %q", got, want)
	}
	s.Close()
	if got, want := s.String(), "semaphore{count=3 limit=8 waiting=0 writers=0 closed}"; got != want {
		t.Fatalf("String = %q, want %q", got, want)
	}
}

func TestNoAllocationsOnFastPath(t *testing.T) {
	s := semaphore.New(1)
	ctx := context.Background()
	allocs := testing.AllocsPerRun(1000, func() {
		_ = s.Acquire(ctx, 1)
		_ = s.Release(1)
		s.TryAcquire(1)
		_ = s.Release(1)
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per Acquire/Release/TryAcquire/Release, want 0", allocs)
	}
}

// nilCtx is a nil context, for the ErrInvalid cases.
var nilCtx context.Context
