//go:build evsynchooks

package counter_test

// The narrow windows (see points.go): each test stops a goroutine at one
// point, performs the other side's operation exactly then, lets it go on,
// and checks the outcome. Run with
//
//	go test -race -tags evsynchooks ./internal/counter/
//
// A goroutine stopped at a point inside a locked section holds the lock:
// while it waits, the test calls nothing that takes the lock, and never
// synctest.Wait (a goroutine blocked on the mutex is not durably blocked).

import (
	"context"
	"runtime"
	"testing"
	"testing/synctest"

	"github.com/evsync/evsync/internal/counter"
	"github.com/evsync/evsync/internal/evserr"
	"github.com/evsync/evsync/internal/testsupport/gates"
	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/internal/watch"
)

// hookBubble is inBubble for a hook test: c.Close at the end frees any
// goroutine that a broken window left waiting, so that the bubble can end.
func hookBubble(t *testing.T, name string, f func(t *testing.T, c *counter.Counter), limit, initial uint64, d counter.Delayer) {
	inBubble(t, name, func(t *testing.T) {
		c := newCounter(limit, initial, d)
		t.Cleanup(c.Close)
		f(t, c)
	})
}

// start runs f in a goroutine; its result arrives on the channel.
func start[T any](f func() T) <-chan T {
	ch := make(chan T, 1)
	go func() { ch <- f() }()
	return ch
}

// startRead is parkRead without waiting for the call to park: for a call
// that a hook stops on its way.
func startRead(c *counter.Counter, ctx context.Context, m counter.Mode, n uint64) <-chan got {
	return start(func() got {
		v, err := c.Read(ctx, m, n)
		return got{v, err}
	})
}

// result waits (synctest.Wait) and returns the value on ch, failing t if
// there is none yet.
func result[T any](t *testing.T, what string, ch <-chan T) T {
	t.Helper()
	synctest.Wait()
	select {
	case v := <-ch:
		return v
	default:
		t.Fatalf("%s is still waiting", what)
		var zero T
		return zero
	}
}

// untilWord yields until c's word satisfies ok: a hand-shake with a
// goroutine that is about to block on the lock, which synctest.Wait
// cannot wait for. It fails t if that takes implausibly long.
func untilWord(t *testing.T, c *counter.Counter, ok func(uint64) bool) {
	t.Helper()
	for range 1_000_000 {
		if ok(counter.Word(c)) {
			return
		}
		runtime.Gosched()
	}
	t.Fatalf("word = %#x: the change never came", counter.Word(c))
}

// ---- Ready ------------------------------------------------------------------

// TestHookReadyLook: a write that lands between Ready's lock-free look at
// the count (0) and its locked arming finds nothing armed and takes the
// fast path; Ready must see it and return a closed channel.
func TestHookReadyLook(t *testing.T) {
	ready := func(c *counter.Counter) <-chan (<-chan struct{}) {
		return start(func() <-chan struct{} { return c.Ready() })
	}
	hookBubble(t, "a write", func(t *testing.T, c *counter.Counter) {
		g := gates.Arm(t, counter.PReadyLook)
		ch := ready(c)
		g.Wait(t)
		mustWrite(t, c, sem, 1)
		g.Open()
		if !testkit.IsClosed(result(t, "Ready", ch)) {
			t.Fatal("Ready armed an open channel: it missed the write that landed before its arming")
		}
		wantWord(t, c, 1)
	}, 0, 0, nil)
	hookBubble(t, "Close", func(t *testing.T, c *counter.Counter) {
		g := gates.Arm(t, counter.PReadyLook)
		ch := ready(c)
		g.Wait(t)
		c.Close()
		g.Open()
		if !testkit.IsClosed(result(t, "Ready", ch)) {
			t.Fatal("Ready open after Close")
		}
	}, 0, 0, nil)
	hookBubble(t, "nothing", func(t *testing.T, c *counter.Counter) {
		g := gates.Arm(t, counter.PReadyLook)
		ch := ready(c)
		g.Wait(t)
		g.Open()
		r := result(t, "Ready", ch)
		if testkit.IsClosed(r) {
			t.Fatal("Ready closed at 0")
		}
		mustWrite(t, c, sem, 1)
		if !testkit.IsClosed(r) {
			t.Fatal("Ready open after a write")
		}
	}, 0, 0, nil)
}

