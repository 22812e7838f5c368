package model_test

import (
	"context"
	"errors"
	"testing"

	"github.com/evsync/evsync/internal/evserr"
	"github.com/evsync/evsync/model"
)

func wantErr(t *testing.T, what string, got, want error) {
	t.Helper()
	if !errors.Is(got, want) || (want == nil) != (got == nil) {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
}

func wantCount(t *testing.T, c *model.Counter, want uint64) {
	t.Helper()
	if got := c.Count(); got != want {
		t.Fatalf("Count() = %d, want %d", got, want)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
}

// The kernel facts from the spec: the counter max, EINVAL for 1<<64-1,
// write(0), EAGAIN and poll.
func TestKernelWriteRules(t *testing.T) {
	for _, c := range []*model.Counter{model.NewSignal(0), model.NewSemaphore(0, model.Max)} {
		wantErr(t, "Write(1<<64-1)", c.Write(1<<64-1), evserr.ErrInvalid)
		if in, out := c.Poll(); in || !out {
			t.Fatalf("Poll() at 0 = %v, %v", in, out)
		}
		wantErr(t, "Write(Max)", c.Write(model.Max), nil)
		wantErr(t, "Write(1) at Max", c.Write(1), evserr.ErrWouldBlock)
		wantErr(t, "Write(0) at Max", c.Write(0), nil)
		if in, out := c.Poll(); !in || out {
			t.Fatalf("Poll() at Max = %v, %v", in, out)
		}
		wantCount(t, c, model.Max)
	}
}

func TestReadModes(t *testing.T) {
	sem := model.NewSemaphore(2, model.Max)
	for _, want := range []uint64{1, 1} {
		if v, err := sem.Read(); v != want || err != nil {
			t.Fatalf("semaphore Read() = %d, %v", v, err)
		}
	}
	if _, err := sem.Read(); !errors.Is(err, evserr.ErrWouldBlock) {
		t.Fatalf("semaphore Read() at 0: %v", err)
	}
	sig := model.NewSignal(5)
	wantErr(t, "Write(3)", sig.Write(3), nil)
	if v, err := sig.Read(); v != 8 || err != nil {
		t.Fatalf("plain Read() = %d, %v", v, err)
	}
	if _, err := sig.Read(); !errors.Is(err, evserr.ErrWouldBlock) {
		t.Fatalf("plain Read() at 0: %v", err)
	}
}

func TestSemaphoreLimit(t *testing.T) {
	c := model.NewSemaphore(3, 4)
	wantErr(t, "Write(5)", c.Write(5), evserr.ErrInvalid)
	wantErr(t, "Write(2)", c.Write(2), evserr.ErrWouldBlock)
	wantErr(t, "Acquire(5)", c.Acquire(model.Live, 5), evserr.ErrInvalid)
	wantErr(t, "Acquire(4)", c.Acquire(model.Live, 4), evserr.ErrWouldBlock)
	if c.TryAcquire(5) || !c.TryAcquire(0) || !c.TryAcquire(3) {
		t.Fatal("TryAcquire")
	}
	wantCount(t, c, 0)
	if _, out := c.Poll(); !out {
		t.Fatal("POLLOUT below the limit")
	}
}

// A big head blocks smaller requests behind it, TryAcquire and Acquire do
// not jump the queue, and cancelling a granted head serves the next one.
func TestReservationsFIFO(t *testing.T) {
	c := model.NewSemaphore(0, 10)
	big, err := c.Reserve(5)
	wantErr(t, "Reserve(5)", err, nil)
	small, err := c.Reserve(2)
	wantErr(t, "Reserve(2)", err, nil)
	wantErr(t, "Write(3)", c.Write(3), nil)
	if big.Done() || small.Done() || c.Waiting() != 2 {
		t.Fatalf("served out of order: queue %v", c.Queue())
	}
	if c.TryAcquire(1) {
		t.Fatal("TryAcquire jumped the queue")
	}
	wantErr(t, "Acquire(1)", c.Acquire(model.Live, 1), evserr.ErrWouldBlock)
	zero, err := c.Reserve(0)
	wantErr(t, "Reserve(0)", err, nil)
	wantErr(t, "zero.Err()", zero.Err(), nil)
	wantErr(t, "Write(2)", c.Write(2), nil)
	wantErr(t, "big.Err()", big.Err(), nil)
	wantErr(t, "small.Err()", small.Err(), nil)
	wantCount(t, c, 0)
	if !big.Cancel() {
		t.Fatal("Cancel of a granted reservation failed")
	}
	wantErr(t, "big.Err() after Cancel", big.Err(), context.Canceled)
	wantErr(t, "small.Err()", small.Err(), nil)
	wantCount(t, c, 3)
	if !big.Done() {
		t.Fatal("Cancel reopened Done")
	}
}

func TestCancelPendingServesNext(t *testing.T) {
	c := model.NewSemaphore(3, model.Max)
	head, _ := c.Reserve(4)
	next, _ := c.Reserve(3)
	if next.Done() {
		t.Fatal("served behind a waiting head")
	}
	if first, again := head.Cancel(), head.Cancel(); !first || !again {
		t.Fatalf("Cancel of a pending reservation = %v, then %v", first, again)
	}
	if !head.Done() || !next.Done() {
		t.Fatal("Cancel did not close Done, or did not move the queue")
	}
	wantErr(t, "head.Err() after Cancel", head.Err(), context.Canceled)
	wantCount(t, c, 0)
}

func TestCancelKeepsUnitsAboveLimit(t *testing.T) {
	c := model.NewSemaphore(4, 4)
	r, _ := c.Reserve(3)
	wantErr(t, "Write(2)", c.Write(2), nil)
	if first, again := r.Cancel(), r.Cancel(); first || again {
		t.Fatalf("Cancel past the limit = %v, then %v; want false twice", first, again)
	}
	wantErr(t, "r.Err()", r.Err(), nil)
	wantCount(t, c, 3)
}

// Close serves each queued reservation that what is left covers, in FIFO
// order, refuses the others, and leaves the rest to Acquire.
func TestCloseServesWhatFits(t *testing.T) {
	c := model.NewSemaphore(0, 10)
	big, _ := c.Reserve(5)
	small, _ := c.Reserve(2)
	wantErr(t, "Write(3)", c.Write(3), nil)
	c.Close()
	c.Close()
	wantErr(t, "big.Err()", big.Err(), evserr.ErrClosed)
	wantErr(t, "small.Err()", small.Err(), nil)
	wantCount(t, c, 1)
	wantErr(t, "Write(0) after Close", c.Write(0), nil)
	if _, err := c.Reserve(2); !errors.Is(err, evserr.ErrClosed) {
		t.Fatalf("Reserve(2) after Close: %v", err)
	}
	if !small.Cancel() {
		t.Fatal("Cancel after Close")
	}
	wantCount(t, c, 3)
	wantErr(t, "Acquire(3)", c.Acquire(model.Live, 3), nil)
	wantErr(t, "Acquire(1)", c.Acquire(model.Live, 1), evserr.ErrClosed)
	wantErr(t, "Acquire(0)", c.Acquire(model.Live, 0), nil)
}

func TestSignalClose(t *testing.T) {
	c := model.NewSignal(0)
	if v, err := c.Wait(model.Live); v != 0 || !errors.Is(err, evserr.ErrWouldBlock) {
		t.Fatalf("Wait() at 0 = %d, %v", v, err)
	}
	wantErr(t, "Write(7)", c.Write(7), nil)
	c.Close()
	wantErr(t, "Write(1)", c.Write(1), evserr.ErrClosed)
	wantErr(t, "Write(1<<64-1)", c.Write(1<<64-1), evserr.ErrInvalid)
	if in, out := c.Poll(); !in || out {
		t.Fatalf("Poll() after Close = %v, %v; want readable, not writable", in, out)
	}
	if v, err := c.Wait(model.Live); v != 7 || err != nil {
		t.Fatalf("Wait() after Close = %d, %v", v, err)
	}
	if v, err := c.Wait(model.Live); v != 0 || !errors.Is(err, evserr.ErrClosed) {
		t.Fatalf("Wait() when closed and empty = %d, %v", v, err)
	}
	if c.Take() != 0 {
		t.Fatal("Take() when closed and empty")
	}
}

func TestReadyTickets(t *testing.T) {
	c := model.NewSemaphore(0, model.Max)
	first := c.Ready()
	if c.Fired(first) || c.Ready() != first {
		t.Fatal("Ready at 0 fired, or gave a new channel")
	}
	r, _ := c.Reserve(2)
	wantErr(t, "Write(2)", c.Write(2), nil)
	if !r.Done() || c.Fired(first) {
		t.Fatal("units handed to a reservation fired Ready")
	}
	wantErr(t, "Write(0)", c.Write(0), nil)
	if c.Fired(first) {
		t.Fatal("Write(0) fired Ready")
	}
	wantErr(t, "Write(1)", c.Write(1), nil)
	if !c.Fired(first) || !c.Fired(c.Ready()) {
		t.Fatal("Ready did not fire on a non-zero count")
	}
	if !c.TryAcquire(1) {
		t.Fatal("TryAcquire(1)")
	}
	second := c.Ready()
	if c.Fired(second) {
		t.Fatal("a fresh Ready at 0 is ready")
	}
	c.Close()
	if !c.Fired(second) || !c.Fired(c.Ready()) {
		t.Fatal("Close did not fire Ready")
	}
}

func TestConstructorPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"limit 0":         func() { model.NewSemaphore(0, 0) },
		"limit above Max": func() { model.NewSemaphore(0, model.Max+1) },
		"initial > limit": func() { model.NewSemaphore(5, 4) },
		"signal above":    func() { model.NewSignal(model.Max + 1) },
		"Take on sem":     func() { model.NewSemaphore(0, 1).Take() },
		"Reserve on sig":  func() { _, _ = model.NewSignal(0).Reserve(1) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// TestDoneContextStops: a blocking call whose context is done when it
// starts checks its arguments, then returns context.Canceled and changes
// nothing, even where it could complete at once.
func TestDoneContextStops(t *testing.T) {
	sem := model.NewSemaphore(2, 4)
	wantErr(t, "Acquire(Done, 1)", sem.Acquire(model.Done, 1), context.Canceled)
	wantErr(t, "Acquire(Done, 0)", sem.Acquire(model.Done, 0), context.Canceled)
	wantErr(t, "Acquire(Done, 5)", sem.Acquire(model.Done, 5), evserr.ErrInvalid)
	wantErr(t, "WriteWait(Done, 1)", sem.WriteWait(model.Done, 1), context.Canceled)
	wantErr(t, "WriteWait(Done, 5)", sem.WriteWait(model.Done, 5), evserr.ErrInvalid)
	wantCount(t, sem, 2)
	sig := model.NewSignal(3)
	if v, err := sig.Wait(model.Done); v != 0 || err != context.Canceled {
		t.Fatalf("Wait(Done) = %d, %v", v, err)
	}
	sig.Close()
	wantErr(t, "WriteWait(Done, 1) after Close", sig.WriteWait(model.Done, 1), context.Canceled)
	wantCount(t, sig, 3)
}

func TestASemaphoreTakesUnitsBackAfterClose(t *testing.T) {
	c := model.NewSemaphore(0, 2)
	c.Close()
	wantErr(t, "Acquire(1) on empty closed", c.Acquire(model.Live, 1), evserr.ErrClosed)
	wantErr(t, "Drain below the limit", c.Drain(model.Live), evserr.ErrWouldBlock)
	wantErr(t, "Write(1) after Close", c.Write(1), nil)
	wantErr(t, "WriteWait(1) after Close", c.WriteWait(model.Live, 1), nil)
	wantErr(t, "WriteWait(1) with no room", c.WriteWait(model.Live, 1), evserr.ErrClosed)
	wantErr(t, "Write(1) with no room", c.Write(1), evserr.ErrWouldBlock)
	wantErr(t, "Drain at the limit", c.Drain(model.Live), nil)
	wantErr(t, "Drain, done ctx", c.Drain(model.Done), context.Canceled)
	wantErr(t, "Acquire(2) of what came back", c.Acquire(model.Live, 2), nil)
}
