//go:build linux

package epolltest

import (
	"testing"
	"time"

	"github.com/evsync/evsync/model"
	"pgregory.net/rapid"
)

// Writes are the values a differential writes: 0 (which wakes too), small
// ones, and those at and past the counter's maximum.
var Writes = []uint64{0, 1, 2, 3, model.Max - 1, model.Max, model.Max + 1}

// Steps are the durations a differential moves its clock by, or makes a
// timerfd expire after: 0, a nanosecond, just short of a millisecond,
// and a few milliseconds.
var Steps = []time.Duration{0, 1, time.Millisecond - 1, time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond}

// The kinds of Op.
const (
	OpAdd     = iota // epoll_ctl ADD, Set.Add
	OpModify         // MOD, Set.Modify
	OpRemove         // DEL, Set.Remove
	OpWrite          // write(2) to an eventfd, a source's write
	OpRead           // read(2) of an eventfd, a source's read
	OpWait           // epoll_wait with a timeout of 0, Set.TryWait
	OpAdvance        // the clock moves on by D (Kernel.Advance)
	OpRenew          // a new timerfd, D after now, replaces timerfd I (Kernel.Renew)
	opKinds
)

// An Op is one step of a differential, on the source I: an eventfd for
// OpWrite and OpRead, a timerfd for OpRenew, either for the others.
type Op struct {
	Kind   int
	I      int
	Events model.Events  // OpAdd, OpModify
	Mode   model.Mode    // OpAdd, OpModify
	V      uint64        // OpWrite
	Max    int           // OpWait
	D      time.Duration // OpAdvance, OpRenew
}

var (
	anyEvents = []model.Events{model.In, model.Out, model.In | model.Out}
	anyModes  = []model.Mode{model.Edge, model.Level, model.OneShot}
)

// Draw draws an Op on the sources of c. Writes are drawn twice as often
// as the other kinds. Without timerfds, an OpRenew is drawn as a write.
func Draw(t *rapid.T, c Config) Op {
	n, nev := len(c.Sems)+len(c.Deadlines), len(c.Sems)
	kind := rapid.IntRange(0, opKinds).Draw(t, "op")
	if kind == opKinds || kind == OpRenew && n == nev {
		kind = OpWrite
	}
	op := Op{Kind: kind}
	switch kind {
	case OpWrite, OpRead:
		op.I = rapid.IntRange(0, nev-1).Draw(t, "eventfd")
	case OpRenew:
		op.I = rapid.IntRange(nev, n-1).Draw(t, "timerfd")
	default:
		op.I = rapid.IntRange(0, n-1).Draw(t, "i")
	}
	switch kind {
	case OpAdd, OpModify:
		op.Events, op.Mode = rapid.SampledFrom(anyEvents).Draw(t, "events"), rapid.SampledFrom(anyModes).Draw(t, "mode")
	case OpWrite:
		op.V = rapid.SampledFrom(Writes).Draw(t, "v")
	case OpWait:
		op.Max = rapid.IntRange(1, n+1).Draw(t, "max")
	case OpAdvance, OpRenew:
		op.D = rapid.SampledFrom(Steps).Draw(t, "d")
	}
	return op
}

// Decode reads a fuzz target's bytes. The first byte's low bits choose
// the kinds of up to 5 eventfds (bit set: EFD_SEMAPHORE), and its top
// bits how many. Two timerfds follow them, at 1 and 2 ms. Then every 2
// bytes are an Op: the first chooses the kind and the source, the second
// the argument (events and mode, the value written, maxevents, or a step
// of the clock, in half milliseconds).
func Decode(data []byte) (c Config, ops []Op) {
	if len(data) == 0 {
		return c, nil
	}
	c.Sems = make([]bool, 1+int(data[0]>>5)%5)
	for j := range c.Sems {
		c.Sems[j] = data[0]>>j&1 != 0
	}
	c.Deadlines = []time.Duration{time.Millisecond, 2 * time.Millisecond}
	nev, n := len(c.Sems), len(c.Sems)+len(c.Deadlines)
	for k := 0; 2*k+2 < len(data); k++ {
		b, arg := data[1+2*k], data[2+2*k]
		op := Op{Kind: int(b>>5) % opKinds, I: int(b&0x1f) % n}
		switch op.Kind {
		case OpAdd, OpModify:
			op.Events, op.Mode = anyEvents[arg%3], model.Mode(arg/3%3)
		case OpWrite, OpRead:
			op.I %= nev
			op.V = Writes[int(arg)%len(Writes)]
		case OpWait:
			op.Max = 1 + int(arg)%8
		case OpAdvance, OpRenew:
			op.D = time.Duration(arg%16) * time.Millisecond / 2
			op.I = nev + op.I%(n-nev)
		}
		ops = append(ops, op)
	}
	return c, ops
}