// ---- Lock -------------------------------------------------------------------

// TestHookLock: Lock reads the word, then sets slow (or moves the lone
// reader) with a CAS from what it read. A write, a claim or a take-back
// that lands in between makes the CAS fail, and Lock reads again.
func TestHookLock(t *testing.T) {
	// Ready's locked arming re-reads the count in Lock; the arming is
	// published by the same CAS. A write between the two is seen.
	hookBubble(t, "Ready, a write before slow is published", func(t *testing.T, c *counter.Counter) {
		g := gates.Arm(t, counter.PLock)
		ch := start(func() <-chan struct{} { return c.Ready() })
		g.Wait(t)
		mustWrite(t, c, sem, 1) // lock-free: slow is not set yet
		g.Open()
		if !testkit.IsClosed(result(t, "Ready", ch)) {
			t.Fatal("Ready armed an open channel with the count at 1")
		}
		wantWord(t, c, 1)
	}, 0, 0, nil)
	hookBubble(t, "the lone reader moved to the queue", func(t *testing.T, c *counter.Counter) {
		r, cancel := parkCancellable(c, sem, 1)
		defer cancel()
		g := gates.Arm(t, counter.PLock)
		w := start(func() error { return c.Write(sem, 2) }) // more than one unit: locked
		g.Wait(t)
		g.Open()
		testkit.SameErr(t, "Write", result(t, "Write", w), nil)
		wantGot(t, "Read", r, 1, nil)
		wantWord(t, c, 1)
	}, 0, 0, nil)
	hookBubble(t, "the lone reader takes itself back first", func(t *testing.T, c *counter.Counter) {
		r, cancel := parkCancellable(c, sem, 1)
		g := gates.Arm(t, counter.PLock)
		w := start(func() error { return c.Write(sem, 2) })
		g.Wait(t)
		cancel() // the reader's take-back needs no lock
		wantGot(t, "cancelled Read", r, 0, context.Canceled)
		g.Open()
		testkit.SameErr(t, "Write", result(t, "Write", w), nil)
		wantWord(t, c, 2) // nothing handed to the reader that left
		if _, _, readers, _ := c.Snapshot(); readers != 0 {
			t.Fatalf("readers = %d", readers)
		}
	}, 0, 0, nil)
	hookBubble(t, "a writer claims the lone reader first", func(t *testing.T, c *counter.Counter) {
		r := parkRead(c, bg, sem, 1)
		g := gates.Arm(t, counter.PLock)
		w := start(func() error { return c.Write(sem, 2) })
		g.Wait(t)
		mustWrite(t, c, sem, 1) // claims the lone reader without the lock
		wantGot(t, "Read", r, 1, nil)
		g.Open()
		testkit.SameErr(t, "Write", result(t, "Write", w), nil)
		wantWord(t, c, 2)
	}, 0, 0, nil)
}

// ---- Read -------------------------------------------------------------------

// TestHookReadSlow: a write that lands between a Read's failed fast path
// and its locked re-check must be taken by the re-check. With a wake
// delay nobody else would wake the reader: the write found nobody waiting
// and told the Delayer nothing.
func TestHookReadSlow(t *testing.T) {
	d := new(notes)
	hookBubble(t, "delayed", func(t *testing.T, c *counter.Counter) {
		g := gates.Arm(t, counter.PReadSlow)
		r := startRead(c, bg, plain, 0)
		g.Wait(t)
		mustWrite(t, c, plain, 5)
		g.Open()
		wantGot(t, "Read", r, 5, nil) // without Serve
		if got := d.take(); len(got) != 0 {
			t.Fatalf("notes = %v", got)
		}
		wantWord(t, c, 0)
	}, 0, 0, d)
	hookBubble(t, "semaphore", func(t *testing.T, c *counter.Counter) {
		g := gates.Arm(t, counter.PReadSlow)
		r := startRead(c, bg, sem, 2)
		g.Wait(t)
		mustWrite(t, c, sem, 3)
		g.Open()
		wantGot(t, "Read", r, 2, nil)
		wantWord(t, c, 1)
	}, 0, 0, nil)
	hookBubble(t, "lone", func(t *testing.T, c *counter.Counter) {
		g := gates.Arm(t, counter.PReadSlow)
		r := startRead(c, bg, sem, 1)
		g.Wait(t)
		mustWrite(t, c, sem, 1)
		g.Open()
		wantGot(t, "Read", r, 1, nil)
		wantWord(t, c, 0)
	}, 0, 0, nil)
}

