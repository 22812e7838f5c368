package faults_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/evsync/evsync/semaphore"
	"github.com/evsync/evsync/signal"
)

// edgeAmount draws an amount at the top of the uint64 range: 0, 1, 2,
// Max-1, Max (1<<64-2) and 1<<64-1, which is always invalid.
func edgeAmount(r *rand.Rand) uint64 {
	return [...]uint64{0, 1, 1, 2, semaphore.Max - 1, semaphore.Max, semaphore.Max, 1<<64 - 1}[r.IntN(8)]
}

// TestSemaphoreAtMaxConserves storms a semaphore that starts full at Max
// (1<<64-2), with the default limit and with WithLimit(Max), with every
// call for amounts of 1, Max and around: Release and ReleaseWait of 1
// block or fail until an acquire makes room, a Reservation of Max handed
// back when the count has refilled is kept (Cancel reports false). The
// books are kept in 128 bits: count + taken = Max + released, exactly.
func TestSemaphoreAtMaxConserves(t *testing.T) {
	const workers, rounds = 6, 1500
	for _, limited := range []bool{false, true} {
		t.Run(fmt.Sprintf("WithLimit=%v", limited), func(t *testing.T) {
			var opts []semaphore.Option
			if limited {
				opts = append(opts, semaphore.WithLimit(semaphore.Max))
			}
			s := semaphore.New(semaphore.Max, opts...)
			var l ledger
			var c crew
			for w := range workers {
				c.Go(func() {
					r := rand.New(rand.NewPCG(11, uint64(w)))
					var b books
					defer l.merge(&b)
					for range rounds {
						if err := semStep(s, r, &b, semaphore.Max, edgeAmount(r)); err != nil {
							t.Errorf("%v (%v)", err, s)
							return
						}
					}
				})
			}
			c.Wait(t, s, s.Close)
			in, out := l.in.get(), l.out.get()
			if got, want := of(s.Count()).plus(out), of(semaphore.Max).plus(in); got != want {
				t.Fatalf("count %d + taken %v = %v, initial Max + released %v = %v", s.Count(), out, got, in, want)
			}
			closeWithin(t, s)
		})
	}
}

// TestSignalAtMaxConserves storms a signal that starts at Max with adds
// and waits of 1, Max and around, for each signal configuration: Add of 1
// fails and AddWait of 1 waits until a read empties the count, and every
// unit is read once: Σ reads + count = Max + Σ adds, in 128 bits.
func TestSignalAtMaxConserves(t *testing.T) {
	const workers, rounds = 6, 1200
	for _, cfg := range signalConfigs {
		t.Run(cfg.name, func(t *testing.T) {
			s := signal.New(signal.Max, cfg.opts...)
			var l ledger
			var c crew
			for w := range workers {
				c.Go(func() {
					r := rand.New(rand.NewPCG(12, uint64(w)))
					var b books
					defer l.merge(&b)
					for range rounds {
						if err := signalStep(s, r, &b, edgeAmount(r)); err != nil {
							t.Errorf("%v (%v)", err, s)
							return
						}
					}
				})
			}
			c.Wait(t, s, s.Close)
			in, out := l.in.get(), l.out.get()
			if got, want := out.plus(of(s.Count())), of(signal.Max).plus(in); got != want {
				t.Fatalf("read %v + count %d = %v, initial Max + added %v = %v", out, s.Count(), got, in, want)
			}
			closeWithin(t, s)
		})
	}
}

// writesAtMax are the blocking writes the served-by-readers tests make
// against a full counter: FIFO among themselves, so the Max in the middle
// holds up the 1 behind it until the count is empty.
var writesAtMax = []uint64{1, 1, signal.Max, 1, signal.Max, 1}

// TestSignalAddWaitAtMaxServedByReaders starts writers blocked in
// AddWait against a signal at Max (adds of 1 and of Max, which needs the
// count empty) and lets concurrent readers Take and Wait until every
// writer is in: each writer returns nil, and Σ reads + count = Max + Σ
// writes, in 128 bits.
func TestSignalAddWaitAtMaxServedByReaders(t *testing.T) {
	for _, cfg := range signalConfigs {
		t.Run(cfg.name, func(t *testing.T) {
			s := signal.New(signal.Max, cfg.opts...)
			var l ledger
			var c crew
			var writing atomic.Int32
			writing.Store(int32(len(writesAtMax)))
			for _, n := range writesAtMax {
				c.Go(func() {
					defer writing.Add(-1)
					var b books
					defer l.merge(&b)
					if err := s.AddWait(context.Background(), n); err != nil {
						t.Errorf("AddWait(%d) = %v", n, err)
						return
					}
					b.in.add(n)
				})
			}
			for k := range 3 {
				c.Go(func() {
					r := rand.New(rand.NewPCG(13, uint64(k)))
					var b books
					defer l.merge(&b)
					for writing.Load() != 0 {
						if r.IntN(2) == 0 {
							b.out.add(s.Take())
							continue
						}
						ctx, stop := stormCtx(r)
						v, err := s.Wait(ctx)
						stop()
						b.out.add(v)
						if err := waitResult(ctx, v, err); err != nil {
							t.Error(err)
							return
						}
					}
				})
			}
			c.Wait(t, s, s.Close)
			in, out := l.in.get(), l.out.get()
			if got, want := out.plus(of(s.Count())), of(signal.Max).plus(in); got != want {
				t.Fatalf("read %v + count %d = %v, Max + added %v = %v", out, s.Count(), got, in, want)
			}
			closeWithin(t, s)
		})
	}
}

// TestSemaphoreReleaseWaitAtMaxServedByAcquirers is the semaphore's
// version: writers blocked in ReleaseWait against a full semaphore (count
// and limit Max) are let in by concurrent acquirers of 1 and of Max, and
// count + taken = Max + released, in 128 bits.
func TestSemaphoreReleaseWaitAtMaxServedByAcquirers(t *testing.T) {
	s := semaphore.New(semaphore.Max, semaphore.WithLimit(semaphore.Max))
	var l ledger
	var c crew
	var writing atomic.Int32
	writing.Store(int32(len(writesAtMax)))
	for _, n := range writesAtMax {
		c.Go(func() {
			defer writing.Add(-1)
			var b books
			defer l.merge(&b)
			if err := s.ReleaseWait(context.Background(), n); err != nil {
				t.Errorf("ReleaseWait(%d) = %v", n, err)
				return
			}
			b.in.add(n)
		})
	}
	for k := range 3 {
		c.Go(func() {
			r := rand.New(rand.NewPCG(14, uint64(k)))
			var b books
			defer l.merge(&b)
			for writing.Load() != 0 {
				// Amounts of 1 and Max alone could strand the count at
				// Max-1 in front of a writer of Max (see ReleaseWait's
				// doc): some acquirers take whatever is there.
				n := [...]uint64{1, 1, semaphore.Max, s.Count()}[r.IntN(4)]
				if r.IntN(2) == 0 {
					if s.TryAcquire(n) {
						b.out.add(n)
					}
					continue
				}
				ctx, stop := stormCtx(r)
				err := s.Acquire(ctx, n)
				stop()
				if err == nil {
					b.out.add(n)
				} else if err := ctxErr("Acquire", ctx, err); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	c.Wait(t, s, s.Close)
	in, out := l.in.get(), l.out.get()
	if got, want := of(s.Count()).plus(out), of(semaphore.Max).plus(in); got != want {
		t.Fatalf("count %d + taken %v = %v, Max + released %v = %v", s.Count(), out, got, in, want)
	}
	closeWithin(t, s)
}
