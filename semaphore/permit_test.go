package semaphore_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/semaphore"
)

func TestAPermitIsReleasedExactlyOnce(t *testing.T) {
	s := newLimiter(3)
	p, err := s.AcquirePermit(context.Background(), 2)
	testkit.MustNil(t, err)
	if p.N() != 2 || s.Stats().Free != 1 {
		t.Fatalf("permit holds %d, %d free", p.N(), s.Stats().Free)
	}
	if !p.Release() {
		t.Fatal("first Release = false")
	}
	if p.Release() {
		t.Fatal("second Release = true: units given back twice")
	}
	wantFree(t, s, 3)
}

// TestADeferredReleaseAfterAnExplicitOneIsANoOp is the cleanup path that
// x/sync's Release turns into a panic or an inflated count: the deferred
// Release of a permit released by hand, and of the zero Permit a failed
// AcquirePermit returns.
func TestADeferredReleaseAfterAnExplicitOneIsANoOp(t *testing.T) {
	s := newLimiter(2)
	job := func(ctx context.Context) (released, deferred bool) {
		p, err := s.AcquirePermit(ctx, 1)
		defer func() { deferred = p.Release() }()
		if err != nil {
			return false, false
		}
		return p.Release(), false
	}
	if r, d := job(context.Background()); !r || d {
		t.Fatalf("explicit Release = %v, deferred = %v; want true, false", r, d)
	}
	wantFree(t, s, 2)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if r, d := job(ctx); r || d {
		t.Fatalf("after a failed AcquirePermit: Releases = %v, %v", r, d)
	}
	wantFree(t, s, 2)
}

// TestPermitsHandedToGoroutines hands each permit to a worker through a
// pointer, as its doc says, and checks that every unit comes back once.
func TestPermitsHandedToGoroutines(t *testing.T) {
	s := newLimiter(4)
	var wg sync.WaitGroup
	var released sync.Map
	for i := range 100 {
		p, err := s.AcquirePermit(context.Background(), 1)
		testkit.MustNil(t, err)
		q, err := p.Split(p.N()) // moved: p holds nothing now
		testkit.MustNil(t, err)
		if p.Release() {
			t.Fatal("the permit moved out of still released its units")
		}
		wg.Go(func() {
			if !q.Release() || q.Release() {
				released.Store(i, false)
				return
			}
			released.Store(i, true)
		})
	}
	wg.Wait()
	released.Range(func(k, v any) bool {
		if !v.(bool) {
			t.Errorf("job %v: its permit did not release exactly once", k)
		}
		return true
	})
	wantFree(t, s, 4)
}

func TestSplitMergeAndForget(t *testing.T) {
	s := newLimiter(10)
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
	wantFree(t, s, 6)
	r, _ := s.TryAcquirePermit(3)
	testkit.MustNil(t, p.Merge(&r))
	if p.N() != 7 || r.N() != 0 || r.Release() {
		t.Fatalf("after Merge: %d and %d", p.N(), r.N())
	}
	if err := p.Merge(&p); !errors.Is(err, semaphore.ErrInvalid) {
		t.Fatalf("Merge with itself = %v", err)
	}
	other, _ := newLimiter(1).TryAcquirePermit(1)
	if err := p.Merge(&other); !errors.Is(err, semaphore.ErrInvalid) || other.N() != 1 {
		t.Fatalf("Merge across limiters = %v, left %d", err, other.N())
	}
	var empty semaphore.Permit
	if err := p.Merge(&empty); err != nil || p.N() != 7 {
		t.Fatalf("Merge of an empty permit = %v, holds %d", err, p.N())
	}
	if n := p.Forget(); n != 7 || p.Release() {
		t.Fatalf("Forget = %d", n)
	}
	wantFree(t, s, 3)         // the forgotten units never come back
	var into semaphore.Permit // the zero Permit takes on the limiter of what it is given
	r2, _ := s.TryAcquirePermit(2)
	if err := into.Merge(&r2); err != nil || into.N() != 2 || !into.Release() {
		t.Fatalf("Merge into the zero Permit = %v, holds %d", err, into.N())
	}
	wantFree(t, s, 3)
}

// TestAPermitThatCannotGoBackIsKept: a stray Release from elsewhere gives
// back the units a permit holds. The permit's own Release is then an
// over-release: it is refused, and the permit keeps its units.
func TestAPermitThatCannotGoBackIsKept(t *testing.T) {
	s := newLimiter(1)
	p, _ := s.TryAcquirePermit(1)
	testkit.MustNil(t, s.Release(1)) // the stray release
	if p.Release() || p.N() != 1 {
		t.Fatalf("Release with nothing held: the permit holds %d", p.N())
	}
	if !s.TryAcquire(1) {
		t.Fatal("TryAcquire(1) failed")
	}
	if !p.Release() {
		t.Fatal("Release once its units are held again = false")
	}
}

func TestAcquirePermitErrorsHoldNothing(t *testing.T) {
	s := newLimiter(1)
	if !s.TryAcquire(1) {
		t.Fatal("TryAcquire(1) failed")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if p, err := s.AcquirePermit(ctx, 1); p.N() != 0 || !errors.Is(err, context.Canceled) {
		t.Fatalf("AcquirePermit with a done ctx = %d units, %v", p.N(), err)
	}
	if p, ok := s.TryAcquirePermit(1); p.N() != 0 || ok {
		t.Fatal("TryAcquirePermit of nothing succeeded")
	}
	var zero semaphore.Permit
	if zero.Release() || zero.N() != 0 || zero.Forget() != 0 {
		t.Fatal("a zero Permit holds something")
	}
}

// wantFree fails t unless l has n units free.
func wantFree(t *testing.T, l *semaphore.Limiter, n int) {
	t.Helper()
	if got := l.Stats().Free; got != n {
		t.Fatalf("%d units free, want %d", got, n)
	}
}

// TestPermitMoveLeavesTheSourceEmpty: Move hands every unit to the permit
// it returns. The source then holds nothing, so its Release reports false
// and gives nothing back, and the moved permit gives the units back once.
func TestPermitMoveLeavesTheSourceEmpty(t *testing.T) {
	l := newLimiter(3)
	p, ok := l.TryAcquirePermit(2)
	if !ok {
		t.Fatal("TryAcquirePermit(2) on an idle limiter failed")
	}
	q := p.Move()
	if p.N() != 0 || q.N() != 2 {
		t.Fatalf("after Move: source %d units, moved %d; want 0, 2", p.N(), q.N())
	}
	if p.Release() {
		t.Fatal("Release of a moved-from permit = true")
	}
	if st := l.Stats(); st.InUse != 2 {
		t.Fatalf("after the source's Release: %v, want 2 units still held", st)
	}
	if !q.Release() || q.Release() {
		t.Fatal("the moved permit did not give its units back exactly once")
	}
	if st := l.Stats(); st.InUse != 0 {
		t.Fatalf("after the moved permit's Release: %v", st)
	}
	var zero semaphore.Permit
	if moved := zero.Move(); moved.N() != 0 || moved.Release() {
		t.Fatal("Move of the zero Permit holds units")
	}
}
