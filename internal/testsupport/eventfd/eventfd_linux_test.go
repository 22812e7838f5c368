//go:build linux

package eventfd_test

import (
	"testing"

	"github.com/evsync/evsync/internal/evserr"
	"github.com/evsync/evsync/internal/testsupport/eventfd"
)

func open(t *testing.T, initial uint64, flags eventfd.Flag) *eventfd.FD {
	t.Helper()
	e, err := eventfd.Open(initial, flags)
	if err != nil {
		t.Fatalf("Open(%d, %#x): %v", initial, flags, err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// want fails t unless got and err are wantV and the very error wantErr.
func want(t *testing.T, what string, got uint64, err error, wantV uint64, wantErr error) {
	t.Helper()
	if got != wantV || err != wantErr {
		t.Fatalf("%s = %d, %v; want %d, %v", what, got, err, wantV, wantErr)
	}
}

func count(t *testing.T, e *eventfd.FD) uint64 {
	t.Helper()
	n, err := e.Count()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestSemaphoreModeReadsOneAtATime(t *testing.T) {
	e := open(t, 2, eventfd.Semaphore|eventfd.NonBlock)
	for range 2 {
		v, err := e.Read()
		want(t, "Read", v, err, 1, nil)
	}
	v, err := e.Read()
	want(t, "Read at 0", v, err, 0, evserr.ErrWouldBlock)
}

func TestPlainModeReadsTheSumAndResets(t *testing.T) {
	e := open(t, 3, eventfd.NonBlock)
	if err := e.Write(4); err != nil {
		t.Fatal(err)
	}
	v, err := e.Read()
	want(t, "Read", v, err, 7, nil)
	v, err = e.Read()
	want(t, "Read at 0", v, err, 0, evserr.ErrWouldBlock)
}

func TestWriteErrorsChangeNothing(t *testing.T) {
	e := open(t, eventfd.Max-1, eventfd.NonBlock) // above 32 bits: written after opening
	if err := e.Write(1<<64 - 1); err != evserr.ErrInvalid {
		t.Fatalf("Write(1<<64-1) = %v, want ErrInvalid", err)
	}
	if err := e.Write(2); err != evserr.ErrWouldBlock {
		t.Fatalf("Write past Max = %v, want ErrWouldBlock", err)
	}
	if got := count(t, e); got != eventfd.Max-1 {
		t.Fatalf("Count = %d after refused writes, want Max-1", got)
	}
}

func TestPollAndCountLeaveTheCount(t *testing.T) {
	for _, c := range []struct {
		initial uint64
		in, out bool
	}{{0, false, true}, {5, true, true}, {eventfd.Max, true, false}} {
		e := open(t, c.initial, eventfd.NonBlock)
		in, out, err := e.Poll()
		if in != c.in || out != c.out || err != nil {
			t.Errorf("count %d: Poll = %v, %v, %v; want %v, %v", c.initial, in, out, err, c.in, c.out)
		}
		if got := count(t, e); got != c.initial {
			t.Errorf("Count = %d, want %d", got, c.initial)
		}
	}
}

// TestBlockingReadWaitsForAWrite: without NonBlock, a Read at 0 does not
// fail but waits, however the goroutines are scheduled, and returns what a
// later Write brings.
func TestBlockingReadWaitsForAWrite(t *testing.T) {
	e := open(t, 0, eventfd.Semaphore)
	type result struct {
		v   uint64
		err error
	}
	got := make(chan result, 1)
	go func() {
		v, err := e.Read()
		got <- result{v, err}
	}()
	if err := e.Write(1); err != nil {
		t.Fatal(err)
	}
	if r := <-got; r.v != 1 || r.err != nil {
		t.Fatalf("blocking Read = %d, %v; want 1", r.v, r.err)
	}
}

func TestOpenInvalid(t *testing.T) {
	for name, f := range map[string]func() (*eventfd.FD, error){
		"initial 1<<64-1": func() (*eventfd.FD, error) { return eventfd.Open(1<<64-1, 0) },
		"unknown flag":    func() (*eventfd.FD, error) { return eventfd.Open(0, 1<<20) },
	} {
		if e, err := f(); e != nil || err != evserr.ErrInvalid {
			t.Errorf("%s: Open = %v, %v; want ErrInvalid", name, e, err)
		}
	}
}
