package fuzz_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/evsync/evsync/internal/evserr"
	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/model"
	"github.com/evsync/evsync/workqueue"
)

// FuzzWorkqueue makes the decoded operations on a workqueue.Queue[int] and on
// model.WorkQueue, one at a time, inside a synctest bubble, and compares
// every result and, after every step, Stats, Len, InFlight, String, each
// Ready channel and each parked call.
//
// Input: a construction byte ('0' the zero value, '1' New(), or
// NewWithConfig if an option bit is set, '2' NewWithConfig with Mode
// Edge, '3' Level, '4' OneShot), a byte of option bits (the byte minus
// '0', so '0'…'9' then ':' … 'O' for 10…31; none for the zero value):
// the Config fields 1 Recheck, 2 Fairness (tenant k%3), 4 Metrics, 8
// RateLimiter (ExponentialRateLimiter(1ms, 8ms)), else the default
// limiter, 16 FairShare instead of Fairness (see rqCtrl.construct); then operations, each a letter of rqCodes with its operands. An item k is one byte taken modulo
// rqKeys ('0'…'7' are 0…7), a list is a count '0'…'4' followed by that
// many items, a max is one byte ('0'…'9', '-' for -1, '_' for
// math.MinInt, '+' for math.MaxInt, anything else -1…6), a mode is
// '0'…'4' (Edge, Level, OneShot, then two invalid modes), a delay and a
// priority are one byte each (see workqueue_ctrl_test.go):
//
//	A k         Add(k)
//	M k mode    AddMode(k, mode)
//	T max       TryTake(max)
//	U max       TryTakeAppend(buf, max), buf holding one sentinel item
//	W ctx max   Wait(ctx, max)
//	V ctx max   WaitAppend(ctx, buf, max)
//	N ctx max l Next(ctx, l, max)
//	D l         Done(l...)
//	B k l m     Done(l..., then 64 copies of k, then m...): a Done of more
//	            than 64 items, which is one step however long it is
//	R k         Remove(k)
//	E k         Rearm(k)
//	G ctx       Drain(ctx)
//	Y           Ready()
//	C           Close()
//	K i         cancel the context of parked call i
//	L i k       cancel the context of parked call i and Add(k) at once,
//	            before that goroutine has necessarily run: the item must
//	            go past it, to the next parked Wait or to the queue
//	S k         toggle what the recheck function reports for k
//	F k d       AddAfter(k, d)
//	H k d f p   AddWith(k, AddOpts{After: d, RateLimited: f&1 != 0, Replace: f&2 != 0,
//	            Priority: p})
//	I k         AddRateLimited(k)
//	J k         Forget(k)
//	O k         NumRequeues(k)
//	P d         the clock moves on by d (a sleep of the bubble): the
//	            queue's timer queues what is due, and hands it to the
//	            parked Waits, at each ready time in turn
//
// After every step the run also compares Stats().Delayed, NumRequeues and
// Priority of every item, Running, and (Config.Metrics) what the hooks were
// told, with the model.
//
// A Wait, WaitAppend, Next or Drain with a live context that the model
// says would block is parked in a goroutine of the bubble (at most
// maxParked at once; beyond that the call is made with a cancelled
// context). The model has no waiters, so the run keeps the parked calls
// itself, oldest first, and settles them after every change the way the
// queue does: queued items go to the parked Waits in order, each taking
// up to its max (the model's Wait), a closed queue with nothing left to
// hand out refuses them all with ErrClosed, and parked Drains return once
// nothing is queued or in flight. The Ready channels are tracked the same
// way: each fires at the first such settling after which a Wait would
// not block, which is after the parked Waits have been served (an item
// handed straight to a parked Wait fires nothing). Next settles twice,
// after its Done and after its wait, as the queue does.
func FuzzWorkqueue(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) { runWorkqueue(t, data, nil) })
}

const (
	rqCodes = "AMTUWVNDREGYCKLSB" + "FHIJOP"
	rqKeys  = 8
	// rqSentinel is the item the Append forms get in their buffer: not
	// an item of the run, so that a call that overwrote it shows.
	rqSentinel = -1
)

