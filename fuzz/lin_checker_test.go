package fuzz_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/evsync/evsync/internal/testsupport/lincheck"
	"github.com/evsync/evsync/semaphore"
	"github.com/evsync/evsync/signal"
)

// call builds a recorded call of client, in [callAt, retAt].
func call(client int, in any, out output, callAt, retAt int64) porcupine.Operation {
	return porcupine.Operation{ClientId: client, Input: in, Output: out, Call: callAt, Return: retAt}
}

// TestModelsRejectBrokenHistories feeds the checker hand-made histories
// that no correct semaphore or signal could produce, and histories that
// differ from them only in timing or in an allowed outcome, and checks
// that the first are rejected (with a visualisation written) and the
// second accepted: the linearizability tests can fail. The semaphore's
// newer calls are in lin_semaphore_test.go, the limiter's in
// lin_limiter_test.go, the readyq histories in lin_readyq_test.go, the
// poll.Set histories in lin_set_test.go.
func TestModelsRejectBrokenHistories(t *testing.T) {
	acq := func(n uint64) semCall { return semCall{op: semAcquire, n: n} }
	rel := func(n uint64) semCall { return semCall{op: semRelease, n: n} }
	try := func(n uint64) semCall { return semCall{op: semTryAcquire, n: n} }
	take, wait, count := sigCall{op: sigTake}, sigCall{op: sigWait}, sigCall{op: sigCount}
	add := func(n uint64) sigCall { return sigCall{op: sigAdd, n: n} }
	ok := output{}
	cases := []brokenHistory{
		{"one released unit acquired twice", semModel(semaphore.Max, 0), []porcupine.Operation{
			call(0, rel(1), ok, 1, 2),
			call(1, acq(1), ok, 3, 6),
			call(2, acq(1), ok, 4, 5),
		}, false},
		{"the second acquire was cancelled instead", semModel(semaphore.Max, 0), []porcupine.Operation{
			call(0, rel(1), ok, 1, 2),
			call(1, acq(1), ok, 3, 6),
			call(2, acq(1), output{err: context.Canceled}, 4, 5),
		}, true},
		{"count above the limit", semModel(2, 2), []porcupine.Operation{
			call(0, rel(1), ok, 1, 2),
		}, false},
		{"a refused release", semModel(2, 2), []porcupine.Operation{
			call(0, rel(1), output{err: semaphore.ErrWouldBlock}, 1, 2),
		}, true},
		{"uncontended TryAcquire fails with units there", semModel(semaphore.Max, 1), []porcupine.Operation{
			call(0, try(1), output{v: 0}, 1, 2),
		}, false},
		{"TryAcquire fails behind an overlapping Acquire", semModel(semaphore.Max, 1), []porcupine.Operation{
			call(0, semCall{op: semTryAcquire, n: 1, contended: true}, output{v: 0}, 2, 3),
			call(1, acq(2), output{err: context.Canceled}, 1, 4),
		}, true},
		{"release refused after Close returned", semModel(semaphore.Max, 0), []porcupine.Operation{
			call(0, closeCall, ok, 1, 2),
			call(1, rel(1), output{err: semaphore.ErrClosed}, 3, 4), // a semaphore takes units back after Close
		}, false},
		{"release taken back after Close", semModel(semaphore.Max, 0), []porcupine.Operation{
			call(0, closeCall, ok, 1, 2),
			call(1, rel(1), ok, 3, 4),
		}, true},
		{"acquire with a context that never ends cancelled", semModel(semaphore.Max, 0), []porcupine.Operation{
			call(1, semCall{op: semAcquire, n: 1, ctx: ctxNever}, output{err: context.Canceled}, 3, 4),
		}, false},
		{"acquire with an ended context took the units there", semModel(semaphore.Max, 1), []porcupine.Operation{
			call(1, semCall{op: semAcquire, n: 1, ctx: ctxEnded}, ok, 1, 2),
		}, false},
		{"acquire with an ended context stopped after Close", semModel(semaphore.Max, 1), []porcupine.Operation{
			call(0, closeCall, ok, 1, 2),
			call(1, semCall{op: semAcquire, n: 1, ctx: ctxEnded}, output{err: context.Canceled}, 3, 4),
			call(1, try(1), output{v: 1}, 5, 6),
		}, true},
		{"AddWait with an ended context added", sigModel(0), []porcupine.Operation{
			call(0, sigCall{op: sigAddWait, n: 1, ctx: ctxEnded}, ok, 1, 2),
			call(1, count, output{v: 1}, 3, 4),
		}, false},
		{"a sum read twice", sigModel(0), []porcupine.Operation{
			call(0, add(5), ok, 1, 2),
			call(1, take, output{v: 5}, 3, 4),
			call(2, wait, output{v: 5}, 5, 6),
		}, false},
		{"two adds read as one sum", sigModel(0), []porcupine.Operation{
			call(0, add(2), ok, 1, 2),
			call(1, add(3), ok, 1, 3),
			call(2, wait, output{v: 5}, 4, 5),
			call(2, count, output{v: 0}, 6, 7),
		}, true},
		{"a sum lost", sigModel(0), []porcupine.Operation{
			call(0, add(2), ok, 1, 2),
			call(1, add(3), ok, 3, 4),
			call(2, wait, output{v: 3}, 5, 6),
			call(2, count, output{v: 0}, 7, 8),
		}, false},
		{"Wait closed with a count left", sigModel(4), []porcupine.Operation{
			call(0, closeCall, ok, 1, 2),
			call(1, wait, output{err: signal.ErrClosed}, 3, 4),
		}, false},
		{"add accepted after Close returned", sigModel(0), []porcupine.Operation{
			call(0, closeCall, ok, 1, 2),
			call(1, add(1), ok, 3, 4), // a signal refuses every write after Close
		}, false},
	}
	for _, c := range slices.Concat(cases, semBrokenHistories(), limBrokenHistories(), readyqBrokenHistories(), setBrokenHistories()) {
		var ft lincheck.Capture
		res := lincheck.Check(&ft, c.name, c.model, c.ops, linTimeout)
		switch {
		case c.legal && res != porcupine.Ok:
			t.Errorf("%s: %v, want Ok (%s)", c.name, res, ft.Msg)
		case !c.legal && res != porcupine.Illegal:
			t.Errorf("%s: %v, want Illegal", c.name, res)
		case !c.legal:
			_, path, found := strings.Cut(ft.Msg, "visualisation: ")
			if _, err := os.Stat(path); !found || err != nil {
				t.Errorf("%s: report %q names no visualisation file", c.name, ft.Msg)
			}
			os.Remove(path)
		}
	}
}

// A brokenHistory is a hand-made history and whether it is linearizable.
type brokenHistory struct {
	name  string
	model porcupine.Model
	ops   []porcupine.Operation
	legal bool
}
