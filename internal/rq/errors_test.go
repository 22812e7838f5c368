package rq_test

import (
	"errors"
	"testing"

	"github.com/evsync/evsync/internal/evserr"
	"github.com/evsync/evsync/internal/rq"
)

// TestErrs checks the messages of NewErrs and BadMax, and that they match
// ErrInvalid.
func TestErrs(t *testing.T) {
	e := rq.NewErrs("q")
	for err, want := range map[error]string{
		e.WaitNilCtx:        "q: wait: nil context: evsync: invalid argument",
		e.WaitAppendNilCtx:  "q: wait append: nil context: evsync: invalid argument",
		e.NextNilCtx:        "q: next: nil context: evsync: invalid argument",
		e.DrainNilCtx:       "q: drain: nil context: evsync: invalid argument",
		e.BadMax("next", 0): "q: next: max 0 is not above 0: evsync: invalid argument",
	} {
		if err.Error() != want || !errors.Is(err, evserr.ErrInvalid) {
			t.Errorf("error %q (matches ErrInvalid: %v), want %q matching it", err, errors.Is(err, evserr.ErrInvalid), want)
		}
	}
}
