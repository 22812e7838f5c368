package semaphore_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/semaphore"
)

func TestReserveGrantedAtOnceWhenUnitsAreThere(t *testing.T) {
	s := newSemaphore(2)
	r, err := s.Reserve(2)
	testkit.MustNil(t, err)
	if !testkit.IsClosed(r.Done()) || r.Err() != nil || s.Count() != 0 {
		t.Fatalf("Reserve(2) of 2: done=%v err=%v count=%d", testkit.IsClosed(r.Done()), r.Err(), s.Count())
	}
	z, err := s.Reserve(0)
	testkit.MustNil(t, err)
	if !testkit.IsClosed(z.Done()) {
		t.Fatal("Reserve(0) must be granted at once")
	}
}

func TestReserveKeepsItsPlaceInLine(t *testing.T) {
	s := newSemaphore(0)
	first, _ := s.Reserve(2)
	second, _ := s.Reserve(1)
	testkit.MustNil(t, s.Release(1))
	if testkit.IsClosed(first.Done()) || testkit.IsClosed(second.Done()) {
		t.Fatal("the second reservation jumped the first")
	}
	testkit.MustNil(t, first.Err()) // pending: nil, as a live context's Err is
	testkit.MustNil(t, s.Release(1))
	if !testkit.IsClosed(first.Done()) || testkit.IsClosed(second.Done()) {
		t.Fatal("first must be granted, second still waiting")
	}
	if !first.Cancel() { // gives the 2 units back: second is served from them
		t.Fatal("Cancel of a granted reservation could not give back")
	}
	if !testkit.IsClosed(second.Done()) || s.Count() != 1 {
		t.Fatalf("after Cancel: second done=%v count=%d", testkit.IsClosed(second.Done()), s.Count())
	}
	if !first.Cancel() || !errors.Is(first.Err(), context.Canceled) {
		t.Fatal("second Cancel must change nothing")
	}
	testkit.WantCount(t, s, 1) // else a repeated Cancel gave back twice
}

// It is the strict mode's rule, so it runs on a strict limiter in both
// runs of the suite (fair_test.go has the eventual mode's).
func TestReserveCancelPendingLetsOthersThrough(t *testing.T) {
	s := semaphore.New(1)
	big, _ := s.Reserve(2)
	small, _ := s.Reserve(1)
	if testkit.IsClosed(small.Done()) {
		t.Fatal("small jumped big")
	}
	if !big.Cancel() {
		t.Fatal("Cancel of a pending reservation")
	}
	if !testkit.IsClosed(small.Done()) || small.Err() != nil {
		t.Fatal("cancelling the head did not serve the one behind it")
	}
}

func TestReserveCancelThatCannotGiveBack(t *testing.T) {
	s := newSemaphore(1, semaphore.WithLimit(2))
	r, _ := s.Reserve(1)
	testkit.MustNil(t, s.Release(2)) // count at the limit: no room for the unit r holds
	if r.Cancel() {
		t.Fatal("Cancel reported the units given back past the limit")
	}
	if r.Err() != nil || s.Count() != 2 {
		t.Fatalf("caller must keep the unit: err=%v count=%d", r.Err(), s.Count())
	}
	if r.Cancel() {
		t.Fatal("a repeated Cancel must give the same answer")
	}
}

func TestReserveAndClose(t *testing.T) {
	s := newSemaphore(1)
	big, _ := s.Reserve(2)
	fits, _ := s.Reserve(1)
	s.Close()
	if !testkit.IsClosed(big.Done()) || !errors.Is(big.Err(), semaphore.ErrClosed) {
		t.Fatalf("big after Close: %v", big.Err())
	}
	if !testkit.IsClosed(fits.Done()) || fits.Err() != nil {
		t.Fatalf("fits after Close: %v", fits.Err())
	}
	if _, err := s.Reserve(1); !errors.Is(err, semaphore.ErrClosed) {
		t.Fatalf("Reserve on empty closed = %v", err)
	}
	if !fits.Cancel() || s.Count() != 1 {
		t.Fatalf("Cancel after Close must give back to what is left: count %d", s.Count())
	}
}

func TestReserveInSelect(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSemaphore(0)
		ctx, cancel := context.WithCancel(context.Background())
		got := testkit.Park(func() bool {
			r, _ := s.Reserve(1)
			select {
			case <-r.Done():
				return true
			case <-ctx.Done():
				return !r.Cancel()
			}
		})
		cancel()
		if <-got {
			t.Fatal("an abandoned reservation kept a unit")
		}
		testkit.MustNil(t, s.Release(1))
		if s.Count() != 1 || s.Stats().Waiting != 0 {
			t.Fatalf("abandoned reservation still queued: %v", s)
		}
	})
}

func TestCancelWakesAGoroutineBlockedOnDone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSemaphore(0)
		r, err := s.Reserve(1)
		testkit.MustNil(t, err)
		testkit.MustNil(t, r.Err()) // pending: nil, like a live context's Err
		woke := make(chan error, 1)
		go func() {
			<-r.Done()
			woke <- r.Err()
		}()
		synctest.Wait()
		if !r.Cancel() {
			t.Fatal("Cancel of a pending reservation = false")
		}
		if err := <-woke; !errors.Is(err, context.Canceled) {
			t.Fatalf("Err after Cancel = %v, want context.Canceled", err)
		}
		testkit.MustNil(t, s.Release(1))
		testkit.WantCount(t, s, 1) // the cancelled reservation took nothing
	})
}
