package workqueue

import (
	"github.com/evsync/evsync/internal/evserr"
	"github.com/evsync/evsync/internal/rq"
)

// invalid returns an error that says what was wrong with a call's
// arguments and matches ErrInvalid with errors.Is (evserr.Invalid).
func invalid(format string, args ...any) error {
	return evserr.Invalid("workqueue", format, args...)
}

// errs are the errors for the bad arguments of the waiting calls, as
// readyq's (internal/rq/errors.go).
var errs = rq.NewErrs("workqueue")