// TestHookFastTake: a reader that read the count and is about to take it
// with a CAS; meanwhile the count is taken, a reader parks behind a wake
// delay and a write arrives. The CAS fails (the word has changed: notify
// is set), and the newcomer must not take the count the parked reader is
// waiting for.
func TestHookFastTake(t *testing.T) {
	d := new(notes)
	hookBubble(t, "delayed", func(t *testing.T, c *counter.Counter) {
		g := gates.Arm(t, counter.PFastTake)
		late := startRead(c, bg, plain, 0)
		g.Wait(t)
		if v, ok := c.TryRead(plain, 0); v != 5 || !ok {
			t.Fatalf("TryRead = %d, %v", v, ok)
		}
		first := parkRead(c, bg, plain, 0)
		wantWord(t, c, counter.NotifyBit)
		mustWrite(t, c, plain, 7)
		g.Open()
		pending(t, late)
		c.Serve()
		wantGot(t, "the reader that parked first", first, 7, nil)
		pending(t, late)
		mustWrite(t, c, plain, 1)
		c.Serve()
		wantGot(t, "the reader that came late", late, 1, nil)
	}, 0, 5, d)
	hookBubble(t, "semaphore", func(t *testing.T, c *counter.Counter) {
		g := gates.Arm(t, counter.PFastTake)
		late := startRead(c, bg, sem, 1)
		g.Wait(t)
		if v, ok := c.TryRead(sem, 1); v != 1 || !ok {
			t.Fatalf("TryRead = %d, %v", v, ok)
		}
		first := parkRead(c, bg, sem, 2) // queued: slow set
		mustWrite(t, c, sem, 1)
		g.Open()
		pending(t, late) // queued behind the first, which the count does not cover
		mustWrite(t, c, sem, 2)
		wantGot(t, "first", first, 2, nil)
		wantGot(t, "late", late, 1, nil)
	}, 0, 1, nil)
}

// TestHookTakeUpToFast: the facades' take of up to max units read the
// count and is about to take it with a CAS. Meanwhile the count is taken,
// a reader queues for more than is there, and a write brings the count
// back to what the fast path read. The CAS fails (slow is set), and the
// locked path must not take what the queued reader is owed.
func TestHookTakeUpToFast(t *testing.T) {
	hookBubble(t, "a reader queues", func(t *testing.T, c *counter.Counter) {
		g := gates.Arm(t, counter.PFastTake)
		took := start(func() uint64 {
			if v, ok := counter.TakeUpToFast(c, 3); ok {
				return v
			}
			return c.TryReadUpTo(3)
		})
		g.Wait(t) // the count 2 read
		if v, ok := c.TryRead(sem, 2); v != 2 || !ok {
			t.Fatalf("TryRead(2) = %d, %v", v, ok)
		}
		first := parkRead(c, bg, sem, 3) // queued: slow set
		mustWrite(t, c, sem, 2)          // the count read, back again
		g.Open()
		if v := gates.Receive(t, "the take of up to 3", took); v != 0 {
			t.Fatalf("the take of up to 3 took %d of what the queued reader is owed", v)
		}
		mustWrite(t, c, sem, 1)
		wantGot(t, "the queued reader", first, 3, nil)
	}, 0, 2, nil)
}

// ---- the lone slot ------------------------------------------------------------

