package signal_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/signal"
)

type result struct {
	v   uint64
	err error
}

// park calls Wait in a goroutine and, inside a synctest bubble, returns
// once the call is parked (or done): its result arrives on the channel.
func park(ctx context.Context, s *signal.Signal) <-chan result {
	return testkit.Park(func() result {
		v, err := s.Wait(ctx)
		return result{v, err}
	})
}

// parkCancellable is park with a context of its own, which cancel ends.
func parkCancellable(s *signal.Signal) (res <-chan result, cancel context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	return park(ctx, s), cancel
}

func TestAddTakeSumsAndResets(t *testing.T) {
	s := signal.New(1)
	testkit.MustNil(t, s.Add(2))
	testkit.MustNil(t, s.Add(0))
	testkit.WantCount(t, s, 3)
	if v := s.Take(); v != 3 {
		t.Fatalf("Take = %d, want 3", v)
	}
	if v := s.Take(); v != 0 {
		t.Fatalf("Take on empty = %d", v)
	}
}

func TestZeroValueIsUsable(t *testing.T) {
	var s signal.Signal
	testkit.MustNil(t, s.Add(5))
	v, err := s.Wait(context.Background())
	if v != 5 || err != nil {
		t.Fatalf("Wait = %d, %v", v, err)
	}
}

func TestBadArguments(t *testing.T) {
	s := signal.New(0)
	if err := s.Add(1<<64 - 1); !errors.Is(err, signal.ErrInvalid) {
		t.Errorf("Add(1<<64-1) = %v, want ErrInvalid (eventfd EINVAL)", err)
	}
	if err := s.AddWait(context.Background(), 1<<64-1); !errors.Is(err, signal.ErrInvalid) {
		t.Errorf("AddWait(1<<64-1) = %v", err)
	}
	if err := s.AddWait(testkit.NilContext, 1); !errors.Is(err, signal.ErrInvalid) {
		t.Errorf("AddWait(nil) = %v", err)
	}
	if _, err := s.Wait(testkit.NilContext); !errors.Is(err, signal.ErrInvalid) {
		t.Errorf("Wait(nil) = %v", err)
	}
	if s.Count() != 0 {
		t.Errorf("refused calls changed the count to %d", s.Count())
	}
	defer func() {
		if r := recover(); r != "signal: initial count above Max" {
			t.Fatalf("New(Max+1) panic = %v", r)
		}
	}()
	signal.New(signal.Max + 1)
}

func TestAddOverflowChangesNothing(t *testing.T) {
	s := signal.New(signal.Max - 1)
	testkit.ErrIs(t, "Add(2)", s.Add(2), signal.ErrWouldBlock)
	testkit.MustNil(t, s.Add(1))
	testkit.WantCount(t, s, signal.Max)
}

func TestSumGoesToExactlyOneReaderInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := signal.New(0)
		first := park(context.Background(), s)
		second := park(context.Background(), s)
		testkit.MustNil(t, s.Add(5))
		if r := <-first; r.v != 5 || r.err != nil {
			t.Fatalf("first = %+v, want 5", r)
		}
		synctest.Wait()
		testkit.Pending(t, second)
		testkit.MustNil(t, s.Add(3))
		if r := <-second; r.v != 3 || r.err != nil {
			t.Fatalf("second = %+v, want 3", r)
		}
	})
}

func TestWaitCanceledChangesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := signal.New(0)
		res, cancel := parkCancellable(s)
		cancel()
		if r := <-res; !errors.Is(r.err, context.Canceled) || r.v != 0 {
			t.Fatalf("Wait = %+v", r)
		}
		testkit.MustNil(t, s.Add(2))
		if s.Take() != 2 {
			t.Fatal("a cancelled reader took the sum")
		}
	})
}

// TestDoneContextStopsWaitAndAddWait: a done context is a request to
// stop, so Wait takes nothing even with a sum there, and AddWait adds
// nothing even with room (and for n = 0); Take takes the sum.
func TestDoneContextStopsWaitAndAddWait(t *testing.T) {
	s := signal.New(5)
	done := testkit.Cancelled()
	if v, err := s.Wait(done); !errors.Is(err, context.Canceled) || v != 0 {
		t.Fatalf("Wait(done) with a sum there = %d, %v", v, err)
	}
	testkit.ErrIs(t, "AddWait(done, 1)", s.AddWait(done, 1), context.Canceled)
	testkit.ErrIs(t, "AddWait(done, 0)", s.AddWait(done, 0), context.Canceled)
	testkit.ErrIs(t, "AddWait(done, 1<<64-1)", s.AddWait(done, signal.Max+1), signal.ErrInvalid)
	testkit.WantCount(t, s, 5)
	s.Close()
	if v, err := s.Wait(done); !errors.Is(err, context.Canceled) || v != 0 {
		t.Fatalf("Wait(done) after Close = %d, %v", v, err)
	}
	if v := s.Take(); v != 5 {
		t.Fatalf("Take() = %d, want the 5 the stopped calls left", v)
	}
}

