package faults_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/evsync/evsync/coalesce"
	"github.com/evsync/evsync/semaphore"
	"github.com/evsync/evsync/signal"
)

// closeRaces is how many times each Close race runs.
const closeRaces = 300

// raceClose runs each of ops and Close on c at the same moment (one start
// barrier), closeRaces times over a fresh c from setup, and hands each
// run to check. The watchdog's rescue is a second Close, which frees
// nothing here: a call still stuck after Close has returned fails.
func raceClose[C interface{ Close() }](t *testing.T, setup func() C, ops func(c C, r *rand.Rand) []func(), check func(c C) error) {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	for i := range closeRaces {
		c := setup()
		fs := append(ops(c, r), c.Close)
		together(t, describe("race %d: %v", i, c), c.Close, fs...)
		if err := check(c); err != nil {
			t.Fatalf("race %d: %v", i, err)
		}
	}
}

// TestSemaphoreCloseRacesEveryCall races each semaphore call with Close:
// a call either took effect before Close or returns ErrClosed (an acquire
// also succeeds after Close while there are units, and a release is taken
// back after Close), no unit is lost, and every waiter returns.
func TestSemaphoreCloseRacesEveryCall(t *testing.T) {
	newSem := func(initial uint64) func() *semaphore.Semaphore {
		return func() *semaphore.Semaphore { return semaphore.New(initial, semaphore.WithLimit(2)) }
	}
	t.Run("Acquire", func(t *testing.T) {
		var acqErr, relErr error
		raceClose(t, newSem(0), func(s *semaphore.Semaphore, _ *rand.Rand) []func() {
			return []func(){
				func() { acqErr = s.Acquire(context.Background(), 1) },
				func() { relErr = s.Release(1) },
			}
		}, func(s *semaphore.Semaphore) error {
			// The Release always takes effect (a closed semaphore takes
			// units back); the acquire gets the unit unless Close refused
			// it first, and then the unit stays: none is lost.
			if relErr != nil || s.Count() != b2u(acqErr != nil) {
				return fmt.Errorf("Acquire = %v, Release = %v, count %d", acqErr, relErr, s.Count())
			}
			return oneOf("Acquire", acqErr, nil, semaphore.ErrClosed)
		})
	})
	t.Run("AcquireCancelled", func(t *testing.T) {
		var acqErr error
		var ctx context.Context
		raceClose(t, newSem(0), func(s *semaphore.Semaphore, _ *rand.Rand) []func() {
			c, cancel := context.WithCancel(context.Background())
			ctx = c
			return []func(){func() { acqErr = s.Acquire(c, 1) }, cancel}
		}, func(s *semaphore.Semaphore) error {
			return oneOf("Acquire", acqErr, semaphore.ErrClosed, ctx.Err())
		})
	})
	t.Run("TryAcquire", func(t *testing.T) {
		var ok bool
		raceClose(t, newSem(1), func(s *semaphore.Semaphore, _ *rand.Rand) []func() {
			return []func(){func() { ok = s.TryAcquire(1) }}
		}, func(s *semaphore.Semaphore) error {
			if !ok || s.Count() != 0 {
				return fmt.Errorf("TryAcquire of a unit released before Close = %v, count %d", ok, s.Count())
			}
			return nil
		})
	})
	t.Run("Release", func(t *testing.T) {
		var err error
		raceClose(t, newSem(0), func(s *semaphore.Semaphore, _ *rand.Rand) []func() {
			return []func(){func() { err = s.Release(1) }}
		}, func(s *semaphore.Semaphore) error {
			if want := b2u(err == nil); s.Count() != want || s.TryAcquire(1) != (want == 1) {
				return fmt.Errorf("Release = %v, then count %d", err, s.Count())
			}
			return oneOf("Release", err, nil, semaphore.ErrClosed)
		})
	})
	t.Run("ReleaseWait", func(t *testing.T) {
		var err error
		var took bool
		raceClose(t, newSem(2), func(s *semaphore.Semaphore, _ *rand.Rand) []func() {
			return []func(){
				func() { err = s.ReleaseWait(context.Background(), 1) }, // full: waits for room
				func() { took = s.TryAcquire(1) },
			}
		}, func(s *semaphore.Semaphore) error {
			if got, want := s.Count()+b2u(took), 2+b2u(err == nil); got != want {
				return fmt.Errorf("ReleaseWait = %v, TryAcquire = %v, count %d", err, took, s.Count())
			}
			return oneOf("ReleaseWait", err, nil, semaphore.ErrClosed)
		})
	})
	t.Run("Reserve", func(t *testing.T) {
		var res *semaphore.Reservation
		var resErr, relErr error
		raceClose(t, newSem(0), func(s *semaphore.Semaphore, _ *rand.Rand) []func() {
			return []func(){
				func() { res, resErr = s.Reserve(1) },
				func() { relErr = s.Release(1) },
			}
		}, func(s *semaphore.Semaphore) error {
			return checkReserveAfterClose(s, res, resErr, relErr)
		})
	})
	t.Run("ReservationCancel", func(t *testing.T) {
		var cancelled bool
		var relErr error
		raceClose(t, newSem(0), func(s *semaphore.Semaphore, _ *rand.Rand) []func() {
			res, err := s.Reserve(1) // queued: the count is 0
			if err != nil {
				t.Fatal(err)
			}
			return []func(){
				func() { cancelled = res.Cancel() },
				func() { relErr = s.Release(1) },
			}
		}, func(s *semaphore.Semaphore) error {
			// Whether it was granted, queued or refused when Cancel ran,
			// the caller holds nothing afterwards.
			if !cancelled || s.Count() != b2u(relErr == nil) {
				return fmt.Errorf("Cancel = %v, Release = %v, count %d", cancelled, relErr, s.Count())
			}
			return nil
		})
	})
	t.Run("Ready", func(t *testing.T) {
		raceClose(t, newSem(0), func(s *semaphore.Semaphore, _ *rand.Rand) []func() {
			return []func(){func() { <-s.Ready() }} // a hang is caught by the watchdog
		}, func(*semaphore.Semaphore) error { return nil })
	})
	t.Run("Close", func(t *testing.T) {
		raceClose(t, newSem(1), func(s *semaphore.Semaphore, _ *rand.Rand) []func() {
			return []func(){s.Close, s.Close}
		}, func(s *semaphore.Semaphore) error {
			if st := s.Stats(); !st.Closed || st.Count != 1 {
				return fmt.Errorf("after racing Closes: %v", st)
			}
			return nil
		})
	})
}

