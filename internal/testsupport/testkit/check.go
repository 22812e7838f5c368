package testkit

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// A Fataler is the part of *testing.T and *rapid.T that the checks use, so
// that each serves both plain tests and rapid properties.
type Fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

// MustNil fails t with err unless err is nil.
func MustNil(t Fataler, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%v", err)
	}
}

// SameErr fails t unless got is want or matches it with errors.Is. The
// evsync errors are shared sentinel values, but one for a bad argument
// wraps ErrInvalid in a message that says what was wrong, and a model
// returns the bare value.
func SameErr(t Fataler, what string, got, want error) {
	if got != want && !errors.Is(got, want) {
		t.Helper() // only on failure: Helper is costly, and this runs at every step
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
}

// WantPanic calls f and fails t unless f panics with a string that starts
// with prefix, such as "semaphore: ".
func WantPanic(t Fataler, prefix string, f func()) {
	t.Helper()
	defer func() {
		r := recover()
		if s, _ := r.(string); !strings.HasPrefix(s, prefix) {
			t.Fatalf("panic value %#v, want a %q message", r, prefix+"...")
		}
	}()
	f()
}

// ErrIs fails t unless errors.Is(got, want); what names the call.
func ErrIs(t Fataler, what string, got, want error) {
	t.Helper()
	if !errors.Is(got, want) {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
}

// WantCount fails t unless c's Count is want.
func WantCount(t Fataler, c interface{ Count() uint64 }, want uint64) {
	t.Helper()
	if got := c.Count(); got != want {
		t.Fatalf("Count() = %d, want %d", got, want)
	}
}

// WantString fails t unless c's String is want.
func WantString(t Fataler, c fmt.Stringer, want string) {
	t.Helper()
	if got := c.String(); got != want {
		t.Fatalf("String() = %q, want %q", got, want)
	}
}

// NoAllocs fails t unless f allocates nothing, on average over 1000 runs
// (testing.AllocsPerRun); what names f's calls.
func NoAllocs(t Fataler, what string, f func()) {
	t.Helper()
	if allocs := testing.AllocsPerRun(1000, f); allocs != 0 {
		t.Fatalf("%v allocations per %s, want 0", allocs, what)
	}
}
