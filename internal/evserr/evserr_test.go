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