// rqRun is one decoded run.
type rqRun struct {
	trail
	tl       tally
	q        *workqueue.Queue[int]
	m        *model.WorkQueue
	mode     workqueue.Mode // the queue's mode, which Add uses
	notReady [rqKeys]bool
	shadow   map[int]*rqShadow
	parked   []*rqParked // still waiting, oldest first
	settling []rqSettling
	ready    []rqReady
	ctrl     rqCtrl
}

// rqShadow is what the run remembers about a known item, only to name the
// outcomes of Done for the coverage tally; the model decides the results.
type rqShadow struct {
	mode    workqueue.Mode
	mark    bool // a kept-aside mark (in flight or disarmed)
	removed bool // Removed while in flight
	rearmed bool // re-armed while in flight
}

// rqKind is the call a parked goroutine makes.
type rqKind uint8

const (
	rqWait rqKind = iota
	rqWaitAppend
	rqNext
	rqDrain
)

var rqKindNames = [...]string{"Wait", "WaitAppend", "Next", "Drain"}

func (k rqKind) String() string { return rqKindNames[k] }

// rqParked is a call blocked in a goroutine of the bubble.
type rqParked struct {
	kind   rqKind
	max    int
	cancel context.CancelFunc
	res    chan rqResult
}

// rqResult is what a Wait-like call returned (items is the whole slice
// returned, with the sentinel of the Append forms).
type rqResult struct {
	items []int
	err   error
}

func (r rqResult) String() string { return fmt.Sprintf("(%v, %v)", r.items, r.err) }

// rqSettling is a parked call the last step settled, with its result.
type rqSettling struct {
	p    *rqParked
	want rqResult
}

// rqReady is a channel Ready returned and whether the model says it has
// fired.
type rqReady struct {
	ch    <-chan struct{}
	fired bool
}

func runWorkqueue(t *testing.T, data []byte, tl tally) {
	synctest.Test(t, func(t *testing.T) {
		d := &decoder{data: data}
		r := &rqRun{trail: trail{t: t}, tl: tl, shadow: map[int]*rqShadow{}}
		r.construct(d)
		defer r.stop()
		for d.more() {
			desc := r.step(d)
			r.settle()
			r.forgetShadows()
			synctest.Wait()
			r.check(desc)
			r.add(desc)
		}
	})
}

// stop closes the queue and ends every parked call (a Wait on a closed
// queue may still wait for a Done), so that the bubble can end.
func (r *rqRun) stop() {
	r.q.Close()
	for _, p := range r.parked {
		p.cancel()
	}
}

func (r *rqRun) construct(d *decoder) {
	kind := d.choice(5)
	flags := int(d.byte()-'0') % 32
	if kind == 0 {
		flags = 0
	}
	recheck := flags&1 != 0
	var c workqueue.Config[int]
	switch kind {
	case 0:
		r.q = new(workqueue.Queue[int])
		r.tl.hit("New", "zero value")
	case 1:
		r.tl.hit("New", "default")
	default:
		r.mode = workqueue.Mode(kind - 2)
		c.Mode = r.mode
		r.tl.hit("New", r.mode.String())
	}
	var f func(int) bool
	if recheck {
		f = func(k int) bool { return !r.notReady[k] }
		c.Recheck = f
		r.tl.hit("New", "recheck")
	}
	mo := model.WorkQueueConfig{Mode: model.Mode(r.mode), Recheck: f}
	r.ctrl.construct(r.tl, flags, &mo, &c)
	switch {
	case kind == 1 && flags == 0:
		r.q = workqueue.New[int]()
	case kind != 0:
		r.q = workqueue.NewWithConfig(c)
	}
	r.m = model.NewWorkQueueWith(mo)
}

// key decodes an item.
func (d *decoder) key() int { return int(d.byte()) % rqKeys }

// list decodes a list of up to 4 items.
func (d *decoder) list() []int {
	ks := make([]int, d.choice(5))
	for i := range ks {
		ks[i] = d.key()
	}
	return ks
}

// max decodes the max of a hand-out.
func (d *decoder) max() int {
	switch b := d.byte(); {
	case '0' <= b && b <= '9':
		return int(b - '0')
	case b == '-':
		return -1
	case b == '_':
		return math.MinInt
	case b == '+':
		return math.MaxInt
	default:
		return int(b%8) - 1
	}
}

