package semaphore_test

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"testing/synctest"

	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/semaphore"
)

// park calls Acquire in a goroutine and, inside a synctest bubble, returns
// once the call is parked (or done): its result arrives on the channel.
func park(ctx context.Context, s *semaphore.Semaphore, n uint64) <-chan error {
	return testkit.Park(func() error { return s.Acquire(ctx, n) })
}

// parkCancellable is park with a context of its own, which cancel ends.
func parkCancellable(s *semaphore.Semaphore, n uint64) (res <-chan error, cancel context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	return park(ctx, s, n), cancel
}

func TestAcquireFastPathAndCount(t *testing.T) {
	s := newSemaphore(3)
	testkit.MustNil(t, s.Acquire(context.Background(), 2))
	testkit.WantCount(t, s, 1)
	if !s.TryAcquire(1) || s.TryAcquire(1) {
		t.Fatal("TryAcquire: want true then false")
	}
	testkit.MustNil(t, s.Release(3))
	testkit.WantCount(t, s, 3)
}

func TestZeroValueIsUsable(t *testing.T) {
	var s semaphore.Semaphore
	if s.TryAcquire(1) {
		t.Fatal("zero value has units")
	}
	testkit.MustNil(t, s.Release(semaphore.Max))
	testkit.ErrIs(t, "Release past Max", s.Release(1), semaphore.ErrWouldBlock)
	if st := s.Stats(); st.Limit != semaphore.Max || st.Count != semaphore.Max {
		t.Fatalf("Stats = %+v", st)
	}
}

func TestAcquireZeroReturnsAtOnce(t *testing.T) {
	s := newSemaphore(0)
	testkit.MustNil(t, s.Acquire(context.Background(), 0))
	if !s.TryAcquire(0) {
		t.Fatal("TryAcquire(0) = false")
	}
	testkit.MustNil(t, s.Release(0))
}

func TestBadArguments(t *testing.T) {
	s := newSemaphore(1, semaphore.WithLimit(4))
	ctx := context.Background()
	for name, err := range map[string]error{
		"Acquire above limit":     s.Acquire(ctx, 5),
		"Acquire nil ctx":         s.Acquire(testkit.NilContext, 1),
		"Release above limit":     s.Release(5),
		"ReleaseWait above limit": s.ReleaseWait(ctx, 5),
		"ReleaseWait nil ctx":     s.ReleaseWait(testkit.NilContext, 1),
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
	s := newSemaphore(0)
	// eventfd's EINVAL: the all-ones value is never a valid write
	testkit.ErrIs(t, "Release(1<<64-1)", s.Release(1<<64-1), semaphore.ErrInvalid)
}

func TestReleaseOverflowChangesNothing(t *testing.T) {
	s := newSemaphore(semaphore.Max - 1)
	testkit.ErrIs(t, "Release(2)", s.Release(2), semaphore.ErrWouldBlock)
	testkit.MustNil(t, s.Release(1))
	testkit.WantCount(t, s, semaphore.Max)
}

func TestConstructorPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"initial above limit": func() { newSemaphore(5, semaphore.WithLimit(4)) },
		"limit zero":          func() { semaphore.WithLimit(0) },
		"limit above Max":     func() { semaphore.WithLimit(semaphore.Max + 1) },
	} {
		t.Run(name, func(t *testing.T) { testkit.WantPanic(t, "semaphore: ", f) })
	}
}

func TestAcquireCanceledChangesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSemaphore(0)
		res, cancel := parkCancellable(s, 1)
		cancel()
		testkit.ErrIs(t, "Acquire", <-res, context.Canceled)
		if st := s.Stats(); st.Count != 0 || st.Waiting != 0 {
			t.Fatalf("after cancel: %v", st)
		}
	})
}

// TestAcquireWithDoneContextStops: a done context is a request to stop,
// so Acquire returns ctx.Err() and takes nothing even with the units there
// (and for n = 0, and on a closed semaphore); TryAcquire takes them.
func TestAcquireWithDoneContextStops(t *testing.T) {
	s := newSemaphore(1)
	ctx := testkit.Cancelled()
	testkit.ErrIs(t, "Acquire(done, 1) with a unit there", s.Acquire(ctx, 1), context.Canceled)
	testkit.ErrIs(t, "Acquire(done, 0)", s.Acquire(ctx, 0), context.Canceled)
	testkit.WantCount(t, s, 1)
	if st := s.Stats(); st.Waiting != 0 {
		t.Fatalf("a done context left a waiter queued: %v", st)
	}
	testkit.ErrIs(t, "Acquire(done, Max+1)", s.Acquire(ctx, semaphore.Max+1), semaphore.ErrInvalid)
	s.Close()
	testkit.ErrIs(t, "Acquire(done, 1) after Close", s.Acquire(ctx, 1), context.Canceled)
	if !s.TryAcquire(1) {
		t.Fatal("TryAcquire(1) did not take the unit a stopped Acquire left")
	}
}

