package coalesce_test

import (
	"context"
	"errors"
	"testing"

	"github.com/evsync/evsync/coalesce"
	"github.com/evsync/evsync/internal/testsupport/testkit"
)

// TestBadArgumentsSayWhatWasWrong: the one ErrInvalid of a Waker, Wait's
// for a nil context, says so and still matches ErrInvalid. It takes
// nothing: the pending wakeup stays for the next Wait.
func TestBadArgumentsSayWhatWasWrong(t *testing.T) {
	w := coalesce.New(0)
	defer w.Close()
	w.Wake()
	for _, c := range []struct {
		what string
		call func() (uint64, error)
		msg  string
	}{
		{"Wait(nil)", func() (uint64, error) { return w.Wait(nilCtx) }, "coalesce: wait: nil context"},
	} {
		n, err := c.call()
		if !errors.Is(err, coalesce.ErrInvalid) {
			t.Fatalf("%s = %v, want an error matching ErrInvalid", c.what, err)
		}
		if want := c.msg + ": evsync: invalid argument"; err.Error() != want || n != 0 {
			t.Fatalf("%s = %d, %q, want 0, %q", c.what, n, err, want)
		}
	}
	if n, err := w.Wait(context.Background()); n != 1 || err != nil {
		t.Fatalf("Wait after the bad calls = %d, %v, want the 1 event", n, err)
	}
}

// TestWaitThatSucceedsAllocatesNothing: Wait's error for a nil context is
// built once, not on the path of a Wait that succeeds. (AllocsPerRun's
// warm-up run makes C, the Waker's one allocation.)
func TestWaitThatSucceedsAllocatesNothing(t *testing.T) {
	ctx := context.Background()
	w := coalesce.New(0)
	defer w.Close()
	testkit.NoAllocs(t, "Wake and Wait", func() {
		w.Wake()
		_, _ = w.Wait(ctx)
	})
}
