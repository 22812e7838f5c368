package rqtest

import (
	"slices"
	"strings"
	"testing"

	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/model"
	"github.com/evsync/evsync/readyq"
	"pgregory.net/rapid"
)

// CheckModel drives every ready-list call of x's queues, one at a time,
// next to the sequential reference model (model.ReadyQ), and compares
// every result and, after each step, the whole observable state.
func CheckModel(t *testing.T, x Impl) {
	defer x.SetBigBatch(0)
	testkit.CheckModel(t, modelProperty(x))
}

// FuzzModel is CheckModel as a native fuzz target.
func FuzzModel(f *testing.F, x Impl) {
	defer x.SetBigBatch(0)
	testkit.FuzzModel(f, 7, 11, modelProperty(x))
}

func modelProperty(x Impl) func(*rapid.T) {
	return func(t *rapid.T) {
		t.Repeat(rapid.StateMachineActions(newQueueMachine(t, x)))
	}
}

// keys is the item space: small, so that marks collide.
const keys = 6

type queueMachine struct {
	x        Impl
	q        Queue[int]
	m        *model.ReadyQ
	notReady [keys + 2]bool // the recheck function's answers (false: ready)
	buf      []int          // reused by the Append forms
	ready    []ReadyChan
}

// A ReadyChan is a Ready channel and the model's ticket for it, so that a
// state machine can check that the channel fires when the model says.
type ReadyChan struct {
	Ch     <-chan struct{}
	Ticket model.Ticket
}

func newQueueMachine(t *rapid.T, x Impl) *queueMachine {
	qm := &queueMachine{x: x}
	mode := rapid.IntRange(0, 2).Draw(t, "mode")
	var recheck func(int) bool
	if rapid.Bool().Draw(t, "recheck") {
		recheck = func(k int) bool { return !qm.notReady[k] }
	}
	// Keep is invisible but for memory, so the model has no such setting.
	keep := rapid.Bool().Draw(t, "keep")
	switch {
	case mode == 0 && recheck == nil && !keep && rapid.Bool().Draw(t, "zero value"):
		qm.q = x.Zero()
	default:
		qm.q = x.NewWith(readyq.Config[int]{Mode: readyq.Mode(mode), Recheck: recheck, Keep: keep})
	}
	qm.m = model.NewReadyQ(model.Mode(mode), recheck)
	// 1…3 copies even small batches outside the lock; 0 is the default.
	x.SetBigBatch(rapid.IntRange(0, 3).Draw(t, "big batch"))
	return qm
}

func drawKey(t *rapid.T) int { return rapid.IntRange(0, keys+1).Draw(t, "item") }

func drawMax(t *rapid.T) int {
	return rapid.SampledFrom([]int{-1, 0, 1, 1, 2, 2, 3, 5, 64}).Draw(t, "max")
}

// Add marks a random item on both and compares the results.
func (qm *queueMachine) Add(t *rapid.T) {
	k := drawKey(t)
	if got, want := qm.q.Add(k), qm.m.Add(k); got != want {
		t.Fatalf("Add(%d) = %v, want %v", k, got, want)
	}
}

// AddMode marks a random item in a random mode, one of them not a Mode.
func (qm *queueMachine) AddMode(t *rapid.T) {
	k := drawKey(t)
	m := rapid.IntRange(0, 3).Draw(t, "mode") // 3 is not a Mode
	if got, want := qm.q.AddMode(k, readyq.Mode(m)), qm.m.AddMode(k, model.Mode(m)); got != want {
		t.Fatalf("AddMode(%d, %v) = %v, want %v", k, readyq.Mode(m), got, want)
	}
}

// TryTake takes up to a random max, with or without a buffer to append to.
func (qm *queueMachine) TryTake(t *rapid.T) {
	max := drawMax(t)
	want := qm.m.TryTake(max)
	var got []int
	if rapid.Bool().Draw(t, "append") {
		got = qm.q.TryTakeAppend(qm.buf[:0], max)
		qm.buf = got
	} else {
		got = qm.q.TryTake(max)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("TryTake(%d) = %v, want %v", max, got, want)
	}
}

// Wait waits with a nil, live or done context. Where the model says a
// call with a live context would block, it is made with a cancelled one.
func (qm *queueMachine) Wait(t *rapid.T) {
	max := drawMax(t)
	if testkit.DrawNilCtx(t) {
		_, err := qm.q.Wait(testkit.NilContext, max)
		testkit.SameErr(t, "Wait(nil ctx)", err, readyq.ErrInvalid)
		return
	}
	c := testkit.DrawCtx(t)
	want, werr := qm.m.Wait(c, max)
	ctx, werr := testkit.PickCtx(c, werr)
	var got []int
	var err error
	if rapid.Bool().Draw(t, "append") {
		got, err = qm.q.WaitAppend(ctx, qm.buf[:0], max)
		qm.buf = got
	} else {
		got, err = qm.q.Wait(ctx, max)
	}
	testkit.SameErr(t, "Wait", err, werr)
	if !slices.Equal(got, want) {
		t.Fatalf("Wait(%d) = %v, want %v", max, got, want)
	}
}

// Done is called with a mix of items in flight, others and repeats.
func (qm *queueMachine) Done(t *rapid.T) {
	ks := qm.drawDone(t)
	if got, want := qm.q.Done(ks...), qm.m.Done(ks...); got != want {
		t.Fatalf("Done(%v) = %d, want %d", ks, got, want)
	}
}

