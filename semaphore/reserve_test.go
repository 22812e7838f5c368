package semaphore_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/evsync/evsync/semaphore"
)

func isDone(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func TestReserveGrantedAtOnceWhenUnitsAreThere(t *testing.T) {
	s := semaphore.New(2)
	r, err := s.Reserve(2)
	mustNil(t, err)
	if !isDone(r.Done()) || r.Err() != nil || s.Count() != 0 {
		t.Fatalf("Reserve(2) of 2: done=%v err=%v count=%d", isDone(r.Done()), r.Err(), s.Count())
	}
	z, err := s.Reserve(0)
	mustNil(t, err)
	if !isDone(z.Done()) {
		t.Fatal("Reserve(0) must be granted at once")
	}
}

func TestReserveKeepsItsPlaceInLine(t *testing.T) {
	s := semaphore.New(0)
	first, _ := s.Reserve(2)
	second, _ := s.Reserve(1)
	mustNil(t, s.Release(1))
	if isDone(first.Done()) || isDone(second.Done()) {
		t.Fatal("the second reservation jumped the first")
	}
	if !errors.Is(first.Err(), semaphore.ErrWouldBlock) {
		t.Fatalf("pending Err = %v, want ErrWouldBlock", first.Err())
	}
	mustNil(t, s.Release(1))
	if !isDone(first.Done()) || isDone(second.Done()) {
		t.Fatal("first must be granted, second still waiting")
	}
	if !first.Cancel() { // gives the 2 units back: second is served from them
		t.Fatal("Cancel of a granted reservation could not give back")
	}
	if !isDone(second.Done()) || s.Count() != 1 {
		t.Fatalf("after Cancel: second done=%v count=%d", isDone(second.Done()), s.Count())
	}
	if !first.Cancel() || !errors.Is(first.Err(), semaphore.ErrWouldBlock) {
		t.Fatal("second Cancel must change nothing")
	}
	if s.Count() != 1 {
		t.Fatalf("a repeated Cancel gave back twice: count %d", s.Count())
	}
}

func TestReserveCancelPendingLetsOthersThrough(t *testing.T) {
	s := semaphore.New(1)
	big, _ := s.Reserve(2)
	small, _ := s.Reserve(1)
	if isDone(small.Done()) {
		t.Fatal("small jumped big")
	}
	if !big.Cancel() {
		t.Fatal("Cancel of a pending reservation")
	}
	if !isDone(small.Done()) || small.Err() != nil {
		t.Fatal("cancelling the head did not serve the one behind it")
	}
}

func TestReserveCancelThatCannotGiveBack(t *testing.T) {
	s := semaphore.New(1, semaphore.WithLimit(2))
	r, _ := s.Reserve(1)
	mustNil(t, s.Release(2)) // count at the limit: no room for the unit r holds
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
	s := semaphore.New(1)
	big, _ := s.Reserve(2)
	fits, _ := s.Reserve(1)
	s.Close()
	if !isDone(big.Done()) || !errors.Is(big.Err(), semaphore.ErrClosed) {
		t.Fatalf("big after Close: %v", big.Err())
	}
	if !isDone(fits.Done()) || fits.Err() != nil {
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
		s := semaphore.New(0)
		ctx, cancel := context.WithCancel(context.Background())
		got := make(chan bool, 1)
		go func() {
			r, _ := s.Reserve(1)
			select {
			case <-r.Done():
				got <- true
			case <-ctx.Done():
				got <- !r.Cancel()
			}
		}()
		synctest.Wait()
		cancel()
		if <-got {
			t.Fatal("an abandoned reservation kept a unit")
		}
		mustNil(t, s.Release(1))
		if s.Count() != 1 || s.Stats().Waiting != 0 {
			t.Fatalf("abandoned reservation still queued: %v", s)
		}
	})
}
