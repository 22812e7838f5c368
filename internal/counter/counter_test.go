package counter_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/internal/counter"
	"github.com/evsync/evsync/internal/evserr"
	"github.com/evsync/evsync/internal/testsupport/testkit"
)

var bg = context.Background()

// inBubble runs f as the subtest name, in a synctest bubble of its own.
func inBubble(t *testing.T, name string, f func(t *testing.T)) {
	t.Run(name, func(t *testing.T) { synctest.Test(t, f) })
}

func TestSemaphoreModeTakesWhatItAsks(t *testing.T) {
	c := newCounter(0, 5, nil)
	if v, err := c.Read(bg, sem, 2); v != 2 || err != nil {
		t.Fatalf("Read(2) = %d, %v", v, err)
	}
	wantCount(t, c, 3)
	if v, ok := c.TryRead(sem, 3); v != 3 || !ok {
		t.Fatalf("TryRead(3) = %d, %v", v, ok)
	}
	if v, ok := c.TryRead(sem, 1); v != 0 || ok {
		t.Fatalf("TryRead(1) at 0 = %d, %v", v, ok)
	}
	// A read of 0 takes nothing and never waits, even at 0.
	if v, err := c.Read(bg, sem, 0); v != 0 || err != nil {
		t.Fatalf("Read(0) = %d, %v", v, err)
	}
	if _, ok := c.TryRead(sem, 0); !ok {
		t.Fatal("TryRead(0) = false")
	}
}

func TestPlainModeTakesTheWholeCount(t *testing.T) {
	c := newCounter(0, 0, nil)
	mustWrite(t, c, plain, 3)
	mustWrite(t, c, plain, 4)
	if v, err := c.Read(bg, plain, 1); v != 7 || err != nil { // n is ignored
		t.Fatalf("Read = %d, %v, want 7", v, err)
	}
	if v, ok := c.TryRead(plain, 0); v != 0 || ok {
		t.Fatalf("TryRead at 0 = %d, %v", v, ok)
	}
	mustWrite(t, c, plain, 9)
	if v, ok := c.TryRead(plain, 0); v != 9 || !ok {
		t.Fatalf("TryRead = %d, %v, want 9", v, ok)
	}
	wantWord(t, c, 0)
}

func TestBadArgumentsChangeNothing(t *testing.T) {
	c := newCounter(4, 1, nil)
	testkit.SameErr(t, "Write above the limit", c.Write(sem, 5), evserr.ErrInvalid)
	testkit.SameErr(t, "WriteWait above the limit", c.WriteWait(bg, sem, 5), evserr.ErrInvalid)
	testkit.SameErr(t, "WriteWait nil ctx", c.WriteWait(testkit.NilContext, sem, 1), evserr.ErrInvalid)
	if _, err := c.Read(bg, sem, 5); err != evserr.ErrInvalid {
		t.Fatalf("Read above the limit = %v", err)
	}
	if _, err := c.Read(testkit.NilContext, sem, 1); err != evserr.ErrInvalid {
		t.Fatalf("Read nil ctx = %v", err)
	}
	if _, ok := c.TryRead(sem, 5); ok {
		t.Fatal("TryRead above the limit succeeded")
	}
	var r counter.Reservation
	testkit.SameErr(t, "Reserve above the limit", c.Reserve(&r, 5), evserr.ErrInvalid)
	wantCount(t, c, 1)

	m := newCounter(0, 0, nil)
	testkit.SameErr(t, "Write(1<<64-1)", m.Write(plain, 1<<64-1), evserr.ErrInvalid)
	mustWrite(t, m, plain, 1)
	testkit.SameErr(t, "Write(1<<64-1) at 1", m.Write(plain, 1<<64-1), evserr.ErrInvalid)
	testkit.SameErr(t, "Write(Max) at 1", m.Write(plain, counter.Max), evserr.ErrWouldBlock)
	wantCount(t, m, 1)
}

func TestDoneContextChangesNothing(t *testing.T) {
	c := newCounter(3, 3, nil)
	done := testkit.Cancelled()
	if v, err := c.Read(done, sem, 1); v != 0 || err != context.Canceled {
		t.Fatalf("Read with a done ctx = %d, %v", v, err)
	}
	if _, err := c.Read(done, plain, 0); err != context.Canceled {
		t.Fatalf("plain Read with a done ctx = %v", err)
	}
	testkit.SameErr(t, "WriteWait with a done ctx", c.WriteWait(done, sem, 0), context.Canceled)
	wantCount(t, c, 3)
}