func TestSumRacingCancelIsNotLost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := signal.New(0)
		res, cancel := parkCancellable(s)
		testkit.MustNil(t, s.Add(7))
		cancel()
		if r := <-res; r.v != 7 || r.err != nil {
			t.Fatalf("Wait = %+v, want the 7 handed over before cancel", r)
		}
		testkit.WantCount(t, s, 0) // else the sum was read twice
	})
}

func TestCanceledReaderIsSkipped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := signal.New(0)
		gone, cancel := parkCancellable(s)
		live := park(context.Background(), s)
		cancel()
		testkit.MustNil(t, s.Add(4))
		if r := <-gone; !errors.Is(r.err, context.Canceled) {
			t.Fatalf("cancelled reader = %+v", r)
		}
		if r := <-live; r.v != 4 {
			t.Fatalf("live reader = %+v, want 4", r)
		}
	})
}

func TestAddWaitBackPressure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := signal.New(signal.Max)
		res := testkit.Park(func() error { return s.AddWait(context.Background(), 3) })
		testkit.Pending(t, res)
		if s.Take() != signal.Max {
			t.Fatal("Take")
		}
		testkit.MustNil(t, <-res)
		testkit.WantCount(t, s, 3)
	})
}

// TestAddWaitZeroNeverWaits: adding 0 needs no room, so AddWait(ctx, 0)
// returns nil at once even behind a blocked writer, as Add(0) and a kernel
// write of 0 do (with a done context it still stops:
// TestDoneContextStopsWaitAndAddWait).
func TestAddWaitZeroNeverWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := signal.New(signal.Max)
		defer s.Close()
		blocked, cancel := context.WithCancel(context.Background())
		res := testkit.Park(func() error { return s.AddWait(blocked, 1) })
		testkit.MustNil(t, s.AddWait(context.Background(), 0))
		testkit.WantCount(t, s, signal.Max)
		cancel()
		testkit.ErrIs(t, "the blocked AddWait", <-res, context.Canceled)
	})
}

func TestCloseKeepsSumReadableThenRefuses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := signal.New(signal.Max)
		ctx := context.Background()
		writer := testkit.Park(func() error { return s.AddWait(ctx, 1) })
		s.Close()
		testkit.ErrIs(t, "blocked AddWait at Close", <-writer, signal.ErrClosed)
		testkit.ErrIs(t, "Add after Close", s.Add(1), signal.ErrClosed)
		if v, err := s.Wait(ctx); v != signal.Max || err != nil {
			t.Fatalf("Wait after Close = %d, %v; want the sum", v, err)
		}
		if _, err := s.Wait(ctx); !errors.Is(err, signal.ErrClosed) {
			t.Fatalf("Wait on empty closed = %v", err)
		}
		if s.Take() != 0 {
			t.Fatal("Take on empty closed")
		}
		s.Close()
	})
}

func TestCloseWakesBlockedReaders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := signal.New(0)
		a, b := park(context.Background(), s), park(context.Background(), s)
		s.Close()
		for _, ch := range []<-chan result{a, b} {
			if r := <-ch; !errors.Is(r.err, signal.ErrClosed) {
				t.Fatalf("reader at Close = %+v", r)
			}
		}
	})
}

func TestReady(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := signal.New(0)
		ch := s.Ready()
		fired := testkit.Park(func() struct{} { return <-ch })
		testkit.Pending(t, fired)
		testkit.MustNil(t, s.Add(1))
		<-fired
		<-s.Ready()
		s.Take()
		ch = s.Ready()
		s.Close()
		<-ch
	})
}

func TestString(t *testing.T) {
	s := signal.New(3)
	testkit.WantString(t, s, "signal{count=3 waiting=0 writers=0}")
}

func TestNoAllocationsOnFastPath(t *testing.T) {
	s := signal.New(0)
	ctx := context.Background()
	testkit.NoAllocs(t, "Add/Take/Add/Wait", func() {
		_ = s.Add(2)
		s.Take()
		_ = s.Add(1)
		_, _ = s.Wait(ctx)
	})
}

func TestWritableAtMaxFiresOnTake(t *testing.T) {
	s := signal.New(signal.Max)
	out := s.Writable()
	if testkit.IsClosed(out) {
		t.Fatal("Writable at Max is ready")
	}
	if v := s.Take(); v != signal.Max {
		t.Fatalf("Take = %d", v)
	}
	if !testkit.IsClosed(out) {
		t.Fatal("Writable not fired by Take")
	}
}
