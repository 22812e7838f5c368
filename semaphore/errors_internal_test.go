package semaphore

import (
	"errors"
	"testing"
)

// TestBadReadAfterARaiseSaysTheLimitRose: an acquire refused for a limit
// that a SetLimit raised before the message was made does not show the
// new limit as if n were above it.
func TestBadReadAfterARaiseSaysTheLimitRose(t *testing.T) {
	err := badRead("acquire", false, 5, 8)
	const want = "semaphore: acquire 5 units exceeded the limit, since raised to 8: evsync: invalid argument"
	if !errors.Is(err, ErrInvalid) || err.Error() != want {
		t.Fatalf("badRead = %q, want %q", err, want)
	}
	err = badWrite("release", false, 5, 8, 0)
	if !errors.Is(err, ErrInvalid) || err.Error() != "semaphore: release 5 units exceeded the limit, since raised to 8: evsync: invalid argument" {
		t.Fatalf("badWrite = %q", err)
	}
}
