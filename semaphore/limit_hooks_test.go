//go:build evsynchooks

package semaphore_test

// The permit calls in the windows of the snapshot rule (internal/counter's
// package doc): SetLimit stopped after it stored the new limit, before
// the count goes out. Built with -tags evsynchooks.

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"

	"github.com/evsync/evsync/internal/counter"
	"github.com/evsync/evsync/internal/testsupport/gates"
	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/semaphore"
)

// A seen is what a permit call returned and the units free right after.
type seen struct {
	ok   bool
	err  error
	free int
}

func (s seen) String() string { return fmt.Sprintf("(%v, %v, %d free)", s.ok, s.err, s.free) }

// TestHookPermitsDuringSetLimit: a permit call that ends while SetLimit is
// stopped must fit the state before it (the free units it reads next are
// still that state's); one that waits for the lock must fit the state
// after.
func TestHookPermitsDuringSetLimit(t *testing.T) {
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name          string
		limit, held   int
		to            int
		call          func(s *semaphore.Limiter, held *semaphore.Permit) seen
		first, second seen
	}{
		{ // (1, 1) → (4, 4): 2 units are invalid, then valid
			name: "AcquirePermit, done context, raise", limit: 1, to: 4,
			call: func(s *semaphore.Limiter, _ *semaphore.Permit) seen {
				p, err := s.AcquirePermit(ended, 2)
				return seen{p.N() == 2, err, s.Stats().Free}
			},
			first: seen{false, semaphore.ErrInvalid, 1}, second: seen{false, context.Canceled, 4},
		},
		{ // (4, 4) → (2, 2): 3 units are there, then invalid
			name: "TryAcquirePermit, cut", limit: 4, to: 2,
			call: func(s *semaphore.Limiter, _ *semaphore.Permit) seen {
				p, ok := s.TryAcquirePermit(3)
				defer p.Forget()
				return seen{ok, nil, s.Stats().Free}
			},
			first: seen{true, nil, 1}, second: seen{false, nil, 2},
		},
		{ // (1, 1) → (4, 4): 3 units are invalid, then there
			name: "TryAcquirePermit, raise", limit: 1, to: 4,
			call: func(s *semaphore.Limiter, _ *semaphore.Permit) seen {
				p, ok := s.TryAcquirePermit(3)
				defer p.Forget()
				return seen{ok, nil, s.Stats().Free}
			},
			first: seen{false, nil, 1}, second: seen{true, nil, 1},
		},
		{ // (2, 4) → (1, 3): the permit's 2 units go back either way
			name: "Permit.Release, cut", limit: 4, held: 2, to: 3,
			call: func(s *semaphore.Limiter, held *semaphore.Permit) seen {
				return seen{held.Release(), nil, s.Stats().Free}
			},
			first: seen{true, nil, 4}, second: seen{true, nil, 3},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newLimiter(tc.limit)
				t.Cleanup(s.Close)
				var held semaphore.Permit
				if tc.held != 0 {
					var ok bool
					if held, ok = s.TryAcquirePermit(tc.held); !ok {
						t.Fatalf("TryAcquirePermit(%d) failed", tc.held)
					}
				}
				got, early, err := gates.During(t, counter.PSetLimit,
					func() error { return s.SetLimit(tc.to) },
					func() seen { return tc.call(s, &held) })
				testkit.MustNil(t, err)
				want, when := tc.second, "after"
				if early {
					want, when = tc.first, "before"
				}
				if got != want {
					t.Fatalf("%s = %v, want %v (%s SetLimit(%d))", tc.name, got, want, when, tc.to)
				}
			})
		})
	}
}

// TestHookLimiterStatsDuringACut: Stats reads the limit, the debt and the
// free units one by one. Taken while a cut is stopped in its section (the
// limit stored, the count not yet out), it must still show no negative
// count.
func TestHookLimiterStatsDuringACut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newLimiter(4)
		st, _, err := gates.During(t, counter.PSetLimit,
			func() error { return l.SetLimit(2) },
			func() semaphore.LimiterStats { return l.Stats() })
		testkit.MustNil(t, err)
		if st.InUse < 0 || st.Free < 0 {
			t.Fatalf("Stats during the cut = %v: a negative count", st)
		}
	})
}
