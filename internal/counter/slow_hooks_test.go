//go:build evsynchooks

package counter_test

import (
	"context"
	"testing"

	"github.com/evsync/evsync/internal/counter"
	"github.com/evsync/evsync/internal/evserr"
	"github.com/evsync/evsync/internal/testsupport/gates"
	"github.com/evsync/evsync/internal/testsupport/testkit"
)

// startTakeSlow runs TakeSlow in a goroutine, for a call that a hook
// stops on its way. Its result arrives on the channel.
func startTakeSlow(c *counter.Counter, ctx context.Context, n uint64) <-chan error {
	return start(func() error { return c.TakeSlow(ctx, n) })
}

// TestHookTakeSlow: TakeSlow skips Read's first checks and its fast path.
// So whatever lands between the caller's failed TakeFast and the locked
// section must be judged there. Each case stops the call at that point
// (PReadSlow) and lands one change.
//   - A write must be taken, from the lock or the lone slot.
//   - A cut below n must refuse it, with nothing left queued.
//   - A context that ends must end the wait, with nothing taken.
//   - A Close must refuse it.
func TestHookTakeSlow(t *testing.T) {
	for _, w := range []struct {
		name           string
		need, add, was uint64 // the read's need, the write, the count left
	}{
		{"a write before the locked re-check", 2, 3, 1},
		{"a write before the lone slot", 1, 1, 0},
	} {
		hookBubble(t, w.name, func(t *testing.T, c *counter.Counter) {
			g := gates.Arm(t, counter.PReadSlow)
			r := startTakeSlow(c, bg, w.need)
			g.Wait(t)
			mustWrite(t, c, sem, w.add)
			g.Open()
			testkit.SameErr(t, "TakeSlow", result(t, "TakeSlow", r), nil)
			wantWord(t, c, w.was)
		}, 10, 0, nil)
	}
	hookBubble(t, "a cut below n", func(t *testing.T, c *counter.Counter) {
		g := gates.Arm(t, counter.PReadSlow)
		r := startTakeSlow(c, bg, 2)
		g.Wait(t)
		testkit.SameErr(t, "SetLimit(1)", c.SetLimit(1), nil)
		g.Open()
		testkit.SameErr(t, "TakeSlow(2) above the new limit", result(t, "TakeSlow", r), evserr.ErrInvalid)
		if _, _, readers, _ := c.Snapshot(); readers != 0 {
			t.Fatalf("%d readers queued", readers)
		}
	}, 2, 0, nil)
	hookBubble(t, "the context ends", func(t *testing.T, c *counter.Counter) {
		ctx, cancel := context.WithCancel(bg)
		g := gates.Arm(t, counter.PReadSlow)
		r := startTakeSlow(c, ctx, 2)
		g.Wait(t)
		cancel()
		g.Open()
		testkit.SameErr(t, "TakeSlow(2)", result(t, "TakeSlow", r), context.Canceled)
		mustWrite(t, c, sem, 2)
		wantWord(t, c, 2) // nothing was queued that could take it
	}, 10, 0, nil)
	hookBubble(t, "a Close", func(t *testing.T, c *counter.Counter) {
		g := gates.Arm(t, counter.PReadSlow)
		r := startTakeSlow(c, bg, 1)
		g.Wait(t)
		c.Close()
		g.Open()
		testkit.SameErr(t, "TakeSlow(1) after Close", result(t, "TakeSlow", r), evserr.ErrClosed)
	}, 10, 0, nil)
}

// TestHookWriteRoomGrantsTheLastWriter: a write with no room serves the
// queue inside its section (writeLocked). There it drops a cancelled head
// reader, serves the reader behind and lets in the last queued writer.
// The section then ends on the lean path, with no writer queued. That
// path must still wake the writer it let in.
func TestHookWriteRoomGrantsTheLastWriter(t *testing.T) {
	hookBubble(t, "the head is cancelled", func(t *testing.T, c *counter.Counter) {
		head, cancel := parkCancellable(c, sem, 8)
		behind := parkRead(c, bg, sem, 3)
		mustWrite(t, c, sem, 5)
		writer := testkit.Park(func() error { return c.WriteWait(bg, sem, 6) })
		g := gates.Arm(t, counter.PWriteRoom)
		w := start(func() error { return c.Write(sem, 6) })
		g.Wait(t) // in the locked section: no synctest.Wait until it ends
		cancel()
		g.Open()
		testkit.SameErr(t, "Write(6) after the writer took the room", result(t, "Write", w), evserr.ErrWouldBlock)
		wantGot(t, "cancelled head", head, 0, context.Canceled)
		wantGot(t, "the reader behind", behind, 3, nil)
		testkit.SameErr(t, "the queued WriteWait(6)", result(t, "WriteWait", writer), nil)
		wantCount(t, c, 8)
	}, 10, 0, nil)
}
