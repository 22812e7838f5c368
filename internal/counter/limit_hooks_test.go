//go:build evsynchooks

package counter_test

// The windows of the snapshot rule (see the package doc). SetLimit stores
// the new limit inside its locked section, and the count that goes with
// it is published only when the section ends. Each path that reads the
// limit or the debt without the lock is run in two kinds of window:
//
//   - SetLimit stopped in its section, the new limit stored and the old
//     count still published (TestHookSetLimitWindow);
//   - the path stopped in its look or before its compare-and-swap, while
//     SetLimit runs to its end, once or twice (the other tests here).
//
// A result must fit one order of the two calls, with the count that the
// path's goroutine reads right after it.

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/evsync/evsync/internal/counter"
	"github.com/evsync/evsync/internal/evserr"
	"github.com/evsync/evsync/internal/testsupport/gates"
	"github.com/evsync/evsync/internal/testsupport/testkit"
)

// An outcome is what a call returned and the count its goroutine read
// right after it.
type outcome struct {
	v     uint64
	err   error
	count uint64
}

func (o outcome) String() string { return fmt.Sprintf("(%d, %v, count %d)", o.v, o.err, o.count) }

// errWaited is the outcome of a call that was still waiting when every
// goroutine of the bubble had blocked.
var errWaited = errors.New("still waiting")

// A limitCase is a call run while SetLimit(to) is stopped in its section.
// The counter starts at the limit with held units taken. first is the
// call's outcome if it comes before SetLimit, second if it comes after;
// finals are the counts once both have run, in those two orders.
type limitCase struct {
	name          string
	limit, held   uint64
	to            uint64
	call          func(c *counter.Counter) outcome
	first, second outcome
	finals        [2]uint64
}

// done is a context that has ended.
var done = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// read, readUpTo, tryRead, write, writeWait, reserve, writable, drain,
// takeAll and takeUpTo make a limitCase's call: the path and then Count.
func read(ctx context.Context, n uint64) func(*counter.Counter) outcome {
	return func(c *counter.Counter) outcome {
		v, err := c.Read(ctx, sem, n)
		return outcome{v, err, c.Count()}
	}
}

func readUpTo(max uint64) func(*counter.Counter) outcome {
	return func(c *counter.Counter) outcome {
		v, err := c.ReadUpTo(bg, max)
		return outcome{v, err, c.Count()}
	}
}

func tryRead(n uint64) func(*counter.Counter) outcome {
	return func(c *counter.Counter) outcome {
		v, ok := c.TryRead(sem, n)
		return outcome{v, okErr(ok), c.Count()}
	}
}

func write(n uint64) func(*counter.Counter) outcome {
	return func(c *counter.Counter) outcome {
		err := c.Write(sem, n)
		return outcome{0, err, c.Count()}
	}
}

func writeWait(ctx context.Context, n uint64) func(*counter.Counter) outcome {
	return func(c *counter.Counter) outcome {
		err := c.WriteWait(ctx, sem, n)
		return outcome{0, err, c.Count()}
	}
}

// writeWaitHour is writeWait with a live context that ends after an hour
// of the bubble's clock (errWaited): a write still waiting then.
func writeWaitHour(n uint64) func(*counter.Counter) outcome {
	return func(c *counter.Counter) outcome {
		ctx, cancel := context.WithTimeout(bg, time.Hour)
		defer cancel()
		err := c.WriteWait(ctx, sem, n)
		if err == context.DeadlineExceeded {
			err = errWaited
		}
		return outcome{0, err, c.Count()}
	}
}

// reserve's v is 1 if the reservation was granted at once.
func reserve(n uint64) func(*counter.Counter) outcome {
	return func(c *counter.Counter) outcome {
		var r counter.Reservation
		if err := c.Reserve(&r, n); err != nil {
			return outcome{0, err, c.Count()}
		}
		return outcome{b2u(testkit.IsClosed(r.Done()) && r.Err() == nil), nil, c.Count()}
	}
}