// TestReleaseWaitWithDoneContextStops: ReleaseWait with a done context
// adds nothing, even where it would not wait.
func TestReleaseWaitWithDoneContextStops(t *testing.T) {
	s := newSemaphore(0)
	ctx := testkit.Cancelled()
	testkit.ErrIs(t, "ReleaseWait(done, 1)", s.ReleaseWait(ctx, 1), context.Canceled)
	testkit.ErrIs(t, "ReleaseWait(done, 0)", s.ReleaseWait(ctx, 0), context.Canceled)
	testkit.WantCount(t, s, 0)
	testkit.ErrIs(t, "ReleaseWait(done, Max+1)", s.ReleaseWait(ctx, semaphore.Max+1), semaphore.ErrInvalid)
}

func TestLargeAcquireDoesNotStarve(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSemaphore(0, semaphore.WithLimit(10))
		ctx := context.Background()
		big := park(ctx, s, 3)
		small := park(ctx, s, 1)
		for range 2 {
			testkit.MustNil(t, s.Release(1))
			synctest.Wait()
			testkit.Pending(t, big)
			testkit.Pending(t, small) // a unit is there, but the big request is ahead
		}
		testkit.MustNil(t, s.Release(1))
		testkit.MustNil(t, <-big)
		synctest.Wait()
		testkit.Pending(t, small)
		testkit.MustNil(t, s.Release(1))
		testkit.MustNil(t, <-small)
	})
}

// It is the strict mode's rule, so it runs on a strict limiter in both
// runs of the suite (fair_test.go has the eventual mode's).
func TestTryAcquireDoesNotJumpTheQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := semaphore.New(1)
		res := park(context.Background(), s, 2)
		if s.TryAcquire(1) {
			t.Fatal("TryAcquire took a unit while a waiter was queued")
		}
		// Behind a waiter Acquire must wait: a context that ends while it
		// does makes it fail, with the unit still there.
		ctx, cancel := context.WithCancel(context.Background())
		behind := testkit.Park(func() error { return s.Acquire(ctx, 1) })
		cancel()
		testkit.ErrIs(t, "Acquire behind a waiter", <-behind, context.Canceled)
		testkit.WantCount(t, s, 1)
		testkit.MustNil(t, s.Release(1))
		testkit.MustNil(t, <-res)
	})
}

// TestReleaseRightAfterCancelledHeadServesTheQueueFirst: a Release made
// just after the head waiter's context ends, before that waiter has left
// the queue, must first serve the live waiter behind it, whose units make
// the room the Release needs (the fuzz seed cancelled-head-then-release
// is the same bug found by the fuzzer). With one P, the cancelled head's
// goroutine, made runnable by cancel, cannot run before the Release.
func TestReleaseRightAfterCancelledHeadServesTheQueueFirst(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for range 20 {
		synctest.Test(t, func(t *testing.T) {
			s := newSemaphore(3, semaphore.WithLimit(10))
			head, cancel := parkCancellable(s, 4)
			behind := park(context.Background(), s, 3)
			cancel()
			testkit.MustNil(t, s.Release(8)) // 3 + 8 > 10, but the 3 go to behind first
			testkit.MustNil(t, <-behind)
			testkit.ErrIs(t, "the cancelled head", <-head, context.Canceled)
			testkit.WantCount(t, s, 8)
		})
	}
}

// TestTryAcquireRightAfterCancelledWaiterDoesNotWaitBehindIt: once the
// only queued waiter's context has ended, TryAcquire takes units that are
// there, even before that waiter has left the queue.
func TestTryAcquireRightAfterCancelledWaiterDoesNotWaitBehindIt(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for range 20 {
		synctest.Test(t, func(t *testing.T) {
			s := newSemaphore(1)
			waiter, cancel := parkCancellable(s, 2)
			cancel()
			if !s.TryAcquire(1) {
				t.Fatal("TryAcquire(1) waited behind a cancelled waiter")
			}
			testkit.ErrIs(t, "the cancelled waiter", <-waiter, context.Canceled)
			testkit.WantCount(t, s, 0)
		})
	}
}

