package fuzz_test

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/anishathalye/porcupine"
	"github.com/evsync/evsync/internal/evserr"
	"github.com/evsync/evsync/model"
)

// The model of TestSetLinearizable is model.Set over model.Counters, the
// sources, stepped on copies (model.CloneSet) and compared by what the
// calls can observe. It follows the real Set's locking, which makes some
// calls more than one step:
//
//   - A source call changes the source under the source's lock, and tells
//     the Set after its unlock. So its wakeup is an operation of its own
//     (setLinWake), after the change and before the call returns. The
//     change is made with the source muted (model.Mute), and the
//     wakeup delivered with model.Set.Wake. A Set may poll the change, and
//     report the source, before the wakeup comes. Then the wakeup may
//     queue the source again: an edge source is reported once more, as
//     epoll's overflow list does for a write during a scan.
//   - A Wait or TryWait holds the Set's lock while it polls the queued
//     sources one after the other, and each poll is a load of that
//     source alone. So the sources may change between two polls: a poll
//     may see a source as it was before a source call made since the
//     last step that held the Set's lock, if that call did not return
//     before the Wait was called (setLinHarvest).
//   - A Wait polls once (setLinWaitStep). If that finds nothing, it drops
//     the sources queued with no event left and blocks, and a step of its
//     own ends its wait later (setLinWaitEnd): a harvest that hands it
//     events, Close, or the end of its context. While it is blocked, every
//     step that queues a source hands it over or drops what has no event
//     left (setLinDrops).
//
// Every other call is one step.

// A setWorld is one state of the model. It is never changed once it is
// sealed: a step clones it and changes the copy.
type setWorld struct {
	set     *model.Set
	src     []*model.Counter // the sources, by index
	pending []setPending     // the wakeups of source calls to come, by id
	// base is the world after the last step that held the Set's lock, and
	// recent the source calls since, in order, which a harvest may not
	// have seen (setLinHarvest). base is nil, and recent empty, right
	// after such a step.
	base   *setWorld
	recent []setLinCall
	waits  []setWaiting // the Waits past their first poll, not yet returned
	key    setKey
}

// A setWaiting is a Wait past its first poll, by id: blocked if the poll
// found nothing, so that another step will end its wait. live says its
// context never ends.
type setWaiting struct {
	id            int16
	blocked, live bool
}

// A setPending is the wakeup of source call id, with the events that the
// call held back (model.Unmute). A real source tells its Sets of a
// change only if a registration was armed when it made it: sure says the
// model's was. If it was not, the real one may still have been, for a
// moment: a Wait arms a queued edge registration before it polls it, and
// Add and Modify arm theirs before they poll. So a wakeup that is not
// sure may come or not.
type setPending struct {
	id   int16
	src  int8
	ev   model.Events
	sure bool
}

const (
	// setLinMaxPending bounds the wakeups pending at once: one per client.
	setLinMaxPending = setLinWaiters + setLinOthers + 1
	// setLinMaxRecent bounds the source calls a harvest may not have seen.
	// Older ones are folded into base.
	setLinMaxRecent = 6
)

// setFP is everything of a Set and its sources that the calls can
// observe, as a comparable value.
type setFP struct {
	count  [setLinSources]uint64
	regs   [setLinSources]model.SetRegistration // the zero value where not registered
	ready  [setLinSources]int8                  // 1 + the index of each queued source, head first
	closed uint8                                // bit i: source i is closed; setFPClosed: the Set
}

const setFPClosed = 1 << 7

// setKey is what porcupine compares: two worlds with the same key return
// the same to every call from then on, so porcupine may merge them.
type setKey struct {
	now, base setFP
	pending   [setLinMaxPending]setPending // id + 1
	recent    [setLinMaxRecent]int16       // id + 1
	waits     [setLinWaiters]setWaiting    // id + 1
}

func (w *setWorld) fingerprint() setFP {
	var fp setFP
	for i, c := range w.src {
		fp.count[i] = c.Count()
		fp.regs[i], _ = w.set.Registration(c)
		if c.Closed() {
			fp.closed |= 1 << i
		}
	}
	for i, c := range w.set.ReadyList() {
		fp.ready[i] = int8(1 + slices.Index(w.src, c.(*model.Counter)))
	}
	if w.set.Closed() {
		fp.closed |= setFPClosed
	}
	return fp
}