// TestWriteRoomAtTheLimit pins the overflow checks of every path: the
// fast path, the locked path (with a reader queued) and the big count at
// Max. A write that brings the count exactly to the limit succeeds; one
// unit more is ErrWouldBlock and changes nothing.
func TestWriteRoomAtTheLimit(t *testing.T) {
	t.Run("fast", func(t *testing.T) {
		c := newCounter(10, 3, nil)
		testkit.SameErr(t, "Write(8) at 3", c.Write(sem, 8), evserr.ErrWouldBlock)
		mustWrite(t, c, sem, 7)
		testkit.SameErr(t, "Write(1) at the limit", c.Write(sem, 1), evserr.ErrWouldBlock)
		wantCount(t, c, 10)
		mustWrite(t, c, sem, 0)
	})
	t.Run("locked", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c := newCounter(10, 0, nil)
			r := parkRead(c, bg, sem, 10) // queued: every write takes the lock
			mustWrite(t, c, sem, 4)
			testkit.SameErr(t, "Write(7) at 4", c.Write(sem, 7), evserr.ErrWouldBlock)
			wantCount(t, c, 4)
			pending(t, r)
			mustWrite(t, c, sem, 6) // exactly to the limit: the reader takes it all
			wantGot(t, "Read(10)", r, 10, nil)
			wantCount(t, c, 0)
		})
	})
	t.Run("locked back-pressure", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c := newCounter(10, 8, nil)
			w := testkit.Park(func() error { return c.WriteWait(bg, sem, 3) })
			testkit.Pending(t, w)
			if _, ok := c.TryRead(sem, 1); !ok {
				t.Fatal("TryRead(1)")
			}
			synctest.Wait()
			testkit.SameErr(t, "WriteWait(3) that fits exactly", <-w, nil)
			wantCount(t, c, 10)
		})
	})
	t.Run("big", func(t *testing.T) {
		c := newCounter(0, counter.Max-1, nil)
		mustWrite(t, c, plain, 1)
		testkit.SameErr(t, "Write(1) at Max", c.Write(plain, 1), evserr.ErrWouldBlock)
		wantCount(t, c, counter.Max)
	})
}

// TestBigCount covers counts above 1<<36-1, which live outside the word:
// into big mode and out of it, in both modes, with the fast paths working
// again once the count fits.
func TestBigCount(t *testing.T) {
	t.Run("semaphore", func(t *testing.T) {
		c := newCounter(0, counter.CountMask, nil)
		wantWord(t, c, counter.CountMask)
		mustWrite(t, c, sem, 1)
		if w := counter.Word(c); w != counter.BigBit {
			t.Fatalf("word = %#x, want big alone", w)
		}
		wantCount(t, c, counter.CountMask+1)
		mustWrite(t, c, sem, counter.Max-counter.CountMask-1)
		wantCount(t, c, counter.Max)
		select {
		case <-c.Ready():
		default:
			t.Fatal("Ready open with a big count")
		}
		if v, ok := c.TryRead(sem, 1); v != 1 || !ok {
			t.Fatalf("TryRead(1) = %d, %v", v, ok)
		}
		if v, err := c.Read(bg, sem, counter.Max-1-counter.CountMask); err != nil || v != counter.Max-1-counter.CountMask {
			t.Fatalf("Read = %d, %v", v, err)
		}
		wantWord(t, c, counter.CountMask) // out of big mode: the fast paths again
		if v, ok := c.TryRead(sem, counter.CountMask); v != counter.CountMask || !ok {
			t.Fatalf("TryRead(CountMask) = %d, %v", v, ok)
		}
		wantWord(t, c, 0)
	})
	t.Run("plain", func(t *testing.T) {
		c := newCounter(0, counter.Max, nil)
		count, closed, readers, writers := c.Snapshot()
		if count != counter.Max || closed || readers != 0 || writers != 0 {
			t.Fatalf("Snapshot = %d %v %d %d", count, closed, readers, writers)
		}
		if v, err := c.Read(bg, plain, 0); v != counter.Max || err != nil {
			t.Fatalf("Read = %d, %v, want Max", v, err)
		}
		wantWord(t, c, 0)
		mustWrite(t, c, plain, counter.CountMask)
		mustWrite(t, c, plain, 2) // in again, from the fast path's word
		wantCount(t, c, counter.CountMask+2)
		if v, ok := c.TryRead(plain, 0); v != counter.CountMask+2 || !ok {
			t.Fatalf("TryRead = %d, %v", v, ok)
		}
		wantWord(t, c, 0)
	})
	t.Run("a reader served across the boundary", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c := newCounter(0, 0, nil)
			r := parkRead(c, bg, sem, counter.CountMask+5)
			mustWrite(t, c, sem, counter.CountMask)
			pending(t, r)
			mustWrite(t, c, sem, 7)
			wantGot(t, "Read", r, counter.CountMask+5, nil)
			wantWord(t, c, 2)
		})
	})
	t.Run("closed", func(t *testing.T) {
		c := newCounter(0, counter.Max, nil)
		c.Close()
		wantCount(t, c, counter.Max)
		testkit.SameErr(t, "Write after Close, at the limit", c.Write(sem, 1), evserr.ErrWouldBlock)
		testkit.SameErr(t, "Plain Write after Close", c.Write(counter.Plain, 1), evserr.ErrClosed)
		if v, ok := c.TryRead(sem, counter.Max); v != counter.Max || !ok {
			t.Fatalf("TryRead after Close = %d, %v", v, ok)
		}
		wantWord(t, c, counter.ClosedBit)
	})
}

