package rq

import (
	"context"

	"github.com/evsync/evsync/internal/evserr"
)

// Errs are the errors for the bad arguments of a queue's waiting calls
// (Wait, WaitAppend, Next, Drain), which readyq and workqueue share. Each
// message starts with the package's name. The nil-context errors are
// built once, by NewErrs, so that returning one allocates nothing and
// adds no call to the caller.
type Errs struct {
	pkg string

	WaitNilCtx, WaitAppendNilCtx, NextNilCtx, DrainNilCtx error
}

// NewErrs returns the errors of the package named pkg.
func NewErrs(pkg string) Errs {
	return Errs{
		pkg:              pkg,
		WaitNilCtx:       evserr.Invalid(pkg, "wait: nil context"),
		WaitAppendNilCtx: evserr.Invalid(pkg, "wait append: nil context"),
		NextNilCtx:       evserr.Invalid(pkg, "next: nil context"),
		DrainNilCtx:      evserr.Invalid(pkg, "drain: nil context"),
	}
}

// BadMax explains the ErrInvalid of a max ≤ 0 given to the call op. It
// is never inlined, so that its formatting stays out of the calls that
// check max: they pay one test and keep their size.
//
//go:noinline
func (e *Errs) BadMax(op string, max int) error {
	return evserr.Invalid(e.pkg, "%s: max %d is not above 0", op, max)
}

// Check returns the error of the waiting call op for its arguments, or
// nil if they are good. It is nilCtx (one of e's) for a nil ctx, and
// BadMax's error for a max ≤ 0. It is small enough to inline, so the
// calls that use it keep their size.
func (e *Errs) Check(ctx context.Context, max int, nilCtx error, op string) error {
	if ctx == nil {
		return nilCtx
	}
	if max <= 0 {
		return e.BadMax(op, max)
	}
	return nil
}

// Handed is Wait's return: items, or nil if it holds none, and err.
// Wait returns nil, never an empty slice, when it hands out nothing.
func Handed[T any](items []T, err error) ([]T, error) {
	if len(items) == 0 {
		return nil, err
	}
	return items, err
}