// seal computes w's key and returns w, which must not change from then
// on.
func (w *setWorld) seal() *setWorld {
	k := setKey{now: w.fingerprint()}
	k.base = k.now
	if w.base != nil {
		k.base = w.base.key.now
	}
	if len(w.pending) > setLinMaxPending {
		panic("more wakeups pending than clients")
	}
	for i, p := range w.pending {
		p.id++
		k.pending[i] = p
	}
	for i, c := range w.recent {
		k.recent[i] = int16(c.id + 1)
	}
	for i, x := range w.waits {
		x.id++
		k.waits[i] = x
	}
	w.key = k
	return w
}

// clone returns an unsealed copy of w, to step.
func (w *setWorld) clone() *setWorld {
	s, src := model.CloneSet(w.set, w.src)
	return &setWorld{set: s, src: src, pending: slices.Clone(w.pending), base: w.base, recent: slices.Clone(w.recent), waits: slices.Clone(w.waits)}
}

// locked returns an unsealed copy of w for a step that holds the Set's
// lock: no harvest after it can miss a source call before it.
func (w *setWorld) locked() *setWorld {
	n := w.clone()
	n.base, n.recent = nil, nil
	return n
}

func (w *setWorld) hash() uint64 {
	k := &w.key
	h := uint64(k.now.closed) | uint64(k.base.closed)<<8
	mix := func(v uint64) { h = (h ^ v) * 0x100000001b3 }
	for _, fp := range []*setFP{&k.now, &k.base} {
		for i := range setLinSources {
			r := fp.regs[i]
			mix(fp.count[i])
			mix(uint64(r.Key)<<16 | uint64(r.Events)<<8 | uint64(r.Mode)<<4 | b2u(r.Queued)<<1 | b2u(r.Disarmed))
			mix(uint64(fp.ready[i]))
		}
	}
	for _, p := range k.pending {
		mix(uint64(p.id)<<16 | uint64(p.src)<<8 | uint64(p.ev)<<1 | b2u(p.sure))
	}
	for _, id := range k.recent {
		mix(uint64(id))
	}
	for _, x := range k.waits {
		mix(uint64(x.id)<<2 | b2u(x.blocked)<<1 | b2u(x.live))
	}
	return h
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func (w *setWorld) String() string {
	var b strings.Builder
	fp := &w.key.now
	for i := range setLinSources {
		fmt.Fprintf(&b, "src%d=%d", i, fp.count[i])
		if fp.closed&(1<<i) != 0 {
			b.WriteString(" closed")
		}
		if r := fp.regs[i]; r.Events != 0 {
			fmt.Fprintf(&b, " (key %d %v %s", r.Key, r.Events, setLinModeNames[r.Mode])
			if r.Disarmed {
				b.WriteString(" disarmed")
			}
			b.WriteString(")")
		}
		b.WriteString("; ")
	}
	b.WriteString("ready [")
	for i, x := range fp.ready {
		if x != 0 {
			if i > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "src%d", x-1)
		}
	}
	b.WriteString("]")
	if fp.closed&setFPClosed != 0 {
		b.WriteString(" closed")
	}
	for _, p := range w.pending {
		fmt.Fprintf(&b, "; #%d's wakeup (%v) to come", p.id, p.ev)
	}
	for _, c := range w.recent {
		fmt.Fprintf(&b, "; #%d since the lock", c.id)
	}
	for _, x := range w.waits {
		if x.blocked {
			fmt.Fprintf(&b, "; #%d waits", x.id)
		} else {
			fmt.Fprintf(&b, "; #%d returns", x.id)
		}
	}
	return b.String()
}

// setLinSetup is how a history's sources and Set start: the counts of the
// sources and, for each, the registration Add gave it before the clients
// started (Events 0 for none). It is the first call of the history.
type setLinSetup struct {
	counts [setLinSources]uint64
	regs   [setLinSources]model.SetRegistration
}

func (setup setLinSetup) String() string {
	var b strings.Builder
	b.WriteString("setup:")
	for i, n := range setup.counts {
		fmt.Fprintf(&b, " src%d=%d", i, n)
		if r := setup.regs[i]; r.Events != 0 {
			fmt.Fprintf(&b, " (key %d %v %s)", r.Key, r.Events, setLinModeNames[r.Mode])
		}
	}
	return b.String()
}

// setLinCounter returns the model of source i with count n.
func setLinCounter(i int, n uint64) *model.Counter {
	if i == setLinSem {
		return model.NewSemaphore(n, setLinSemLimit)
	}
	return model.NewSignal(n)
}

