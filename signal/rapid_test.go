package signal_test

import (
	"context"
	"testing"

	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/model"
	"github.com/evsync/evsync/signal"
	"pgregory.net/rapid"
)

// TestSignalModel drives every call of a Signal, one at a time, next to
// the sequential reference model and compares every result.
func TestSignalModel(t *testing.T) { testkit.CheckModel(t, testSignalModel) }

// FuzzSignalModel is TestSignalModel as a native fuzz target.
func FuzzSignalModel(f *testing.F) { testkit.FuzzModel(f, 3, 4, testSignalModel) }

func testSignalModel(t *rapid.T) {
	t.Repeat(rapid.StateMachineActions(newSigMachine(t)))
}

type sigMachine struct {
	s     *signal.Signal
	m     *model.Counter
	ready testkit.ReadyChans
	out   testkit.ReadyChans // Writable's, with out.Writable set
}

func newSigMachine(t *rapid.T) *sigMachine {
	sm := &sigMachine{}
	if rapid.Bool().Draw(t, "zero value") {
		sm.s, sm.m = new(signal.Signal), model.NewSignal(0)
		return sm
	}
	initial := testkit.Initial(signal.Max).Draw(t, "initial")
	sm.s, sm.m = signal.New(initial), model.NewSignal(initial)
	return sm
}

// amount draws an Add size concentrated at the edges (testkit.Amount):
// around the current count and the room left (the values that fill the
// count to Max or just miss), around 0, Max and the uint64 maximum, mixed
// with small and arbitrary values.
func (sm *sigMachine) amount(t *rapid.T) uint64 {
	return testkit.Amount(sm.m.Count(), signal.Max).Draw(t, "n")
}

func (sm *sigMachine) Add(t *rapid.T) {
	n := sm.amount(t)
	testkit.SameErr(t, "Add", sm.s.Add(n), sm.m.Write(n))
}

func (sm *sigMachine) AddWait(t *rapid.T) {
	n := sm.amount(t)
	testkit.CheckBlocking(t, "AddWait",
		func(ctx context.Context) error { return sm.s.AddWait(ctx, n) },
		func(c model.Ctx) error { return sm.m.WriteWait(c, n) })
}

func (sm *sigMachine) Take(t *rapid.T) {
	if got, want := sm.s.Take(), sm.m.Take(); got != want {
		t.Fatalf("Take() = %d, want %d", got, want)
	}
}

func (sm *sigMachine) Wait(t *rapid.T) {
	if testkit.DrawNilCtx(t) {
		v, err := sm.s.Wait(testkit.NilContext)
		testkit.SameErr(t, "Wait(nil)", err, signal.ErrInvalid)
		if v != 0 {
			t.Fatalf("Wait(nil) = %d", v)
		}
		return
	}
	c := testkit.DrawCtx(t)
	want, wantErr := sm.m.Wait(c)
	ctx, wantErr := testkit.PickCtx(c, wantErr)
	got, err := sm.s.Wait(ctx)
	testkit.SameErr(t, "Wait", err, wantErr)
	if got != want {
		t.Fatalf("Wait() = %d, want %d", got, want)
	}
}

func (sm *sigMachine) Ready(t *rapid.T) {
	sm.ready.Add(t, sm.m, sm.s.Ready(), sm.m.Ready())
}

func (sm *sigMachine) Writable(t *rapid.T) {
	sm.out.Writable = true
	sm.out.Add(t, sm.m, sm.s.Writable(), sm.m.Writable())
}

// Close closes on one draw in four (a no-op step otherwise), so that most
// runs spend a while open before they close.
func (sm *sigMachine) Close(t *rapid.T) {
	if testkit.DrawClose(t) {
		sm.s.Close()
		sm.m.Close()
	}
}

// TestSignalNewInvalid checks that New panics with a "signal: " message
// for the one initial count above Max.
func TestSignalNewInvalid(t *testing.T) {
	testkit.WantPanic(t, "signal: ", func() { signal.New(signal.Max + 1) })
}

func (sm *sigMachine) Check(t *rapid.T) {
	testkit.CheckCounter(t, sm.m, sm.s, signal.Stats{Count: sm.m.Count(), Closed: sm.m.Closed()})
	sm.ready.Check(t, sm.m)
	sm.out.Check(t, sm.m)
}
