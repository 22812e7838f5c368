package signal_test

import (
	"context"
	"flag"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/evsync/evsync/internal/model"
	"github.com/evsync/evsync/signal"
	"pgregory.net/rapid"
)

// TestSignalModel drives every call of a Signal, one at a time, next to
// the sequential reference model and compares every result.
func TestSignalModel(t *testing.T) {
	for range modelRounds() {
		rapid.Check(t, testSignalModel)
	}
}

// FuzzSignalModel is TestSignalModel as a native fuzz target.
func FuzzSignalModel(f *testing.F) {
	addFuzzSeeds(f)
	f.Fuzz(rapid.MakeFuzz(testSignalModel))
}

// modelRounds is how many times the state-machine property runs rapid's
// number of checks (-rapid.checks, 100 by default): sequences are cheap,
// and a few hundred of them find the rarer interleavings reliably. A run
// that replays a seed or a fail file, or -short, runs once.
func modelRounds() int {
	if testing.Short() {
		return 1
	}
	for name, unset := range map[string]string{"rapid.seed": "0", "rapid.failfile": ""} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != unset {
			return 1
		}
	}
	return 10
}

// addFuzzSeeds gives the fuzz targets a few inputs, so that plain go test
// runs them too: all zeros (the simplest draws) and pseudo-random bytes.
func addFuzzSeeds(f *testing.F) {
	f.Add(make([]byte, 512))
	rng := rand.New(rand.NewPCG(3, 4))
	for range 4 {
		b := make([]byte, 4096)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		f.Add(b)
	}
}

func testSignalModel(t *rapid.T) {
	t.Repeat(rapid.StateMachineActions(newSigMachine(t)))
}

// nilContext is passed where a caller forgot the context: ErrInvalid.
var nilContext context.Context

type sigMachine struct {
	s         *signal.Signal
	m         *model.Counter
	cancelled context.Context // already done
	ready     []readyChan
}

// readyChan is a channel returned by Ready and the model's name for it.
type readyChan struct {
	ch     <-chan struct{}
	ticket model.Ticket
}

// maxReady bounds how many Ready channels the invariant re-checks.
const maxReady = 8

func newSigMachine(t *rapid.T) *sigMachine {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sm := &sigMachine{cancelled: ctx}
	if rapid.Bool().Draw(t, "zero value") {
		sm.s, sm.m = new(signal.Signal), model.NewSignal(0)
		return sm
	}
	initial := rapid.OneOf(
		rapid.SampledFrom([]uint64{0, 1, 2, signal.Max - 1, signal.Max}),
		rapid.Uint64Range(0, 8),
		rapid.Uint64Range(0, signal.Max),
	).Draw(t, "initial")
	sm.s, sm.m = signal.New(initial), model.NewSignal(initial)
	return sm
}

// amount draws an Add size concentrated at the edges: around the current
// count and the room left (the values that fill the count to Max or just
// miss), around 0, Max and the uint64 maximum, mixed with small and
// arbitrary values.
func (sm *sigMachine) amount(t *rapid.T) uint64 {
	c := sm.m.Count()
	near := []uint64{c, c - 1, c + 1, signal.Max - c, signal.Max - c + 1, signal.Max - c - 1}
	edges := []uint64{0, 1, 2, signal.Max - 1, signal.Max, signal.Max + 1, 1<<64 - 3}
	return rapid.OneOf(
		rapid.SampledFrom(near),
		rapid.SampledFrom(edges),
		rapid.Uint64Range(0, 8),
		rapid.SampledFrom(near),
		rapid.Uint64(),
	).Draw(t, "n")
}

// A blocking call is made with a nil context now and then (ErrInvalid),
// with a live one only when the model says it completes without waiting,
// and otherwise with one that is already cancelled.
func drawNilCtx(t *rapid.T) bool {
	return rapid.IntRange(0, 9).Draw(t, "nil ctx") == 0
}