// checkReserveAfterClose checks a Reserve(1) that raced Release(1) and
// Close on an empty semaphore: refused, or settled by Close (granted iff
// the unit was released), and a granted one gives its unit back when
// cancelled after Close.
func checkReserveAfterClose(s *semaphore.Semaphore, res *semaphore.Reservation, resErr, relErr error) error {
	released := b2u(relErr == nil)
	if resErr != nil {
		if resErr != semaphore.ErrClosed || s.Count() != released {
			return fmt.Errorf("Reserve = %v, Release = %v, count %d", resErr, relErr, s.Count())
		}
		return nil
	}
	<-res.Done() // Close settles every reservation
	granted := res.Err() == nil
	if s.Count()+b2u(granted) != released {
		return fmt.Errorf("Reservation.Err() = %v, Release = %v, count %d", res.Err(), relErr, s.Count())
	}
	if !res.Cancel() || s.Count() != released {
		return fmt.Errorf("Cancel after Close: count %d, released %d", s.Count(), released)
	}
	return nil
}

// TestSignalCloseRacesEveryCall races each signal call with Close, for
// each signal configuration: a call took effect before Close or returns
// ErrClosed, a sum added before Close is read exactly once, and every
// waiter returns.
func TestSignalCloseRacesEveryCall(t *testing.T) {
	for _, cfg := range signalConfigs {
		newSig := func(initial uint64) func() *signal.Signal {
			return func() *signal.Signal { return signal.New(initial, cfg.opts...) }
		}
		t.Run(cfg.name+"/Wait", func(t *testing.T) {
			var v uint64
			var waitErr, addErr error
			raceClose(t, newSig(0), func(s *signal.Signal, _ *rand.Rand) []func() {
				return []func(){
					func() { v, waitErr = s.Wait(context.Background()) },
					func() { addErr = s.Add(1) },
				}
			}, func(s *signal.Signal) error {
				if v != b2u(addErr == nil) || s.Count() != 0 || (waitErr == nil) != (v == 1) {
					return fmt.Errorf("Wait = %d, %v; Add = %v; count %d", v, waitErr, addErr, s.Count())
				}
				return oneOf("Wait", waitErr, nil, signal.ErrClosed)
			})
		})
		t.Run(cfg.name+"/WaitCancelled", func(t *testing.T) {
			var v uint64
			var waitErr, addErr error
			var ctx context.Context
			raceClose(t, newSig(0), func(s *signal.Signal, _ *rand.Rand) []func() {
				c, cancel := context.WithCancel(context.Background())
				ctx = c
				return []func(){
					func() { v, waitErr = s.Wait(c) },
					func() { addErr = s.Add(1) },
					cancel,
				}
			}, func(s *signal.Signal) error {
				if v+s.Count() != b2u(addErr == nil) {
					return fmt.Errorf("Wait = %d, %v; Add = %v; count %d", v, waitErr, addErr, s.Count())
				}
				return oneOf("Wait", waitErr, nil, signal.ErrClosed, ctx.Err())
			})
		})
		t.Run(cfg.name+"/Take", func(t *testing.T) {
			var v uint64
			raceClose(t, newSig(5), func(s *signal.Signal, _ *rand.Rand) []func() {
				return []func(){func() { v = s.Take() }}
			}, func(s *signal.Signal) error {
				if v != 5 || s.Count() != 0 {
					return fmt.Errorf("Take of 5 added before Close = %d, count %d", v, s.Count())
				}
				return nil
			})
		})
		t.Run(cfg.name+"/Add", func(t *testing.T) {
			var err error
			raceClose(t, newSig(0), func(s *signal.Signal, _ *rand.Rand) []func() {
				return []func(){func() { err = s.Add(1) }}
			}, func(s *signal.Signal) error {
				if v := s.Take(); v != b2u(err == nil) {
					return fmt.Errorf("Add = %v, then Take = %d", err, v)
				}
				return oneOf("Add", err, nil, signal.ErrClosed)
			})
		})
		t.Run(cfg.name+"/AddWait", func(t *testing.T) {
			var err error
			var took uint64
			raceClose(t, newSig(signal.Max), func(s *signal.Signal, _ *rand.Rand) []func() {
				return []func(){
					func() { err = s.AddWait(context.Background(), 1) }, // full: waits for room
					func() { took = s.Take() },
				}
			}, func(s *signal.Signal) error {
				if got, want := of(took).plus(of(s.Count())), of(signal.Max).plus(of(b2u(err == nil))); got != want {
					return fmt.Errorf("AddWait = %v, Take = %d, count %d", err, took, s.Count())
				}
				return oneOf("AddWait", err, nil, signal.ErrClosed)
			})
		})
		t.Run(cfg.name+"/Ready", func(t *testing.T) {
			raceClose(t, newSig(0), func(s *signal.Signal, _ *rand.Rand) []func() {
				return []func(){func() { <-s.Ready() }}
			}, func(*signal.Signal) error { return nil })
		})
	}
}