func (r *rqRun) step(d *decoder) string {
	switch op := d.op(rqCodes); op {
	case 0:
		k := d.key()
		return r.addItem("Add", k, r.mode, func() (bool, bool) { return r.q.Add(k), r.m.Add(k) })
	case 1:
		k, m := d.key(), workqueue.Mode(d.choice(5))
		return r.addItem("AddMode", k, m, func() (bool, bool) { return r.q.AddMode(k, m), r.m.AddMode(k, model.Mode(m)) })
	case 2:
		return r.tryTake(d.max(), false)
	case 3:
		return r.tryTake(d.max(), true)
	case 4:
		k := d.ctx()
		return r.wait(rqWait, k, d.max(), nil)
	case 5:
		k := d.ctx()
		return r.wait(rqWaitAppend, k, d.max(), nil)
	case 6:
		k := d.ctx()
		max := d.max()
		return r.wait(rqNext, k, max, d.list())
	case 7:
		return r.done(d.list())
	case 8:
		return r.remove(d.key())
	case 9:
		return r.rearm(d.key())
	case 10:
		return r.drain(d.ctx())
	case 11:
		return r.readyCall()
	case 12:
		return r.closeQueue()
	case 13:
		return r.cancelParked(d)
	case 14:
		desc := r.cancelParked(d)
		k := d.key()
		return desc + ", then " + r.addItem("CancelThenAdd", k, r.mode, func() (bool, bool) { return r.q.Add(k), r.m.Add(k) })
	case 16:
		k := d.key()
		head := d.list()
		return r.doneLong(head, k, d.list())
	case 17, 18, 19, 20, 21, 22:
		return r.ctrlStep(op-17, d)
	}
	k := d.key()
	r.notReady[k] = !r.notReady[k]
	r.tl.hit("SetReady", fmt.Sprint(!r.notReady[k]))
	return fmt.Sprintf("recheck(%d) = %v", k, !r.notReady[k])
}

// rqWhere is where the model has an item.
type rqWhere uint8

const (
	rqUnknown rqWhere = iota
	rqQueued
	rqInFlight
	rqIdle    // known, neither queued nor in flight: one-shot, idle or disarmed
	rqDelayed // waiting for its ready time
)

func (r *rqRun) where(k int) rqWhere {
	switch {
	case slices.Contains(r.m.Queue(), k):
		return rqQueued
	case slices.Contains(r.m.InFlightItems(), k):
		return rqInFlight
	case slices.ContainsFunc(r.m.Delays(), func(d model.Delay) bool { return d.Item == k }):
		return rqDelayed
	case slices.Contains(r.m.Known(), k):
		return rqIdle
	}
	return rqUnknown
}

// addItem makes a mark (Add, AddMode or the Add of L) through call, which
// returns the queue's and the model's results, and settles the parked
// calls.
func (r *rqRun) addItem(op string, k int, m workqueue.Mode, call func() (got, want bool)) string {
	return r.mark(op, k, m, 0, call)
}

// mark is addItem for a mark of priority prio.
func (r *rqRun) mark(op string, k int, m workqueue.Mode, prio int, call func() (got, want bool)) string {
	before, closed := r.where(k), r.m.Stats().Closed
	removed := before == rqInFlight && r.shadowOf(k).removed
	got, want := call()
	desc := fmt.Sprintf("%s(%d, %v) = %v", op, k, m, got)
	if got != want {
		r.fail("%s, model %v", desc, want)
	}
	r.settle()
	after := r.where(k)
	if removed && want {
		r.tl.hit(op, "known again after Remove in flight")
	}
	r.tl.hit(op, addOutcome(m, closed, before, after, want))
	if want {
		r.noteMark(k, m, before, after)
		r.ctrl.adds++
	}
	return desc
}

func addOutcome(m workqueue.Mode, closed bool, before, after rqWhere, ok bool) string {
	switch {
	case m > workqueue.OneShot:
		return "invalid mode"
	case closed:
		return "refused after Close"
	case before == rqQueued:
		return "duplicate"
	case before == rqDelayed && ok:
		return "delay cut short"
	case before == rqDelayed:
		return "delayed, the earliest time kept"
	case ok && after == rqDelayed:
		return "delayed"
	case ok && after == rqQueued:
		return "queued"
	case ok && after == rqInFlight && before != rqInFlight:
		return "handed to a parked Wait"
	case ok && before == rqInFlight:
		return "kept aside"
	case ok:
		return "kept while disarmed"
	}
	return "mark absorbed"
}