// pickCtx returns the context for a call whose model result is want, and
// the error the real call must then return.
func (sm *sigMachine) pickCtx(t *rapid.T, want error) (context.Context, error) {
	if want == signal.ErrWouldBlock {
		return sm.cancelled, context.Canceled
	}
	if rapid.Bool().Draw(t, "live ctx") {
		return context.Background(), want
	}
	return sm.cancelled, want
}

func checkSameErr(t *rapid.T, what string, got, want error) {
	t.Helper()
	if got != want { // the very same values, not just errors.Is
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
}

func (sm *sigMachine) Add(t *rapid.T) {
	n := sm.amount(t)
	checkSameErr(t, "Add", sm.s.Add(n), sm.m.Write(n))
}

func (sm *sigMachine) AddWait(t *rapid.T) {
	n := sm.amount(t)
	if drawNilCtx(t) {
		checkSameErr(t, "AddWait(nil, n)", sm.s.AddWait(nilContext, n), signal.ErrInvalid)
		return
	}
	ctx, want := sm.pickCtx(t, sm.m.WriteWait(n))
	checkSameErr(t, "AddWait", sm.s.AddWait(ctx, n), want)
}

func (sm *sigMachine) Take(t *rapid.T) {
	if got, want := sm.s.Take(), sm.m.Take(); got != want {
		t.Fatalf("Take() = %d, want %d", got, want)
	}
}

func (sm *sigMachine) Wait(t *rapid.T) {
	if drawNilCtx(t) {
		v, err := sm.s.Wait(nilContext)
		checkSameErr(t, "Wait(nil)", err, signal.ErrInvalid)
		if v != 0 {
			t.Fatalf("Wait(nil) = %d", v)
		}
		return
	}
	want, wantErr := sm.m.Wait()
	ctx, wantErr := sm.pickCtx(t, wantErr)
	got, err := sm.s.Wait(ctx)
	checkSameErr(t, "Wait", err, wantErr)
	if got != want {
		t.Fatalf("Wait() = %d, want %d", got, want)
	}
}

func (sm *sigMachine) Ready(t *rapid.T) {
	rc := readyChan{sm.s.Ready(), sm.m.Ready()}
	if got, want := firedNow(rc.ch), sm.m.Fired(rc.ticket); got != want {
		t.Fatalf("Ready() ready at once = %v, want %v", got, want)
	}
	sm.ready = append(sm.ready, rc)
	if len(sm.ready) > maxReady {
		sm.ready = sm.ready[1:]
	}
}

// Close closes on one draw in four (a no-op step otherwise), so that most
// runs spend a while open before they close.
func (sm *sigMachine) Close(t *rapid.T) {
	if rapid.IntRange(0, 3).Draw(t, "close") != 0 {
		return
	}
	sm.s.Close()
	sm.m.Close()
}

// TestSignalNewInvalid checks that New panics with a "signal: " message
// for the one initial count above Max.
func TestSignalNewInvalid(t *testing.T) {
	defer func() {
		r := recover()
		if s, _ := r.(string); !strings.HasPrefix(s, "signal: ") {
			t.Fatalf("panic value %#v, want a \"signal: \" message", r)
		}
	}()
	signal.New(signal.Max + 1)
}

func (sm *sigMachine) Check(t *rapid.T) {
	if err := sm.m.Validate(); err != nil {
		t.Fatal(err)
	}
	if got, want := sm.s.Count(), sm.m.Count(); got != want {
		t.Fatalf("Count() = %d, want %d", got, want)
	}
	st := sm.s.Stats()
	if want := (signal.Stats{Count: sm.m.Count(), Closed: sm.m.Closed()}); st != want {
		t.Fatalf("Stats() = %+v, want %+v", st, want)
	}
	if s := sm.s.String(); s != st.String() {
		t.Fatalf("String() = %q, Stats().String() = %q", s, st.String())
	}
	for i, rc := range sm.ready {
		if got, want := firedNow(rc.ch), sm.m.Fired(rc.ticket); got != want {
			t.Fatalf("Ready channel #%d closed = %v, want %v", i, got, want)
		}
	}
}

// firedNow reports, without blocking, whether ch is closed.
func firedNow(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