// TestHookLonePublish: a reader without a context read the word as 0 and
// is about to publish itself with one CAS from 0. A write or a locked
// section in between makes the CAS fail, and the reader takes the locked
// path.
func TestHookLonePublish(t *testing.T) {
	warm := func(t *testing.T, c *counter.Counter) { // the record is made once; then one CAS
		t.Helper()
		r := parkRead(c, bg, sem, 1)
		mustWrite(t, c, sem, 1)
		wantGot(t, "warm-up Read", r, 1, nil)
	}
	hookBubble(t, "a write", func(t *testing.T, c *counter.Counter) {
		warm(t, c)
		g := gates.Arm(t, counter.PLonePublish)
		r := startRead(c, bg, sem, 1)
		g.Wait(t)
		mustWrite(t, c, sem, 1)
		g.Open()
		wantGot(t, "Read", r, 1, nil)
		wantWord(t, c, 0)
	}, 0, 0, nil)
	hookBubble(t, "Ready", func(t *testing.T, c *counter.Counter) {
		warm(t, c)
		g := gates.Arm(t, counter.PLonePublish)
		r := startRead(c, bg, sem, 1)
		g.Wait(t)
		ready := c.Ready()
		g.Open()
		pending(t, r)
		mustWrite(t, c, sem, 1)
		wantGot(t, "Read", r, 1, nil)
		mustWrite(t, c, sem, 1)
		if !testkit.IsClosed(ready) {
			t.Fatal("Ready open")
		}
	}, 0, 0, nil)
}

// TestHookLoneClaimed: a reader with a context claimed the record (busy)
// and stored its Done channel; before it publishes (busy → lone|busy), a
// write lands or a locked section runs. The publish must fail, and the
// reader give the slot up and take the locked path.
func TestHookLoneClaimed(t *testing.T) {
	read := func(t *testing.T, c *counter.Counter) (<-chan got, *gates.Gate) {
		ctx, cancel := context.WithCancel(bg)
		t.Cleanup(cancel)
		g := gates.Arm(t, counter.PLoneClaimed)
		r := startRead(c, ctx, sem, 1)
		g.Wait(t)
		wantWord(t, c, counter.BusyBit)
		return r, g
	}
	hookBubble(t, "a write", func(t *testing.T, c *counter.Counter) {
		r, g := read(t, c)
		mustWrite(t, c, sem, 1) // the fast path keeps busy
		wantWord(t, c, counter.BusyBit|1)
		g.Open()
		wantGot(t, "Read", r, 1, nil)
		wantWord(t, c, 0)
	}, 0, 0, nil)
	hookBubble(t, "Close", func(t *testing.T, c *counter.Counter) {
		r, g := read(t, c)
		c.Close()
		g.Open()
		wantGot(t, "Read", r, 0, evserr.ErrClosed)
		wantWord(t, c, counter.ClosedBit)
	}, 0, 0, nil)
	hookBubble(t, "Ready", func(t *testing.T, c *counter.Counter) {
		r, g := read(t, c)
		ready := c.Ready()
		g.Open()
		pending(t, r)
		mustWrite(t, c, sem, 1)
		wantGot(t, "Read", r, 1, nil)
		mustWrite(t, c, sem, 1)
		if !testkit.IsClosed(ready) {
			t.Fatal("Ready open")
		}
		wantWord(t, c, 1)
	}, 0, 0, nil)
}

// TestHookWriterClaim: a writer read lone|busy and is about to claim the
// reader (lone|busy → busy). If the reader takes itself back first, or
// another writer or a locked section gets it first, the claim must fail
// and the writer add its units the ordinary way.
func TestHookWriterClaim(t *testing.T) {
	claim := func(t *testing.T, c *counter.Counter) (<-chan error, *gates.Gate) {
		g := gates.Arm(t, counter.PWriterClaim)
		w := start(func() error { return c.Write(sem, 1) })
		g.Wait(t)
		return w, g
	}
	hookBubble(t, "the reader takes itself back", func(t *testing.T, c *counter.Counter) {
		r, cancel := parkCancellable(c, sem, 1)
		w, g := claim(t, c)
		cancel()
		wantGot(t, "cancelled Read", r, 0, context.Canceled)
		wantWord(t, c, 0)
		g.Open()
		testkit.SameErr(t, "Write", result(t, "Write", w), nil)
		wantWord(t, c, 1) // the unit is in the count, not with the reader that left
	}, 0, 0, nil)
	hookBubble(t, "another writer claims it", func(t *testing.T, c *counter.Counter) {
		r := parkRead(c, bg, sem, 1)
		w, g := claim(t, c)
		mustWrite(t, c, sem, 1)
		wantGot(t, "Read", r, 1, nil)
		g.Open()
		testkit.SameErr(t, "Write", result(t, "Write", w), nil)
		wantWord(t, c, 1)
	}, 0, 0, nil)
	hookBubble(t, "a locked section moves it", func(t *testing.T, c *counter.Counter) {
		r := parkRead(c, bg, sem, 1)
		w, g := claim(t, c)
		ready := c.Ready()
		g.Open()
		testkit.SameErr(t, "Write", result(t, "Write", w), nil)
		wantGot(t, "Read", r, 1, nil)
		wantCount(t, c, 0)
		if testkit.IsClosed(ready) {
			t.Fatal("Ready closed: the unit went to the reader")
		}
	}, 0, 0, nil)
}

