package semaphore

import "github.com/evsync/evsync/internal/evserr"

// invalid returns an error that says what was wrong with a call's
// arguments and matches ErrInvalid with errors.Is (evserr.Invalid).
func invalid(format string, args ...any) error { return evserr.Invalid("semaphore", format, args...) }

// The errors for bad arguments that need no figures. Each is built once,
// so that the calls that return them stay small enough to be inlined.
var (
	errDrainNilCtx = invalid("drain: nil context")
	errUpToNilCtx  = invalid("acquire up to: nil context")
	errGoNilCtx    = invalid("group: go: nil context")
	errGoNilFunc   = invalid("group: go: nil function")
)

// badRead explains the bare ErrInvalid of an acquire of n units (op): a
// nil ctx, or n above the limit. The count judged n against the limit of
// its time. If a raise came since, the message says so rather than show
// a limit that n fits.
func badRead(op string, nilCtx bool, n, limit uint64) error {
	switch {
	case nilCtx:
		return invalid("%s: nil context", op)
	case n > limit:
		return invalid("%s %d units exceeds the limit %d", op, n, limit)
	default:
		return invalid("%s %d units exceeded the limit, since raised to %d", op, n, limit)
	}
}

// badWrite explains the bare ErrInvalid of a release of n units (op): a
// nil ctx, or n above the limit plus the debt of a cut (see SetLimit).
func badWrite(op string, nilCtx bool, n, limit, debt uint64) error {
	switch {
	case nilCtx:
		return invalid("%s: nil context", op)
	case n > debt && n-debt > limit && debt != 0:
		return invalid("%s %d units exceeds the limit %d plus the debt %d", op, n, limit, debt)
	default:
		return badRead(op, false, n, limit)
	}
}

// badLimit explains the bare ErrInvalid of a SetLimit(limit).
func badLimit(limit uint64) error {
	switch {
	case limit == 0:
		return invalid("set limit 0: below 1")
	case limit > Max:
		return invalid("set limit %d: above Max", limit)
	default:
		return invalid("set limit %d: below a queued request", limit)
	}
}
