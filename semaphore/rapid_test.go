package semaphore_test

import (
	"context"
	"flag"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/evsync/evsync/internal/model"
	"github.com/evsync/evsync/semaphore"
	"pgregory.net/rapid"
)

// TestSemaphoreModel drives every call of a Semaphore, one at a time,
// next to the sequential reference model and compares every result.
func TestSemaphoreModel(t *testing.T) {
	for range modelRounds() {
		rapid.Check(t, testSemaphoreModel)
	}
}

// FuzzSemaphoreModel is TestSemaphoreModel as a native fuzz target.
func FuzzSemaphoreModel(f *testing.F) {
	addFuzzSeeds(f)
	f.Fuzz(rapid.MakeFuzz(testSemaphoreModel))
}

// modelRounds is how many times the state-machine properties run rapid's
// number of checks (-rapid.checks, 100 by default). Sequences are cheap, and
// the rarer interleavings, such as a Ready channel armed while a Release
// goes straight to a queued reservation, need several hundred of them to
// turn up reliably. A run that replays a seed or a fail file, or -short,
// runs once.
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
	rng := rand.New(rand.NewPCG(1, 2))
	for range 4 {
		b := make([]byte, 4096)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		f.Add(b)
	}
}

func testSemaphoreModel(t *rapid.T) {
	t.Repeat(rapid.StateMachineActions(newSemMachine(t)))
}

// nilContext is passed where a caller forgot the context: ErrInvalid.
var nilContext context.Context

type semMachine struct {
	s         *semaphore.Semaphore
	m         *model.Counter
	cancelled context.Context // already done
	resv      []semReservation
	ready     []readyChan
}

type semReservation struct {
	r *semaphore.Reservation
	m *model.Reservation
}

// readyChan is a channel returned by Ready and the model's name for it.
type readyChan struct {
	ch     <-chan struct{}
	ticket model.Ticket
}

// maxReady bounds how many Ready channels the invariant re-checks.
const maxReady = 8

func newSemMachine(t *rapid.T) *semMachine {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sm := &semMachine{cancelled: ctx}
	switch rapid.IntRange(0, 2).Draw(t, "construct") {
	case 0: // the zero value: count 0, limit Max
		sm.s, sm.m = new(semaphore.Semaphore), model.NewSemaphore(0, semaphore.Max)
	case 1:
		initial := drawInitial(t, semaphore.Max)
		sm.s, sm.m = semaphore.New(initial), model.NewSemaphore(initial, semaphore.Max)
	default:
		limit := drawLimit(t)
		initial := drawInitial(t, limit)
		sm.s = semaphore.New(initial, semaphore.WithLimit(limit))
		sm.m = model.NewSemaphore(initial, limit)
	}
	return sm
}

func drawLimit(t *rapid.T) uint64 {
	return rapid.OneOf(
		rapid.SampledFrom([]uint64{1, 2, 3, semaphore.Max - 1, semaphore.Max, 1 << 32, 1 << 63}),
		rapid.Uint64Range(1, 16),
		rapid.Uint64Range(1, semaphore.Max),
	).Draw(t, "limit")
}

func drawInitial(t *rapid.T, limit uint64) uint64 {
	return rapid.OneOf(
		rapid.SampledFrom([]uint64{0, 1, limit - 1, limit}),
		rapid.Uint64Range(0, min(limit, 8)),
		rapid.Uint64Range(0, limit),
	).Draw(t, "initial")
}

// drawAmount draws a request or release size concentrated at the edges:
// around the current count, the room left and what the head of the queue
// still misses (the values that fill or just miss a waiter), around 0, the
// limit and the uint64 maximum, mixed with small and arbitrary values.
func drawAmount(t *rapid.T, label string, count, limit uint64, queue []uint64) uint64 {
	near := []uint64{count, count - 1, count + 1, limit - count, limit - count + 1}
	if len(queue) != 0 {
		near = append(near, queue[0]-count, queue[0]-count-1, queue[0], queue[0]-count+1)
	}
	edges := []uint64{0, 1, 2, limit - 1, limit, limit + 1, 1<<64 - 3, 1<<64 - 2, 1<<64 - 1}
	return rapid.OneOf(
		rapid.SampledFrom(near),
		rapid.SampledFrom(edges),
		rapid.Uint64Range(0, 8),
		rapid.SampledFrom(near),
		rapid.Uint64(),
	).Draw(t, label)
}

func (sm *semMachine) amount(t *rapid.T, label string) uint64 {
	return drawAmount(t, label, sm.m.Count(), sm.m.Limit(), sm.m.Queue())
}

// A blocking call is made with a nil context now and then (ErrInvalid),
// with a live one only when the model says it completes without waiting,
// and otherwise with one that is already cancelled.
func drawNilCtx(t *rapid.T) bool {
	return rapid.IntRange(0, 9).Draw(t, "nil ctx") == 0
}

// pickCtx returns the context for a call whose model result is want, and
// the error the real call must then return.
func pickCtx(t *rapid.T, cancelled context.Context, want error) (context.Context, error) {
	if want == semaphore.ErrWouldBlock {
		return cancelled, context.Canceled
	}
	if rapid.Bool().Draw(t, "live ctx") {
		return context.Background(), want
	}
	return cancelled, want
}