// TestLoneSlot covers the commonest wait, a single reader of one unit (or
// of the whole count) parked without the lock, and every way it ends.
func TestLoneSlot(t *testing.T) {
	inBubble(t, "served by a write", func(t *testing.T) {
		for _, m := range []counter.Mode{sem, plain} {
			c := newCounter(0, 0, nil)
			for round := range 3 { // the first claims the record; the next publish it with one CAS
				r := parkRead(c, bg, m, 1)
				wantWord(t, c, counter.LoneBit|counter.BusyBit)
				if _, _, readers, _ := c.Snapshot(); readers != 1 {
					t.Fatalf("round %d: Snapshot readers = %d", round, readers)
				}
				if v, ok := c.TryRead(m, 1); ok {
					t.Fatalf("TryRead took %d from a lone reader's 0", v)
				}
				mustWrite(t, c, m, 1)
				wantGot(t, "Read", r, 1, nil)
				wantWord(t, c, 0)
			}
		}
	})
	inBubble(t, "a plain reader gets the whole write", func(t *testing.T) {
		c := newCounter(0, 0, nil)
		r := parkRead(c, bg, plain, 0)
		mustWrite(t, c, plain, 5)
		wantGot(t, "Read", r, 5, nil)
		wantWord(t, c, 0)
	})
	inBubble(t, "cancelled", func(t *testing.T) {
		c := newCounter(0, 0, nil)
		r, cancel := parkCancellable(c, sem, 1)
		wantWord(t, c, counter.LoneBit|counter.BusyBit)
		cancel()
		wantGot(t, "cancelled Read", r, 0, context.Canceled)
		wantWord(t, c, 0)
		mustWrite(t, c, sem, 1) // goes to the count, to nobody else
		wantCount(t, c, 1)
		r = parkRead(c, bg, sem, 1)
		wantGot(t, "next Read", r, 1, nil)
	})
	inBubble(t, "a write of several units", func(t *testing.T) {
		c := newCounter(0, 0, nil)
		r := parkRead(c, bg, sem, 1)
		mustWrite(t, c, sem, 3)
		wantGot(t, "Read", r, 1, nil)
		wantCount(t, c, 2)
		wantWord(t, c, 2)
	})
	inBubble(t, "closed", func(t *testing.T) {
		c := newCounter(0, 0, nil)
		r, cancel := parkCancellable(c, plain, 0)
		defer cancel()
		c.Close()
		wantGot(t, "Read", r, 0, evserr.ErrClosed)
		wantWord(t, c, counter.ClosedBit)
	})
	inBubble(t, "moved to the queue by a locked section", func(t *testing.T) {
		c := newCounter(0, 0, nil)
		r := parkRead(c, bg, sem, 1)
		ready := c.Ready()
		if w := counter.Word(c); w&counter.LoneBit != 0 || w&counter.SlowBit == 0 {
			t.Fatalf("word = %#x after Ready: want the reader queued and slow set", w)
		}
		if _, _, readers, _ := c.Snapshot(); readers != 1 {
			t.Fatalf("Snapshot readers = %d", readers)
		}
		mustWrite(t, c, sem, 2)
		wantGot(t, "Read", r, 1, nil)
		if !testkit.IsClosed(ready) {
			t.Fatal("Ready open with a count of 1")
		}
		wantWord(t, c, 1)
	})
	inBubble(t, "first in line across the slot and the queue", func(t *testing.T) {
		c := newCounter(0, 0, nil)
		first := parkRead(c, bg, sem, 1)
		second := parkRead(c, bg, sem, 1) // finds the slot taken: queued behind
		var res counter.Reservation
		testkit.MustNil(t, c.Reserve(&res, 1))
		mustWrite(t, c, sem, 1)
		wantGot(t, "first Read", first, 1, nil)
		pending(t, second)
		mustWrite(t, c, sem, 1)
		wantGot(t, "second Read", second, 1, nil)
		if testkit.IsClosed(res.Done()) {
			t.Fatal("the reservation was served before the readers ahead of it")
		}
		mustWrite(t, c, sem, 1)
		synctest.Wait()
		testkit.MustNil(t, res.Err())
		wantWord(t, c, 0)
	})
}

