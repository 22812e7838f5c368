package semaphore_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/semaphore"
)

// wantInvalid fails t unless err matches ErrInvalid and reads msg.
func wantInvalid(t *testing.T, what string, err error, msg string) {
	t.Helper()
	if !errors.Is(err, semaphore.ErrInvalid) {
		t.Fatalf("%s = %v, want an error matching ErrInvalid", what, err)
	}
	if got := err.Error(); got != msg {
		t.Fatalf("%s = %q, want %q", what, got, msg)
	}
}

// TestLimiterAcquireAboveTheLimitSaysWhatWasWrong: the error names the
// request and the limit, and still matches ErrInvalid.
func TestLimiterAcquireAboveTheLimitSaysWhatWasWrong(t *testing.T) {
	l := newLimiter(4)
	wantInvalid(t, "Acquire(ctx, 5)", l.Acquire(context.Background(), 5),
		"semaphore: acquire 5 units exceeds the limit 4: evsync: invalid argument")
}

// TestLimiterBadArgumentsSayWhatWasWrong: every ErrInvalid of a Limiter,
// its permits and its Group says what was wrong.
func TestLimiterBadArgumentsSayWhatWasWrong(t *testing.T) {
	ctx := context.Background()
	l := newLimiter(4)
	_, resErr := l.Reserve(-1)
	_, resBig := l.Reserve(5)
	_, permErr := l.AcquirePermit(ctx, 5)
	p, ok := l.TryAcquirePermit(2)
	if !ok {
		t.Fatal("TryAcquirePermit(2) on an idle limiter failed")
	}
	defer p.Release()
	_, splitErr := p.Split(3)
	_, splitZero := p.Split(0)
	other := newLimiter(4)
	q, _ := other.TryAcquirePermit(1)
	defer q.Release()
	g := newGroup(2)
	_, upToNeg := l.AcquireUpTo(ctx, -1)
	_, upToNegNil := l.AcquireUpTo(noCtx, -1)
	_, upToNil := l.AcquireUpTo(noCtx, 2)
	_, permUpTo := l.AcquirePermitUpTo(testkit.Cancelled(), -3) // a bad argument wins over a done context
	for _, c := range []struct {
		what string
		err  error
		msg  string
	}{
		{"Acquire(ctx, 5)", l.Acquire(ctx, 5), "semaphore: acquire 5 units exceeds the limit 4"},
		{"Acquire(done ctx, 5)", l.Acquire(testkit.Cancelled(), 5), "semaphore: acquire 5 units exceeds the limit 4"},
		{"Acquire(nil, 1)", l.Acquire(noCtx, 1), "semaphore: acquire: nil context"},
		{"Acquire(nil, 0)", l.Acquire(noCtx, 0), "semaphore: acquire: nil context"},
		{"Acquire(ctx, -1)", l.Acquire(ctx, -1), "semaphore: acquire -1 units: a negative count"},
		{"AcquirePermit(ctx, 5)", permErr, "semaphore: acquire 5 units exceeds the limit 4"},
		{"AcquireUpTo(ctx, -1)", upToNeg, "semaphore: acquire up to -1 units: a negative count"},
		{"AcquireUpTo(nil, -1)", upToNegNil, "semaphore: acquire up to -1 units: a negative count"},
		{"AcquireUpTo(nil, 2)", upToNil, "semaphore: acquire up to: nil context"},
		{"AcquirePermitUpTo(done ctx, -3)", permUpTo, "semaphore: acquire up to -3 units: a negative count"},
		{"Reserve(-1)", resErr, "semaphore: reserve -1 units: a negative count"},
		{"Reserve(5)", resBig, "semaphore: reserve 5 units exceeds the limit 4"},
		{"Release(-1)", l.Release(-1), "semaphore: release -1 units: a negative count"},
		{"SetLimit(0)", l.SetLimit(0), "semaphore: set limit 0: below 1"},
		{"Drain(nil)", l.Drain(noCtx), "semaphore: drain: nil context"},
		{"Split(3) of 2", splitErr, "semaphore: split 3 units from a permit of 2"},
		{"Split(0)", splitZero, "semaphore: split 0 units from a permit of 2"},
		{"Merge(itself)", p.Merge(&p), "semaphore: merge a permit into itself"},
		{"Merge(another limiter's)", p.Merge(&q), "semaphore: merge a permit of another limiter"},
		{"Group.Go(nil ctx)", g.Go(noCtx, func() error { return nil }), "semaphore: group: go: nil context"},
		{"Group.Go(ctx, nil)", g.Go(ctx, nil), "semaphore: group: go: nil function"},
		{"Group.SetLimit(0)", g.SetLimit(0), "semaphore: set limit 0: below 1"},
	} {
		wantInvalid(t, c.what, c.err, c.msg+": evsync: invalid argument")
	}
}