func checkSameErr(t *rapid.T, what string, got, want error) {
	t.Helper()
	if got != want { // the very same values, not just errors.Is
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
}

func (sm *semMachine) Acquire(t *rapid.T) {
	n := sm.amount(t, "n")
	if drawNilCtx(t) {
		checkSameErr(t, "Acquire(nil, n)", sm.s.Acquire(nilContext, n), semaphore.ErrInvalid)
		return
	}
	ctx, want := pickCtx(t, sm.cancelled, sm.m.Acquire(n))
	checkSameErr(t, "Acquire", sm.s.Acquire(ctx, n), want)
}

func (sm *semMachine) TryAcquire(t *rapid.T) {
	n := sm.amount(t, "n")
	if got, want := sm.s.TryAcquire(n), sm.m.TryAcquire(n); got != want {
		t.Fatalf("TryAcquire(%d) = %v, want %v", n, got, want)
	}
}

func (sm *semMachine) Release(t *rapid.T) {
	n := sm.amount(t, "n")
	checkSameErr(t, "Release", sm.s.Release(n), sm.m.Write(n))
}

func (sm *semMachine) ReleaseWait(t *rapid.T) {
	n := sm.amount(t, "n")
	if drawNilCtx(t) {
		checkSameErr(t, "ReleaseWait(nil, n)", sm.s.ReleaseWait(nilContext, n), semaphore.ErrInvalid)
		return
	}
	ctx, want := pickCtx(t, sm.cancelled, sm.m.WriteWait(n))
	checkSameErr(t, "ReleaseWait", sm.s.ReleaseWait(ctx, n), want)
}

func (sm *semMachine) Reserve(t *rapid.T) {
	n := sm.amount(t, "n")
	r, err := sm.s.Reserve(n)
	mr, want := sm.m.Reserve(n)
	checkSameErr(t, "Reserve", err, want)
	if (r == nil) != (mr == nil) {
		t.Fatalf("Reserve(%d) returned reservation %v, model %v", n, r != nil, mr != nil)
	}
	if r != nil {
		sm.resv = append(sm.resv, semReservation{r, mr})
	}
}

func (sm *semMachine) pick(t *rapid.T) semReservation {
	if len(sm.resv) == 0 {
		t.Skip("no reservation")
	}
	return sm.resv[rapid.IntRange(0, len(sm.resv)-1).Draw(t, "reservation")]
}

func (sm *semMachine) ReservationCancel(t *rapid.T) {
	p := sm.pick(t)
	if got, want := p.r.Cancel(), p.m.Cancel(); got != want {
		t.Fatalf("Cancel() of a reservation for %d = %v, want %v", p.m.Need(), got, want)
	}
}

func (sm *semMachine) Ready(t *rapid.T) {
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
func (sm *semMachine) Close(t *rapid.T) {
	if rapid.IntRange(0, 3).Draw(t, "close") != 0 {
		return
	}
	sm.s.Close()
	sm.m.Close()
}

// TestSemaphoreNewInvalid checks that New and WithLimit panic with a
// "semaphore: " message for an initial count above the limit and a limit
// outside 1..Max.
func TestSemaphoreNewInvalid(t *testing.T) { rapid.Check(t, checkNewInvalid) }

func checkNewInvalid(t *rapid.T) {
	limit := drawLimit(t)
	switch rapid.IntRange(0, 2).Draw(t, "bad") {
	case 0:
		initial := rapid.Uint64Min(limit+1).Draw(t, "initial above limit")
		wantSemaphorePanic(t, func() { semaphore.New(initial, semaphore.WithLimit(limit)) })
	case 1:
		wantSemaphorePanic(t, func() { semaphore.WithLimit(0) })
	default:
		wantSemaphorePanic(t, func() { semaphore.WithLimit(semaphore.Max + 1) })
	}
	wantSemaphorePanic(t, func() { semaphore.New(1<<64 - 1) })
}

func wantSemaphorePanic(t *rapid.T, f func()) {
	t.Helper()
	defer func() {
		r := recover()
		if s, _ := r.(string); !strings.HasPrefix(s, "semaphore: ") {
			t.Fatalf("panic value %#v, want a \"semaphore: \" message", r)
		}
	}()
	f()
}

func (sm *semMachine) Check(t *rapid.T) {
	if err := sm.m.Validate(); err != nil {
		t.Fatal(err)
	}
	if got, want := sm.s.Count(), sm.m.Count(); got != want {
		t.Fatalf("Count() = %d, want %d", got, want)
	}
	st := sm.s.Stats()
	want := semaphore.Stats{
		Count:   sm.m.Count(),
		Limit:   sm.m.Limit(),
		Waiting: sm.m.Waiting(),
		Closed:  sm.m.Closed(),
	}
	if st != want {
		t.Fatalf("Stats() = %+v, want %+v", st, want)
	}
	if s := sm.s.String(); s != st.String() {
		t.Fatalf("String() = %q, Stats().String() = %q", s, st.String())
	}
	for i, p := range sm.resv {
		if got, want := firedNow(p.r.Done()), p.m.Done(); got != want {
			t.Fatalf("Done() of reservation #%d (for %d) closed = %v, want %v", i, p.m.Need(), got, want)
		}
		if got, want := p.r.Err(), p.m.Err(); got != want {
			t.Fatalf("Err() of reservation #%d (for %d) = %v, want %v", i, p.m.Need(), got, want)
		}
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
