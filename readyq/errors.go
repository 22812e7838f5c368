package readyq

import "github.com/evsync/evsync/internal/rq"

// errs are the errors for the bad arguments of the waiting calls
// (internal/rq/errors.go). They match ErrInvalid with errors.Is.
var errs = rq.NewErrs("readyq")
