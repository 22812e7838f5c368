package anchor

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// debounceSignal is the naive delayed notifier a Go programmer writes
// with time.AfterFunc: a writer adds to an atomic counter and, unless a
// timer is already pending, arms one for the delay; the timer drops a
// token in a one-slot channel, and a reader takes the token and swaps the
// counter with 0 (waiting for the next token if that found nothing, as
// tokenSignal does). It is the fixed-window policy with one timer per
// window and no batch threshold.
type debounceSignal struct {
	n     atomic.Uint64
	armed atomic.Bool // a timer is pending or firing
	tok   chan struct{}
	delay time.Duration
	t     *time.Timer
	fires sync.WaitGroup // armed timers whose fire has not returned
}

// NewDebounceSignal returns a time.AfterFunc debouncer with the given
// delay and a count of 0. Close it when done: Close stops a pending
// timer and waits for a firing one.
func NewDebounceSignal(delay time.Duration) (Signal, error) {
	s := &debounceSignal{tok: make(chan struct{}, 1), delay: delay}
	s.t = time.AfterFunc(time.Hour, s.fire)
	s.t.Stop()
	return s, nil
}

// Add adds n to the counter and arms the timer unless it is pending. The
// add comes before the look at armed: a writer that sees armed set knows
// that the pending fire clears it after this add, so the token it sends
// covers the add.
func (s *debounceSignal) Add(n uint64) {
	if n == 0 {
		return
	}
	s.n.Add(n)
	if !s.armed.Load() && s.armed.CompareAndSwap(false, true) {
		s.fires.Add(1)
		s.t.Reset(s.delay)
	}
}

// fire clears armed, then drops a token in unless one is there.
func (s *debounceSignal) fire() {
	defer s.fires.Done()
	s.armed.Store(false)
	select {
	case s.tok <- struct{}{}:
	default: // a token is already waiting for a reader
	}
}

// Wait receives a token, then swaps the counter with 0, until that finds
// a non-zero sum or ctx ends.
func (s *debounceSignal) Wait(ctx context.Context) (uint64, error) {
	for {
		select {
		case <-s.tok:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
		if v := s.n.Swap(0); v != 0 {
			return v, nil
		}
	}
}

// Take swaps the counter with 0 without waiting.
func (s *debounceSignal) Take() uint64 { return s.n.Swap(0) }

// Close stops a pending timer and waits for a firing one, so that no
// goroutine of the signal runs after it returns. Nobody may Add during
// or after Close.
func (s *debounceSignal) Close() error {
	if s.t.Stop() {
		s.fires.Done() // the stopped fire will not run
	}
	s.fires.Wait()
	return nil
}
