package semaphore_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/semaphore"
)

// waitPanic calls g.Wait and returns what it panicked with, or fails t if
// it returned.
func waitPanic(t *testing.T, g *semaphore.Group) (p *semaphore.PanicError) {
	t.Helper()
	defer func() {
		v := recover()
		pe, ok := v.(*semaphore.PanicError)
		if !ok {
			t.Fatalf("Wait panicked with %#v, want a *semaphore.PanicError", v)
		}
		p = pe
	}()
	err := g.Wait()
	t.Fatalf("Wait returned %v, want a panic", err)
	return nil
}

// TestGroupGoNilReturnsErrInvalid: Go(ctx, nil) starts nothing, takes no
// unit and returns an error that names the nil function and matches
// ErrInvalid, whatever the context.
func TestGroupGoNilReturnsErrInvalid(t *testing.T) {
	g := newGroup(1)
	for _, ctx := range []context.Context{context.Background(), testkit.Cancelled(), noCtx} {
		err := g.Go(ctx, nil)
		testkit.ErrIs(t, "Go(ctx, nil)", err, semaphore.ErrInvalid)
		if !strings.Contains(err.Error(), "nil function") {
			t.Fatalf("Go(ctx, nil) = %q, want it to name the nil function", err)
		}
	}
	if st := g.Stats(); st.InUse != 0 {
		t.Fatalf("after Go(ctx, nil): %v, want no unit in use", st)
	}
	testkit.MustNil(t, g.Wait())
}

// TestGroupTryGoNilStartsNothing: TryGo(nil) returns false, starts
// nothing and takes no unit, so the group's only slot stays free.
func TestGroupTryGoNilStartsNothing(t *testing.T) {
	g := newGroup(1)
	if g.TryGo(nil) {
		t.Fatal("TryGo(nil) = true")
	}
	if st := g.Stats(); st.InUse != 0 {
		t.Fatalf("after TryGo(nil): %v, want no unit in use", st)
	}
	if !g.TryGo(func() error { return nil }) {
		t.Fatal("TryGo failed after TryGo(nil): its slot was taken")
	}
	testkit.MustNil(t, g.Wait())
}

// TestGroupPanicRepanicsInWait: a function's panic does not kill the
// process. Wait panics with a *PanicError that carries the value and the
// stack of the panicking function. The unit is back by then, the group's
// context is cancelled with the *PanicError as its cause, and every later
// Wait panics with the same value.
func TestGroupPanicRepanicsInWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g, ctx := withContext(context.Background(), 2)
		testkit.MustNil(t, g.Go(ctx, panicsWithBoom))
		p := waitPanic(t, g)
		if p.Value != "boom" {
			t.Fatalf("PanicError.Value = %#v, want \"boom\"", p.Value)
		}
		if !strings.Contains(string(p.Stack), "panicsWithBoom") {
			t.Fatalf("PanicError.Stack lacks the panicking function:\n%s", p.Stack)
		}
		if msg := p.Error(); !strings.Contains(msg, "boom") || !strings.Contains(msg, "panicsWithBoom") {
			t.Fatalf("PanicError.Error() = %q, want the value and the stack", msg)
		}
		if p.Unwrap() != nil {
			t.Fatalf("Unwrap of a string panic = %v, want nil", p.Unwrap())
		}
		if st := g.Stats(); st.InUse != 0 {
			t.Fatalf("after the panic: %v, want every unit back", st)
		}
		if cause := context.Cause(ctx); cause != p {
			t.Fatalf("context cause %v, want the *PanicError", cause)
		}
		if again := waitPanic(t, g); again != p {
			t.Fatalf("a second Wait panicked with %p, want the same %p", again, p)
		}
	})
}

// panicsWithBoom is a group function that panics, named so that the
// panic's stack can be checked.
func panicsWithBoom() error { panic("boom") }

