package semaphore_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/semaphore"
)

// A jobs is a set of group functions that run until released, counting
// how many run at once.
type jobs struct {
	running, peak, started atomic.Int32
	release                chan struct{}
}

func newJobs() *jobs { return &jobs{release: make(chan struct{})} }

// fn is a function that runs until j.release is closed.
func (j *jobs) fn() error {
	n := j.running.Add(1)
	j.started.Add(1)
	defer j.running.Add(-1)
	for p := j.peak.Load(); n > p && !j.peak.CompareAndSwap(p, n); p = j.peak.Load() {
	}
	<-j.release
	return nil
}

// TestGroupRunsAtMostLimitAtOnce: Go waits for a free slot, so no more
// functions run than the limit, and callers start in the order they came.
func TestGroupRunsAtMostLimitAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGroup(3)
		j := newJobs()
		ctx := context.Background()
		for range 3 {
			testkit.MustNil(t, g.Go(ctx, j.fn))
		}
		fourth := testkit.Park(func() error { return g.Go(ctx, j.fn) })
		synctest.Wait()
		if n := j.running.Load(); n != 3 {
			t.Fatalf("%d running, want 3", n)
		}
		testkit.Pending(t, fourth)
		if g.TryGo(j.fn) {
			t.Fatal("TryGo started a function beyond the limit")
		}
		close(j.release)
		testkit.MustNil(t, <-fourth)
		testkit.MustNil(t, g.Wait())
		if p, s := j.peak.Load(), j.started.Load(); p != 3 || s != 4 {
			t.Fatalf("peak %d, started %d; want 3, 4", p, s)
		}
	})
}

// TestGroupSetLimitWhileRunning: a raise starts waiting Go calls at once;
// a cut stops nothing that runs, and no function starts until fewer than
// the new limit run.
func TestGroupSetLimitWhileRunning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGroup(2)
		ctx := context.Background()
		first, second := newJobs(), newJobs()
		testkit.MustNil(t, g.Go(ctx, first.fn))
		testkit.MustNil(t, g.Go(ctx, first.fn))
		third := testkit.Park(func() error { return g.Go(ctx, second.fn) })
		testkit.Pending(t, third)
		testkit.MustNil(t, g.SetLimit(3)) // a raise: the third starts
		testkit.MustNil(t, <-third)
		synctest.Wait()
		if n := first.running.Load() + second.running.Load(); n != 3 {
			t.Fatalf("%d running after the raise, want 3", n)
		}
		testkit.MustNil(t, g.SetLimit(1)) // a cut below the three running
		if st := g.Stats(); st.Limit != 1 || st.InUse != 3 {
			t.Fatalf("after the cut: %v", st)
		}
		fourth := testkit.Park(func() error { return g.Go(ctx, second.fn) })
		close(first.release) // two finish: one still runs, the limit is 1
		synctest.Wait()
		testkit.Pending(t, fourth)
		close(second.release) // the last one finishes: the fourth starts
		testkit.MustNil(t, <-fourth)
		testkit.MustNil(t, g.Wait())
		testkit.SameErr(t, "SetLimit(0)", g.SetLimit(0), semaphore.ErrInvalid)
	})
}

// TestGroupWaitReturnsTheFirstError: Wait returns once every function has
// returned, with the first error.
func TestGroupWaitReturnsTheFirstError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGroup(4)
		errFirst, errSecond := errors.New("first"), errors.New("second")
		second := make(chan struct{})
		testkit.MustNil(t, g.Go(context.Background(), func() error { return errFirst }))
		synctest.Wait()
		testkit.MustNil(t, g.Go(context.Background(), func() error { <-second; return errSecond }))
		done := testkit.Park(func() error { return g.Wait() })
		testkit.Pending(t, done)
		close(second)
		testkit.SameErr(t, "Wait", <-done, errFirst)
		testkit.SameErr(t, "Wait again", g.Wait(), errFirst)
	})
}

// TestGroupWithContextCancelsOnTheFirstError: the group's context ends,
// with the error as its cause, when a function first fails, and a Go
// waiting on that context gives up without running its function.
func TestGroupWithContextCancelsOnTheFirstError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g, ctx := withContext(context.Background(), 1)
		boom := errors.New("boom")
		fail := make(chan struct{})
		testkit.MustNil(t, g.Go(ctx, func() error { <-fail; return boom }))
		var ran atomic.Bool
		waiting := testkit.Park(func() error { return g.Go(ctx, func() error { ran.Store(true); return nil }) })
		close(fail)
		testkit.SameErr(t, "Go waiting on the group's context", <-waiting, context.Canceled)
		testkit.SameErr(t, "Wait", g.Wait(), boom)
		if cause := context.Cause(ctx); cause != boom {
			t.Fatalf("context cause %v, want %v", cause, boom)
		}
		if ran.Load() {
			t.Fatal("a function ran after its Go returned an error")
		}
	})
}

// TestGroupWithContextEndsAtWait: without an error, Wait still ends the
// group's context, as errgroup's does.
func TestGroupWithContextEndsAtWait(t *testing.T) {
	g, ctx := withContext(context.Background(), 2)
	testkit.MustNil(t, g.Go(context.Background(), func() error { return nil }))
	testkit.MustNil(t, g.Wait())
	testkit.SameErr(t, "the group's context after Wait", ctx.Err(), context.Canceled)
}

// TestGroupGoWithADoneContextRunsNothing: rule 1 of the contract, for Go.
func TestGroupGoWithADoneContextRunsNothing(t *testing.T) {
	g := newGroup(2)
	var ran atomic.Bool
	testkit.SameErr(t, "Go(done)", g.Go(testkit.Cancelled(), func() error { ran.Store(true); return nil }), context.Canceled)
	testkit.SameErr(t, "Go(nil ctx)", g.Go(noCtx, func() error { ran.Store(true); return nil }), semaphore.ErrInvalid)
	testkit.MustNil(t, g.Wait())
	if ran.Load() {
		t.Fatal("Go ran a function although it returned an error")
	}
	testkit.WantPanic(t, "semaphore: limit below 1", func() { newGroup(0) })
}

// TestGroupIsReusableAfterWait: Wait leaves every slot free.
func TestGroupIsReusableAfterWait(t *testing.T) {
	g := newGroup(1)
	var n atomic.Int32
	for range 3 {
		if !g.TryGo(func() error { n.Add(1); return nil }) {
			t.Fatal("TryGo failed on an idle group")
		}
		testkit.MustNil(t, g.Wait())
	}
	if n.Load() != 3 || g.Stats().InUse != 0 {
		t.Fatalf("ran %d, %v", n.Load(), g.Stats())
	}
}