// TestHookWriterClaimed: the writer owns the lone reader's record and has
// not yet looked at its context. If the context is live, the reader gets
// the units. If it ended, the units go to the count and the reader is told
// it was dropped; if the count cannot take them (closed, or no room), the
// reader gets them after all: a grant is never lost.
func TestHookWriterClaimed(t *testing.T) {
	claimed := func(t *testing.T, c *counter.Counter) (r <-chan got, cancel context.CancelFunc, w <-chan error, g *gates.Gate) {
		r, cancel = parkCancellable(c, sem, 1)
		t.Cleanup(cancel)
		g = gates.Arm(t, counter.PWriterClaimed)
		w = start(func() error { return c.Write(sem, 1) })
		g.Wait(t)
		wantWord(t, c, counter.BusyBit)
		return r, cancel, w, g
	}
	hookBubble(t, "live", func(t *testing.T, c *counter.Counter) {
		r, _, w, g := claimed(t, c)
		g.Open()
		testkit.SameErr(t, "Write", result(t, "Write", w), nil)
		wantGot(t, "Read", r, 1, nil)
		wantWord(t, c, 0)
	}, 0, 0, nil)
	hookBubble(t, "context ended", func(t *testing.T, c *counter.Counter) {
		r, cancel, w, g := claimed(t, c)
		cancel() // the reader's take-back fails: it waits for the verdict
		pending(t, r)
		g.Open()
		testkit.SameErr(t, "Write", result(t, "Write", w), nil)
		wantGot(t, "Read", r, 0, context.Canceled) // nothing handed to a reader that gave up
		wantWord(t, c, 1)
	}, 0, 0, nil)
	hookBubble(t, "context ended and closed", func(t *testing.T, c *counter.Counter) {
		r, cancel, w, g := claimed(t, c)
		cancel()
		pending(t, r)
		c.Close()
		g.Open()
		testkit.SameErr(t, "Write", result(t, "Write", w), nil)
		wantGot(t, "Read", r, 0, context.Canceled) // a closed Semaphore still takes the unit back
		wantWord(t, c, counter.ClosedBit|1)
	}, 0, 0, nil)
	hookBubble(t, "context ended and no room", func(t *testing.T, c *counter.Counter) {
		r, cancel, w, g := claimed(t, c)
		cancel()
		pending(t, r)
		mustWrite(t, c, sem, 1) // the count is at its limit of 1
		g.Open()
		testkit.SameErr(t, "Write", result(t, "Write", w), nil)
		wantGot(t, "Read", r, 1, nil)
		wantWord(t, c, 1)
	}, 1, 0, nil)
}