func TestReserve(t *testing.T) {
	t.Run("at once", func(t *testing.T) {
		c := newCounter(0, 3, nil)
		var r counter.Reservation
		testkit.MustNil(t, c.Reserve(&r, 2))
		if !testkit.IsClosed(r.Done()) {
			t.Fatal("Done open")
		}
		testkit.MustNil(t, r.Err())
		wantCount(t, c, 1)
	})
	t.Run("queued then served", func(t *testing.T) {
		c := newCounter(0, 0, nil)
		var r counter.Reservation
		testkit.MustNil(t, c.Reserve(&r, 5))
		testkit.MustNil(t, r.Err()) // queued
		if testkit.IsClosed(r.Done()) {
			t.Fatal("Done closed while queued")
		}
		if _, ok := c.TryRead(sem, 1); ok {
			t.Fatal("TryRead jumped the queue")
		}
		mustWrite(t, c, sem, 4)
		testkit.MustNil(t, r.Err()) // at 4 of 5: still queued
		mustWrite(t, c, sem, 1)
		if !testkit.IsClosed(r.Done()) {
			t.Fatal("Done open once served")
		}
		testkit.MustNil(t, r.Err())
		wantCount(t, c, 0)
	})
	t.Run("zero never waits", func(t *testing.T) {
		c := newCounter(0, 0, nil)
		var ahead, zero counter.Reservation
		testkit.MustNil(t, c.Reserve(&ahead, 1))
		testkit.MustNil(t, c.Reserve(&zero, 0))
		testkit.MustNil(t, zero.Err())
		testkit.MustNil(t, ahead.Err())
		if testkit.IsClosed(ahead.Done()) {
			t.Fatal("the one ahead is done")
		}
	})
	t.Run("cancel while queued lets those behind through", func(t *testing.T) {
		c := newCounter(0, 1, nil)
		var big, small counter.Reservation
		testkit.MustNil(t, c.Reserve(&big, 5))
		testkit.MustNil(t, c.Reserve(&small, 1))
		if testkit.IsClosed(small.Done()) {
			t.Fatal("small behind big is done")
		}
		if !big.Cancel() {
			t.Fatal("Cancel of a queued reservation = false")
		}
		testkit.MustNil(t, small.Err())
		testkit.SameErr(t, "Err after Cancel", big.Err(), context.Canceled)
		if !testkit.IsClosed(big.Done()) {
			t.Fatal("Cancel did not close Done")
		}
		wantCount(t, c, 0)
		if _, _, readers, _ := c.Snapshot(); readers != 0 {
			t.Fatalf("Snapshot readers = %d", readers)
		}
	})
	t.Run("cancel after the grant gives the units back, once", func(t *testing.T) {
		c := newCounter(0, 3, nil)
		var r counter.Reservation
		testkit.MustNil(t, c.Reserve(&r, 2))
		first, second := r.Cancel(), r.Cancel()
		if !first || !second {
			t.Fatalf("Cancel = %v, then %v", first, second)
		}
		wantCount(t, c, 3)
		testkit.SameErr(t, "Err after Cancel", r.Err(), context.Canceled)
	})
	t.Run("cancel that cannot give back", func(t *testing.T) {
		c := newCounter(5, 5, nil)
		var r counter.Reservation
		testkit.MustNil(t, c.Reserve(&r, 3))
		mustWrite(t, c, sem, 3)
		first, second := r.Cancel(), r.Cancel()
		if first || second {
			t.Fatalf("Cancel = %v, then %v, with no room to give the units back", first, second)
		}
		testkit.MustNil(t, r.Err()) // the caller holds them
		wantCount(t, c, 5)
	})
	t.Run("close", func(t *testing.T) {
		c := newCounter(0, 2, nil)
		var queued, granted, after, short counter.Reservation
		testkit.MustNil(t, c.Reserve(&granted, 2))
		testkit.MustNil(t, c.Reserve(&queued, 1))
		c.Close()
		if !testkit.IsClosed(queued.Done()) {
			t.Fatal("Done open after Close")
		}
		testkit.SameErr(t, "Err of a refused reservation", queued.Err(), evserr.ErrClosed)
		if !granted.Cancel() {
			t.Fatal("Cancel after Close = false")
		}
		wantCount(t, c, 2) // back into what is left to read
		testkit.MustNil(t, c.Reserve(&after, 2))
		testkit.MustNil(t, after.Err())
		testkit.SameErr(t, "Reserve after Close, too few left", c.Reserve(&short, 1), evserr.ErrClosed)
	})
}

