package waitq_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/evsync/evsync/internal/evserr"
)

// await is tsem's Acquire through Await: it parks at once, with no units
// free, and returns what Await returned.
func (s *tsem) await(ctx context.Context, n int) (int, error) {
	s.Lock()
	w := s.q.Push(ctx.Done(), n)
	s.Unlock()
	return s.q.Await(ctx, s, w)
}

// TestAwaitOutcomes checks Await's three rows: the payload and nil when
// granted, ErrClosed when closed first, ctx.Err() when cancelled first.
func TestAwaitOutcomes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		type result struct {
			p   int
			err error
		}
		run := func(s *tsem, ctx context.Context) <-chan result {
			c := make(chan result, 1)
			go func() { p, err := s.await(ctx, 2); c <- result{p, err} }()
			synctest.Wait() // parked
			return c
		}

		s := new(tsem)
		c := run(s, context.Background())
		s.Release(2)
		if r := <-c; r.p != 2 || r.err != nil {
			t.Errorf("granted: Await = %d, %v; want 2, nil", r.p, r.err)
		}

		s = new(tsem)
		c = run(s, context.Background())
		s.Close()
		if r := <-c; !errors.Is(r.err, evserr.ErrClosed) {
			t.Errorf("closed: Await error = %v, want ErrClosed", r.err)
		}

		s = new(tsem)
		ctx, cancel := context.WithCancel(context.Background())
		c = run(s, ctx)
		cancel()
		if r := <-c; !errors.Is(r.err, context.Canceled) {
			t.Errorf("cancelled: Await error = %v, want context.Canceled", r.err)
		}
		if s.q.Len() != 0 {
			t.Errorf("cancelled: %d waiters left queued, want 0", s.q.Len())
		}
	})
}
