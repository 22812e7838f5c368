package waitq_test

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/internal/waitq"
)

// A tsem is a minimal FIFO semaphore built on the protocol the way a
// primitive uses it: a waiter pushes itself under the lock, sleeps, and
// finishes; every locked section ends with Unlock, which serves the
// waiters the change may have unblocked and wakes them after unlocking.
type tsem struct {
	mu     sync.Mutex
	n      int // units; only with mu held
	closed bool
	q      waitq.Queue[int] // P: the units asked for, then handed
}

func (s *tsem) Lock() { s.mu.Lock() }

func (s *tsem) Unlock() {
	for w := s.q.Front(); w != nil && w.P <= s.n; w = s.q.Front() {
		s.n -= w.P
		s.q.Grant(w, w.P)
	}
	if s.closed {
		s.q.RejectAll()
	}
	woken := s.q.Woken()
	s.mu.Unlock()
	waitq.WakeAll(woken)
}

// Acquire takes n units, waiting in FIFO order.
func (s *tsem) Acquire(ctx context.Context, n int) (int, waitq.Result) {
	s.Lock()
	if s.q.Len() == 0 && n <= s.n {
		s.n -= n
		s.Unlock()
		return n, waitq.Granted
	}
	w := s.q.Push(ctx.Done(), n)
	s.Unlock()
	woke := w.Sleep()
	return s.q.Finish(s, w, woke)
}

func (s *tsem) Release(n int) {
	s.Lock()
	s.n += n
	s.Unlock()
}

func (s *tsem) Close() {
	s.Lock()
	s.closed = true
	s.Unlock()
}

// An acquired is what an Acquire returned.
type acquired struct {
	p int
	r waitq.Result
}

func (s *tsem) park(ctx context.Context, n int) <-chan acquired {
	return testkit.Park(func() acquired {
		p, r := s.Acquire(ctx, n)
		return acquired{p, r}
	})
}

func wantAcquired(t *testing.T, what string, ch <-chan acquired, p int, r waitq.Result) {
	t.Helper()
	synctest.Wait()
	select {
	case a := <-ch:
		if a.p != p || a.r != r {
			t.Fatalf("%s = (%d, %d), want (%d, %d)", what, a.p, a.r, p, r)
		}
	default:
		t.Fatalf("%s is still waiting", what)
	}
}

// lock is an Owner with nothing to serve.
type lock struct{ sync.Mutex }

var _ waitq.Owner = (*lock)(nil)

func closedChan() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

// TestFIFOOrder: waiters are served in the order they were queued, each
// with what its granter handed it.
func TestFIFOOrder(t *testing.T) {
	t.Run("queue", func(t *testing.T) {
		var o lock
		var q waitq.Queue[int]
		var ws []*waitq.Waiter[int]
		for i := range 5 {
			ws = append(ws, q.Push(nil, i))
		}
		if q.Len() != 5 {
			t.Fatalf("Len = %d", q.Len())
		}
		for i := range 5 {
			w := q.Front()
			if w != ws[i] || w.P != i {
				t.Fatalf("Front #%d asks for %d", i, w.P)
			}
			q.Grant(w, 10*i)
		}
		if q.Front() != nil || q.Len() != 0 {
			t.Fatal("queue not empty")
		}
		waitq.WakeAll(q.Woken())
		for i, w := range ws {
			if p, r := q.Finish(&o, w, w.Sleep()); p != 10*i || r != waitq.Granted {
				t.Fatalf("waiter %d: Finish = (%d, %d)", i, p, r)
			}
		}
	})
	t.Run("parked", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var s tsem
			var parked []<-chan acquired
			for i := range 4 {
				parked = append(parked, s.park(context.Background(), i+1))
			}
			s.Release(2) // not enough for the head (1) and the next (2) both
			wantAcquired(t, "first", parked[0], 1, waitq.Granted)
			testkit.Pending(t, parked[1])
			s.Release(1)
			wantAcquired(t, "second", parked[1], 2, waitq.Granted)
			s.Release(7)
			wantAcquired(t, "third", parked[2], 3, waitq.Granted)
			wantAcquired(t, "fourth", parked[3], 4, waitq.Granted)
		})
	})
}