func TestClose(t *testing.T) {
	t.Run("what is left stays readable", func(t *testing.T) {
		c := newCounter(0, 5, nil)
		c.Close()
		c.Close() // idempotent
		testkit.SameErr(t, "Plain Write after Close", c.Write(counter.Plain, 1), evserr.ErrClosed)
		testkit.SameErr(t, "Plain Write(0) after Close", c.Write(counter.Plain, 0), evserr.ErrClosed)
		testkit.SameErr(t, "Plain WriteWait after Close", c.WriteWait(bg, counter.Plain, 1), evserr.ErrClosed)
		if v, ok := c.TryRead(sem, 2); v != 2 || !ok {
			t.Fatalf("TryRead(2) = %d, %v", v, ok)
		}
		if v, err := c.Read(bg, sem, 3); v != 3 || err != nil {
			t.Fatalf("Read(3) = %d, %v", v, err)
		}
		if _, err := c.Read(bg, sem, 1); err != evserr.ErrClosed {
			t.Fatalf("Read at 0 after Close = %v", err)
		}
		if _, err := c.Read(bg, plain, 0); err != evserr.ErrClosed {
			t.Fatalf("plain Read at 0 after Close = %v", err)
		}
		testkit.MustNil(t, c.Write(sem, 1)) // a Semaphore takes units back after Close
		testkit.MustNil(t, c.Write(sem, 0))
		testkit.MustNil(t, c.WriteWait(bg, sem, 1))
		if v, err := c.Read(bg, sem, 2); v != 2 || err != nil {
			t.Fatalf("Read(2) of the units given back = %d, %v", v, err)
		}
		if _, closed, _, _ := c.Snapshot(); !closed {
			t.Fatal("Snapshot: not closed")
		}
	})
	t.Run("queued readers served in order while it covers them", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c := newCounter(0, 0, nil)
			r5 := parkRead(c, bg, sem, 5)
			r2 := parkRead(c, bg, sem, 2)
			r1 := parkRead(c, bg, sem, 1)
			r9 := parkRead(c, bg, sem, 9)
			mustWrite(t, c, sem, 3)
			pending(t, r5)
			c.Close()
			wantGot(t, "Read(5)", r5, 0, evserr.ErrClosed)
			wantGot(t, "Read(2)", r2, 2, nil)
			wantGot(t, "Read(1)", r1, 1, nil)
			wantGot(t, "Read(9)", r9, 0, evserr.ErrClosed)
			wantWord(t, c, counter.ClosedBit)
		})
	})
	t.Run("back-pressured writers refused", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c := newCounter(5, 5, nil)
			w := testkit.Park(func() error { return c.WriteWait(bg, sem, 2) })
			testkit.Pending(t, w)
			c.Close()
			synctest.Wait()
			testkit.SameErr(t, "WriteWait", <-w, evserr.ErrClosed)
			wantCount(t, c, 5)
		})
	})
}

func TestReady(t *testing.T) {
	c := newCounter(0, 0, nil)
	ready := c.Ready()
	if testkit.IsClosed(ready) {
		t.Fatal("Ready closed at 0")
	}
	if w := counter.Word(c); w != counter.SlowBit {
		t.Fatalf("word = %#x with Ready armed, want slow: writes must take the lock", w)
	}
	mustWrite(t, c, sem, 1)
	if !testkit.IsClosed(ready) {
		t.Fatal("Ready open after a write")
	}
	wantWord(t, c, 1) // fired: slow cleared
	if !testkit.IsClosed(c.Ready()) {
		t.Fatal("Ready open at 1")
	}
	c.TryRead(sem, 1)
	again := c.Ready()
	if testkit.IsClosed(again) || again == ready {
		t.Fatal("Ready at 0 again: want a new open channel")
	}
	c.Close()
	if !testkit.IsClosed(again) || !testkit.IsClosed(c.Ready()) {
		t.Fatal("Ready open after Close")
	}
}

func TestWriteWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCounter(5, 5, nil)
		w2 := testkit.Park(func() error { return c.WriteWait(bg, sem, 2) })
		w1 := testkit.Park(func() error { return c.WriteWait(bg, sem, 1) })
		ctx, cancel := context.WithCancel(bg)
		wc := testkit.Park(func() error { return c.WriteWait(ctx, sem, 1) })
		if _, _, _, writers := c.Snapshot(); writers != 3 {
			t.Fatalf("Snapshot writers = %d", writers)
		}
		testkit.MustNil(t, c.WriteWait(bg, sem, 0)) // never waits
		cancel()
		synctest.Wait()
		testkit.SameErr(t, "cancelled WriteWait", <-wc, context.Canceled)
		c.TryRead(sem, 1) // room for 1, but the head needs 2: FIFO
		synctest.Wait()
		testkit.Pending(t, w2)
		testkit.Pending(t, w1)
		c.TryRead(sem, 1)
		synctest.Wait()
		testkit.SameErr(t, "WriteWait(2)", <-w2, nil)
		testkit.Pending(t, w1)
		if v, err := c.Read(bg, plain, 0); v != 5 || err != nil { // a plain read makes room for all
			t.Fatalf("Read = %d, %v", v, err)
		}
		synctest.Wait()
		testkit.SameErr(t, "WriteWait(1)", <-w1, nil)
		wantCount(t, c, 1)
		wantWord(t, c, 1)
	})
}

// TestTryReadKeepsTheQueue: a Semaphore TryRead never takes units while
// a live reader is queued, even units the head cannot use; a plain one
// (Take) takes what is there.
func TestTryReadKeepsTheQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCounter(0, 0, nil)
		head := parkRead(c, bg, sem, 5)
		mustWrite(t, c, sem, 3)
		if v, ok := c.TryRead(sem, 1); ok {
			t.Fatalf("TryRead(1) took %d ahead of a queued reader", v)
		}
		if v, err := c.Read(testkit.Cancelled(), sem, 1); err == nil {
			t.Fatalf("Read with a done ctx took %d", v)
		}
		mustWrite(t, c, sem, 2)
		wantGot(t, "head", head, 5, nil)
		wantWord(t, c, 0)
	})
}

// TestCancelledHeadHoldsUpNobody: a head waiter whose context ended is
// dropped before the room or the order is judged, and one that leaves
// wakes those behind it.
func TestCancelledHeadHoldsUpNobody(t *testing.T) {
	inBubble(t, "leaving serves those behind", func(t *testing.T) {
		c := newCounter(0, 0, nil)
		head, cancel := parkCancellable(c, sem, 5)
		behind := parkRead(c, bg, sem, 1)
		mustWrite(t, c, sem, 1)
		pending(t, behind)
		cancel()
		wantGot(t, "cancelled head", head, 0, context.Canceled)
		wantGot(t, "the one behind", behind, 1, nil)
	})
	inBubble(t, "write", func(t *testing.T) {
		c := newCounter(10, 0, nil)
		head, cancel := parkCancellable(c, sem, 8)
		behind := parkRead(c, bg, sem, 3)
		mustWrite(t, c, sem, 5)
		cancel()
		// Whether the head has left yet or not, the write fits once
		// the head is dropped and the one behind is served.
		testkit.MustNil(t, c.Write(sem, 6))
		wantGot(t, "cancelled head", head, 0, context.Canceled)
		wantGot(t, "the one behind", behind, 3, nil)
		wantCount(t, c, 8)
	})
	inBubble(t, "try", func(t *testing.T) {
		c := newCounter(0, 0, nil)
		head, cancel := parkCancellable(c, sem, 8)
		mustWrite(t, c, sem, 3)
		cancel()
		if v, ok := c.TryRead(sem, 2); v != 2 || !ok {
			t.Fatalf("TryRead(2) behind a cancelled head = %d, %v", v, ok)
		}
		wantGot(t, "cancelled head", head, 0, context.Canceled)
		wantCount(t, c, 1)
	})
}