// TestGroupPanicCancelsTheContextAndGivesItsUnitBack: at once, before
// Wait, a panic gives its unit back (a Go waiting for it starts) and ends
// the group's context (a Go waiting on it returns ctx.Err()).
func TestGroupPanicCancelsTheContextAndGivesItsUnitBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g, ctx := withContext(context.Background(), 1)
		fail := make(chan struct{})
		testkit.MustNil(t, g.Go(ctx, func() error { <-fail; panic("boom") }))
		var ran atomic.Int32
		onGroupCtx := testkit.Park(func() error { return g.Go(ctx, func() error { ran.Add(1); return nil }) })
		synctest.Wait()
		onOwnCtx := testkit.Park(func() error { return g.Go(context.Background(), func() error { ran.Add(10); return nil }) })
		testkit.Pending(t, onOwnCtx)
		close(fail)
		testkit.SameErr(t, "Go waiting on the group's context", <-onGroupCtx, context.Canceled)
		testkit.MustNil(t, <-onOwnCtx) // the unit came back: the next Go in line starts
		testkit.SameErr(t, "Go(group's ctx) after the panic", g.Go(ctx, func() error { ran.Add(100); return nil }), context.Canceled)
		synctest.Wait() // the function Go started has returned its unit
		if !g.TryGo(func() error { ran.Add(1000); return nil }) {
			t.Fatal("TryGo after a panic = false, want it to start the function")
		}
		waitPanic(t, g)
		if n := ran.Load(); n != 1010 {
			t.Fatalf("ran %d, want 1010: Go and TryGo with a live context only", n)
		}
		if st := g.Stats(); st.InUse != 0 {
			t.Fatalf("after Wait: %v", st)
		}
	})
}

// TestGroupKeepsTheFirstPanic: of several panics, Wait panics with the
// first. The later ones are recovered too, and dropped.
func TestGroupKeepsTheFirstPanic(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGroup(2)
		testkit.MustNil(t, g.Go(context.Background(), func() error { panic("first") }))
		synctest.Wait()
		testkit.MustNil(t, g.Go(context.Background(), func() error { panic("second") }))
		if p := waitPanic(t, g); p.Value != "first" {
			t.Fatalf("Wait panicked with %v, want the first panic", p.Value)
		}
	})
}

// TestGroupPanicWinsOverAnError: Wait panics even when a function returned
// an error before another panicked. The context's cause stays the error.
func TestGroupPanicWinsOverAnError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g, ctx := withContext(context.Background(), 2)
		boom := errors.New("boom")
		testkit.MustNil(t, g.Go(ctx, func() error { return boom }))
		synctest.Wait()
		testkit.MustNil(t, g.Go(context.Background(), func() error { panic("later") }))
		if p := waitPanic(t, g); p.Value != "later" {
			t.Fatalf("Wait panicked with %v, want the panic", p.Value)
		}
		if cause := context.Cause(ctx); cause != boom {
			t.Fatalf("context cause %v, want the first error", cause)
		}
	})
}

// names is empty, so the group function that indexes it panics.
var names []string

// TestGroupPanicErrorUnwrapsAnErrorValue: a panic with an error, the
// runtime's included, is reachable with errors.Is and errors.As.
func TestGroupPanicErrorUnwrapsAnErrorValue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGroup(1)
		sentinel := errors.New("sentinel")
		testkit.MustNil(t, g.Go(context.Background(), func() error { panic(sentinel) }))
		if p := waitPanic(t, g); !errors.Is(p, sentinel) {
			t.Fatalf("errors.Is(%v, sentinel) = false", p.Value)
		}
		g = newGroup(1)
		testkit.MustNil(t, g.Go(context.Background(), func() error {
			return errors.New(names[len(names)]) // a runtime panic: index out of range
		}))
		var re runtime.Error
		if p := waitPanic(t, g); !errors.As(p, &re) {
			t.Fatalf("errors.As(%v, runtime.Error) = false", p.Value)
		}
	})
}

// TestGroupPanicNilIsAPanic: panic(nil) is a panic, whose value is a
// *runtime.PanicNilError since Go 1.21.
func TestGroupPanicNilIsAPanic(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGroup(1)
		testkit.MustNil(t, g.Go(context.Background(), func() error { panic(nil) }))
		var pn *runtime.PanicNilError
		if p := waitPanic(t, g); !errors.As(p, &pn) {
			t.Fatalf("panic(nil) reached Wait as %#v, want a *runtime.PanicNilError", p.Value)
		}
	})
}

// TestGroupGoexitIsNeitherErrorNorPanic: a function that calls
// runtime.Goexit gives its unit back and counts as neither an error nor a
// panic, as in errgroup: Wait returns nil and the context stays live
// until then.
func TestGroupGoexitIsNeitherErrorNorPanic(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g, ctx := withContext(context.Background(), 1)
		testkit.MustNil(t, g.Go(ctx, func() error { runtime.Goexit(); return nil }))
		synctest.Wait()
		if st := g.Stats(); st.InUse != 0 {
			t.Fatalf("after Goexit: %v, want its unit back", st)
		}
		testkit.MustNil(t, ctx.Err())
		testkit.MustNil(t, g.Wait())
	})
}
