package evserr_test

import (
	"errors"
	"testing"

	"github.com/evsync/evsync/internal/evserr"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestErrorsAreDistinct(t *testing.T) {
	errs := []error{evserr.ErrWouldBlock, evserr.ErrInvalid, evserr.ErrClosed, evserr.ErrOverRelease, evserr.ErrExists, evserr.ErrNotFound}
	for i, a := range errs {
		for j, b := range errs {
			if errors.Is(a, b) != (i == j) {
				t.Fatalf("errors.Is(%v, %v) = %v", a, b, i != j)
			}
		}
	}
}

// TestInvalidSaysWhatAndMatches checks Invalid's message and that it
// matches ErrInvalid and no other error.
func TestInvalidSaysWhatAndMatches(t *testing.T) {
	err := evserr.Invalid("readyq", "wait: max %d is not above 0", -1)
	if want := "readyq: wait: max -1 is not above 0: evsync: invalid argument"; err.Error() != want {
		t.Fatalf("Invalid = %q, want %q", err, want)
	}
	if !errors.Is(err, evserr.ErrInvalid) || errors.Is(err, evserr.ErrClosed) {
		t.Fatalf("errors.Is(%v, ErrInvalid) = %v, want only ErrInvalid", err, errors.Is(err, evserr.ErrInvalid))
	}
}