// DoneLong is Done with more than 64 items: a list like Done's, 64
// copies of one item, another list. Done is one step however long its
// list (the order of the items it queues again holds for the whole call).
func (qm *queueMachine) DoneLong(t *rapid.T) {
	head, fill, tail := qm.drawDone(t), drawKey(t), qm.drawDone(t)
	ks := slices.Concat(head, slices.Repeat([]int{fill}, 64), tail)
	if got, want := qm.q.Done(ks...), qm.m.Done(ks...); got != want {
		t.Fatalf("Done(%v, %d × 64, %v) = %d, want %d", head, fill, tail, got, want)
	}
}

// drawDone draws up to 4 items for Done, mostly items in flight.
func (qm *queueMachine) drawDone(t *rapid.T) []int {
	held := qm.m.InFlightItems()
	ks := make([]int, rapid.IntRange(0, 4).Draw(t, "n"))
	for i := range ks {
		if len(held) != 0 && rapid.IntRange(0, 3).Draw(t, "held") != 0 {
			ks[i] = rapid.SampledFrom(held).Draw(t, "item")
		} else {
			ks[i] = drawKey(t)
		}
	}
	return ks
}

// Next finishes some of the items in flight and waits for more in one
// call, with a done context too (the Done still happens).
func (qm *queueMachine) Next(t *rapid.T) {
	held := qm.m.InFlightItems()
	var done []int
	for _, k := range held {
		if rapid.Bool().Draw(t, "done") {
			done = append(done, k)
		}
	}
	max := drawMax(t)
	if testkit.DrawNilCtx(t) {
		got, err := qm.q.Next(testkit.NilContext, done, max)
		testkit.SameErr(t, "Next(nil ctx)", err, readyq.ErrInvalid)
		if !slices.Equal(got, done) {
			t.Fatalf("Next(nil ctx) = %v, want its argument %v back", got, done)
		}
		return
	}
	c := testkit.DrawCtx(t)
	want, werr := qm.m.Next(c, done, max)
	ctx, werr := testkit.PickCtx(c, werr)
	got, err := qm.q.Next(ctx, done, max)
	testkit.SameErr(t, "Next", err, werr)
	if !slices.Equal(got, want) {
		t.Fatalf("Next(%v, %d) = %v, want %v", done, max, got, want)
	}
}

// Remove forgets a random item on both.
func (qm *queueMachine) Remove(t *rapid.T) {
	k := drawKey(t)
	if got, want := qm.q.Remove(k), qm.m.Remove(k); got != want {
		t.Fatalf("Remove(%d) = %v, want %v", k, got, want)
	}
}

// Rearm re-arms a random item on both.
func (qm *queueMachine) Rearm(t *rapid.T) {
	k := drawKey(t)
	if got, want := qm.q.Rearm(k), qm.m.Rearm(k); got != want {
		t.Fatalf("Rearm(%d) = %v, want %v", k, got, want)
	}
}

// SetReady changes what the recheck function (if any) reports for an item.
func (qm *queueMachine) SetReady(t *rapid.T) {
	k := drawKey(t)
	qm.notReady[k] = !rapid.Bool().Draw(t, "ready")
}

// Drain waits for an idle queue with a nil, live or done context.
func (qm *queueMachine) Drain(t *rapid.T) {
	testkit.CheckBlocking(t, "Drain", qm.q.Drain, qm.m.Drain)
}

// Ready takes a Ready channel, which must be closed at once exactly when
// the model says a Wait would not block. Check follows the last eight.
func (qm *queueMachine) Ready(t *rapid.T) {
	ch, ticket := qm.q.Ready(), qm.m.Ready()
	if got, want := testkit.IsClosed(ch), qm.m.Fired(ticket); got != want {
		t.Fatalf("Ready() ready at once = %v, want %v", got, want)
	}
	qm.ready = append(qm.ready, ReadyChan{Ch: ch, Ticket: ticket})
	if len(qm.ready) > 8 {
		qm.ready = qm.ready[1:]
	}
}

// Close closes both, now and then.
func (qm *queueMachine) Close(t *rapid.T) {
	if testkit.DrawClose(t) {
		qm.q.Close()
		qm.m.Close()
	}
}

// Check compares the whole observable state after each step: Stats, Len,
// InFlight, String and the Ready channels taken so far.
func (qm *queueMachine) Check(t *rapid.T) {
	if err := qm.m.Validate(); err != nil {
		t.Fatal(err)
	}
	ms := qm.m.Stats()
	want := readyq.Stats{Queued: ms.Queued, InFlight: ms.InFlight, Aside: ms.Aside, Disarmed: ms.Disarmed,
		Waiting: ms.Waiting, Draining: ms.Draining, Closed: ms.Closed}
	if got := qm.q.Stats(); got != want {
		t.Fatalf("Stats() = %+v, want %+v (model queue %v)", got, want, qm.m.Queue())
	}
	if qm.q.Len() != want.Queued || qm.q.InFlight() != want.InFlight {
		t.Fatalf("Len, InFlight = %d, %d, want %d, %d", qm.q.Len(), qm.q.InFlight(), want.Queued, want.InFlight)
	}
	ws := qm.x.Name + strings.TrimPrefix(want.String(), "readyq")
	if s := qm.q.String(); s != ws {
		t.Fatalf("String() = %q, want %q", s, ws)
	}
	for i, r := range qm.ready {
		if got, want := testkit.IsClosed(r.Ch), qm.m.Fired(r.Ticket); got != want {
			t.Fatalf("Ready channel #%d closed = %v, want %v", i, got, want)
		}
	}
}
