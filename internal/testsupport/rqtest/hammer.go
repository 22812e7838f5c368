package rqtest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/readyq"
)

// hammerKeys is the key space of the hammer tests: small, so that marks
// pile up on items in flight.
const hammerKeys = 8

// ledger is what the hammer tests record per key, all in atomics. clock
// is one shared counter, so its values order events across goroutines.
type ledger struct {
	clock    atomic.Uint64
	held     [hammerKeys]atomic.Bool   // a consumer holds the key
	lastMark [hammerKeys]atomic.Uint64 // clock just before the last Add
	lastHand [hammerKeys]atomic.Uint64 // clock just after the last hand-out
	handed   atomic.Int64
	errs     chan error
}

func newLedger() *ledger { return &ledger{errs: make(chan error, 1)} }

func (l *ledger) fail(err error) {
	select {
	case l.errs <- err:
	default:
	}
}

// mark records that a producer is about to mark k.
func (l *ledger) mark(k int) {
	s := l.clock.Add(1)
	for {
		old := l.lastMark[k].Load()
		if old >= s || l.lastMark[k].CompareAndSwap(old, s) {
			return
		}
	}
}

// take checks and records the hand-out of a batch: no key may be held
// twice at once.
func (l *ledger) take(items []int) {
	for _, k := range items {
		if !l.held[k].CompareAndSwap(false, true) {
			l.fail(fmt.Errorf("key %d handed to two consumers at once", k))
		}
		l.lastHand[k].Store(l.clock.Add(1))
	}
	l.handed.Add(int64(len(items)))
}

// release gives the keys back, before Done hands them to anyone else.
func (l *ledger) release(items []int) {
	for _, k := range items {
		l.held[k].Store(false)
	}
}

// conserved checks that each key's last mark was followed by a hand-out.
func (l *ledger) conserved(t *testing.T) {
	t.Helper()
	for k := range hammerKeys {
		if m, h := l.lastMark[k].Load(), l.lastHand[k].Load(); m != 0 && h < m {
			t.Errorf("key %d: last marked at %d, last handed out at %d: a mark was lost", k, m, h)
		}
	}
}

// consume is a consumer: it takes batches of random size, sometimes with
// a context cancelled at a random moment, until the queue is exhausted.
func consume(q Queue[int], l *ledger, mode readyq.Mode, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 1))
	var buf []int
	for {
		ctx, stop := testkit.CancelSoonOrNever(r)
		var err error
		buf, err = q.WaitAppend(ctx, buf[:0], 1+r.IntN(4))
		stop()
		switch {
		case errors.Is(err, readyq.ErrClosed):
			return
		case err != nil:
			continue
		}
		l.take(buf)
		if r.IntN(4) == 0 {
			runtime.Gosched() // hold the keys a while
		}
		l.release(buf)
		if mode == readyq.OneShot {
			for _, k := range buf {
				q.Rearm(k) // before Done, so that Done queues a kept mark
			}
		}
		if n := q.Done(buf...); n != len(buf) {
			l.fail(fmt.Errorf("Done(%v) = %d", buf, n))
		}
	}
}

// testConcurrentHandOutsExclusiveAndConserved has several producers mark
// keys of a small key space while several consumers take and finish them,
// in each mode. No key may be held by two consumers at once, and once the
// producers have stopped and the queue has drained, each key's last mark
// must have been followed by a hand-out.
func testConcurrentHandOutsExclusiveAndConserved(t *testing.T, x Impl) {
	for _, mode := range []readyq.Mode{readyq.Edge, readyq.Level, readyq.OneShot} {
		t.Run("mode="+mode.String(), func(t *testing.T) {
			for seed := range uint64(4) {
				hammer(t, mode, seed)
			}
		})
	}
}

func hammer(t *testing.T, mode readyq.Mode, seed uint64) {
	const producers, consumers, rounds = 4, 3, 3000
	l := newLedger()
	c := readyq.Config[int]{Mode: mode}
	if mode == readyq.Level { // still ready while a mark is not served
		c.Recheck = func(k int) bool { return l.lastMark[k].Load() > l.lastHand[k].Load() }
	}
	q := readyq.NewWithConfig(c)
	var cw, pw sync.WaitGroup
	for c := range consumers {
		cw.Go(func() { consume(q, l, mode, seed*100+uint64(c)) })
	}
	stopObserver := Observe(q)
	for p := range producers {
		pw.Go(func() {
			r := rand.New(rand.NewPCG(seed, 10+uint64(p)))
			for range rounds {
				k := r.IntN(hammerKeys)
				l.mark(k)
				q.Add(k)
			}
		})
	}
	pw.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a failure detector
	defer cancel()
	if err := q.Drain(ctx); err != nil {
		q.Close()
		cw.Wait()
		t.Fatalf("Drain: %v (%v): a mark was lost or an item never finished", err, q)
	}
	q.Close()
	cw.Wait()
	stopObserver()
	select {
	case err := <-l.errs:
		t.Fatal(err)
	default:
	}
	l.conserved(t)
	if st := q.Stats(); st.Queued != 0 || st.InFlight != 0 || st.Waiting != 0 {
		t.Fatalf("final state %v", st)
	}
}

// Observe formats q (its stats) in a loop until stop is called, as a
// monitoring goroutine would.
func Observe(q fmt.Stringer) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for n := 0; ; n++ {
			select {
			case <-quit:
				return
			default:
			}
			_ = q.String()
			if n%16 == 0 {
				runtime.Gosched()
			}
		}
	}()
	return func() { close(quit); <-done }
}

// testCloseDuringTrafficReleasesEveryone closes the queue while producers
// and consumers are busy: every consumer must end with ErrClosed, no key
// may be held twice, and nothing may be left queued or in flight.
func testCloseDuringTrafficReleasesEveryone(t *testing.T, x Impl) {
	for seed := range uint64(8) {
		l := newLedger()
		q := x.New()
		var cw, pw sync.WaitGroup
		for c := range 3 {
			cw.Go(func() { consume(q, l, readyq.Edge, seed*10+uint64(c)) })
		}
		for p := range 3 {
			pw.Go(func() {
				r := rand.New(rand.NewPCG(seed, uint64(p)))
				for i := range 2000 {
					if p == 0 && i == 1000 {
						q.Close()
					}
					q.Add(r.IntN(hammerKeys))
				}
			})
		}
		pw.Wait()
		cw.Wait() // hangs (and the test times out) if a consumer is never released
		select {
		case err := <-l.errs:
			t.Fatal(err)
		default:
		}
		if st := q.Stats(); st.Queued != 0 || st.InFlight != 0 || !st.Closed {
			t.Fatalf("seed %d: final state %v", seed, st)
		}
	}
}