// TestFrontSettlesCancelledHeads: Front skips, and settles as Cancelled,
// the waiters at the head whose context has ended, so that a granter
// never hands anything to a caller that has given up.
func TestFrontSettlesCancelledHeads(t *testing.T) {
	var o lock
	var q waitq.Queue[int]
	done := closedChan()
	a := q.Push(done, 1)
	b := q.Push(done, 2)
	live := q.Push(make(chan struct{}), 3)
	forever := q.Push(nil, 4)
	late := q.Push(done, 5) // behind a live one: not reached yet
	if w := q.Front(); w != live {
		t.Fatalf("Front asks for %d, want the live waiter", w.P)
	}
	if q.Len() != 3 {
		t.Fatalf("Len = %d after two cancelled heads, want 3", q.Len())
	}
	woken := q.Woken()
	waitq.WakeAll(woken)
	for _, w := range []*waitq.Waiter[int]{a, b} {
		if _, r := q.Finish(&o, w, w.Sleep()); r != waitq.Cancelled {
			t.Fatalf("cancelled head: %d, want Cancelled", r)
		}
	}
	q.Grant(live, 3)
	if q.Front() != forever { // no context: never cancelled
		t.Fatal("Front skipped a waiter without a context")
	}
	q.Grant(forever, 4)
	if w := q.Front(); w != nil || q.Len() != 0 {
		t.Fatal("Front returned a cancelled waiter")
	}
	waitq.WakeAll(q.Woken())
	for _, w := range []*waitq.Waiter[int]{live, forever} {
		if _, r := q.Finish(&o, w, w.Sleep()); r != waitq.Granted {
			t.Fatalf("Finish = %d, want Granted", r)
		}
	}
	if _, r := q.Finish(&o, late, late.Sleep()); r != waitq.Cancelled {
		t.Fatalf("late: %d", r)
	}
}

// TestHead: Head returns the head waiter while its context is live, and
// nil for an empty queue or a cancelled head, which it leaves queued for
// Front to settle.
func TestHead(t *testing.T) {
	var q waitq.Queue[int]
	if w := q.Head(); w != nil {
		t.Fatal("Head of an empty queue returned a waiter")
	}
	cancelled := q.Push(closedChan(), 1)
	live := q.Push(make(chan struct{}), 2)
	if w := q.Head(); w != nil {
		t.Fatalf("Head with a cancelled head = waiter %d, want nil", w.P)
	}
	if q.Len() != 2 || q.Woken() != nil {
		t.Fatalf("Head settled a waiter: Len = %d", q.Len())
	}
	if q.Front() != live || q.Head() != live {
		t.Fatal("after Front, Head is not the live waiter")
	}
	q.Remove(live)
	forever := q.Push(nil, 3)
	if q.Head() != forever {
		t.Fatal("Head skipped a waiter without a context")
	}
	q.Remove(forever)
	waitq.WakeAll(q.Woken())
	var o lock
	if _, r := q.Finish(&o, cancelled, cancelled.Sleep()); r != waitq.Cancelled {
		t.Fatalf("cancelled head: %d, want Cancelled", r)
	}
}

// TestFinish covers every way a wait ends.
func TestFinish(t *testing.T) {
	t.Run("closed", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var s tsem
			a := s.park(context.Background(), 1)
			b := s.park(context.Background(), 2)
			s.Close()
			wantAcquired(t, "a", a, 1, waitq.Closed)
			wantAcquired(t, "b", b, 2, waitq.Closed)
		})
	})
	t.Run("cancelled while queued: those behind are served", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := &tsem{n: 1}
			ctx, cancel := context.WithCancel(context.Background())
			head := s.park(ctx, 5)
			behind := s.park(context.Background(), 1) // 1 unit is there, but FIFO
			testkit.Pending(t, behind)
			cancel()
			wantAcquired(t, "cancelled head", head, 0, waitq.Cancelled)
			wantAcquired(t, "behind", behind, 1, waitq.Granted) // by the head's own Unlock
			if s.q.Len() != 0 {
				t.Fatalf("Len = %d", s.q.Len())
			}
		})
	})
	t.Run("granted just as the context ended", func(t *testing.T) {
		var o lock
		var q waitq.Queue[int]
		done := make(chan struct{})
		w := q.Push(done, 1)
		q.Grant(w, 7)
		waitq.WakeAll(q.Woken())
		close(done)
		// Sleep may pick either: both must report the grant.
		if p, r := q.Finish(&o, w, false); p != 7 || r != waitq.Granted {
			t.Fatalf("Finish after the context ended = (%d, %d), want the grant", p, r)
		}
		w = q.Push(done, 1)
		q.Grant(w, 8)
		waitq.WakeAll(q.Woken())
		if p, r := q.Finish(&o, w, w.Sleep()); p != 8 || r != waitq.Granted {
			t.Fatalf("Finish = (%d, %d)", p, r)
		}
	})
	t.Run("settled, its wake-up still on its way", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var o lock
			var q waitq.Queue[int]
			ctx, cancel := context.WithCancel(context.Background())
			o.Lock()
			w := q.Push(ctx.Done(), 1)
			o.Unlock()
			res := testkit.Park(func() acquired {
				p, r := q.Finish(&o, w, w.Sleep())
				return acquired{p, r}
			})
			o.Lock()
			q.Grant(w, 3) // settled while its context is live
			woken := q.Woken()
			o.Unlock()
			cancel() // the waiter wakes by its context, finds itself settled, waits for the token
			synctest.Wait()
			testkit.Pending(t, res)
			waitq.WakeAll(woken)
			wantAcquired(t, "Finish", res, 3, waitq.Granted)
		})
	})
}