// TestDelayer covers a wake delay: readers that wait are woken by Serve,
// not by the writes, which stay lock-free and tell the Delayer.
func TestDelayer(t *testing.T) {
	inBubble(t, "writes note, Serve serves", func(t *testing.T) {
		d := new(notes)
		c := newCounter(0, 0, d)
		r := parkRead(c, bg, plain, 0)
		if w := counter.Word(c); w != counter.NotifyBit {
			t.Fatalf("word = %#x with a delayed reader, want notify alone", w)
		}
		mustWrite(t, c, plain, 3)
		mustWrite(t, c, plain, 4)
		if got := d.take(); !slices.Equal(got, []uint64{3, 7}) {
			t.Fatalf("notes = %v, want [3 7]", got)
		}
		pending(t, r)
		c.Serve()
		wantGot(t, "Read", r, 7, nil)
		wantWord(t, c, 0)
		mustWrite(t, c, plain, 1) // nobody waits: no note
		if got := d.take(); len(got) != 0 {
			t.Fatalf("notes = %v with nobody waiting", got)
		}
	})
	inBubble(t, "a newcomer does not overtake a waiting reader", func(t *testing.T) {
		d := new(notes)
		c := newCounter(0, 0, d)
		first := parkRead(c, bg, plain, 0)
		mustWrite(t, c, plain, 3)
		second := parkRead(c, bg, plain, 0)
		pending(t, second)
		c.Serve()
		wantGot(t, "first Read", first, 3, nil)
		pending(t, second)
		mustWrite(t, c, plain, 1)
		c.Serve()
		wantGot(t, "second Read", second, 1, nil)
	})
	inBubble(t, "Take takes at once", func(t *testing.T) {
		d := new(notes)
		c := newCounter(0, 0, d)
		r := parkRead(c, bg, plain, 0)
		mustWrite(t, c, plain, 3)
		if v, ok := c.TryRead(plain, 0); v != 3 || !ok {
			t.Fatalf("TryRead = %d, %v", v, ok)
		}
		c.Serve()
		pending(t, r)
		mustWrite(t, c, plain, 2)
		c.Serve()
		wantGot(t, "Read", r, 2, nil)
	})
	inBubble(t, "a newcomer takes what nobody waits for", func(t *testing.T) {
		d := new(notes)
		c := newCounter(0, 0, d)
		ready := c.Ready() // armed: notify set, so the write is noted
		mustWrite(t, c, plain, 2)
		if got := d.take(); !slices.Equal(got, []uint64{2}) {
			t.Fatalf("notes = %v", got)
		}
		if testkit.IsClosed(ready) {
			t.Fatal("Ready fired before Serve")
		}
		r := parkRead(c, bg, plain, 0) // nobody queued: the count is its own
		wantGot(t, "Read", r, 2, nil)
	})
	inBubble(t, "Ready fires at Serve", func(t *testing.T) {
		d := new(notes)
		c := newCounter(0, 0, d)
		ready := c.Ready()
		mustWrite(t, c, plain, 1)
		if testkit.IsClosed(ready) {
			t.Fatal("Ready fired before Serve")
		}
		c.Serve()
		if !testkit.IsClosed(ready) {
			t.Fatal("Ready open after Serve")
		}
	})
	inBubble(t, "a locked write notes too", func(t *testing.T) {
		d := new(notes)
		c := newCounter(0, 0, d)
		r := parkRead(c, bg, plain, 0)
		mustWrite(t, c, plain, counter.CountMask+1) // too big for the word: locked
		if got := d.take(); !slices.Equal(got, []uint64{counter.CountMask + 1}) {
			t.Fatalf("notes = %v", got)
		}
		c.Serve()
		wantGot(t, "Read", r, counter.CountMask+1, nil)
	})
	inBubble(t, "Note runs without the lock", func(t *testing.T) {
		d := new(notes)
		c := newCounter(0, 0, d)
		d.serve = c.Serve // would deadlock if Note ran under the lock
		r := parkRead(c, bg, plain, 0)
		mustWrite(t, c, plain, 4)
		wantGot(t, "Read", r, 4, nil)
	})
	inBubble(t, "Close serves at once", func(t *testing.T) {
		d := new(notes)
		c := newCounter(0, 0, d)
		first := parkRead(c, bg, plain, 0)
		second := parkRead(c, bg, plain, 0)
		mustWrite(t, c, plain, 3)
		d.take()
		c.Close()
		wantGot(t, "first Read", first, 3, nil)
		wantGot(t, "second Read", second, 0, evserr.ErrClosed)
		if got := d.take(); len(got) != 0 {
			t.Fatalf("notes after Close = %v", got)
		}
	})
}

func TestSnapshotCountsEveryWaiter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCounter(2, 0, nil)
		lone := parkRead(c, bg, sem, 1)
		if _, _, readers, _ := c.Snapshot(); readers != 1 {
			t.Fatalf("readers = %d with one lone reader", readers)
		}
		queued := parkRead(c, bg, sem, 2)
		if _, _, readers, _ := c.Snapshot(); readers != 2 {
			t.Fatalf("readers = %d", readers)
		}
		mustWrite(t, c, sem, 1)
		wantGot(t, "lone", lone, 1, nil)
		mustWrite(t, c, sem, 2)
		wantGot(t, "queued", queued, 2, nil)
	})
}

