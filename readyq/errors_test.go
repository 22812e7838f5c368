package readyq_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/readyq"
)

// TestBadArgumentsSayWhatWasWrong: every ErrInvalid of a Queue names the
// call and what was wrong, still matches ErrInvalid, and changes nothing:
// WaitAppend gives buf back and Next gives done back, its items still in
// flight.
func TestBadArgumentsSayWhatWasWrong(t *testing.T) {
	ctx, noCtx := context.Background(), testkit.NilContext
	q := readyq.New[int]()
	q.Add(1)
	q.Add(2)
	held := q.TryTake(1) // [1], in flight
	buf := []int{7}
	for _, c := range []struct {
		what string
		call func() ([]int, error)
		want []int // what the call gives back
		msg  string
	}{
		{"Wait(nil, 1)", func() ([]int, error) { return q.Wait(noCtx, 1) }, nil, "readyq: wait: nil context"},
		{"Wait(nil, 0)", func() ([]int, error) { return q.Wait(noCtx, 0) }, nil, "readyq: wait: nil context"},
		{"Wait(ctx, 0)", func() ([]int, error) { return q.Wait(ctx, 0) }, nil, "readyq: wait: max 0 is not above 0"},
		{"Wait(ctx, -3)", func() ([]int, error) { return q.Wait(ctx, -3) }, nil, "readyq: wait: max -3 is not above 0"},
		{"WaitAppend(nil, buf, 1)", func() ([]int, error) { return q.WaitAppend(noCtx, buf, 1) }, buf, "readyq: wait append: nil context"},
		{"WaitAppend(ctx, buf, 0)", func() ([]int, error) { return q.WaitAppend(ctx, buf, 0) }, buf, "readyq: wait append: max 0 is not above 0"},
		{"Next(nil, held, 1)", func() ([]int, error) { return q.Next(noCtx, held, 1) }, held, "readyq: next: nil context"},
		{"Next(ctx, held, -1)", func() ([]int, error) { return q.Next(ctx, held, -1) }, held, "readyq: next: max -1 is not above 0"},
		{"Drain(nil)", func() ([]int, error) { return nil, q.Drain(noCtx) }, nil, "readyq: drain: nil context"},
	} {
		got, err := c.call()
		if !errors.Is(err, readyq.ErrInvalid) {
			t.Fatalf("%s = %v, want an error matching ErrInvalid", c.what, err)
		}
		if want := c.msg + ": evsync: invalid argument"; err.Error() != want {
			t.Fatalf("%s = %q, want %q", c.what, err, want)
		}
		if !slices.Equal(got, c.want) || (c.want == nil) != (got == nil) {
			t.Fatalf("%s gave back %v, want %v", c.what, got, c.want)
		}
	}
	if st := q.Stats(); st.Queued != 1 || st.InFlight != 1 {
		t.Fatalf("after the bad calls: %v, want 1 queued and 1 in flight", st)
	}
}

// TestCallsThatSucceedAllocateNothing: the messages of bad arguments are
// built on error paths only. A consumer loop that passes its batch back
// allocates nothing.
func TestCallsThatSucceedAllocateNothing(t *testing.T) {
	ctx := context.Background()
	q := readyq.New[int]()
	batch := make([]int, 0, 4)
	testkit.NoAllocs(t, "Add, Next, WaitAppend, Done and Drain", func() {
		q.Add(1)
		batch, _ = q.Next(ctx, batch, 4)
		q.Add(2)
		batch, _ = q.Next(ctx, batch, 4)
		q.Done(batch...)
		q.Add(3)
		batch, _ = q.WaitAppend(ctx, batch[:0], 4)
		q.Done(batch...)
		_ = q.Drain(ctx)
	})
}
