package semaphore

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// A Group runs goroutines, at most its limit of them at a time, and waits
// for them. It is errgroup's Group with a limit that may change while
// they run. Lower the limit, and no goroutine starts until fewer than the
// new limit run. Raise it, and waiting Go calls start at once, in the
// order they came. With WithEventualFairness, a Go call may start ahead of
// waiting ones while the oldest has waited at most the bound.
//
// Create a Group with NewGroup or WithContext. The zero value is not
// usable. A Group must not be copied after first use.
//
// A Go call synchronizes before its function runs. The end of every
// function, and the release of its slot, synchronize before Wait returns.
// So when Wait returns, every slot is free again.
//
// A *Group is a source of package poll's sets, as its limiter is:
//   - In while slots are free, so a TryGo would start its function then,
//     unless a Go call waits ahead of it. The end of a function wakes
//     it.
//   - Out while functions run. A start wakes it.
//   - Never Hup, since a Group has no Close.
//
// # Panics
//
// A panic in a function does not kill the process. Here a Group differs
// from errgroup. There such a panic ends the program, because no other
// goroutine can recover it. A Group's goroutine recovers it instead:
//   - The function's slot is given back, as on a return.
//   - WithContext's context is cancelled, with a *PanicError as its cause.
//   - Wait, once every function has ended, panics with that *PanicError.
//     It carries the value and the stack of the panicking goroutine.
//
// So the panic reaches the goroutine that waits for the work. There a
// recover can handle it, or the crash report shows where it came from.
// Users of errgroup asked for this (golang/go#53757). errgroup shipped it
// once, then reverted it. sourcegraph/conc and alitto/pond v2 do it.
//
// Only the first panic is kept. Later ones are recovered and dropped. A
// panic wins over an error: Wait panics even if a function returned an
// error first. Every later Wait panics again with the same value. If
// nobody calls Wait, the panic is lost, as an error would be.
//
// After a panic, Go and TryGo go on as after an error. They still start
// functions. But a Go waiting on the group's context, or called with it,
// returns ctx.Err() and starts nothing, since that context is cancelled.
//
// A function that calls runtime.Goexit ends without a result. Its slot is
// given back, and it counts as neither an error nor a panic, as in
// errgroup. A panic(nil) is a panic: since Go 1.21 its value is a
// *runtime.PanicNilError.
type Group struct {
	l        *Limiter // one unit per running goroutine
	wg       sync.WaitGroup
	cancel   context.CancelCauseFunc // WithContext's, nil for NewGroup
	once     sync.Once
	err      error                      // the first error a function returned, written once
	panicked atomic.Pointer[PanicError] // the first panic recovered, or nil
}

// A PanicError is the value a Group's Wait panics with after a function
// of the group panicked. It is also the cause of WithContext's context
// then (see Group).
type PanicError struct {
	// Value is the value the function panicked with.
	Value any
	// Stack is the stack of the goroutine that panicked, taken when the
	// group recovered the panic, as debug.Stack formats it.
	Stack []byte
}

// Error returns the panic's value and the stack where it happened. A
// crash report of Wait's panic shows both.
func (p *PanicError) Error() string {
	return fmt.Sprintf("semaphore: a group's function panicked: %v\n\n%s", p.Value, p.Stack)
}

// Unwrap returns the panic's value if it is an error, such as a
// runtime.Error, and nil otherwise. So errors.Is and errors.As see it.
func (p *PanicError) Unwrap() error {
	err, _ := p.Value.(error)
	return err
}

// NewGroup returns a group that runs at most limit goroutines at a time.
// It panics if limit is below 1, or if given WithLimit. Its options are
// the limiter's: WithEventualFairness and WithClock.
func NewGroup(limit int, opts ...Option) *Group { return &Group{l: NewLimiter(limit, opts...)} }

// WithContext returns a group of the given limit and a context derived
// from ctx. The context is cancelled when a function first returns an
// error or panics, with that error or a *PanicError as its cause. It is
// cancelled when Wait returns too. It takes NewGroup's options.
func WithContext(ctx context.Context, limit int, opts ...Option) (*Group, context.Context) {
	ctx, cancel := context.WithCancelCause(ctx)
	return &Group{l: NewLimiter(limit, opts...), cancel: cancel}, ctx
}

// Go waits until fewer goroutines than the limit run, then calls fn in a
// new goroutine. Callers that wait are served in the order they came. It
// returns nil once fn is started. Otherwise it does not call fn, and it
// returns:
//   - an error matching ErrInvalid at once for a nil fn or a nil ctx
//   - ctx.Err() at once if ctx is already done, or when ctx ends first
//
// The first error fn returns is what Wait returns. If fn panics, Wait
// panics (see Group).
func (g *Group) Go(ctx context.Context, fn func() error) error {
	switch {
	case fn == nil:
		return errGoNilFunc
	case ctx == nil:
		return errGoNilCtx
	}
	if err := g.l.Acquire(ctx, 1); err != nil {
		return err
	}
	g.start(fn)
	return nil
}

// TryGo calls fn in a new goroutine if fewer goroutines than the limit run
// and nobody waits in Go, and reports whether it did. For a nil fn it
// starts nothing and returns false, as errgroup's TryGo returns false for
// what it cannot start. Go(ctx, nil) reports the nil function by name.
func (g *Group) TryGo(fn func() error) bool {
	if fn == nil || !g.l.TryAcquire(1) {
		return false
	}
	g.start(fn)
	return true
}

// start runs fn in a goroutine that holds one unit of the limiter.
func (g *Group) start(fn func() error) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done() // last: Wait returns only once the unit is back
		defer g.release() // the unit Go took, so never an over-release
		g.run(fn)
	}()
}

// release gives back the unit of a function that ended.
func (g *Group) release() {
	groupHook() // the window between the function's end and the release
	g.l.Release(1)
}

// run calls fn and keeps its error, or recovers its panic.
func (g *Group) run(fn func() error) {
	returned := false
	defer func() {
		if returned {
			return
		}
		v := recover()
		if v == nil {
			return // runtime.Goexit: panic(nil) has a value since Go 1.21
		}
		p := &PanicError{Value: v, Stack: debug.Stack()}
		if g.panicked.CompareAndSwap(nil, p) && g.cancel != nil {
			g.cancel(p)
		}
	}()
	err := fn()
	returned = true
	if err != nil {
		g.once.Do(func() {
			g.err = err
			if g.cancel != nil {
				g.cancel(err)
			}
		})
	}
}

// SetLimit changes how many goroutines may run at once, while they run.
// A cut stops no goroutine. New ones wait until fewer than the new limit
// run. It returns an error matching ErrInvalid, changing nothing, for a
// limit below 1.
func (g *Group) SetLimit(limit int) error { return g.l.SetLimit(limit) }

// Wait waits until every function started by Go and TryGo has returned
// and given its slot back. Then it returns the first error one of them
// returned, or nil if none. With WithContext, it cancels the group's
// context. As errgroup's does, a Group keeps its first error for good.
// Start a new round with a new Group.
//
// If a function panicked, Wait panics with a *PanicError instead, every
// time it is called (see Group).
func (g *Group) Wait() error {
	g.wg.Wait()
	if g.cancel != nil {
		g.cancel(g.err)
	}
	if p := g.panicked.Load(); p != nil {
		panic(p)
	}
	return g.err
}

// Stats returns a snapshot of the group's limiter: Limit, the goroutines
// running (InUse) and the Go calls waiting (Waiting).
func (g *Group) Stats() LimiterStats { return g.l.Stats() }
