package poll_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/poll"
	"github.com/evsync/evsync/signal"
)

// TestNoWakeupLostBetweenWritesAndWaits: writers add to many edge-
// triggered signals while one consumer waits and takes what each reported
// signal holds. Every unit written is taken, so no write's wakeup was
// lost between the write and a Wait. A lost one leaves the consumer
// blocked with units left, which the deadline turns into a failure.
func TestNoWakeupLostBetweenWritesAndWaits(t *testing.T) {
	const sources, writers, each = 64, 4, 500
	var set poll.Set[int]
	defer set.Close()
	sigs := make([]*signal.Signal, sources)
	for i := range sigs {
		sigs[i] = signal.New(0)
		if err := set.Add(sigs[i], i, poll.In, poll.Edge); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for j := range each {
				sigs[(w*each+j)%sources].Add(1)
			}
		})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var taken uint64
	var buf []poll.Event[int]
	for taken < writers*each {
		var err error
		if buf, err = set.Wait(ctx, buf[:0], 16); err != nil {
			t.Fatalf("Wait with %d of %d units taken: %v", taken, writers*each, err)
		}
		for _, e := range buf {
			taken += sigs[e.Key].Take()
		}
	}
	wg.Wait()
	for i, s := range sigs {
		if n := s.Count(); n != 0 {
			t.Fatalf("signal %d holds %d after all was taken", i, n)
		}
	}
}

// TestNoEventAfterRemoveReturns: a writer keeps a level-triggered signal
// readable. Once Remove has returned, no Wait reports it, even while the
// writer's wakeups keep coming.
func TestNoEventAfterRemoveReturns(t *testing.T) {
	var set poll.Set[string]
	defer set.Close()
	sig, other := signal.New(1), signal.New(1)
	if err := set.Add(sig, "removed", poll.In, poll.Level); err != nil {
		t.Fatal(err)
	}
	if err := set.Add(other, "other", poll.In, poll.Level); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
				sig.Add(1)
				sig.Take()
				sig.Add(1)
			}
		}
	})
	for range 100 {
		set.TryWait(nil, 2)
	}
	if err := set.Remove(sig); err != nil {
		t.Fatal(err)
	}
	for range 1000 {
		for _, e := range set.TryWait(nil, 2) {
			if e.Key == "removed" {
				t.Fatal("a Wait reported a source after its Remove returned")
			}
		}
	}
	close(stop)
	wg.Wait()
}

// TestCloseWakesEveryWaiter: every blocked Wait returns ErrClosed at
// Close.
func TestCloseWakesEveryWaiter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var set poll.Set[int]
		if err := set.Add(signal.New(0), 0, poll.In, poll.Edge); err != nil {
			t.Fatal(err)
		}
		const waiters = 5
		errs := make(chan error, waiters)
		for range waiters {
			go func() {
				_, err := set.Wait(context.Background(), nil, 4)
				errs <- err
			}()
		}
		synctest.Wait() // all blocked
		set.Close()
		for range waiters {
			if err := <-errs; !errors.Is(err, poll.ErrClosed) {
				t.Fatalf("a blocked Wait returned %v at Close, want ErrClosed", err)
			}
		}
	})
}

// TestOneWakeupWakesOneWaiter: with several goroutines blocked in Wait,
// one write to an edge-triggered source wakes one of them, the first to
// block (epoll's EPOLLEXCLUSIVE, in FIFO order), with the one event.
func TestOneWakeupWakesOneWaiter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var set poll.Set[int]
		sig := signal.New(0)
		if err := set.Add(sig, 7, poll.In, poll.Edge); err != nil {
			t.Fatal(err)
		}
		const waiters = 3
		type result struct {
			who int
			evs []poll.Event[int]
			err error
		}
		results := make(chan result, waiters)
		for who := range waiters {
			go func() {
				evs, err := set.Wait(context.Background(), nil, 8)
				results <- result{who, evs, err}
			}()
			synctest.Wait() // blocked, in this order
		}
		sig.Add(1)
		synctest.Wait()
		if n := len(results); n != 1 {
			t.Fatalf("one write woke %d waiters, want 1", n)
		}
		if r := <-results; r.who != 0 || r.err != nil || len(r.evs) != 1 || r.evs[0] != (poll.Event[int]{Key: 7, Events: poll.In}) {
			t.Fatalf("the woken waiter: %+v, want the first with [{7 in}]", r)
		}
		set.Close()
		for range waiters - 1 {
			if r := <-results; !errors.Is(r.err, poll.ErrClosed) {
				t.Fatalf("a waiter left at Close: %+v, want ErrClosed", r)
			}
		}
	})
}

// TestOneEdgeIsReportedOnce: after one write, goroutines racing in
// TryWait report the edge-triggered source once between them.
func TestOneEdgeIsReportedOnce(t *testing.T) {
	for range 100 {
		var set poll.Set[int]
		sig := signal.New(0)
		if err := set.Add(sig, 1, poll.In, poll.Edge); err != nil {
			t.Fatal(err)
		}
		sig.Add(1)
		var reports atomic.Int64
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for range 10 {
					reports.Add(int64(len(set.TryWait(nil, 4))))
				}
			})
		}
		wg.Wait()
		if n := reports.Load(); n != 1 {
			t.Fatalf("one write reported %d times, want once", n)
		}
		set.Close()
	}
}

// TestCancelledWaitLosesNothing: a Wait whose context ends while it is
// blocked returns ctx.Err(), and the next write's event goes to the next
// Wait.
func TestCancelledWaitLosesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var set poll.Set[int]
		defer set.Close()
		sig := signal.New(0)
		if err := set.Add(sig, 1, poll.In, poll.Edge); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() {
			_, err := set.Wait(ctx, nil, 4)
			done <- err
		}()
		synctest.Wait()
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("the cancelled Wait returned %v", err)
		}
		sig.Add(1)
		if evs, err := set.Wait(context.Background(), nil, 4); err != nil || len(evs) != 1 {
			t.Fatalf("the next Wait = %v, %v, want the event", evs, err)
		}
	})
}

// TestReadyFires: Ready fires at the first queued source, and at Close.
func TestReadyFires(t *testing.T) {
	var set poll.Set[int]
	sig := signal.New(0)
	if err := set.Add(sig, 1, poll.In, poll.Level); err != nil {
		t.Fatal(err)
	}
	ready := set.Ready()
	select {
	case <-ready:
		t.Fatal("Ready fired with nothing queued")
	default:
	}
	sig.Add(1)
	select {
	case <-ready:
	default:
		t.Fatal("Ready did not fire when a source was queued")
	}
	set.TryWait(nil, 4)
	sig.Take()
	set.TryWait(nil, 4) // b is dropped: nothing queued
	ready = set.Ready()
	set.Close()
	select {
	case <-ready:
	default:
		t.Fatal("Ready did not fire at Close")
	}
}
