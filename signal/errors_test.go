package signal_test

import (
	"context"
	"errors"
	"testing"

	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/signal"
)

// TestSignalBadArgumentsSayWhatWasWrong: every ErrInvalid of a Signal says
// what was wrong, and still matches ErrInvalid.
func TestSignalBadArgumentsSayWhatWasWrong(t *testing.T) {
	var nilCtx context.Context
	s := signal.New(0)
	_, waitErr := s.Wait(nilCtx)
	for _, c := range []struct {
		what string
		err  error
		msg  string
	}{
		{"Add(1<<64-1)", s.Add(1<<64 - 1), "signal: add 18446744073709551615: above Max 18446744073709551614"},
		{"AddWait(ctx, 1<<64-1)", s.AddWait(context.Background(), 1<<64-1), "signal: add and wait 18446744073709551615: above Max 18446744073709551614"},
		{"AddWait(done ctx, 1<<64-1)", s.AddWait(testkit.Cancelled(), 1<<64-1), "signal: add and wait 18446744073709551615: above Max 18446744073709551614"},
		{"AddWait(nil, 1)", s.AddWait(nilCtx, 1), "signal: add and wait: nil context"},
		{"Wait(nil)", waitErr, "signal: wait: nil context"},
	} {
		if !errors.Is(c.err, signal.ErrInvalid) {
			t.Fatalf("%s = %v, want an error matching ErrInvalid", c.what, c.err)
		}
		if got, want := c.err.Error(), c.msg+": evsync: invalid argument"; got != want {
			t.Fatalf("%s = %q, want %q", c.what, got, want)
		}
	}
}

// TestSignalSuccessPathsAllocateNothing: the messages of bad arguments
// are built once, so the calls that succeed allocate nothing.
func TestSignalSuccessPathsAllocateNothing(t *testing.T) {
	ctx := context.Background()
	s := signal.New(0)
	testkit.NoAllocs(t, "AddWait and Wait", func() {
		_ = s.AddWait(ctx, 2)
		_, _ = s.Wait(ctx)
	})
}
