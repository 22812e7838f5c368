package fuzz_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/evsync/evsync/internal/evserr"
	"github.com/evsync/evsync/internal/testsupport/lincheck"
	"github.com/evsync/evsync/internal/testsupport/testkit"
)

// The linearizability tests record concurrent histories of a primitive's
// calls (internal/testsupport/lincheck) and check each with porcupine against a
// sequential model of its count: a state of the count and the closed
// flag, and a pure Step that says which outputs each call may have in
// each state. A blocking call that succeeds takes effect at some moment
// between its call and its return (its grant); one that returns ctx.Err()
// changes nothing. Each blocking call's input says how its context was
// made (ctxUse): one that had ended before the call must return
// context.Canceled (or ErrInvalid for a bad argument); one that never ends
// must not return it; one that another goroutine cancels at some moment
// may return it in any state, since the cancel may come before the call
// starts (a call whose context is done when it starts stops at once).
//
// What this checks is that every history can be explained by some order
// of the calls that respects real time: no unit is lost, made up or
// taken twice, no result is impossible for the count at its moment, the
// count never passes the limit, and Close is a single instant after which
// writes are refused while what was left stays readable. It does not
// check FIFO fairness, which is a property of the order in which waiters
// are served rather than of each call; the fuzz targets and the packages'
// own tests check that sequentially. The one place where the queue shows
// in a single call's result, a TryAcquire that fails because acquirers are
// queued although the units are there, is allowed only if an Acquire
// overlapped it in time (for an eventually fair limiter, an AcquireUpTo
// too: markedByEventual).
//
// Each history is several workers making random calls, with contexts that
// never end, end at a random moment or have already ended, and one more
// client that closes the counter after a random number of yields (which
// also ends every wait that nothing else would). Set EVSYNC_LIN_SEED to
// replay a logged seed's choices (the interleaving is the scheduler's).

const (
	linWorkers = 6
	linCalls   = 8 // per worker
	linTimeout = 10 * time.Second
)

// linHistories is how many histories each linearizability test checks.
func linHistories() int {
	if testing.Short() {
		return 100
	}
	return 1000
}

// A workload makes one concurrent history and returns the model to check
// it against; it tallies its calls' outcomes in tl.
type workload func(rng *rand.Rand, tl tally) (porcupine.Model, []porcupine.Operation)

// checkLinearizable checks linHistories histories of w, stopping at the
// first that is not linearizable, and fails unless every label in want
// was reached (so that the workload is known to exercise the outcomes
// that matter).
func checkLinearizable(t *testing.T, name string, w workload, want []string) {
	seed := linSeed(t)
	rng := rand.New(rand.NewPCG(seed, 0x11))
	tl := tally{}
	calls, overlapping := 0, 0.0
	for i := range linHistories() {
		m, ops := w(rng, tl)
		calls += len(ops)
		overlapping += lincheck.Concurrency(ops) * float64(len(ops))
		res := lincheck.Check(t, fmt.Sprintf("%s history %d (EVSYNC_LIN_SEED=%d)", name, i, seed), m, ops, linTimeout)
		if res != porcupine.Ok {
			return
		}
	}
	t.Logf("%d histories, %d calls, %.0f%% of them concurrent with another client's (EVSYNC_LIN_SEED=%d)",
		linHistories(), calls, 100*overlapping/float64(calls), seed)
	var missing []string
	for _, l := range want {
		if tl[l] == 0 {
			missing = append(missing, l)
		}
	}
	if len(missing) != 0 && !testing.Short() {
		t.Errorf("the workload never reached %q; reached %v", missing, labels(tl))
	}
}

func linSeed(t *testing.T) uint64 {
	if s := os.Getenv("EVSYNC_LIN_SEED"); s != "" {
		seed, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("EVSYNC_LIN_SEED: %v", err)
		}
		return seed
	}
	return uint64(time.Now().UnixNano())
}

// counterState is the state of the count models: comparable, so that
// porcupine's default equality works, and copied by value, so that Step
// is pure.
type counterState struct {
	count  uint64
	closed bool
}

func (s counterState) String() string {
	if s.closed {
		return fmt.Sprintf("count=%d closed", s.count)
	}
	return fmt.Sprintf("count=%d", s.count)
}

func hashState(s any) uint64 {
	st := s.(counterState)
	h := st.count * 0x9e3779b97f4a7c15
	if st.closed {
		h ^= 1
	}
	return h
}

func describeState(s any) string { return s.(counterState).String() }

// output is what a recorded call returned.
type output struct {
	v   uint64 // a read's value, TryAcquire's 1 or 0
	err error
}