// start is w, the empty initial world, after the setup.
func (setup setLinSetup) start(w *setWorld) []any {
	if w.src != nil {
		return nil // the setup comes first
	}
	n := w.locked()
	for i, count := range setup.counts {
		n.src = append(n.src, setLinCounter(i, count))
		if r := setup.regs[i]; r.Events != 0 {
			if err := n.set.Add(n.src[i], r.Key, r.Events, r.Mode); err != nil {
				panic(err)
			}
		}
	}
	return []any{n.seal()}
}

// setLinModel is the sequential model of a Set and its sources, whose
// first call is a setLinSetup.
func setLinModel() porcupine.Model {
	nm := porcupine.NondeterministicModel{
		Init: func() []any { return []any{(&setWorld{set: model.NewSet()}).seal()} },
		Step: func(state, in, out any) []any {
			return setLinStep(state.(*setWorld), in, out)
		},
		Equal:             func(a, b any) bool { return a.(*setWorld).key == b.(*setWorld).key },
		Hash:              func(s any) uint64 { return s.(*setWorld).hash() },
		DescribeOperation: describeOp,
		DescribeState:     func(s any) string { return s.(*setWorld).String() },
	}
	return nm.ToModel()
}

// setLinStep returns the worlds that the call in with output out may
// lead to from w: none if the output is impossible there.
func setLinStep(w *setWorld, in, out any) []any {
	switch in := in.(type) {
	case setLinSetup:
		return in.start(w)
	case setLinWake:
		return setLinDrops(setLinWakeStep(w, in))
	case setLinWaitEnd:
		return setLinDrops(setLinWaitEndStep(w, in, out.(setLinOut)))
	case setLinCall:
		o := out.(setLinOut)
		switch in.op {
		case setLinWait:
			return setLinDrops(setLinWaitStep(w, in, o))
		case setLinTryWait:
			if in.max <= 0 { // returns at once, without the lock
				return setLinNothing(w, o)
			}
			return setLinDrops(setLinHarvest(w, in.call, func(x *setWorld) bool {
				return slices.Equal(x.set.TryWait(in.max), o.evs)
			}))
		case setLinWrite, setLinRead, setLinCloseSource:
			return setLinSourceStep(w, in, o)
		}
		return setLinDrops(setLinSetStep(w, in, o))
	}
	if in == closeCall {
		n := w.locked()
		n.set.Close()
		return setLinDrops([]any{n.seal()})
	}
	panic(fmt.Sprintf("unknown call %v", in))
}

// setLinNothing is the step of a call that changes nothing and reports
// nothing.
func setLinNothing(w *setWorld, o setLinOut) []any {
	if len(o.evs) != 0 {
		return nil
	}
	return []any{w}
}

// setLinSetStep is Add, Modify or Remove.
func setLinSetStep(w *setWorld, c setLinCall, o setLinOut) []any {
	n := w.locked()
	src := n.src[c.src]
	var err error
	switch c.op {
	case setLinAdd:
		err = n.set.Add(src, c.key, c.events, c.mode)
	case setLinModify:
		err = n.set.Modify(src, c.key, c.events, c.mode)
	case setLinRemove:
		err = n.set.Remove(src)
	}
	if !errMatches(o.err, err) {
		return nil
	}
	return []any{n.seal()}
}

// setLinSourceStep is the first step of a source call: its change, made
// with the source muted, so that the Set is not told. The events it held
// back are its wakeup, which its setLinWake delivers.
func setLinSourceStep(w *setWorld, c setLinCall, o setLinOut) []any {
	n := w.clone()
	src := n.src[c.src]
	model.Mute(src)
	legal := setLinApply(src, c, o)
	ev := model.Unmute(src)
	switch {
	case !legal:
		return nil
	case c.wakes:
		r, in := w.set.Registration(w.src[c.src])
		sure := in && !r.Queued && !r.Disarmed && !w.set.Closed()
		n.pending = append(n.pending, setPending{int16(c.id), int8(c.src), ev, sure})
	case ev != 0: // the real call woke nothing, so its output differs from the model's
		return nil
	}
	n.recent = append(n.recent, c)
	if n.base == nil {
		n.base = w
	}
	if len(n.recent) > setLinMaxRecent { // fold the oldest into base
		b, c := n.base.locked(), n.recent[0]
		model.Mute(b.src[c.src])
		setLinApply(b.src[c.src], c, setLinOut{})
		model.Unmute(b.src[c.src])
		n.base, n.recent = b.seal(), n.recent[1:]
	}
	return []any{n.seal()}
}

