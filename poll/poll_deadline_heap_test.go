package poll_test

import (
	"slices"
	"testing"
	"time"

	"github.com/evsync/evsync/internal/testsupport/fakeclock"
	"github.com/evsync/evsync/poll"
	"pgregory.net/rapid"
)

// A deadlineDue is a Deadline of deadlineMachine as the test tracks it.
type deadlineDue struct {
	d       *poll.Deadline
	in      bool // in the Set
	armed   bool // armed and not yet due: in the Set's timer heap
	pending bool // due and not yet reported
	atOnce  bool // due at its Add or Modify: queued by that call
}

// deadlineMachine adds, removes, re-arms and expires one-shot Deadlines
// of one Set on a fake clock, and checks what TryWait reports against
// their times. Their times are a few µs apart, many equal, and some 300
// years or more from the rest, past what a time.Duration holds.
type deadlineMachine struct {
	fake *fakeclock.Clock
	set  *poll.Set[int]
	dls  []*deadlineDue
	now  time.Time
}

// offsets are where a new Deadline's time may fall from now.
var offsets = rapid.OneOf(
	rapid.Map(rapid.IntRange(-2, 30), func(us int) time.Duration { return time.Duration(us) * time.Microsecond }),
	rapid.SampledFrom([]time.Duration{200 * 365 * 24 * time.Hour, 250 * 365 * 24 * time.Hour}),
)

// AddMany adds up to 40 new Deadlines, for a heap a few levels deep.
func (m *deadlineMachine) AddMany(t *rapid.T) {
	for range rapid.IntRange(1, 40).Draw(t, "n") {
		m.Add(t)
	}
}

// Add adds a new Deadline. One due already is queued at once.
func (m *deadlineMachine) Add(t *rapid.T) {
	off := offsets.Draw(t, "offset")
	far := rapid.IntRange(0, 2).Draw(t, "far") // 0, or 1 or 2 more of off on top
	at := m.now.Add(off)
	for range far {
		at = at.Add(off)
	}
	d := &deadlineDue{d: poll.NewDeadline(at), in: true}
	if err := m.set.Add(d.d, len(m.dls), poll.In, poll.OneShot); err != nil {
		t.Fatal(err)
	}
	d.armed = at.After(m.now)
	d.pending, d.atOnce = !d.armed, !d.armed
	m.dls = append(m.dls, d)
}

// Remove removes a Deadline in the Set.
func (m *deadlineMachine) Remove(t *rapid.T) {
	i := m.pick(t, func(d *deadlineDue) bool { return d.in })
	if err := m.set.Remove(m.dls[i].d); err != nil {
		t.Fatal(err)
	}
	m.dls[i] = &deadlineDue{d: m.dls[i].d}
}

// RemoveMany removes up to 20 Deadlines in the Set.
func (m *deadlineMachine) RemoveMany(t *rapid.T) {
	for range rapid.IntRange(1, 20).Draw(t, "n") {
		m.Remove(t)
	}
}

// Rearm re-arms a reported Deadline with Modify.
func (m *deadlineMachine) Rearm(t *rapid.T) {
	i := m.pick(t, func(d *deadlineDue) bool { return d.in && !d.armed && !d.pending })
	d := m.dls[i]
	if err := m.set.Modify(d.d, i, poll.In, poll.OneShot); err != nil {
		t.Fatal(err)
	}
	d.armed = d.d.Time().After(m.now)
	d.pending, d.atOnce = !d.armed, !d.armed
}

// Step moves the clock on, a little or 200 years, and reports.
func (m *deadlineMachine) Step(t *rapid.T) {
	d := rapid.SampledFrom([]time.Duration{0, 1, time.Microsecond, 3 * time.Microsecond,
		10 * time.Microsecond, 200 * 365 * 24 * time.Hour}).Draw(t, "step")
	m.fake.Step(d)
	m.now = m.now.Add(d)
	m.report(t)
}

// report checks that TryWait reports the Deadlines due and no other: the
// ones queued at their Add or Modify first, then those the heap gave up,
// in the order of their times.
func (m *deadlineMachine) report(t *rapid.T) {
	var want []int
	for i, d := range m.dls {
		if d.armed && !d.d.Time().After(m.now) {
			d.armed, d.pending = false, true
		}
		if d.pending {
			want = append(want, i)
		}
	}
	evs := m.set.TryWait(nil, len(m.dls)+1)
	got := make([]int, len(evs))
	for j, ev := range evs {
		got[j] = ev.Key
		if ev.Events != poll.In {
			t.Fatalf("event %v", ev)
		}
	}
	if !slices.Equal(slices.Sorted(slices.Values(got)), want) {
		t.Fatalf("TryWait at %v reported %v, want %v in some order", m.now, got, want)
	}
	heap := slices.IndexFunc(got, func(i int) bool { return !m.dls[i].atOnce })
	for j := heap + 1; heap >= 0 && j < len(got); j++ {
		a, b := m.dls[got[j-1]], m.dls[got[j]]
		if b.atOnce || b.d.Time().Before(a.d.Time()) {
			t.Fatalf("TryWait reported %v: %d at %v after %d at %v", got, got[j], b.d.Time(), got[j-1], a.d.Time())
		}
	}
	for _, i := range want {
		m.dls[i].pending = false
	}
}

// pick draws the index of a Deadline that ok accepts, and skips the
// action if there is none.
func (m *deadlineMachine) pick(t *rapid.T, ok func(*deadlineDue) bool) int {
	var is []int
	for i, d := range m.dls {
		if ok(d) {
			is = append(is, i)
		}
	}
	if len(is) == 0 {
		t.Skip("no such Deadline")
	}
	return rapid.SampledFrom(is).Draw(t, "deadline")
}

// Check holds after each action: the Set counts the Deadlines armed and
// not yet due, and has its one timer armed while there are any. Its
// heap of Deadlines is a heap (HeapErr).
func (m *deadlineMachine) Check(t *rapid.T) {
	armed := 0
	for _, d := range m.dls {
		if d.armed {
			armed++
		}
	}
	st := m.set.Stats()
	if err := poll.HeapErr(m.set); err != nil {
		t.Fatal(err)
	}
	if st.Armed != armed || st.Timer != (armed != 0) || m.fake.Waiters() > 1 {
		t.Fatalf("Stats = %+v, %d timers on the clock, want %d armed", st, m.fake.Waiters(), armed)
	}
}

// TestDeadlinesExpireInTimeOrder: of many one-shot Deadlines in one Set,
// added, removed and re-armed at random, each TryWait reports those due
// and no other. Those the Set's heap held come in the order of their
// times, after the ones queued at once. The Set keeps one timer.
func TestDeadlinesExpireInTimeOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
		m := &deadlineMachine{fake: fakeclock.New(now), now: now}
		m.set = poll.New[int](poll.WithClock[*fakeclock.Timer](m.fake))
		defer m.set.Close()
		t.Repeat(rapid.StateMachineActions(m))
	})
}