// noteMark updates the shadow of k after a mark that took.
func (r *rqRun) noteMark(k int, m workqueue.Mode, before, after rqWhere) {
	sh := r.shadowOf(k)
	if before == rqUnknown || before == rqInFlight && sh.removed { // known again, in mode m
		*sh = rqShadow{mode: m}
	}
	sh.mark = after == rqIdle || before == rqInFlight
}

// shadowOf returns the shadow of k, made in the queue's mode if the run
// has none (which only a harness bug could cause).
func (r *rqRun) shadowOf(k int) *rqShadow {
	sh := r.shadow[k]
	if sh == nil {
		sh = &rqShadow{mode: r.mode}
		r.shadow[k] = sh
	}
	return sh
}

// forgetShadows drops the shadows of the items the model forgot.
func (r *rqRun) forgetShadows() {
	known := r.m.Known()
	for k := range r.shadow {
		if !slices.Contains(known, k) {
			delete(r.shadow, k)
		}
	}
}

func (r *rqRun) tryTake(max int, appendForm bool) string {
	op := "TryTake"
	want := r.m.TryTake(max)
	r.handedOut(want)
	var got []int
	if appendForm {
		op = "TryTakeAppend"
		got = r.q.TryTakeAppend([]int{rqSentinel}, max)
		want = append([]int{rqSentinel}, want...)
	} else {
		got = r.q.TryTake(max)
	}
	desc := fmt.Sprintf("%s(%d) = %v", op, max, got)
	if !slices.Equal(got, want) || !appendForm && len(want) == 0 && got != nil {
		r.fail("%s, model %v", desc, want)
	}
	switch {
	case max <= 0:
		r.tl.hit(op, "max<=0")
	case len(got) > 0 && got[len(got)-1] != rqSentinel:
		r.tl.hit(op, "items")
	default:
		r.tl.hit(op, "none")
	}
	return desc
}

// wait makes a Wait, WaitAppend or Next (with done) call.
func (r *rqRun) wait(kind rqKind, k ctxKind, max int, done []int) string {
	desc := fmt.Sprintf("%v(%v, %d", kind, k, max)
	if kind == rqNext {
		desc += fmt.Sprintf(", done %v", done)
	}
	desc += ")"
	if k == ctxNil || max <= 0 {
		r.invalidWait(kind, k, max, done)
		return desc + " = ErrInvalid"
	}
	if kind == rqNext {
		r.doneModel(done)
	}
	blocks := r.m.Len() == 0 && !r.exhausted()
	if k == ctxLive && blocks && len(r.parked) < maxParked {
		r.park(kind, max, done)
		r.tl.hit(kind.String(), "parked")
		return desc + " parked"
	}
	mctx := model.Live // what the model is told: Done for a cancelled call
	if k == ctxCancelled || blocks {
		mctx = model.Done
	}
	if k == ctxLive && blocks {
		k = ctxCancelled
		desc += " (cancelled)"
	}
	items, err := r.m.Wait(mctx, max)
	r.handedOut(items)
	want := rqWant(kind, items, err)
	got := r.callWait(kind, k.context(), max, done)
	r.tl.err(kind.String(), want.err)
	r.sameResult(desc, got, want)
	return desc + " = " + got.String()
}

// invalidWait makes a Wait-like call with a nil context or max ≤ 0, which
// must return ErrInvalid and change nothing (Next gives done back).
func (r *rqRun) invalidWait(kind rqKind, k ctxKind, max int, done []int) {
	want := rqWant(kind, nil, workqueue.ErrInvalid)
	if kind == rqNext {
		want.items = slices.Clone(done)
	}
	got := r.callWait(kind, k.context(), max, done)
	r.sameResult(fmt.Sprintf("%v(%v, %d)", kind, k, max), got, want)
	if k == ctxNil {
		r.tl.hit(kind.String(), "ErrInvalid nil ctx")
	} else {
		r.tl.hit(kind.String(), "ErrInvalid max<=0")
	}
}

