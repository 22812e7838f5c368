package spin_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/evsync/evsync/internal/spin"
)

const limit = 1<<64 - 2

func TestCountAddBounds(t *testing.T) {
	var c spin.Count
	if err := c.Add(limit, limit); err != nil {
		t.Fatal(err)
	}
	if err := c.Add(1, limit); !errors.Is(err, spin.ErrWouldBlock) || c.Load() != limit {
		t.Fatalf("Add past lim: %v, count %d", err, c.Load())
	}
	if err := c.Add(0, limit); err != nil {
		t.Fatalf("Add(0) at lim: %v", err)
	}
}

func TestCountCloseKeepsValue(t *testing.T) {
	var c spin.Count
	c.Store(5)
	if !c.Close() || c.Close() {
		t.Fatal("Close must report true once, then false")
	}
	if !c.Closed() || c.Load() != 5 {
		t.Fatalf("closed=%v load=%d", c.Closed(), c.Load())
	}
	if err := c.Add(0, limit); !errors.Is(err, spin.ErrClosed) {
		t.Fatalf("Add after Close: %v", err)
	}
	if !c.Sub(2) || c.Sub(4) || c.Load() != 3 {
		t.Fatalf("Sub after Close: load %d", c.Load())
	}
	if !c.HandBack(2, limit) || c.Load() != 5 {
		t.Fatalf("HandBack after Close: load %d", c.Load())
	}
	if c.TakeAll() != 5 || c.TakeAll() != 0 {
		t.Fatal("TakeAll after Close")
	}
}

func TestCountHandBackRespectsLimit(t *testing.T) {
	var c spin.Count
	c.Store(9)
	if c.HandBack(2, 10) || c.Load() != 9 {
		t.Fatal("HandBack past lim must change nothing")
	}
}

// TestCountCloseRacesWriters: a write either lands before Close (and is
// readable afterwards) or is refused; none is lost.
func TestCountCloseRacesWriters(t *testing.T) {
	for range 50 {
		var c spin.Count
		var wg sync.WaitGroup
		var mu sync.Mutex
		accepted := uint64(0)
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 200 {
					if c.Add(1, limit) == nil {
						mu.Lock()
						accepted++
						mu.Unlock()
					}
				}
			}()
		}
		c.Close()
		wg.Wait()
		if c.Load() != accepted {
			t.Fatalf("accepted %d writes, %d readable after Close", accepted, c.Load())
		}
	}
}

func TestQueueFIFOAndRemove(t *testing.T) {
	var q spin.Queue
	var l spin.Lock
	ctx := context.Background()
	a, b, c := q.Get(ctx, 1), q.Get(ctx, 2), q.Get(ctx, 3)
	q.Push(a)
	q.Push(b)
	q.Push(c)
	q.Remove(b)
	if q.Len() != 2 || q.Front() != a {
		t.Fatalf("len %d", q.Len())
	}
	l.Lock()
	q.Grant(&l, a, 1)
	if q.Front() != c {
		t.Fatal("order after Grant")
	}
	q.RejectAll(&l)
	l.Unlock()
	if q.Len() != 0 || q.Front() != nil {
		t.Fatal("RejectAll left waiters")
	}
	if s, ok := a.Settled(); !s || !ok {
		t.Fatal("a not granted")
	}
	if s, ok := c.Settled(); !s || ok {
		t.Fatal("c not rejected")
	}
}

func TestFrontDropsCancelledWaiters(t *testing.T) {
	var q spin.Queue
	ctx, cancel := context.WithCancel(context.Background())
	gone, live := q.Get(ctx, 1), q.Get(context.Background(), 1)
	q.Push(gone)
	q.Push(live)
	cancel()
	if q.Front() != live || q.Len() != 1 {
		t.Fatal("a waiter whose context is done must not be served")
	}
}

func TestParkOutcomes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu spin.Lock
		var q spin.Queue
		park := func(ctx context.Context) (*spin.Waiter, <-chan spin.Outcome) {
			w := q.Get(ctx, 1)
			mu.Lock()
			q.Push(w)
			mu.Unlock()
			out := make(chan spin.Outcome, 1)
			go func() {
				o := q.Park(ctx, &mu, w)
				if o == spin.Cancelled {
					mu.Unlock() // Park returns Cancelled with mu held
				}
				out <- o
			}()
			synctest.Wait()
			return w, out
		}
		w, out := park(context.Background())
		mu.Lock()
		q.Grant(&mu, w, 1)
		mu.Unlock()
		if o := <-out; o != spin.Granted {
			t.Fatalf("granted: %v", o)
		}
		ctx, cancel := context.WithCancel(context.Background())
		_, out = park(ctx)
		cancel()
		if o := <-out; o != spin.Cancelled || q.Len() != 0 {
			t.Fatalf("cancelled: %v, len %d", o, q.Len())
		}
		_, out = park(context.Background())
		mu.Lock()
		q.RejectAll(&mu)
		mu.Unlock()
		if o := <-out; o != spin.Rejected {
			t.Fatalf("rejected: %v", o)
		}
		ctx, cancel = context.WithCancel(context.Background())
		w, out = park(ctx)
		mu.Lock()
		q.Grant(&mu, w, 1)
		cancel() // both ready when Park runs: either way it is a success
		mu.Unlock()
		if o := <-out; o != spin.Granted && o != spin.GrantedLate {
			t.Fatalf("grant racing cancel: %v", o)
		}
	})
}

func TestNotifier(t *testing.T) {
	var mu spin.Lock
	var n spin.Notifier
	var c spin.Count
	ch := n.Ready(&mu, &c)
	if !n.Armed() {
		t.Fatal("Ready at 0 must arm")
	}
	mu.Lock()
	n.FireIf(&c) // count 0: nothing
	mu.Unlock()
	select {
	case <-ch:
		t.Fatal("fired at 0")
	default:
	}
	_ = c.Add(1, limit)
	mu.Lock()
	n.FireIf(&c)
	mu.Unlock()
	<-ch
	if n.Armed() {
		t.Fatal("still armed after Fire")
	}
	<-n.Ready(&mu, &c) // non-zero: the shared closed channel
}