// It is the strict mode's rule, so it runs on a strict limiter in both
// runs of the suite (fair_test.go has the eventual mode's).
func TestCanceledHeadLetsOthersProceed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := semaphore.New(1)
		head, cancel := parkCancellable(s, 2)
		behind := park(context.Background(), s, 1)
		testkit.Pending(t, behind)
		cancel()
		testkit.ErrIs(t, "head", <-head, context.Canceled)
		testkit.MustNil(t, <-behind) // the unit that was there all along
	})
}

func TestFIFOOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSemaphore(0)
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
			testkit.MustNil(t, s.Release(1))
			if got := <-order; got != i {
				t.Fatalf("grant %d went to waiter %d", i, got)
			}
		}
	})
}

// It is the strict mode's rule, so it runs on a strict limiter in both
// runs of the suite (fair_test.go has the eventual mode's).
func TestGrantRacingCancelIsNotLost(t *testing.T) {
	// The unit is handed over while ctx is live; ctx ends before the
	// waiter runs. The call must succeed (it took effect first), never
	// report ctx.Err() with the unit gone.
	synctest.Test(t, func(t *testing.T) {
		s := semaphore.New(0)
		res, cancel := parkCancellable(s, 1)
		testkit.MustNil(t, s.Release(1))
		cancel()
		testkit.MustNil(t, <-res)
		testkit.WantCount(t, s, 0) // the waiter holds the unit
	})
}

func TestCanceledWaiterIsSkippedByRelease(t *testing.T) {
	// ctx ends before the Release: whoever sees it first (the granter or
	// the waiter), the unit must stay in the count.
	synctest.Test(t, func(t *testing.T) {
		s := newSemaphore(0)
		res, cancel := parkCancellable(s, 1)
		cancel()
		testkit.MustNil(t, s.Release(1))
		testkit.ErrIs(t, "Acquire", <-res, context.Canceled)
		testkit.WantCount(t, s, 1)
	})
}

// It is the strict mode's rule, so it runs on a strict limiter in both
// runs of the suite (fair_test.go has the eventual mode's).
func TestCloseServesWhatIsLeftThenRefuses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := semaphore.New(2, semaphore.WithLimit(4))
		ctx := context.Background()
		big := park(ctx, s, 3)
		fits := park(ctx, s, 2)
		testkit.MustNil(t, s.Release(2)) // count 4: big (3) is served, fits waits
		testkit.MustNil(t, <-big)
		synctest.Wait()
		testkit.Pending(t, fits)
		s.Close()
		testkit.ErrIs(t, "waiter for 2 with 1 left", <-fits, semaphore.ErrClosed)
		testkit.MustNil(t, s.Acquire(ctx, 1)) // what was released stays readable
		testkit.ErrIs(t, "Acquire on empty closed", s.Acquire(ctx, 1), semaphore.ErrClosed)
		testkit.MustNil(t, s.Release(1))      // a holder gives its unit back after Close: taken back
		testkit.MustNil(t, s.Acquire(ctx, 1)) // and it serves a later acquire
		testkit.MustNil(t, s.ReleaseWait(ctx, 1))
		testkit.WantCount(t, s, 1)
		s.Close() // idempotent
		if !s.Stats().Closed {
			t.Fatal("Stats().Closed = false")
		}
	})
}

func TestCloseServesQueueInOrderWhileItFits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSemaphore(2)
		ctx := context.Background()
		a := park(ctx, s, 3) // cannot be served: refused at Close
		b := park(ctx, s, 2) // behind a; fits in what is left
		s.Close()
		testkit.ErrIs(t, "a", <-a, semaphore.ErrClosed)
		testkit.MustNil(t, <-b)
	})
}

func TestReleaseWaitBackPressure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSemaphore(2, semaphore.WithLimit(2))
		res := testkit.Park(func() error { return s.ReleaseWait(context.Background(), 2) })
		if s.Stats().WritersWaiting != 1 {
			t.Fatalf("writer not waiting: %v", s)
		}
		if !s.TryAcquire(1) {
			t.Fatal("TryAcquire")
		}
		synctest.Wait()
		testkit.WantCount(t, s, 1) // one unit of room must not admit a 2-unit write
		testkit.MustNil(t, s.Acquire(context.Background(), 1))
		testkit.MustNil(t, <-res)
		testkit.WantCount(t, s, 2)
	})
}