// TestHookLoneReclaim: the lone reader's context ended and it is about to
// take its record back (lone|busy → busy). If a writer claims it first,
// the take-back fails and the reader must wait for the writer's verdict:
// it may neither return before it (the writer still owns the record) nor
// leave the verdict's wake-up behind for the next lone reader.
func TestHookLoneReclaim(t *testing.T) {
	cancelled := func(t *testing.T, c *counter.Counter) (<-chan got, *gates.Gate) {
		r, cancel := parkCancellable(c, sem, 1)
		g := gates.Arm(t, counter.PLoneReclaim)
		cancel()
		g.Wait(t)
		return r, g
	}
	hookBubble(t, "nothing in between", func(t *testing.T, c *counter.Counter) {
		r, g := cancelled(t, c)
		g.Open()
		wantGot(t, "Read", r, 0, context.Canceled)
		wantWord(t, c, 0)
	}, 0, 0, nil)
	hookBubble(t, "a writer claims it", func(t *testing.T, c *counter.Counter) {
		r, g := cancelled(t, c)
		mustWrite(t, c, sem, 1) // claims it, finds the context ended: to the count
		wantWord(t, c, counter.BusyBit|1)
		g.Open()
		wantGot(t, "Read", r, 0, context.Canceled)
		wantWord(t, c, 1)
		if v, ok := c.TryRead(sem, 1); v != 1 || !ok {
			t.Fatalf("TryRead = %d, %v", v, ok)
		}
		next := parkRead(c, bg, sem, 1) // must wait: nothing is left for it
		pending(t, next)
		mustWrite(t, c, sem, 1)
		wantGot(t, "next Read", next, 1, nil)
		wantWord(t, c, 0)
	}, 0, 0, nil)
}

// TestHookGrantRacingCancel: a writer hands the lone reader a unit while
// its context is live, and the context ends before the reader wakes. The
// reader then sees both its wake-up and its Done channel; whichever it
// picks, the grant stands and the read succeeds. Both paths are taken
// over the rounds (the take-back path is the one that locks).
func TestHookGrantRacingCancel(t *testing.T) {
	var woken, reclaimed int
	for round := 0; round < 64 || woken == 0 || reclaimed == 0; round++ {
		if round == 1024 {
			t.Fatalf("after %d rounds: %d woken, %d through the take-back", round, woken, reclaimed)
		}
		synctest.Test(t, func(t *testing.T) {
			c := newCounter(0, 0, nil)
			t.Cleanup(c.Close)
			ctx, cancel := context.WithCancel(bg)
			g := gates.Arm(t, counter.PSleep)
			r := startRead(c, ctx, sem, 1)
			g.Wait(t)
			wantWord(t, c, counter.LoneBit|counter.BusyBit)
			mustWrite(t, c, sem, 1) // granted while the context is live
			cancel()
			locks := gates.Hits(counter.PLock)
			g.Open()
			wantGot(t, "Read", r, 1, nil)
			wantWord(t, c, 0)
			if gates.Hits(counter.PLock) != locks {
				reclaimed++
			} else {
				woken++
			}
		})
	}
	t.Logf("%d woken, %d through the take-back", woken, reclaimed)
}

// ---- the locked sections' publish ---------------------------------------------

// TestHookPublish: Unlock writes the word back with a CAS from what it
// read. Only the busy bit can change meanwhile (a reader giving up the
// lone slot releases it without the lock), and that change must stay.
func TestHookPublish(t *testing.T) {
	hookBubble(t, "busy released during the section", func(t *testing.T, c *counter.Counter) {
		ctx, cancel := context.WithCancel(bg)
		defer cancel()
		claimed := gates.Arm(t, counter.PLoneClaimed)
		r := startRead(c, ctx, sem, 1)
		claimed.Wait(t) // the reader holds the record (busy)
		pub := gates.Arm(t, counter.PPublish)
		ready := start(func() <-chan struct{} { return c.Ready() })
		pub.Wait(t) // Ready's Unlock has read busy|slow and holds the lock
		claimed.Open()
		// The reader's publish fails (slow), it releases busy, then blocks
		// on the lock.
		untilWord(t, c, func(w uint64) bool { return w&counter.BusyBit == 0 })
		pub.Open()
		ch := result(t, "Ready", ready)
		pending(t, r)
		mustWrite(t, c, sem, 1)
		wantGot(t, "Read", r, 1, nil)
		mustWrite(t, c, sem, 1)
		if !testkit.IsClosed(ch) {
			t.Fatal("Ready open")
		}
		wantWord(t, c, 1) // busy stayed released: the lone slot is free
		next := parkRead(c, bg, sem, 2)
		wantWord(t, c, counter.SlowBit|1)
		mustWrite(t, c, sem, 1)
		wantGot(t, "next Read", next, 2, nil)
	}, 0, 0, nil)
}

