package semaphore_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/evsync/evsync/internal/testkit"
	"github.com/evsync/evsync/semaphore"
)

func TestAPermitIsReleasedExactlyOnce(t *testing.T) {
	s := semaphore.NewLimiter(3)
	p, err := s.AcquirePermit(context.Background(), 2)
	testkit.MustNil(t, err)
	if p.N() != 2 || s.Count() != 1 {
		t.Fatalf("permit holds %d, count %d", p.N(), s.Count())
	}
	if !p.Release() {
		t.Fatal("first Release = false")
	}
	if p.Release() {
		t.Fatal("second Release = true: units given back twice")
	}
	testkit.WantCount(t, s, 3)
}

func TestConcurrentReleasesOfOnePermitGiveBackOnce(t *testing.T) {
	s := semaphore.New(0)
	for range 200 {
		testkit.MustNil(t, s.Release(1))
		p, ok := s.TryAcquirePermit(1)
		if !ok {
			t.Fatal("TryAcquirePermit failed")
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		released := 0
		for range 4 {
			wg.Go(func() {
				if p.Release() {
					mu.Lock()
					released++
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if released != 1 {
			t.Fatalf("%d Releases succeeded, want 1", released)
		}
		if s.TakeAll() != 1 {
			t.Fatal("the unit did not come back exactly once")
		}
	}
}

func TestSplitMergeAndForget(t *testing.T) {
	s := semaphore.New(10)
	p, _ := s.TryAcquirePermit(6)
	q, err := p.Split(2)
	testkit.MustNil(t, err)
	if p.N() != 4 || q.N() != 2 {
		t.Fatalf("after Split(2): %d and %d", p.N(), q.N())
	}
	if _, err := p.Split(5); !errors.Is(err, semaphore.ErrInvalid) {
		t.Fatalf("Split beyond what it holds = %v", err)
	}
	if _, err := p.Split(0); !errors.Is(err, semaphore.ErrInvalid) {
		t.Fatalf("Split(0) = %v", err)
	}
	q.Release()
	testkit.WantCount(t, s, 6)
	r, _ := s.TryAcquirePermit(3)
	testkit.MustNil(t, p.Merge(r))
	if p.N() != 7 || r.N() != 0 || r.Release() {
		t.Fatalf("after Merge: %d and %d", p.N(), r.N())
	}
	if err := p.Merge(p); !errors.Is(err, semaphore.ErrInvalid) {
		t.Fatalf("Merge with itself = %v", err)
	}
	other, _ := semaphore.New(1).TryAcquirePermit(1)
	if err := p.Merge(other); !errors.Is(err, semaphore.ErrInvalid) || other.N() != 1 {
		t.Fatalf("Merge across semaphores = %v, left %d", err, other.N())
	}
	if n := p.Forget(); n != 7 || p.Release() {
		t.Fatalf("Forget = %d", n)
	}
	testkit.WantCount(t, s, 3) // the forgotten units never come back
}

func TestAPermitThatCannotGoBackIsKept(t *testing.T) {
	s := semaphore.NewLimiter(1)
	p, _ := s.TryAcquirePermit(1)
	_ = s.Release(1) // a stray release from elsewhere fills the room
	if p.Release() || p.N() != 1 {
		t.Fatalf("Release with no room: held %d", p.N())
	}
	_ = s.TakeAll()
	if !p.Release() {
		t.Fatal("Release once there is room = false")
	}
}

func TestAcquirePermitErrorsHoldNothing(t *testing.T) {
	s := semaphore.New(0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if p, err := s.AcquirePermit(ctx, 1); p != nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("AcquirePermit with a done ctx = %v, %v", p, err)
	}
	if p, ok := s.TryAcquirePermit(1); p != nil || ok {
		t.Fatal("TryAcquirePermit of nothing succeeded")
	}
	var zero semaphore.Permit
	if zero.Release() || zero.N() != 0 || zero.Forget() != 0 {
		t.Fatal("a zero Permit holds something")
	}
}