// callWait makes the queue's call.
func (r *rqRun) callWait(kind rqKind, ctx context.Context, max int, done []int) rqResult {
	var res rqResult
	switch kind {
	case rqWait:
		res.items, res.err = r.q.Wait(ctx, max)
	case rqWaitAppend:
		res.items, res.err = r.q.WaitAppend(ctx, []int{rqSentinel}, max)
	case rqNext:
		res.items, res.err = r.q.Next(ctx, done, max)
	}
	return res
}

// rqWant is the result a Wait-like call must return when the model's Wait
// returns items and err: the Append form keeps its sentinel, Next returns
// done[:0] (empty, maybe not nil) on error, Wait nil.
func rqWant(kind rqKind, items []int, err error) rqResult {
	switch {
	case kind == rqWaitAppend:
		items = append([]int{rqSentinel}, items...)
	case kind == rqNext && items == nil:
		items = []int{}
	}
	return rqResult{items, err}
}

func (r *rqRun) exhausted() bool {
	st := r.m.Stats()
	return st.Closed && st.Queued == 0 && st.Aside == 0
}

// park makes a Wait-like call or a Drain in a goroutine; synctest.Wait in
// the run's loop returns once it is blocked (or, if it is wrongly not,
// has returned, which check reports).
func (r *rqRun) park(kind rqKind, max int, done []int) {
	ctx, cancel := context.WithCancel(context.Background())
	p := &rqParked{kind: kind, max: max, cancel: cancel, res: make(chan rqResult, 1)}
	go func() {
		if kind == rqDrain {
			p.res <- rqResult{err: r.q.Drain(ctx)}
			return
		}
		p.res <- r.callWait(kind, ctx, max, done)
	}()
	r.parked = append(r.parked, p)
}

// done makes a Done call.
func (r *rqRun) done(ks []int) string {
	got := r.q.Done(ks...)
	want := r.doneModel(ks)
	desc := fmt.Sprintf("Done(%v) = %d", ks, got)
	if got != want {
		r.fail("%s, model %d", desc, want)
	}
	return desc
}

// doneLong makes a Done of head, 64 copies of fill and tail. With a
// recheck function, Done used to finish its items 64 at a time, unlocking
// in between: an item of head queued again could go to a parked Wait,
// and the same item in tail then ended that Wait's hand-out.
func (r *rqRun) doneLong(head []int, fill int, tail []int) string {
	held := r.m.InFlightItems()
	both := slices.ContainsFunc(tail, func(k int) bool { return slices.Contains(head, k) && slices.Contains(held, k) })
	ks := slices.Concat(head, slices.Repeat([]int{fill}, 64), tail)
	got := r.q.Done(ks...)
	want := r.doneModel(ks)
	desc := fmt.Sprintf("Done(%v, %d × 64, %v) = %d", head, fill, tail, got)
	if got != want {
		r.fail("%s, model %d", desc, want)
	}
	if both {
		r.tl.hit("DoneLong", "an item held at both ends")
	} else {
		r.tl.hit("DoneLong", "other")
	}
	return desc
}

// doneModel makes the model's Done (of a Done or a Next), tallies what
// happened to each item and settles the parked calls.
func (r *rqRun) doneModel(ks []int) int {
	before := make([]rqWhere, len(ks))
	for i, k := range ks {
		before[i] = r.where(k)
	}
	n := r.m.Done(ks...)
	r.finished(ks, before)
	if len(ks) == 0 {
		r.tl.hit("Done", "empty")
	}
	for i, k := range ks {
		r.tl.hit("Done", r.doneOutcome(k, before[i], slices.Contains(ks[:i], k)))
	}
	r.settle()
	return n
}

// doneOutcome names what Done did to k, and updates k's shadow.
func (r *rqRun) doneOutcome(k int, before rqWhere, repeated bool) string {
	switch {
	case before == rqUnknown:
		return "unknown"
	case before == rqQueued:
		return "queued item"
	case before == rqIdle:
		return "idle or disarmed item"
	case repeated:
		return "repeated"
	}
	sh := r.shadowOf(k)
	defer func() { sh.removed, sh.rearmed = false, false }()
	switch r.where(k) {
	case rqDelayed:
		sh.mark = false
		return "kept-aside mark delayed"
	case rqQueued:
		defer func() { sh.mark = false }()
		if sh.mark {
			return "kept-aside mark re-queued"
		}
		return "level re-queued"
	case rqIdle:
		if sh.rearmed {
			sh.mark = false
			return "one-shot re-armed"
		}
		if sh.mark {
			return "one-shot disarmed with a mark"
		}
		return "one-shot disarmed"
	}
	switch {
	case sh.removed:
		return "removed item forgotten"
	case sh.mode == workqueue.Level && r.m.Stats().Closed:
		return "level not re-queued after Close"
	case sh.mode == workqueue.Level:
		return "level dropped by recheck"
	}
	return "edge forgotten"
}