// writable's v is 1 if the channel was closed when Writable returned it.
func writable(c *counter.Counter) outcome {
	ch := c.Writable()
	return outcome{b2u(testkit.IsClosed(ch)), nil, c.Count()}
}

// drain waits for Drain until the bubble's goroutines all block; then it
// gives up (errWaited).
func drain(c *counter.Counter) outcome {
	ctx, cancel := context.WithTimeout(bg, time.Hour)
	defer cancel()
	err := c.Drain(ctx)
	if err == context.DeadlineExceeded {
		err = errWaited
	}
	return outcome{0, err, c.Count()}
}

func takeAll(c *counter.Counter) outcome {
	v := c.TryReadUpTo(0)
	return outcome{v, nil, c.Count()}
}

// takeUpTo is the facades' TakeAll and TryAcquireUpTo: the fast path,
// then TryReadUpTo where it could not decide.
func takeUpTo(max uint64) func(*counter.Counter) outcome {
	return func(c *counter.Counter) outcome {
		v, ok := counter.TakeUpToFast(c, max)
		if !ok {
			v = c.TryReadUpTo(max)
		}
		return outcome{v, nil, c.Count()}
	}
}

// errRefused stands for a TryRead's false.
var errRefused = errors.New("refused")

func okErr(ok bool) error {
	if ok {
		return nil
	}
	return errRefused
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// limitCases: for each path, a raise and a cut whose two orders differ
// where a look that paired the new limit with the old count would differ
// from both. Comments give (count, limit, debt) before, and after SetLimit.
var limitCases = []limitCase{
	{ // (1, 1, 0) → (4, 4, 0): 2 is invalid, then valid
		name: "Read, done context, raise", limit: 1, held: 0, to: 4, call: read(done, 2),
		first: outcome{0, evserr.ErrInvalid, 1}, second: outcome{0, context.Canceled, 4}, finals: [2]uint64{4, 4},
	},
	{ // (4, 4, 0) → (1, 1, 0): 2 is valid, then invalid
		name: "Read, done context, cut", limit: 4, held: 0, to: 1, call: read(done, 2),
		first: outcome{0, context.Canceled, 4}, second: outcome{0, evserr.ErrInvalid, 1}, finals: [2]uint64{1, 1},
	},
	{ // (1, 1, 0) → (4, 4, 0)
		name: "Read, raise", limit: 1, held: 0, to: 4, call: read(bg, 1),
		first: outcome{1, nil, 0}, second: outcome{1, nil, 3}, finals: [2]uint64{3, 3},
	},
	{ // (4, 4, 0) → (1, 1, 0); after the read: (2, 4, 0) → (0, 1, 1)
		name: "Read, cut", limit: 4, held: 0, to: 1, call: read(bg, 2),
		first: outcome{2, nil, 2}, second: outcome{0, evserr.ErrInvalid, 1}, finals: [2]uint64{0, 1},
	},
	{ // (1, 1, 0) → (4, 4, 0)
		name: "ReadUpTo, raise", limit: 1, held: 0, to: 4, call: readUpTo(8),
		first: outcome{1, nil, 0}, second: outcome{4, nil, 0}, finals: [2]uint64{3, 0},
	},
	{ // (4, 4, 0) → (1, 1, 0); after the read: (0, 4, 0) → (0, 1, 3)
		name: "ReadUpTo, cut", limit: 4, held: 0, to: 1, call: readUpTo(8),
		first: outcome{4, nil, 0}, second: outcome{1, nil, 0}, finals: [2]uint64{0, 0},
	},
	{ // (1, 1, 0) → (4, 4, 0)
		name: "TryRead, raise", limit: 1, held: 0, to: 4, call: tryRead(3),
		first: outcome{0, errRefused, 1}, second: outcome{3, nil, 1}, finals: [2]uint64{4, 1},
	},
	{ // (4, 4, 0) → (2, 2, 0); after the read: (1, 4, 0) → (0, 2, 1)
		name: "TryRead, cut", limit: 4, held: 0, to: 2, call: tryRead(3),
		first: outcome{3, nil, 1}, second: outcome{0, errRefused, 2}, finals: [2]uint64{0, 2},
	},
	{ // (2, 2, 0) → (4, 4, 0): full either way
		name: "Write, raise", limit: 2, held: 0, to: 4, call: write(1),
		first: outcome{0, evserr.ErrWouldBlock, 2}, second: outcome{0, evserr.ErrWouldBlock, 4}, finals: [2]uint64{4, 4},
	},
	{ // (2, 4, 0) → (1, 3, 0): 2 fits either way, not the old count under the new limit
		name: "Write, cut", limit: 4, held: 2, to: 3, call: write(2),
		first: outcome{0, nil, 4}, second: outcome{0, nil, 3}, finals: [2]uint64{3, 3},
	},
	{ // (0, 2, 0) → (2, 4, 0): 3 is invalid, then valid
		name: "WriteWait, done context, raise", limit: 2, held: 2, to: 4, call: writeWait(done, 3),
		first: outcome{0, evserr.ErrInvalid, 0}, second: outcome{0, context.Canceled, 2}, finals: [2]uint64{2, 2},
	},
	{ // (2, 4, 0) → (0, 2, 0): 3 is valid, then invalid
		name: "WriteWait, done context, cut", limit: 4, held: 2, to: 2, call: writeWait(done, 3),
		first: outcome{0, context.Canceled, 2}, second: outcome{0, evserr.ErrInvalid, 0}, finals: [2]uint64{0, 0},
	},
	{ // (0, 2, 0) → (2, 4, 0): 3 is invalid, then waits for room
		name: "WriteWait, raise", limit: 2, held: 2, to: 4, call: writeWaitHour(3),
		first: outcome{0, evserr.ErrInvalid, 0}, second: outcome{0, errWaited, 2}, finals: [2]uint64{2, 2},
	},
	{ // (2, 4, 0) → (0, 2, 0): 3 waits for room, then is invalid
		name: "WriteWait, cut", limit: 4, held: 2, to: 2, call: writeWaitHour(3),
		first: outcome{0, errWaited, 2}, second: outcome{0, evserr.ErrInvalid, 0}, finals: [2]uint64{0, 0},
	},
	{ // (1, 1, 0) → (4, 4, 0)
		name: "Reserve, raise", limit: 1, held: 0, to: 4, call: reserve(3),
		first: outcome{0, evserr.ErrInvalid, 1}, second: outcome{1, nil, 1}, finals: [2]uint64{4, 1},
	},
	{ // (4, 4, 0) → (1, 1, 0); after the grant: (2, 4, 0) → (0, 1, 1)
		name: "Reserve, cut", limit: 4, held: 0, to: 1, call: reserve(2),
		first: outcome{1, nil, 2}, second: outcome{0, evserr.ErrInvalid, 1}, finals: [2]uint64{0, 1},
	},
	{ // (3, 3, 0) → (4, 4, 0): full either way
		name: "Writable, raise", limit: 3, held: 0, to: 4, call: writable,
		first: outcome{0, nil, 3}, second: outcome{0, nil, 4}, finals: [2]uint64{4, 4},
	},
	{ // (1, 3, 0) → (0, 2, 0): room either way
		name: "Writable, cut", limit: 3, held: 2, to: 2, call: writable,
		first: outcome{1, nil, 1}, second: outcome{1, nil, 0}, finals: [2]uint64{0, 0},
	},
	{ // (2, 2, 0) → (3, 3, 0): drained either way
		name: "Drain, raise", limit: 2, held: 0, to: 3, call: drain,
		first: outcome{0, nil, 2}, second: outcome{0, nil, 3}, finals: [2]uint64{3, 3},
	},
	{ // (2, 3, 0) → (1, 2, 0): a unit out either way
		name: "Drain, cut", limit: 3, held: 1, to: 2, call: drain,
		first: outcome{0, errWaited, 1}, second: outcome{0, errWaited, 1}, finals: [2]uint64{1, 1},
	},
	{ // (1, 1, 0) → (4, 4, 0)
		name: "TakeAll, raise", limit: 1, held: 0, to: 4, call: takeAll,
		first: outcome{1, nil, 0}, second: outcome{4, nil, 0}, finals: [2]uint64{3, 0},
	},
	{ // (4, 4, 0) → (1, 1, 0); after the take: (0, 4, 0) → (0, 1, 3)
		name: "TakeAll, cut", limit: 4, held: 0, to: 1, call: takeAll,
		first: outcome{4, nil, 0}, second: outcome{1, nil, 0}, finals: [2]uint64{0, 0},
	},
	{ // (1, 1, 0) → (4, 4, 0): the fast path sees slow, so it leaves it to the lock
		name: "TakeUpToFast, raise", limit: 1, held: 0, to: 4, call: takeUpTo(3),
		first: outcome{1, nil, 0}, second: outcome{3, nil, 1}, finals: [2]uint64{3, 1},
	},
	{ // (4, 4, 0) → (1, 1, 0); after the take: (1, 4, 0) → (0, 1, 2)
		name: "TakeUpToFast, cut", limit: 4, held: 0, to: 1, call: takeUpTo(3),
		first: outcome{3, nil, 1}, second: outcome{1, nil, 0}, finals: [2]uint64{0, 0},
	},
}

// TestHookSetLimitWindow runs each path while SetLimit is stopped after
// it stored the new limit, before the count goes out. A path that ends
// then must have judged the state from before SetLimit; one that waits
// for the lock must judge the state after it.
func TestHookSetLimitWindow(t *testing.T) {
	for _, tc := range limitCases {
		hookBubble(t, tc.name, func(t *testing.T, c *counter.Counter) {
			if _, ok := c.TryRead(sem, tc.held); !ok {
				t.Fatalf("TryRead(%d) failed", tc.held)
			}
			o, early, err := gates.During(t, counter.PSetLimit,
				func() error { return c.SetLimit(tc.to) },
				func() outcome { return tc.call(c) })
			testkit.SameErr(t, "SetLimit", err, nil)
			order, want := 1, tc.second
			if early {
				order, want = 0, tc.first
			}
			if o != want {
				t.Fatalf("%s = %v; want %v (%s SetLimit(%d))", tc.name, o, want, []string{"before", "after"}[order], tc.to)
			}
			wantCount(t, c, tc.finals[order])
		}, tc.limit, tc.limit, nil)
	}
}

// TestHookLookWriteRefusal: a write that the fast path could not take
// judges the room on a look. A cut that begins between the look's read of
// the word and its read of the limit pairs the new limit with the old
// count. The look must notice, or a write that fits every state of its
// call is refused.
func TestHookLookWriteRefusal(t *testing.T) {
	hookBubble(t, "a cut during the look", func(t *testing.T, c *counter.Counter) {
		if _, ok := c.TryRead(sem, 2); !ok { // (2, 4): two units held
			t.Fatal("TryRead(2) failed")
		}
		fast := gates.Arm(t, counter.PWriteFast)
		w := start(func() error { return c.Write(sem, 2) })
		fast.Wait(t) // the fast path saw room: (2, 4)
		look := gates.Arm(t, counter.PLook)
		if _, ok := c.TryRead(sem, 1); !ok { // (1, 4): the fast path's CAS fails
			t.Fatal("TryRead(1) failed")
		}
		fast.Open()
		look.Wait(t) // write's look has read (1, _)
		set := gates.Arm(t, counter.PSetLimit)
		cut := start(func() error { return c.SetLimit(2) }) // (0, 2) with a debt of 1
		set.Wait(t)
		locks := gates.Hits(counter.PLockWait)
		look.Open()
		if err, ended := gates.EndedOrLocked(t, w, locks); ended {
			t.Fatalf("Write(2) = %v during the cut; want it judged after the cut (nil)", err)
		}
		set.Open()
		testkit.SameErr(t, "SetLimit(2)", gates.Receive(t, "SetLimit", cut), nil)
		testkit.SameErr(t, "Write(2): room in every state of the call", gates.Receive(t, "Write", w), nil)
		wantCount(t, c, 1)
		if d := c.Debt(); d != 0 {
			t.Fatalf("debt %d, want 0", d)
		}
	}, 4, 4, nil)
}

// TestHookLookWritable: a raise that runs from end to end between the
// look's reads of the word and of the limit must not make Writable pair
// the old count (full) with the new limit: the count was never below the
// limit.
func TestHookLookWritable(t *testing.T) {
	hookBubble(t, "a raise during the look", func(t *testing.T, c *counter.Counter) {
		look := gates.Arm(t, counter.PLook)
		ch := start(func() <-chan struct{} { return c.Writable() })
		look.Wait(t)                                          // (2, 2) read
		testkit.SameErr(t, "SetLimit(4)", c.SetLimit(4), nil) // (4, 4)
		look.Open()
		if testkit.IsClosed(gates.Receive(t, "Writable", ch)) {
			t.Fatal("Writable is ready, but the count was at the limit before the raise and after it")
		}
	}, 2, 2, nil)
}

// TestHookLookGeneration: a raise and a cut back, one on each side of the
// look's read of the limit, bring the word back to the value the look
// read first. Only the generation tells the two words apart: the look
// must not pair the count from before the raise with the raised limit.
func TestHookLookGeneration(t *testing.T) {
	hookBubble(t, "a raise, then a cut back", func(t *testing.T, c *counter.Counter) {
		look := gates.Arm(t, counter.PLook)
		ch := start(func() <-chan struct{} { return c.Writable() })
		look.Wait(t)                                          // (2, 2) read
		testkit.SameErr(t, "SetLimit(4)", c.SetLimit(4), nil) // (4, 4)
		again := gates.Arm(t, counter.PLookAgain)
		look.Open()
		again.Wait(t)                                         // the limit read: 4
		testkit.SameErr(t, "SetLimit(2)", c.SetLimit(2), nil) // (2, 2) again
		again.Open()
		if testkit.IsClosed(gates.Receive(t, "Writable", ch)) {
			t.Fatal("Writable is ready, but the count was at the limit in every state of the call")
		}
	}, 2, 2, nil)
}

// TestHookWriteFastGeneration: a release's fast path reads the word and
// the limit, then swaps. A cut that ends in between, and a release that
// brings the count back, leave the same count in the word. The swap must
// still fail, or the count passes the new limit.
func TestHookWriteFastGeneration(t *testing.T) {
	hookBubble(t, "a cut and a release in between", func(t *testing.T, c *counter.Counter) {
		if _, ok := c.TryRead(sem, 2); !ok { // (2, 4): two units held
			t.Fatal("TryRead(2) failed")
		}
		fast := gates.Arm(t, counter.PWriteFast)
		w := start(func() error { return c.Write(sem, 2) })   // a stray release: the holders give theirs back below
		fast.Wait(t)                                          // (2, 4) read: room for 2
		testkit.SameErr(t, "SetLimit(2)", c.SetLimit(2), nil) // (0, 2)
		mustWrite(t, c, sem, 2)                               // (2, 2): the same count as before
		fast.Open()
		testkit.SameErr(t, "the stray Write(2)", gates.Receive(t, "Write", w), evserr.ErrWouldBlock)
		wantCount(t, c, 2)
	}, 4, 4, nil)
}

// TestHookSetLimitBelowAReservation: Reserve checks n against the limit
// before it locks. A cut below n in between must not leave a reservation
// queued for what no count can serve.
func TestHookSetLimitBelowAReservation(t *testing.T) {
	hookBubble(t, "a cut before the reservation queues", func(t *testing.T, c *counter.Counter) {
		g := gates.Arm(t, counter.PLockWait)
		r := start(func() error {
			var r counter.Reservation
			return c.Reserve(&r, 2)
		})
		g.Wait(t)
		testkit.SameErr(t, "SetLimit(1)", c.SetLimit(1), nil)
		g.Open()
		testkit.SameErr(t, "Reserve(2) above the new limit", gates.Receive(t, "Reserve", r), evserr.ErrInvalid)
		if _, _, readers, _ := c.Snapshot(); readers != 0 {
			t.Fatalf("%d readers queued", readers)
		}
	}, 2, 2, nil)
}