// setLinApply makes the source call c on the muted Counter src and
// reports whether it returned o. With the zero o, it replays a call that
// was checked before.
func setLinApply(src *model.Counter, c setLinCall, o setLinOut) bool {
	switch {
	case c.op == setLinWrite:
		return errMatches(o.err, src.Write(c.n))
	case c.op == setLinCloseSource:
		src.Close()
		return true
	case c.src == setLinSem:
		return src.TryAcquire(c.n) == (o.v == 1)
	}
	return src.Take() == o.v
}

// setLinWakeStep delivers the wakeup of a source call, after its change,
// under the Set's lock. One that is not sure may also not come: then it
// takes no lock.
func setLinWakeStep(w *setWorld, wk setLinWake) []any {
	i := slices.IndexFunc(w.pending, func(p setPending) bool { return int(p.id) == wk.id })
	if i < 0 {
		return nil // the call's change comes first
	}
	n := w.locked()
	p := n.pending[i]
	n.pending = slices.Delete(n.pending, i, i+1)
	n.set.Wake(n.src[p.src], p.ev)
	skip := w.clone()
	skip.pending = slices.Delete(skip.pending, i, i+1)
	skip.seal()
	if n.seal(); n.key.now == skip.key.now {
		// The wakeup queued nothing. Without the lock it changes nothing
		// either, and leaves every harvest the choices it had: the same
		// and more.
		return []any{skip}
	}
	if p.sure {
		return []any{n}
	}
	return []any{n, skip}
}

// setLinWaitStep is the first step of a Wait, its first poll. A Wait
// whose context had ended returns ctx.Err() before it, and is one step.
// Otherwise the poll either ends the Wait, or finds nothing, drops the
// sources queued with no event left and blocks; then the Wait's
// setLinWaitEnd ends its wait. The poll ends the Wait if it finds events
// or the Set closed, or, with ctx.Err(), if the context had ended by then
// (then it takes no lock, and no poll). A Wait whose context never ends
// never returns ctx.Err().
func setLinWaitStep(w *setWorld, c setLinCall, o setLinOut) []any {
	if decided, legal := ctxStep(c.ctx, true, o.err); decided && (!legal || len(o.evs) != 0) {
		return nil
	}
	if c.ctx == ctxEnded {
		return []any{w}
	}
	blocked := setLinHarvest(w, c.call, func(x *setWorld) bool {
		if _, err := x.set.Wait(model.Live, c.max); err != evserr.ErrWouldBlock {
			return false // something to report, or closed: the poll ends the Wait
		}
		x.set.TryWait(c.max) // finds nothing, and drops what is queued
		x.waits = append(x.waits, setWaiting{int16(c.id), true, c.ctx == ctxNever})
		return true
	})
	var ended []any
	if o.err == context.Canceled {
		n := w.clone()
		n.waits = append(n.waits, setWaiting{int16(c.id), false, false})
		ended = []any{n.seal()}
	} else {
		ended = setLinHarvest(w, c.call, func(x *setWorld) bool {
			x.waits = append(x.waits, setWaiting{int16(c.id), false, false})
			return setLinTake(x, c.max, o)
		})
	}
	return append(blocked, ended...)
}

// setLinTake is a harvest that hands a Wait its output o: its events, or
// ErrClosed once the Set is closed and nothing is left to report.
func setLinTake(x *setWorld, max int, o setLinOut) bool {
	evs, err := x.set.Wait(model.Live, max)
	return err != evserr.ErrWouldBlock && errMatches(o.err, err) && slices.Equal(evs, o.evs)
}

// setLinWaitEndStep is the second step of a Wait: nothing if its first
// poll ended it, else the step that ended its wait. That is a harvest
// that hands it its events (a wakeup's, or that of a waiter that left
// before it), or Close, which ends it with ErrClosed once nothing is left
// to report, or the end of its context, which takes nothing.
func setLinWaitEndStep(w *setWorld, e setLinWaitEnd, o setLinOut) []any {
	i := slices.IndexFunc(w.waits, func(x setWaiting) bool { return int(x.id) == e.id })
	if i < 0 {
		return nil // the first poll comes first
	}
	if !w.waits[i].blocked || o.err == context.Canceled {
		n := w.clone()
		n.waits = slices.Delete(n.waits, i, i+1)
		return []any{n.seal()}
	}
	return setLinHarvest(w, e.call, func(x *setWorld) bool {
		x.waits = slices.Delete(x.waits, i, i+1)
		return setLinTake(x, e.max, o)
	})
}