func (r *rqRun) remove(k int) string {
	before := r.where(k)
	got, want := r.q.Remove(k), r.m.Remove(k)
	desc := fmt.Sprintf("Remove(%d) = %v", k, got)
	if got != want {
		r.fail("%s, model %v", desc, want)
	}
	outcome := [...]string{"unknown", "queued", "in flight", "idle or disarmed", "delayed"}[before]
	if before == rqInFlight && !want {
		outcome = "in flight, already removed"
	}
	if before == rqInFlight && want {
		sh := r.shadowOf(k)
		*sh = rqShadow{mode: sh.mode, removed: true}
	}
	r.tl.hit("Remove", outcome)
	return desc
}

func (r *rqRun) rearm(k int) string {
	before, closed := r.where(k), r.m.Stats().Closed
	got, want := r.q.Rearm(k), r.m.Rearm(k)
	desc := fmt.Sprintf("Rearm(%d) = %v", k, got)
	if got != want {
		r.fail("%s, model %v", desc, want)
	}
	r.settle()
	outcome := "refused"
	switch {
	case closed:
		outcome = "after Close"
	case want && before == rqInFlight:
		outcome = "in flight"
		r.shadowOf(k).rearmed = true
	case want && r.where(k) == rqIdle:
		outcome = "idle"
	case want && r.where(k) == rqDelayed:
		outcome = "delayed"
	case want:
		outcome = "queued"
	}
	if want && before == rqIdle {
		r.shadowOf(k).mark = false
	}
	r.tl.hit("Rearm", outcome)
	return desc
}

func (r *rqRun) drain(k ctxKind) string {
	desc := fmt.Sprintf("Drain(%v)", k)
	want := r.m.Drain(model.Live)
	switch {
	case k == ctxNil:
		want = workqueue.ErrInvalid
	case k == ctxCancelled:
		want = r.m.Drain(model.Done)
	case k == ctxLive && want != nil && len(r.parked) < maxParked:
		r.park(rqDrain, 0, nil)
		r.tl.hit("Drain", "parked")
		return desc + " parked"
	case k == ctxLive && want != nil:
		k = ctxCancelled
		desc += " (cancelled)"
	}
	want = cancelledErr(want)
	if err := r.q.Drain(k.context()); !errMatches(err, want) {
		r.fail("%s = %v, model %v", desc, err, want)
	}
	r.tl.err("Drain", want)
	return desc
}

func (r *rqRun) readyCall() string {
	ch := r.q.Ready()
	want := r.readyNow()
	got := testkit.IsClosed(ch)
	if got != want {
		r.fail("Ready() closed at once = %v, model %v", got, want)
	}
	if r.ready = append(r.ready, rqReady{ch, want}); len(r.ready) > maxKept {
		r.ready = r.ready[1:]
	}
	if got {
		r.tl.hit("Ready", "fired")
	} else {
		r.tl.hit("Ready", "armed")
	}
	return "Ready()"
}

// readyNow reports whether a Wait would not block.
func (r *rqRun) readyNow() bool { return r.m.Len() != 0 || r.exhausted() }

func (r *rqRun) closeQueue() string {
	switch {
	case r.m.Stats().Closed:
		r.tl.hit("Close", "again")
	case r.m.Stats().Delayed != 0:
		r.tl.hit("Close", "queued delayed items")
	default:
		r.tl.hit("Close", "ok")
	}
	r.q.Close()
	r.m.Close()
	r.settle()
	return "Close()"
}