func (o output) String() string {
	if o.err != nil {
		return errName(o.err)
	}
	return strconv.FormatUint(o.v, 10)
}

// ctxUse is how the context of a recorded blocking call was made (see
// linCtx); it is part of the call's input.
type ctxUse uint8

const (
	ctxEnds  ctxUse = iota // cancelled by another goroutine at some moment
	ctxNever               // never ends (only Close ends the wait)
	ctxEnded               // already done when the call starts
	ctxNone                // the call takes no context (Release, Add)
)

func (u ctxUse) String() string {
	return [...]string{"ends", "never ends", "ended", "no ctx"}[u]
}

// ctxStep decides the outcomes of a blocking call that its context u
// decides: with an ended context only context.Canceled is legal, and
// context.Canceled is legal, changing nothing, only with a context that
// ends. decided is false for every other case, which the call's own step
// judges. valid is whether the call's arguments are valid (an invalid
// one returns ErrInvalid whatever the context).
func ctxStep(u ctxUse, valid bool, err error) (decided, legal bool) {
	switch {
	case u == ctxNone || !valid:
		return false, false
	case u == ctxEnded:
		return true, err == context.Canceled
	case err == context.Canceled:
		return true, u == ctxEnds
	}
	return false, false
}

// write is the step of a call that adds n, for a counter with the given
// limit: Release, ReleaseWait, Add, AddWait. u is the blocking call's
// context, ctxNone for the calls that never wait. takesBack is true for a
// semaphore, which takes units back after Close (a signal refuses every
// write then).
func write(s counterState, n, limit uint64, u ctxUse, err error, takesBack bool) (bool, any) {
	if decided, legal := ctxStep(u, n <= limit, err); decided {
		return legal, s
	}
	refused := s.closed && !takesBack
	switch sentinel(err) {
	case nil:
		if refused || n > limit || n > limit-s.count {
			return false, s
		}
		return true, counterState{s.count + n, s.closed}
	case evserr.ErrWouldBlock: // Release and Add only: no room
		return u == ctxNone && !refused && n <= limit && n > limit-s.count, s
	case evserr.ErrClosed: // closed; for a semaphore only ReleaseWait (no room, or queued at Close behind one with none)
		return s.closed && n <= limit && (refused || u != ctxNone), s
	case evserr.ErrInvalid:
		return n > limit, s
	}
	return false, s
}

// linCtx draws the context of a blocking call: one that never ends (Close
// ends the wait), one that another goroutine cancels after a few yields,
// or one already cancelled, and says which. stop must be called after the
// call.
func linCtx(r *rand.Rand) (ctx context.Context, u ctxUse, stop func()) {
	switch r.IntN(3) {
	case 0:
		return context.Background(), ctxNever, func() {}
	case 1:
		ctx, stop := testkit.CancelSoon(r)
		return ctx, ctxEnds, stop
	}
	return cancelled, ctxEnded, func() {}
}

// closer is the extra client of every history: it closes the counter
// after a random number of yields, so that Close lands anywhere in the
// traffic and every wait ends.
func closer(c *lincheck.Client, yields int, closeFn func()) {
	for range yields {
		runtime.Gosched()
	}
	lincheck.Record(c, closeCall, func() output { closeFn(); return output{} })
}

// closeCall is the input of Close in every model.
const closeCall = "Close()"

// maybeYield yields one time in three, to vary the interleavings.
func maybeYield(r *rand.Rand) {
	if r.IntN(3) == 0 {
		runtime.Gosched()
	}
}

// linAmount draws an amount for a counter with the given limit: mostly
// 0…3, sometimes the limit, one more (invalid) or one less.
func linAmount(r *rand.Rand, limit uint64) uint64 {
	switch r.IntN(12) {
	case 0:
		return limit
	case 1:
		return limit + 1
	case 2:
		return limit - 1
	}
	return r.Uint64N(min(limit, 3) + 1)
}

// describeOp formats a call for porcupine's visualisation.
func describeOp(in, out any) string {
	if in == closeCall {
		return closeCall
	}
	return fmt.Sprintf("%v → %v", in, out)
}

// errMatches reports whether a call's error got is the model's (or the
// kernel's) want: the same value, or one that wraps it. The error of a
// bad argument wraps ErrInvalid with what was wrong, while a model
// returns the bare value.
func errMatches(got, want error) bool { return got == want || errors.Is(got, want) }

// sentinel returns the shared evsync error that err matches, or err. The
// error of a bad argument wraps ErrInvalid with what was wrong, while the
// models return the bare value, so the steps match errors with errors.Is.
func sentinel(err error) error {
	if errors.Is(err, evserr.ErrInvalid) {
		return evserr.ErrInvalid
	}
	return err
}