// setLinDrops deals, after a step under the Set's lock, with the queued
// sources that have no event left while a Wait is blocked. The step hands
// what it queued to the first blocked Wait whose context has not ended,
// and that harvest drops what has no event left. So, if no queued source
// has an event left, the step drops them all: surely if a blocked Wait's
// context never ends, else maybe (a Wait whose context has ended is
// passed over).
func setLinDrops(worlds []any) []any {
	for i, x := range worlds {
		w := x.(*setWorld)
		if !slices.ContainsFunc(w.waits, func(x setWaiting) bool { return x.blocked }) || w.set.Queued() == 0 {
			continue
		}
		n := w.locked()
		if _, err := n.set.Wait(model.Live, 1); err != evserr.ErrWouldBlock {
			continue // something left to report, or closed
		}
		n.set.TryWait(1) // drops them all
		if slices.ContainsFunc(w.waits, func(x setWaiting) bool { return x.blocked && x.live }) {
			worlds[i] = n.seal()
		} else {
			worlds = append(worlds, n.seal())
		}
	}
	return worlds
}

// setLinHarvest returns the worlds after a harvest, under the Set's lock,
// of a Wait or TryWait that was called at time call: harvest makes it on
// a copy and reports whether its output matches.
//
// The harvest polls the queued sources in turn, each at a moment of its
// own. So each may see its source as it was before some of the recent
// source calls (made since the last step that held the Set's lock), those
// that did not return before the call: the calls in the harvest's
// window. The moments follow the ready list's order, so a source further
// down sees at least the calls its predecessors saw. setLinHarvest tries
// every such choice. After the harvest, every source is as the last
// recent call left it.
func setLinHarvest(w *setWorld, call int64, harvest func(x *setWorld) bool) []any {
	from := 0 // the first recent call in the window
	for i, c := range w.recent {
		if c.ret < call {
			from = i + 1
		}
	}
	if from == len(w.recent) { // nothing in the window: one harvest, now
		n := w.locked()
		if !harvest(n) {
			return nil
		}
		return []any{n.seal()}
	}
	var out []any
	order := w.set.ReadyList()
	cuts := make([]int, len(order)) // how many recent calls each queued source's poll saw
	var try func(i, least int)
	try = func(i, least int) {
		if i < len(order) {
			for k := least; k <= len(w.recent); k++ {
				cuts[i] = k
				try(i+1, k)
			}
			return
		}
		if x := setLinHarvestAt(w, order, cuts, harvest); x != nil && !slices.ContainsFunc(out, func(y any) bool {
			return y.(*setWorld).key == x.key
		}) {
			out = append(out, x)
		}
	}
	try(0, from)
	return out
}

// setLinHarvestAt is the harvest in which the poll of the queued source
// order[i] saw the first cuts[i] recent calls: it makes it on a copy of
// w's base with each source so far, then brings each source up to date.
// It returns nil if the harvest's output does not match.
func setLinHarvestAt(w *setWorld, order []any, cuts []int, harvest func(x *setWorld) bool) *setWorld {
	x := w.base.locked()
	x.pending, x.waits = slices.Clone(w.pending), slices.Clone(w.waits)
	seen := make([]int, setLinSources) // how many recent calls each source has seen
	for i := range seen {
		seen[i] = len(w.recent) // a source the harvest does not poll
	}
	for i, c := range order {
		seen[slices.Index(w.src, c.(*model.Counter))] = cuts[i]
	}
	replay := func(lo func(int) int, hi func(int) int) {
		for j, c := range w.recent {
			if lo(c.src) <= j && j < hi(c.src) {
				model.Mute(x.src[c.src])
				setLinApply(x.src[c.src], c, setLinOut{})
				model.Unmute(x.src[c.src])
			}
		}
	}
	replay(func(int) int { return 0 }, func(s int) int { return seen[s] })
	if !harvest(x) {
		return nil
	}
	replay(func(s int) int { return seen[s] }, func(int) int { return len(w.recent) })
	return x.seal()
}