// TestCoalesceCloseRacesEveryCall races each Waker call with Close, for
// each policy: events noted before Close are reported exactly once
// (through Wait, or Events after Close), a Wake racing Close is reported
// once or not at all, and every waiter returns.
func TestCoalesceCloseRacesEveryCall(t *testing.T) {
	for _, cfg := range coalesceConfigs {
		newWaker := func() *coalesce.Waker { return coalesce.New(cfg.delay, cfg.opts...) }
		t.Run(cfg.name+"/Wake", func(t *testing.T) {
			var before uint64
			raceClose(t, newWaker, func(w *coalesce.Waker, r *rand.Rand) []func() {
				before = wakeSome(w, r)
				return []func(){w.Wake}
			}, func(w *coalesce.Waker) error {
				if n := drain(w); n != before && n != before+1 {
					return fmt.Errorf("%d events before Close and one racing it, %d reported", before, n)
				}
				return nil
			})
		})
		t.Run(cfg.name+"/Wait", func(t *testing.T) {
			var before, got uint64
			var err error
			raceClose(t, newWaker, func(w *coalesce.Waker, r *rand.Rand) []func() {
				before = wakeSome(w, r)
				return []func(){func() { got, err = w.Wait(context.Background()) }}
			}, func(w *coalesce.Waker) error {
				if n := got + drain(w); n != before {
					return fmt.Errorf("%d events before Close; Wait = %d, %v; %d reported in all", before, got, err, n)
				}
				if err == coalesce.ErrClosed && got != 0 {
					return fmt.Errorf("Wait = %d, %v", got, err)
				}
				return oneOf("Wait", err, nil, coalesce.ErrClosed)
			})
		})
		t.Run(cfg.name+"/Flush", func(t *testing.T) {
			var before uint64
			raceClose(t, newWaker, func(w *coalesce.Waker, r *rand.Rand) []func() {
				before = wakeSome(w, r)
				return []func(){w.Flush}
			}, func(w *coalesce.Waker) error {
				if n := drain(w); n != before {
					return fmt.Errorf("%d events before Close, %d reported", before, n)
				}
				return nil
			})
		})
		t.Run(cfg.name+"/Events", func(t *testing.T) {
			var before, got uint64
			raceClose(t, newWaker, func(w *coalesce.Waker, r *rand.Rand) []func() {
				before = wakeSome(w, r)
				return []func(){func() { got = w.Events() }}
			}, func(w *coalesce.Waker) error {
				if n := got + drain(w); n != before {
					return fmt.Errorf("%d events before Close, %d reported", before, n)
				}
				return nil
			})
		})
	}
}

// wakeSome notes 0 to 3 events and returns how many.
func wakeSome(w *coalesce.Waker, r *rand.Rand) uint64 {
	n := uint64(r.IntN(4))
	for range n {
		w.Wake()
	}
	return n
}

// drain reports the events left on a closed Waker: Wait until ErrClosed.
func drain(w *coalesce.Waker) uint64 {
	var sum uint64
	for {
		n, err := w.Wait(context.Background())
		if err != nil {
			return sum
		}
		sum += n
	}
}

// oneOf describes err unless it is one of want, or wraps one (the error
// of a bad argument wraps ErrInvalid with what was wrong).
func oneOf(what string, err error, want ...error) error {
	for _, w := range want {
		if err == w || errors.Is(err, w) {
			return nil
		}
	}
	return fmt.Errorf("%s = %v, want one of %v", what, err, want)
}

// b2u is 1 for true and 0 for false.
func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