// TestSelectable: a select-able waiter's Done channel is closed when it
// is settled; Settled reports its state; it is never cancelled by Front.
func TestSelectable(t *testing.T) {
	var q waitq.Queue[int]
	w := q.PushSelectable(7)
	if queued, _ := w.Settled(); !queued {
		t.Fatal("not queued")
	}
	plain := q.Push(nil, 1)
	if q.Front() != w || q.Len() != 2 {
		t.Fatal("the select-able waiter is not at the head")
	}
	q.Grant(w, 9)
	q.Grant(plain, 1)
	if testkit.IsClosed(w.Done()) {
		t.Fatal("Done closed before the wake-up")
	}
	waitq.WakeAll(q.Woken()) // one list: a close for one, a token for the other
	if !testkit.IsClosed(w.Done()) {
		t.Fatal("Done not closed once settled")
	}
	if queued, r := w.Settled(); queued || r != waitq.Granted || w.P != 9 {
		t.Fatalf("Settled = %v, %d; P = %d", queued, r, w.P)
	}
	if !plain.Sleep() {
		t.Fatal("the other waiter got no token")
	}

	gone := q.PushSelectable(1)
	q.Remove(gone)
	if q.Len() != 0 || q.Front() != nil || testkit.IsClosed(gone.Done()) {
		t.Fatal("Remove: still queued, or woken")
	}
	refused := q.PushSelectable(1)
	q.RejectAll()
	waitq.WakeAll(q.Woken())
	if queued, r := refused.Settled(); queued || r != waitq.Closed || !testkit.IsClosed(refused.Done()) {
		t.Fatalf("after RejectAll: %v, %d", queued, r)
	}
}

// TestPushFront: a kept record (a primitive's own, such as a lone slot)
// goes ahead of everyone, keeps its payload, and is never recycled.
func TestPushFront(t *testing.T) {
	var o lock
	var q waitq.Queue[int]
	var k waitq.Waiter[int]
	k.Keep()
	a := q.Push(nil, 1)
	b := q.Push(nil, 2)
	k.P = 9
	q.PushFront(&k)
	if q.Len() != 3 {
		t.Fatalf("Len = %d", q.Len())
	}
	for _, want := range []*waitq.Waiter[int]{&k, a, b} {
		w := q.Front()
		if w != want {
			t.Fatalf("Front asks for %d, want %d", w.P, want.P)
		}
		q.Grant(w, w.P)
	}
	waitq.WakeAll(q.Woken())
	if p, r := q.Finish(&o, &k, k.Sleep()); p != 9 || r != waitq.Granted || k.P != 9 {
		t.Fatalf("kept record: Finish = (%d, %d), P = %d", p, r, k.P)
	}
	for _, w := range []*waitq.Waiter[int]{a, b} {
		q.Finish(&o, w, w.Sleep())
	}
	// Into an empty queue: it is head and tail.
	q.PushFront(&k)
	c := q.Push(nil, 3)
	if q.Front() != &k {
		t.Fatal("PushFront into an empty queue: not the head")
	}
	q.Remove(&k)
	if q.Front() != c || q.Len() != 1 {
		t.Fatal("after removing the kept head")
	}
	for range 8 {
		if w := q.Push(nil, 0); w == &k {
			t.Fatal("a kept record was recycled")
		}
	}
}

// TestKeptRecordOutsideTheQueue: a primitive claims its kept record
// without the queue, looks at its context, and settles it.
func TestKeptRecordOutsideTheQueue(t *testing.T) {
	var o lock
	var q waitq.Queue[int]
	var k waitq.Waiter[int]
	k.Keep()
	if !k.Live() {
		t.Fatal("a record without a context is not live")
	}
	done := make(chan struct{})
	k.Arm(done)
	if !k.Live() {
		t.Fatal("live context: not live")
	}
	k.Settle(waitq.Granted, 5)
	if p, r := q.Finish(&o, &k, k.Sleep()); p != 5 || r != waitq.Granted {
		t.Fatalf("Finish = (%d, %d)", p, r)
	}
	if !k.Live() { // Finish forgot the context
		t.Fatal("context kept after Finish")
	}
	k.Arm(done)
	close(done)
	if k.Live() {
		t.Fatal("ended context: live")
	}
	k.Settle(waitq.Cancelled, 0)
	if _, r := q.Finish(&o, &k, k.Sleep()); r != waitq.Cancelled {
		t.Fatalf("Finish = %d", r)
	}
}