// TestWaitingDoesNotAllocate: the fast paths and every kind of wait, once
// warm, allocate nothing (the lone slot, the queue's recycled records).
func TestWaitingDoesNotAllocate(t *testing.T) {
	c := newCounter(0, 0, nil)
	testkit.NoAllocs(t, "fast Write and TryRead", func() {
		_ = c.Write(sem, 2)
		c.TryRead(sem, 1)
		_, _ = c.Read(bg, sem, 1)
	})
	for _, tc := range []struct {
		name   string
		cancel bool
		n      uint64
	}{
		{"lone", false, 1},
		{"lone with a context", true, 1},
		{"queued", false, 2},
		{"queued with a context", true, 2},
	} {
		inBubble(t, tc.name, func(t *testing.T) {
			c := newCounter(0, 0, nil)
			ctx := bg
			if tc.cancel {
				var cancel context.CancelFunc
				ctx, cancel = context.WithCancel(bg)
				defer cancel()
			}
			start, done := make(chan struct{}), make(chan error)
			go func() {
				for range start {
					_, err := c.Read(ctx, sem, tc.n)
					done <- err
				}
			}()
			defer close(start)
			var failed error
			round := func() {
				start <- struct{}{}
				synctest.Wait() // the reader is parked
				if _, _, readers, _ := c.Snapshot(); readers != 1 && failed == nil {
					failed = fmt.Errorf("%d readers waiting, want 1", readers)
				}
				_ = c.Write(sem, tc.n)
				if err := <-done; err != nil && failed == nil {
					failed = err
				}
			}
			round() // warm: the queue makes its records
			testkit.NoAllocs(t, "wait", round)
			if failed != nil {
				t.Fatal(failed)
			}
		})
	}
}

// TestConservation runs writers, readers whose contexts end at random (or
// never), a trier and then Close against one counter in each mode: every
// unit written is read exactly once or left in the count.
func TestConservation(t *testing.T) {
	for _, m := range []counter.Mode{sem, plain} {
		c := newCounter(64, 0, nil)
		var written, read atomic.Uint64
		var writers, readers sync.WaitGroup
		for w := range 3 {
			writers.Go(func() {
				r := rand.New(rand.NewPCG(1, uint64(w)))
				for range 300 {
					n := uint64(r.IntN(3) + 1)
					if c.Write(m, n) == nil {
						written.Add(n)
					}
				}
			})
		}
		for w := range 3 {
			readers.Go(func() {
				r := rand.New(rand.NewPCG(2, uint64(w)))
				for {
					var v uint64
					var err error
					if w == 2 {
						var ok bool
						if v, ok = c.TryRead(m, 1); !ok {
							if _, closed, _, _ := c.Snapshot(); closed {
								return
							}
							runtime.Gosched()
							continue
						}
					} else {
						ctx, stop := testkit.CancelSoonOrNever(r)
						v, err = c.Read(ctx, m, uint64(r.IntN(2)+1))
						stop()
					}
					switch err {
					case nil:
						read.Add(v)
					case evserr.ErrClosed:
						return
					}
				}
			})
		}
		writers.Wait()
		c.Close()
		if !waitOrGiveUp(&readers) {
			t.Fatalf("mode %d: readers still waiting after Close: a wake-up was lost", m)
		}
		rest, _ := c.TryRead(plain, 0)
		if read.Load()+rest != written.Load() {
			t.Fatalf("mode %d: read %d + left %d != written %d", m, read.Load(), rest, written.Load())
		}
		if err := counter.CheckInvariants(c); err != nil {
			t.Fatalf("mode %d, at the end: %v", m, err)
		}
	}
}

// waitOrGiveUp waits for wg, or gives up after a watchdog's time: a
// failure detector for a lost wake-up, not a means of synchronisation.
func waitOrGiveUp(wg *sync.WaitGroup) bool {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(20 * time.Second):
		return false
	}
}

// TestAddSlow: AddSlow, which goes straight to a locked section when the
// word shows one is needed, returns what Write returns in both cases.
func TestAddSlow(t *testing.T) {
	for _, queued := range []bool{false, true} {
		name := "nobody queued"
		if queued {
			name = "a reader queued (slow set)"
		}
		inBubble(t, name, func(t *testing.T) {
			c := newCounter(10, 0, nil)
			var r <-chan got
			if queued {
				r = parkRead(c, bg, sem, 2)
			}
			testkit.SameErr(t, "AddSlow(0)", c.AddSlow(sem, 0), nil)
			testkit.SameErr(t, "AddSlow(11) above the limit", c.AddSlow(sem, 11), evserr.ErrInvalid)
			testkit.SameErr(t, "AddSlow(3)", c.AddSlow(sem, 3), nil)
			want := uint64(3)
			if queued {
				wantGot(t, "the queued reader", r, 2, nil)
				want = 1
			}
			wantCount(t, c, want)
			testkit.SameErr(t, "AddSlow(10) with no room", c.AddSlow(sem, 10), evserr.ErrWouldBlock)
			wantCount(t, c, want)
			c.Close()
			testkit.SameErr(t, "AddSlow(plain, 1) after Close", c.AddSlow(plain, 1), evserr.ErrClosed)
			testkit.SameErr(t, "AddSlow(sem, 1) after Close", c.AddSlow(sem, 1), nil)
			wantCount(t, c, want+1)
		})
	}
}