// TestLimiterSetLimitBelowAQueuedRequestSaysSo: a cut below a waiting
// Acquire is refused with an error that says why.
func TestLimiterSetLimitBelowAQueuedRequestSaysSo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newLimiter(4)
		ctx := context.Background()
		testkit.MustNil(t, l.Acquire(ctx, 4))
		waiting := testkit.Park(func() error { return l.Acquire(ctx, 3) })
		synctest.Wait()
		wantInvalid(t, "SetLimit(2)", l.SetLimit(2),
			"semaphore: set limit 2: below a queued request: evsync: invalid argument")
		testkit.MustNil(t, l.Release(4))
		testkit.MustNil(t, <-waiting)
		testkit.MustNil(t, l.Release(3))
	})
}

// TestSemaphoreBadArgumentsSayWhatWasWrong: every ErrInvalid of a
// Semaphore says what was wrong, the debt of a cut included.
func TestSemaphoreBadArgumentsSayWhatWasWrong(t *testing.T) {
	ctx := context.Background()
	s := newSemaphore(4, semaphore.WithLimit(4))
	_, resErr := s.Reserve(5)
	_, upToErr := s.AcquireUpTo(noCtx, 2)
	for _, c := range []struct {
		what string
		err  error
		msg  string
	}{
		{"Acquire(ctx, 5)", s.Acquire(ctx, 5), "semaphore: acquire 5 units exceeds the limit 4"},
		{"Acquire(nil, 1)", s.Acquire(noCtx, 1), "semaphore: acquire: nil context"},
		{"AcquireUpTo(nil, 2)", upToErr, "semaphore: acquire up to: nil context"},
		{"Reserve(5)", resErr, "semaphore: reserve 5 units exceeds the limit 4"},
		{"Release(5)", s.Release(5), "semaphore: release 5 units exceeds the limit 4"},
		{"ReleaseWait(ctx, 5)", s.ReleaseWait(ctx, 5), "semaphore: release and wait 5 units exceeds the limit 4"},
		{"ReleaseWait(nil, 1)", s.ReleaseWait(noCtx, 1), "semaphore: release and wait: nil context"},
		{"SetLimit(0)", s.SetLimit(0), "semaphore: set limit 0: below 1"},
		{"SetLimit(Max+1)", s.SetLimit(semaphore.Max + 1), "semaphore: set limit 18446744073709551615: above Max"},
		{"Drain(nil)", s.Drain(noCtx), "semaphore: drain: nil context"},
	} {
		wantInvalid(t, c.what, c.err, c.msg+": evsync: invalid argument")
	}
	// A cut to 1 with 3 units held: 1 free unit goes, and the holders owe 2.
	testkit.MustNil(t, s.Acquire(ctx, 3))
	testkit.MustNil(t, s.SetLimit(1))
	if st := s.Stats(); st.Debt != 2 {
		t.Fatalf("after the cut: %v, want a debt of 2", st)
	}
	wantInvalid(t, "Release(4) in debt", s.Release(4),
		"semaphore: release 4 units exceeds the limit 1 plus the debt 2: evsync: invalid argument")
	testkit.MustNil(t, s.Release(3))
}

// TestSuccessPathsAllocateNothing: the messages of bad arguments are built
// on error paths only. The calls that succeed allocate nothing.
func TestSuccessPathsAllocateNothing(t *testing.T) {
	ctx := context.Background()
	l := newLimiter(4)
	testkit.NoAllocs(t, "Limiter Acquire, SetLimit, Drain and Release", func() {
		_ = l.Acquire(ctx, 2)
		_ = l.SetLimit(4)
		_ = l.Release(2)
		_ = l.Drain(ctx)
	})
	testkit.NoAllocs(t, "Limiter AcquireUpTo, TryAcquireUpTo and their permits", func() {
		n, _ := l.AcquireUpTo(ctx, 3)
		if m := l.TryAcquireUpTo(9); n+m != 4 || l.Release(n+m) != nil {
			panic("the up-to calls did not take the 4 free units")
		}
		p, _ := l.AcquirePermitUpTo(ctx, 2)
		q := l.TryAcquirePermitUpTo(9)
		q.Release()
		p.Release()
	})
	testkit.NoAllocs(t, "AcquirePermit, Move, Split, Merge and Release", func() {
		p, _ := l.AcquirePermit(ctx, 2)
		q := p.Move()
		r, _ := q.Split(1)
		_ = q.Merge(&r)
		q.Release()
	})
	s := newSemaphore(2, semaphore.WithLimit(4))
	testkit.NoAllocs(t, "Semaphore Acquire, AcquireUpTo, ReleaseWait, SetLimit and Drain", func() {
		_ = s.Acquire(ctx, 1)
		n, _ := s.AcquireUpTo(ctx, 1)
		_ = s.ReleaseWait(ctx, 1+n)
		_ = s.SetLimit(4)
		_ = s.Release(2)
		_ = s.Drain(ctx)
		_ = s.Acquire(ctx, 2)
	})
}
