package faults_test

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/evsync/evsync/internal/testsupport/testkit"
)

// watchdog is how long a group of goroutines may run before the test
// decides that they are stuck. It is a failure detector, not a
// synchronisation device: no test waits for it to pass.
const watchdog = 30 * time.Second

// A crew is a group of goroutines that a test waits for under the watchdog.
type crew struct{ wg sync.WaitGroup }

// Go starts f in a goroutine of the crew.
func (c *crew) Go(f func()) { c.wg.Go(f) }

// Wait waits for every goroutine of the crew. If they are still running
// after the watchdog, which can only mean a lost wakeup, lost units or a
// lock left held, it calls rescue (normally the primitive's Close) to free
// them and fails t, saying whether rescue did free them. what describes
// the run; it is formatted only then, so that it shows the state of the
// primitive at the moment the watchdog fired.
func (c *crew) Wait(t testing.TB, what fmt.Stringer, rescue func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { c.wg.Wait(); close(done) }()
	select {
	case <-done:
		return
	case <-time.After(watchdog):
	}
	desc := what.String()
	rescue()
	select {
	case <-done:
		t.Fatalf("%s: goroutines stuck for %v until Close freed them: a wakeup or units were lost", desc, watchdog)
	case <-time.After(watchdog):
		t.Fatalf("%s: goroutines still stuck %v after Close:\n%s", desc, watchdog, stacks())
	}
}

// A lazy formats its arguments only when it is printed: describe a run
// with the primitive itself, whose String then shows its state at the
// time, and with counters as func() uint64 (such as an atomic's Load),
// which are called then.
type lazy struct {
	format string
	args   []any
}

func (l lazy) String() string {
	args := make([]any, len(l.args))
	for i, a := range l.args {
		if f, ok := a.(func() uint64); ok {
			a = f()
		}
		args[i] = a
	}
	return fmt.Sprintf(l.format, args...)
}

// describe returns a lazy description.
func describe(format string, args ...any) fmt.Stringer { return lazy{format, args} }

// stacks returns every goroutine's stack, for a report of a hang.
func stacks() string {
	buf := make([]byte, 1<<20)
	return string(buf[:runtime.Stack(buf, true)])
}

// together runs each f in a goroutine of its own, all released at the
// same moment by one start barrier, and waits for them under the watchdog
// (rescue frees them if they hang).
func together(t testing.TB, what fmt.Stringer, rescue func(), fs ...func()) {
	t.Helper()
	start := make(chan struct{})
	var c crew
	for _, f := range fs {
		c.Go(func() { <-start; f() })
	}
	close(start)
	c.Wait(t, what, rescue)
}

// within calls f in a goroutine and fails t if it has not returned after
// the watchdog (for calls that could block on a lock left held, which
// testing/synctest cannot see).
func within(t testing.TB, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(watchdog):
		t.Fatalf("%s did not return within %v:\n%s", what, watchdog, stacks())
	}
}

// closeWithin closes c and fails t if Close does not return within the
// watchdog (a Waker, or a Signal with WithWakeDelay, could once hang in
// Close: see coalesce's TestCloseAfterStaleTimerRunsReturns).
func closeWithin(t testing.TB, c interface{ Close() }) {
	t.Helper()
	within(t, fmt.Sprintf("Close of %v", c), c.Close)
}

// A u128 is an exact sum of uint64 values, for conservation checks whose
// totals can pass 1<<64. The zero value is 0.
type u128 struct{ hi, lo uint64 }

// add adds v.
func (a *u128) add(v uint64) {
	var carry uint64
	a.lo, carry = bits.Add64(a.lo, v, 0)
	a.hi += carry
}

// plus returns a+b.
func (a u128) plus(b u128) u128 {
	lo, carry := bits.Add64(a.lo, b.lo, 0)
	return u128{a.hi + b.hi + carry, lo}
}

func (a u128) String() string {
	v := new(big.Int).SetUint64(a.hi)
	v.Lsh(v, 64)
	return v.Or(v, new(big.Int).SetUint64(a.lo)).String()
}

// of returns v as a u128.
func of(v uint64) u128 { return u128{lo: v} }

// A total merges the sums of many goroutines. Each goroutine adds to a
// u128 of its own and merges it once at the end, so that the bookkeeping
// adds no synchronisation between the calls under test.
type total struct {
	mu  sync.Mutex
	sum u128
}

func (s *total) merge(v u128) {
	s.mu.Lock()
	s.sum = s.sum.plus(v)
	s.mu.Unlock()
}

func (s *total) get() u128 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sum
}

// stormCtx returns the context of one blocking call in a cancellation
// storm: already cancelled (the call must not wait), cancelled by another
// goroutine after a few yields (while the call starts, parks or is being
// granted), or ending at a deadline of a few microseconds (a second way to
// end, which returns context.DeadlineExceeded). stop must be called after
// the call.
func stormCtx(r *rand.Rand) (ctx context.Context, stop func()) {
	switch r.IntN(5) {
	case 0:
		return testkit.Cancelled(), func() {}
	case 1:
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(r.IntN(40))*time.Microsecond)
		return ctx, cancel
	}
	return testkit.CancelSoon(r)
}

// ctxErr checks that err, returned by a call made with ctx, is nil, one of
// the allowed errors, or ctx's own error, and describes a violation.
func ctxErr(what string, ctx context.Context, err error, allowed ...error) error {
	if err == nil {
		return nil
	}
	for _, a := range allowed {
		if err == a {
			return nil
		}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		if ctx != nil && err == ctx.Err() {
			return nil
		}
		return fmt.Errorf("%s returned %v, but its context's error is %v", what, err, ctx.Err())
	}
	return fmt.Errorf("%s returned unexpected error %v", what, err)
}