// TestHookWriteFast: a writer read the word (0, nothing waiting) and is
// about to add with a CAS. A reader queues meanwhile; the section that
// queued it must leave slow set, so the writer's CAS fails and it takes
// the lock and serves the reader.
func TestHookWriteFast(t *testing.T) {
	hookBubble(t, "a reader queues", func(t *testing.T, c *counter.Counter) {
		g := gates.Arm(t, counter.PWriteFast)
		w := start(func() error { return c.Write(sem, 2) })
		g.Wait(t)
		r := parkRead(c, bg, sem, 2) // more than one unit: queued
		wantWord(t, c, counter.SlowBit)
		g.Open()
		testkit.SameErr(t, "Write", result(t, "Write", w), nil)
		wantGot(t, "Read", r, 2, nil)
		wantWord(t, c, 0)
	}, 0, 0, nil)
	hookBubble(t, "a Ready is armed", func(t *testing.T, c *counter.Counter) {
		g := gates.Arm(t, counter.PWriteFast)
		w := start(func() error { return c.Write(sem, 1) })
		g.Wait(t)
		ready := c.Ready()
		g.Open()
		testkit.SameErr(t, "Write", result(t, "Write", w), nil)
		if !testkit.IsClosed(ready) {
			t.Fatal("Ready open after the write")
		}
	}, 0, 0, nil)
	// The same for a reader's fast path and a back-pressured writer.
	hookBubble(t, "a writer queues", func(t *testing.T, c *counter.Counter) {
		g := gates.Arm(t, counter.PFastTake)
		tr := start(func() bool { _, ok := c.TryRead(sem, 2); return ok })
		g.Wait(t)
		ww := start(func() error { return c.WriteWait(bg, sem, 2) })
		synctest.Wait()
		wantWord(t, c, counter.SlowBit|5)
		g.Open()
		if !result(t, "TryRead", tr) {
			t.Fatal("TryRead(2) at 5 failed")
		}
		testkit.SameErr(t, "WriteWait", result(t, "WriteWait", ww), nil)
		wantWord(t, c, 5)
	}, 5, 5, nil)
}

// TestHookWriteFastWhileAWatcherArms: a writer has read the word and is
// about to add with a CAS when a poll set arms its watcher. Arm's section
// leaves slow set, so the writer's CAS fails, and it takes the lock and
// tells the watcher: the write after Arm returned is not lost to it.
func TestHookWriteFastWhileAWatcherArms(t *testing.T) {
	hookBubble(t, "a watcher arms", func(t *testing.T, c *counter.Counter) {
		r := new(recorder)
		counter.Watchers(c).Add(r)
		g := gates.Arm(t, counter.PWriteFast)
		w := start(func() error { return c.Write(counter.Plain, 1) })
		g.Wait(t)
		counter.Arm(c, 1)
		wantWord(t, c, counter.SlowBit)
		g.Open()
		testkit.SameErr(t, "Write", result(t, "Write", w), nil)
		if ev, n := r.take(); ev != watch.In || n != 1 {
			t.Fatalf("the armed watcher was told %v in %d wakeups of the write, want in once", ev, n)
		}
		wantWord(t, c, counter.SlowBit|1)
	}, 0, 0, nil)
}

// ---- TryRead and Write's locked path -------------------------------------

// TestHookTryDecide: TryRead's fast path failed on a word with slow set (a
// reader queued, whose context then ends and which leaves). TryRead must
// decide by the word it read, and take the lock: a re-read word shows no
// lock and a count it would wrongly refuse.
func TestHookTryDecide(t *testing.T) {
	hookBubble(t, "the queued reader leaves", func(t *testing.T, c *counter.Counter) {
		head, cancel := parkCancellable(c, sem, 5)
		mustWrite(t, c, sem, 3)
		wantWord(t, c, counter.SlowBit|3)
		g := gates.Arm(t, counter.PTryDecide)
		tr := start(func() bool { _, ok := c.TryRead(sem, 1); return ok })
		g.Wait(t)
		cancel()
		wantGot(t, "cancelled head", head, 0, context.Canceled)
		wantWord(t, c, 3)
		g.Open()
		if !result(t, "TryRead", tr) {
			t.Fatal("TryRead(1) failed with 3 units and nobody queued")
		}
		wantWord(t, c, 2)
	}, 0, 0, nil)
}

