package signal_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/evsync/evsync/signal"
)

type result struct {
	v   uint64
	err error
}

// wait runs Wait in a goroutine; inside a synctest bubble, synctest.Wait()
// after it guarantees the call is parked (or done).
func wait(ctx context.Context, s *signal.Signal) <-chan result {
	ch := make(chan result, 1)
	go func() {
		v, err := s.Wait(ctx)
		ch <- result{v, err}
	}()
	return ch
}

func pending[T any](ch <-chan T) bool {
	select {
	case r := <-ch:
		panic(r)
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

func TestAddTakeSumsAndResets(t *testing.T) {
	s := signal.New(1)
	mustNil(t, s.Add(2))
	mustNil(t, s.Add(0))
	if s.Count() != 3 {
		t.Fatalf("Count = %d", s.Count())
	}
	if v := s.Take(); v != 3 {
		t.Fatalf("Take = %d, want 3", v)
	}
	if v := s.Take(); v != 0 {
		t.Fatalf("Take on empty = %d", v)
	}
}

func TestZeroValueIsUsable(t *testing.T) {
	var s signal.Signal
	mustNil(t, s.Add(5))
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
	if err := s.AddWait(nilCtx, 1); !errors.Is(err, signal.ErrInvalid) {
		t.Errorf("AddWait(nil) = %v", err)
	}
	if _, err := s.Wait(nilCtx); !errors.Is(err, signal.ErrInvalid) {
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
	if err := s.Add(2); !errors.Is(err, signal.ErrWouldBlock) {
		t.Fatalf("Add(2) = %v, want ErrWouldBlock", err)
	}
	mustNil(t, s.Add(1))
	if s.Count() != signal.Max {
		t.Fatalf("Count = %d, want Max", s.Count())
	}
}

func TestSumGoesToExactlyOneReaderInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := signal.New(0)
		first := wait(context.Background(), s)
		synctest.Wait()
		second := wait(context.Background(), s)
		synctest.Wait()
		mustNil(t, s.Add(5))
		if r := <-first; r.v != 5 || r.err != nil {
			t.Fatalf("first = %+v, want 5", r)
		}
		synctest.Wait()
		pending(second)
		mustNil(t, s.Add(3))
		if r := <-second; r.v != 3 || r.err != nil {
			t.Fatalf("second = %+v, want 3", r)
		}
	})
}

func TestWaitCanceledChangesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := signal.New(0)
		ctx, cancel := context.WithCancel(context.Background())
		res := wait(ctx, s)
		synctest.Wait()
		cancel()
		if r := <-res; !errors.Is(r.err, context.Canceled) || r.v != 0 {
			t.Fatalf("Wait = %+v", r)
		}
		mustNil(t, s.Add(2))
		if s.Take() != 2 {
			t.Fatal("a cancelled reader took the sum")
		}
	})
}

func TestSumRacingCancelIsNotLost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := signal.New(0)
		ctx, cancel := context.WithCancel(context.Background())
		res := wait(ctx, s)
		synctest.Wait()
		mustNil(t, s.Add(7))
		cancel()
		if r := <-res; r.v != 7 || r.err != nil {
			t.Fatalf("Wait = %+v, want the 7 handed over before cancel", r)
		}
		if s.Count() != 0 {
			t.Fatal("the sum was read twice")
		}
	})
}

func TestCanceledReaderIsSkipped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := signal.New(0)
		ctx, cancel := context.WithCancel(context.Background())
		gone := wait(ctx, s)
		synctest.Wait()
		live := wait(context.Background(), s)
		synctest.Wait()
		cancel()
		mustNil(t, s.Add(4))
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
		res := make(chan error, 1)
		go func() { res <- s.AddWait(context.Background(), 3) }()
		synctest.Wait()
		pending(res)
		if s.Take() != signal.Max {
			t.Fatal("Take")
		}
		mustNil(t, <-res)
		if s.Count() != 3 {
			t.Fatalf("Count = %d, want 3", s.Count())
		}
	})
}

func TestCloseKeepsSumReadableThenRefuses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := signal.New(signal.Max)
		ctx := context.Background()
		writer := make(chan error, 1)
		go func() { writer <- s.AddWait(ctx, 1) }()
		synctest.Wait()
		s.Close()
		if err := <-writer; !errors.Is(err, signal.ErrClosed) {
			t.Fatalf("blocked AddWait at Close = %v", err)
		}
		if err := s.Add(1); !errors.Is(err, signal.ErrClosed) {
			t.Fatalf("Add after Close = %v", err)
		}
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
		a, b := wait(context.Background(), s), wait(context.Background(), s)
		synctest.Wait()
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
		fired := make(chan struct{})
		go func() { <-ch; close(fired) }()
		synctest.Wait()
		pending(fired)
		mustNil(t, s.Add(1))
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
	if got, want := s.String(), "signal{count=3 waiting=0 writers=0}"; got != want {
		t.Fatalf("String = %q, want %q", got, want)
	}
}

func TestNoAllocationsOnFastPath(t *testing.T) {
	s := signal.New(0)
	ctx := context.Background()
	allocs := testing.AllocsPerRun(1000, func() {
		_ = s.Add(2)
		s.Take()
		_ = s.Add(1)
		_, _ = s.Wait(ctx)
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per Add/Take/Add/Wait, want 0", allocs)
	}
}

// nilCtx is a nil context, for the ErrInvalid cases.
var nilCtx context.Context
