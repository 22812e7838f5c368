package semaphore

import (
	"context"
	"sync"
)

// A Group runs goroutines, at most its limit of them at a time, and waits
// for them. It is errgroup's Group with a limit that may change while
// they run. Lower the limit, and no goroutine starts until fewer than the
// new limit run. Raise it, and waiting Go calls start at once, in the
// order they came.
//
// Create a Group with NewGroup or WithContext. The zero value is not
// usable. A Group must not be copied after first use.
//
// A Go call synchronizes before its function runs. The end of every
// function synchronizes before Wait returns.
type Group struct {
	l      *Limiter // one unit per running goroutine
	wg     sync.WaitGroup
	cancel context.CancelCauseFunc // WithContext's, nil for NewGroup
	once   sync.Once
	err    error // the first error a function returned, written once
}

// NewGroup returns a group that runs at most limit goroutines at a time.
// It panics if limit is below 1.
func NewGroup(limit int) *Group { return &Group{l: NewLimiter(limit)} }

// WithContext returns a group of the given limit and a context derived
// from ctx. The context is cancelled, with the error as its cause, when a
// function first returns an error, or when Wait returns.
func WithContext(ctx context.Context, limit int) (*Group, context.Context) {
	ctx, cancel := context.WithCancelCause(ctx)
	return &Group{l: NewLimiter(limit), cancel: cancel}, ctx
}

// Go waits until fewer goroutines than the limit run, then calls fn in a
// new goroutine. Callers that wait are served in the order they came. It
// returns nil once fn is started. Otherwise it does not call fn, and it
// returns:
//   - ctx.Err() at once if ctx is already done, or when ctx ends first
//   - ErrInvalid for a nil ctx
//
// The first error fn returns is what Wait returns.
func (g *Group) Go(ctx context.Context, fn func() error) error {
	if err := g.l.Acquire(ctx, 1); err != nil {
		return err
	}
	g.start(fn)
	return nil
}

// TryGo calls fn in a new goroutine if fewer goroutines than the limit run
// and nobody waits in Go, and reports whether it did.
func (g *Group) TryGo(fn func() error) bool {
	if !g.l.TryAcquire(1) {
		return false
	}
	g.start(fn)
	return true
}

// start runs fn in a goroutine that holds one unit of the limiter.
func (g *Group) start(fn func() error) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		defer g.l.Release(1) // the unit Go took, so never an over-release
		if err := fn(); err != nil {
			g.once.Do(func() {
				g.err = err
				if g.cancel != nil {
					g.cancel(err)
				}
			})
		}
	}()
}

// SetLimit changes how many goroutines may run at once, while they run.
// A cut stops no goroutine. New ones wait until fewer than the new limit
// run. It returns ErrInvalid, changing nothing, for a limit below 1.
func (g *Group) SetLimit(limit int) error { return g.l.SetLimit(limit) }

// Wait waits until every function started by Go and TryGo has returned.
// Then it returns the first error one of them returned, or nil if none.
// With WithContext, it cancels the group's context. As errgroup's does, a
// Group keeps its first error for good. Start a new round with a new
// Group.
func (g *Group) Wait() error {
	g.wg.Wait()
	if g.cancel != nil {
		g.cancel(g.err)
	}
	return g.err
}

// Stats returns a snapshot of the group's limiter: Limit, the goroutines
// running (InUse) and the Go calls waiting (Waiting).
func (g *Group) Stats() LimiterStats { return g.l.Stats() }