// TestHookWriteRoom: the head reader's context ends just as a write that
// has no room takes the lock. The write must serve the queue (dropping the
// cancelled head, serving the live reader behind) before it judges the
// room.
func TestHookWriteRoom(t *testing.T) {
	hookBubble(t, "the head is cancelled", func(t *testing.T, c *counter.Counter) {
		head, cancel := parkCancellable(c, sem, 8)
		behind := parkRead(c, bg, sem, 3)
		mustWrite(t, c, sem, 5)
		g := gates.Arm(t, counter.PWriteRoom)
		w := start(func() error { return c.Write(sem, 6) })
		g.Wait(t) // in the locked section: no synctest.Wait until it ends
		cancel()
		g.Open()
		testkit.SameErr(t, "Write(6)", result(t, "Write", w), nil)
		wantGot(t, "cancelled head", head, 0, context.Canceled)
		wantGot(t, "the reader behind", behind, 3, nil)
		wantCount(t, c, 8)
	}, 10, 0, nil)
}

// ---- SetLimit ------------------------------------------------------------------

// TestHookSetLimitBelowARead: a read checks its need against the limit
// before it locks; a SetLimit that lowers the limit below the need in
// between must not leave the read queued for what no count can serve.
func TestHookSetLimitBelowARead(t *testing.T) {
	hookBubble(t, "a cut before the read queues", func(t *testing.T, c *counter.Counter) {
		g := gates.Arm(t, counter.PReadSlow)
		r := startRead(c, bg, sem, 2)
		g.Wait(t)
		testkit.SameErr(t, "SetLimit(1) with nobody queued", c.SetLimit(1), nil)
		g.Open()
		v := result(t, "Read(2)", r)
		testkit.SameErr(t, "Read(2) above the new limit", v.err, evserr.ErrInvalid)
		if _, _, readers, _ := c.Snapshot(); readers != 0 {
			t.Fatalf("%d readers queued", readers)
		}
	}, 2, 0, nil)
}

// TestHookDebtLook: a write beyond the limit is valid if the debt lets
// it in. A raise that pays the debt while the write looks at the word
// must not make the write look too big: the look notices the section and
// the write is judged in a locked section.
func TestHookDebtLook(t *testing.T) {
	hookBubble(t, "a raise pays the debt during the look", func(t *testing.T, c *counter.Counter) {
		if _, ok := c.TryRead(sem, 4); !ok {
			t.Fatal("TryRead(4) failed")
		}
		testkit.SameErr(t, "SetLimit(2): a debt of 2", c.SetLimit(2), nil)
		g := gates.Arm(t, counter.PLook)
		w := start(func() error { return c.Write(sem, 4) }) // gives back the 4 units held
		g.Wait(t)
		testkit.SameErr(t, "SetLimit(4): pays the debt", c.SetLimit(4), nil)
		g.Open()
		testkit.SameErr(t, "Write(4) of the units held", result(t, "Write", w), nil)
		wantCount(t, c, 4)
		if d := c.Debt(); d != 0 {
			t.Fatalf("debt %d", d)
		}
	}, 4, 4, nil)
}

// TestHookDebtLookDoneContext: a cut during WriteWait's look makes a
// write that no count can take look valid if the look pairs the old
// limit with the new state. With a done context nothing locked judges it
// later, so the look must notice, and WriteWait refuse the write rather
// than report the context.
func TestHookDebtLookDoneContext(t *testing.T) {
	hookBubble(t, "a cut creates the debt during the look", func(t *testing.T, c *counter.Counter) {
		if _, ok := c.TryRead(sem, 4); !ok {
			t.Fatal("TryRead(4) failed")
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		g := gates.Arm(t, counter.PLook)
		w := start(func() error { return c.WriteWait(ctx, sem, 7) }) // above limit 4 + debt 0, and above 1 + 3
		g.Wait(t)
		testkit.SameErr(t, "SetLimit(1): a debt of 3", c.SetLimit(1), nil)
		g.Open()
		testkit.SameErr(t, "WriteWait(7) with a done context", result(t, "WriteWait", w), evserr.ErrInvalid)
		wantCount(t, c, 0)
		if d := c.Debt(); d != 3 {
			t.Fatalf("debt %d, want 3", d)
		}
	}, 4, 4, nil)
}
