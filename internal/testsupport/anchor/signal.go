package anchor

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/evsync/evsync/signal"
)

// evsyncSignal adapts evsync's signal, whose Add reports errors.
type evsyncSignal struct{ s *signal.Signal }

// NewEvsyncSignal returns evsync's signal with a count of 0.
func NewEvsyncSignal() (Signal, error) { return AdaptSignal(signal.New(0)), nil }

// AdaptSignal returns s as a Signal, for drivers that also need the
// evsync type itself (to call String, say).
func AdaptSignal(s *signal.Signal) Signal { return evsyncSignal{s} }

// Wait takes the whole count with evsync's Wait.
func (a evsyncSignal) Wait(ctx context.Context) (uint64, error) { return a.s.Wait(ctx) }

// Take takes the whole count with evsync's Take.
func (a evsyncSignal) Take() uint64 { return a.s.Take() }

// Close closes evsync's signal; it always returns nil.
func (a evsyncSignal) Close() error { a.s.Close(); return nil }

// Add adds n with evsync's Add and panics on any error it reports (a sum
// past signal.Max, use after Close), which the benchmarks never cause.
func (a evsyncSignal) Add(n uint64) {
	if err := a.s.Add(n); err != nil {
		panic("anchor: evsync add: " + err.Error())
	}
}

// tokenSignal is the hand-rolled notifier: an atomic counter plus a
// channel with one slot that holds a wakeup token. A writer adds, then
// drops a token in unless one is there already; a reader takes a token,
// then swaps the counter with 0, and waits for the next token if that
// found nothing (a reader or Take before it took the sum, leaving a stale
// token behind). The counter wraps around past 1<<64-1.
type tokenSignal struct {
	n   atomic.Uint64
	tok chan struct{}
}

// NewTokenSignal returns an atomic-counter-and-token signal.
func NewTokenSignal() (Signal, error) {
	return &tokenSignal{tok: make(chan struct{}, 1)}, nil
}

// Add adds n to the counter, then drops a token in unless one is there.
func (s *tokenSignal) Add(n uint64) {
	if n == 0 {
		return
	}
	s.n.Add(n)
	select {
	case s.tok <- struct{}{}:
	default: // a token is already waiting for a reader
	}
}

// Wait receives a token, then swaps the counter with 0, until that finds
// a non-zero sum or ctx ends.
func (s *tokenSignal) Wait(ctx context.Context) (uint64, error) {
	done := ctx.Done()
	for {
		if done == nil { // a plain receive is cheaper than a select
			<-s.tok
		} else {
			select {
			case <-s.tok:
			case <-done:
				return 0, ctx.Err()
			}
		}
		if v := s.n.Swap(0); v != 0 {
			return v, nil
		}
	}
}

// Take swaps the counter with 0, leaving any token for a later Wait.
func (s *tokenSignal) Take() uint64 { return s.n.Swap(0) }

// Close does nothing: the channel needs no closing.
func (s *tokenSignal) Close() error { return nil }

// condSignal is the mutex-and-condition-variable signal. Add signals one
// waiter, which takes the whole count.
type condSignal struct {
	mu      sync.Mutex
	cond    sync.Cond
	count   uint64 // only with mu held; wraps around past 1<<64-1
	waiters int    // callers blocked in Wait; only with mu held
}

// NewCondSignal returns a sync.Cond signal.
func NewCondSignal() (Signal, error) {
	s := &condSignal{}
	s.cond.L = &s.mu
	return s, nil
}

// Add adds n under mu and signals one waiter.
func (s *condSignal) Add(n uint64) {
	s.mu.Lock()
	s.count += n
	if n != 0 && s.waiters != 0 {
		s.cond.Signal()
	}
	s.mu.Unlock()
}

// Wait takes the whole count under mu, waiting on cond while it is 0.
func (s *condSignal) Wait(ctx context.Context) (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.count == 0 {
		if err := s.waitSlow(ctx); err != nil {
			return 0, err
		}
	}
	v := s.count
	s.count = 0
	return v, nil
}

// waitSlow waits, with mu held, until the count is non-zero or ctx ends.
// A cancellable context broadcasts when it ends; the broadcast takes mu,
// so it cannot fall between the waiter's check of ctx and its Wait.
func (s *condSignal) waitSlow(ctx context.Context) error {
	if ctx.Done() != nil {
		defer context.AfterFunc(ctx, s.wakeAll)()
	}
	s.waiters++
	for s.count == 0 && ctx.Err() == nil {
		s.cond.Wait()
	}
	s.waiters--
	if s.count == 0 {
		return ctx.Err()
	}
	return nil
}

func (s *condSignal) wakeAll() {
	s.mu.Lock()
	s.cond.Broadcast()
	s.mu.Unlock()
}

// Take takes the whole count under mu without waiting.
func (s *condSignal) Take() uint64 {
	s.mu.Lock()
	v := s.count
	s.count = 0
	s.mu.Unlock()
	return v
}

// Close does nothing: a sync.Cond holds no resources.
func (s *condSignal) Close() error { return nil }