// TestRemove keeps the links and the length right wherever the waiter is.
func TestRemove(t *testing.T) {
	var q waitq.Queue[int]
	a, b, c := q.Push(nil, 1), q.Push(nil, 2), q.Push(nil, 3)
	q.Remove(b) // middle
	if q.Len() != 2 {
		t.Fatalf("Len = %d after Remove", q.Len())
	}
	q.Remove(c) // tail
	d := q.Push(nil, 4)
	q.Remove(a) // head
	if q.Front() != d || q.Len() != 1 {
		t.Fatal("links broken by Remove")
	}
	q.Remove(d)
	if q.Front() != nil || q.Len() != 0 {
		t.Fatal("not empty")
	}
	q.Push(nil, 5)
	if q.Front().P != 5 {
		t.Fatal("Push after emptying")
	}
}

// TestSleep parks until the waiter is settled or its context ends.
func TestSleep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var q waitq.Queue[int]
		done := make(chan struct{})
		w := q.Push(done, 1)
		woke := testkit.Park(w.Sleep)
		testkit.Pending(t, woke)
		close(done)
		synctest.Wait()
		if <-woke {
			t.Fatal("Sleep: woken, want the context's end")
		}
		forever := q.Push(nil, 1)
		woke = testkit.Park(forever.Sleep)
		testkit.Pending(t, woke)
		q.Grant(forever, 1)
		waitq.WakeAll(q.Woken())
		synctest.Wait()
		if !<-woke {
			t.Fatal("Sleep without a context: not woken")
		}
	})
}

// TestRecordsAreRecycled: waiting does not allocate once a queue has its
// records, on any path, and a handful of records serve every wait.
func TestRecordsAreRecycled(t *testing.T) {
	var o lock
	var q waitq.Queue[int]
	seen := map[*waitq.Waiter[int]]bool{}
	granted := func() {
		o.Lock()
		w := q.Push(nil, 1)
		seen[w] = true
		q.Grant(w, 2)
		woken := q.Woken()
		o.Unlock()
		waitq.WakeAll(woken)
		if p, r := q.Finish(&o, w, w.Sleep()); p != 2 || r != waitq.Granted {
			panic("not granted")
		}
	}
	done := closedChan()
	cancelled := func() {
		o.Lock()
		w := q.Push(done, 1)
		seen[w] = true
		o.Unlock()
		if _, r := q.Finish(&o, w, false); r != waitq.Cancelled {
			panic("not cancelled")
		}
	}
	granted()
	testkit.NoAllocs(t, "granted wait", granted)
	testkit.NoAllocs(t, "cancelled wait", cancelled)
	if len(seen) > 8 {
		t.Fatalf("%d records for one waiter at a time: not recycled", len(seen))
	}
}

// TestRecyclingUnderContention: waiters that give their records back
// concurrently, some cancelled, never share one: mutual exclusion holds
// and no unit is lost.
func TestRecyclingUnderContention(t *testing.T) {
	s := &tsem{n: 2}
	var inUse atomic.Int32
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 1))
			for range 300 {
				ctx, stop := testkit.CancelSoonOrNever(r)
				_, res := s.Acquire(ctx, 1)
				stop()
				if res != waitq.Granted {
					continue
				}
				if inUse.Add(1) > 2 {
					t.Error("more than 2 holders")
				}
				inUse.Add(-1)
				s.Release(1)
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second): // a failure detector, not synchronisation
		t.Fatal("waiters stuck: a wake-up was lost")
	}
	if s.n != 2 || s.q.Len() != 0 {
		t.Fatalf("n = %d, Len = %d", s.n, s.q.Len())
	}
}

// TestRecordsStayInTheirBubble: each synctest bubble waits on its own
// queue's records; a channel made in one bubble is never handed to a
// goroutine in another (that panics), however many bubbles run in turn.
func TestRecordsStayInTheirBubble(t *testing.T) {
	for range 3 {
		synctest.Test(t, func(t *testing.T) {
			var s tsem
			var parked []<-chan acquired
			for range 6 { // more than one batch of records
				parked = append(parked, s.park(context.Background(), 1))
			}
			s.Release(6)
			for _, p := range parked {
				wantAcquired(t, "waiter", p, 1, waitq.Granted)
			}
			ready := waitq.ClosedChan() // made outside every bubble, always closed
			<-ready
		})
	}
}