// cancelParked cancels the context of a parked call, which must return
// ctx.Err() and leave the queue.
func (r *rqRun) cancelParked(d *decoder) string {
	if len(r.parked) == 0 {
		d.byte()
		return "cancel parked (none)"
	}
	i := d.choice(len(r.parked))
	p := r.parked[i]
	r.parked = slices.Delete(r.parked, i, i+1)
	p.cancel()
	want := rqWant(p.kind, nil, context.Canceled)
	if p.kind == rqDrain {
		want.items = nil
	}
	r.settling = append(r.settling, rqSettling{p, want})
	return fmt.Sprintf("cancel parked %v #%d", p.kind, i)
}

// settle settles the parked calls after a change, as the queue does
// under its lock: the parked Waits, oldest first, get what the model's
// Wait returns for their max until one would block; then the parked
// Drains return if nothing is queued or in flight; then the Ready
// channels fire if a Wait would not block.
func (r *rqRun) settle() {
	blocked := false
	r.parked = slices.DeleteFunc(r.parked, func(p *rqParked) bool {
		if p.kind == rqDrain || blocked {
			return false
		}
		items, err := r.m.Wait(model.Live, p.max)
		if err == evserr.ErrWouldBlock {
			blocked = true
			return false
		}
		r.handedOut(items)
		r.settling = append(r.settling, rqSettling{p, rqWant(p.kind, items, err)})
		return true
	})
	if r.m.Drain(model.Live) == nil {
		r.parked = slices.DeleteFunc(r.parked, func(p *rqParked) bool {
			if p.kind == rqDrain {
				r.settling = append(r.settling, rqSettling{p, rqResult{}})
			}
			return p.kind == rqDrain
		})
	}
	if r.readyNow() {
		for i := range r.ready {
			if !r.ready[i].fired {
				r.ready[i].fired = true
				r.tl.hit("Ready", "fired later")
			}
		}
	}
}

func (r *rqRun) check(desc string) {
	validate(&r.trail, r.m)
	for _, s := range r.settling {
		got, ok := rqSettled(s.p.res)
		if !ok {
			r.fail("after %s: a parked %v still waits, want %v", desc, s.p.kind, s.want)
		}
		r.tl.err("Parked "+s.p.kind.String(), got.err)
		r.sameResult(fmt.Sprintf("after %s: parked %v", desc, s.p.kind), got, s.want)
	}
	r.settling = r.settling[:0]
	waiting, draining := 0, 0
	for i, p := range r.parked {
		if got, ok := rqSettled(p.res); ok {
			r.fail("after %s: parked %v #%d returned %v, want still waiting", desc, p.kind, i, got)
		}
		if p.kind == rqDrain {
			draining++
		} else {
			waiting++
		}
	}
	r.checkStats(desc, waiting, draining)
	r.checkCtrl(desc)
	for i, rd := range r.ready {
		if got := testkit.IsClosed(rd.ch); got != rd.fired {
			r.fail("after %s: Ready channel #%d closed = %v, model %v", desc, i, got, rd.fired)
		}
	}
}

func (r *rqRun) checkStats(desc string, waiting, draining int) {
	want := workqueue.Stats(r.m.Stats())
	want.Waiting, want.Draining = waiting, draining
	if st := r.q.Stats(); st != want {
		r.fail("after %s: Stats() = %+v, model %+v (queue %v, in flight %v)", desc, st, want, r.m.Queue(), r.m.InFlightItems())
	}
	if r.q.Len() != want.Queued || r.q.InFlight() != want.InFlight {
		r.fail("after %s: Len, InFlight = %d, %d, model %d, %d", desc, r.q.Len(), r.q.InFlight(), want.Queued, want.InFlight)
	}
	if s := r.q.String(); s != want.String() {
		r.fail("after %s: String() = %q, want %q", desc, s, want.String())
	}
}

// rqSettled reports, without blocking, the result of a parked call, if it
// has returned.
func rqSettled(ch <-chan rqResult) (rqResult, bool) {
	select {
	case res := <-ch:
		return res, true
	default:
		return rqResult{}, false
	}
}

// sameResult compares a Wait-like result with the model's: the same
// items and error (or one that wraps the model's, errMatches), and nil
// items where Wait returns nil.
func (r *rqRun) sameResult(what string, got, want rqResult) {
	if !errMatches(got.err, want.err) || !slices.Equal(got.items, want.items) || want.items == nil && got.items != nil {
		r.fail("%s = %v, model %v", what, got, want)
	}
}