// Seeds are fuzz inputs for Decode: the probes of the spec's
// kernel-epoll.md, on one eventfd (a) or five (a to e), then probes of
// the timerfds (x at 1 ms and y at 2 ms, after one eventfd).
var Seeds = [][]byte{
	{0x00, 0x00, 0x03, 0x60, 0x01, 0xa0, 0x07, 0xa0, 0x07},                                                                                                                                     // level a: write; two waits report a
	{0x00, 0x00, 0x00, 0x60, 0x01, 0xa0, 0x07, 0xa0, 0x07, 0x60, 0x00, 0xa0, 0x07, 0x80, 0x00, 0xa0, 0x07},                                                                                     // edge a: write(0) wakes it, a read does not
	{0x00, 0x00, 0x06, 0x60, 0x01, 0xa0, 0x07, 0xa0, 0x07, 0x60, 0x01, 0xa0, 0x07, 0x20, 0x06, 0xa0, 0x07, 0xa0, 0x07},                                                                         // one-shot a: deaf until MOD
	{0x80, 0x00, 0x03, 0x01, 0x03, 0x02, 0x03, 0x03, 0x03, 0x04, 0x03, 0x60, 0x01, 0x61, 0x01, 0x62, 0x01, 0x63, 0x01, 0x64, 0x01, 0xa0, 0x01, 0xa0, 0x01, 0xa0, 0x01, 0xa0, 0x01, 0xa0, 0x01}, // level a to e: round-robin under maxevents 2
	{0x00, 0x01, 0x03, 0x02, 0x00, 0xa0, 0x07, 0xc0, 0x02, 0xa0, 0x07, 0xc0, 0x02, 0xa0, 0x07, 0xa0, 0x07},                                                                                     // level x, edge y: x at 1 ms; x y at 2 ms; then x alone
	{0x00, 0x01, 0x01, 0x02, 0x06, 0xc0, 0x04, 0xa0, 0x07, 0xa0, 0x07, 0x22, 0x06, 0xa0, 0x07, 0xe1, 0x02, 0x02, 0x06, 0xa0, 0x07, 0xc0, 0x02, 0xa0, 0x07},                                     // x for OUT alone, one-shot y: MOD re-arms y; a new y 1 ms on
}

// A Diff is both sides of a differential: the kernel's and evsync's.
// Step makes op on both and fails t unless both return the same. Kernel
// returns the kernel's side. Close frees both sides.
type Diff interface {
	Step(t Fataler, n int, op Op)
	Kernel() *Kernel
	Close()
}

// Check runs random sequences of Ops on Diffs that newDiff makes with 1
// to 5 eventfds and 0 to 3 timerfds, and logs the steps and events
// compared. It fails t if no wait reported an event, or none of a
// timerfd, since the differential then compared nothing.
func Check(t *testing.T, newDiff func(t Fataler, c Config) Diff) {
	var steps, reported, timed int
	rapid.Check(t, func(t *rapid.T) {
		c := Config{
			Sems:      rapid.SliceOfN(rapid.Bool(), 1, 5).Draw(t, "semaphores"),
			Deadlines: rapid.SliceOfN(rapid.SampledFrom(Steps), 0, 3).Draw(t, "deadlines"),
		}
		d := newDiff(t, c)
		defer d.Close()
		n := rapid.IntRange(1, 300).Draw(t, "steps")
		steps += n
		for step := range n {
			d.Step(t, step, Draw(t, c))
		}
		all, timers := d.Kernel().Reported()
		reported, timed = reported+all, timed+timers
	})
	t.Logf("%d steps, %d events reported alike, %d of them timerfds'", steps, reported, timed)
	if reported == 0 || timed == 0 {
		t.Fatal("no wait reported an event, or none a timerfd's: the differential compared too little")
	}
}

// Fuzz runs the sequences Decode reads from the fuzzer's bytes on Diffs
// that newDiff makes, with Seeds as the seed corpus.
func Fuzz(f *testing.F, newDiff func(t Fataler, c Config) Diff) {
	for _, seed := range Seeds {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, ops := Decode(data)
		if len(c.Sems) == 0 {
			return
		}
		d := newDiff(t, c)
		defer d.Close()
		for n, op := range ops {
			d.Step(t, n, op)
		}
	})
}