// TestReleaseWaitZeroNeverWaits: releasing 0 needs no room, so
// ReleaseWait(ctx, 0) returns nil at once even behind a blocked writer, as
// Release(0) and a kernel write of 0 do (with a done context it still
// stops: TestReleaseWaitWithDoneContextStops).
func TestReleaseWaitZeroNeverWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSemaphore(3, semaphore.WithLimit(3))
		defer s.Close()
		blocked, cancel := context.WithCancel(context.Background())
		res := testkit.Park(func() error { return s.ReleaseWait(blocked, 1) })
		testkit.MustNil(t, s.ReleaseWait(context.Background(), 0))
		testkit.WantCount(t, s, 3)
		cancel()
		testkit.ErrIs(t, "the blocked ReleaseWait", <-res, context.Canceled)
	})
}

func TestReleaseWaitCanceledAndClosed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSemaphore(1, semaphore.WithLimit(1))
		ctx, cancel := context.WithCancel(context.Background())
		a := testkit.Park(func() error { return s.ReleaseWait(ctx, 1) })
		b := testkit.Park(func() error { return s.ReleaseWait(context.Background(), 1) })
		cancel()
		testkit.ErrIs(t, "a", <-a, context.Canceled)
		s.Close()
		testkit.ErrIs(t, "b", <-b, semaphore.ErrClosed)
		testkit.WantCount(t, s, 1)
	})
}

func TestReady(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSemaphore(0)
		ch := s.Ready()
		if testkit.IsClosed(ch) {
			t.Fatal("Ready at count 0")
		}
		fired := testkit.Park(func() struct{} { return <-ch })
		testkit.MustNil(t, s.Release(1))
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
	s := newSemaphore(3, semaphore.WithLimit(8))
	testkit.WantString(t, s, "semaphore{count=3 limit=8 waiting=0 writers=0}")
	s.Close()
	testkit.WantString(t, s, "semaphore{count=3 limit=8 waiting=0 writers=0 closed}")
}

func TestNoAllocationsOnFastPath(t *testing.T) {
	s := newSemaphore(1)
	ctx := context.Background()
	testkit.NoAllocs(t, "Acquire/Release/TryAcquire/Release", func() {
		_ = s.Acquire(ctx, 1)
		_ = s.Release(1)
		s.TryAcquire(1)
		_ = s.Release(1)
	})
}

// TestReleaseToTheHeadLeavesCountAndReady: units released to a queued
// head are the head's; the count stays 0 and Ready does not fire (POLLIN
// never held). Only what stays in the count fires it. (Release takes a
// shortcut when n is exactly the head's need; the outcome must be the same.)
// It is the strict mode's rule, so it runs on a strict limiter in both
// runs of the suite (fair_test.go has the eventual mode's).
func TestReleaseToTheHeadLeavesCountAndReady(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := semaphore.New(0, semaphore.WithLimit(2))
		head := park(context.Background(), s, 2)
		behind := park(context.Background(), s, 1)
		ready := s.Ready()
		testkit.MustNil(t, s.Release(2))
		testkit.MustNil(t, <-head)
		testkit.WantCount(t, s, 0)
		if testkit.IsClosed(ready) {
			t.Fatal("Ready fired although the units never sat in the count")
		}
		testkit.Pending(t, behind)
		testkit.MustNil(t, s.Release(2)) // not an exact match: through the count
		testkit.MustNil(t, <-behind)
		testkit.WantCount(t, s, 1)
		if !testkit.IsClosed(ready) {
			t.Fatal("Ready did not fire when a unit stayed in the count")
		}
	})
}

func TestWritableFiresWhenTheCountDropsBelowTheLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSemaphore(2, semaphore.WithLimit(2))
		out := s.Writable()
		if testkit.IsClosed(out) {
			t.Fatal("Writable at the limit is ready")
		}
		if !s.TryAcquire(1) {
			t.Fatal("TryAcquire(1) of 2 failed")
		}
		if !testkit.IsClosed(out) {
			t.Fatal("Writable not fired when the count dropped below the limit")
		}
		if !testkit.IsClosed(s.Writable()) {
			t.Fatal("Writable below the limit not ready at once")
		}
		testkit.MustNil(t, s.Release(1))
		out = s.Writable()
		done := make(chan error, 1)
		go func() { done <- s.Acquire(context.Background(), 2) }() // a blocking take, through the lock
		synctest.Wait()
		testkit.MustNil(t, <-done)
		if !testkit.IsClosed(out) {
			t.Fatal("Writable not fired by Acquire")
		}
		testkit.MustNil(t, s.Release(2))
		out = s.Writable()
		s.Close()
		if !testkit.IsClosed(out) {
			t.Fatal("Writable not fired by Close")
		}
	})
}

func TestDrainWaitsUntilEveryUnitIsBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSemaphore(3, semaphore.WithLimit(3))
		ctx := context.Background()
		testkit.MustNil(t, s.Drain(ctx)) // all home: at once
		testkit.MustNil(t, s.Acquire(ctx, 2))
		s.Close()
		drained := make(chan error, 1)
		go func() { drained <- s.Drain(ctx) }()
		synctest.Wait()
		testkit.Pending(t, drained)
		testkit.MustNil(t, s.Release(1))
		synctest.Wait()
		testkit.Pending(t, drained) // one unit still out
		testkit.MustNil(t, s.Release(1))
		testkit.MustNil(t, <-drained)

		if err := s.Drain(testkit.NilContext); !errors.Is(err, semaphore.ErrInvalid) {
			t.Fatalf("Drain(nil) = %v", err)
		}
		testkit.MustNil(t, s.Acquire(ctx, 1))
		cctx, cancel := context.WithCancel(ctx)
		go func() { drained <- s.Drain(cctx) }()
		synctest.Wait()
		cancel()
		testkit.ErrIs(t, "Drain cancelled", <-drained, context.Canceled)
		testkit.ErrIs(t, "Drain with a done ctx", s.Drain(cctx), context.Canceled)
		testkit.WantCount(t, s, 2) // Drain changed nothing
	})
}

func TestDrainOnAnOpenSemaphore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSemaphore(2, semaphore.WithLimit(2))
		ctx := context.Background()
		testkit.MustNil(t, s.Acquire(ctx, 2))
		drained := make(chan error, 1)
		go func() { drained <- s.Drain(ctx) }()
		synctest.Wait()
		testkit.MustNil(t, s.Release(1)) // uncontended releases: the fast path must see the drainer
		synctest.Wait()
		testkit.Pending(t, drained)
		testkit.MustNil(t, s.Release(1))
		testkit.MustNil(t, <-drained)
		testkit.WantCount(t, s, 2)
	})
}

func TestAcquireUpToTakesWhatIsThereInFIFOOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSemaphore(3)
		ctx := context.Background()
		if n, err := s.AcquireUpTo(ctx, 5); n != 3 || err != nil {
			t.Fatalf("AcquireUpTo(5) of 3 = %d, %v", n, err)
		}
		big := park(ctx, s, 2) // queued first
		upTo := make(chan uint64, 1)
		go func() { n, _ := s.AcquireUpTo(ctx, 10); upTo <- n }()
		synctest.Wait()
		testkit.MustNil(t, s.Release(3)) // the head takes 2, the up-to waiter the 1 left
		testkit.MustNil(t, <-big)
		if n := <-upTo; n != 1 {
			t.Fatalf("AcquireUpTo behind the head took %d, want 1", n)
		}
		if n, err := s.AcquireUpTo(ctx, 0); n != 0 || err != nil {
			t.Fatalf("AcquireUpTo(0) = %d, %v", n, err)
		}
		s.Close()
		if _, err := s.AcquireUpTo(ctx, 1); !errors.Is(err, semaphore.ErrClosed) {
			t.Fatalf("AcquireUpTo on a closed empty semaphore = %v", err)
		}
	})
}

// It is the strict mode's rule, so it runs on a strict limiter in both
// runs of the suite (fair_test.go has the eventual mode's).
func TestTakeAllNeverTakesWhatAWaiterIsOwed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := semaphore.New(4)
		if n := s.TakeAll(); n != 4 || s.Count() != 0 {
			t.Fatalf("TakeAll = %d, count %d", n, s.Count())
		}
		if n := s.TakeAll(); n != 0 {
			t.Fatalf("TakeAll of nothing = %d", n)
		}
		waiter := park(context.Background(), s, 3)
		testkit.MustNil(t, s.Release(2)) // not enough for the waiter
		if n := s.TakeAll(); n != 0 {
			t.Fatalf("TakeAll with a waiter queued = %d, want 0", n)
		}
		testkit.MustNil(t, s.Release(1))
		testkit.MustNil(t, <-waiter)
	})
}
