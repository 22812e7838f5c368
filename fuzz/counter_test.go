package fuzz_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/model"
)

// maxParked bounds the blocking calls a run keeps parked at once, and
// maxKept the reservations and Ready channels it keeps checking.
const (
	maxParked = 8
	maxKept   = 16
)

// readyList keeps the channels Ready returned (or Writable, for a list
// made with out set), each with the model's ticket for it, to check that
// each is closed exactly when the model says it has fired.
type readyList struct {
	out   bool // Writable's channels (poll's POLLOUT) rather than Ready's
	chans []readyTicket
}

type readyTicket struct {
	ch     <-chan struct{}
	ticket model.Ticket
	early  bool // fired before the model's ticket, where checkEarly allowed it
}

// add checks a channel just returned by Ready (Writable, with out set)
// and keeps it; it returns the outcome for the tally: "fired" if it was
// closed at once, else "armed".
func (rl *readyList) add(t *trail, m *model.Counter, ch <-chan struct{}) string {
	ticket := rl.arm(m)
	got, want := testkit.IsClosed(ch), rl.fired(m, ticket)
	if got != want {
		t.fail("%s() closed at once = %v, model %v", rl.name(), got, want)
	}
	if rl.chans = append(rl.chans, readyTicket{ch: ch, ticket: ticket}); len(rl.chans) > maxKept {
		rl.chans = rl.chans[1:]
	}
	if got {
		return "fired"
	}
	return "armed"
}

// check checks every kept channel against the model.
func (rl *readyList) check(t *trail, m *model.Counter) { rl.checkEarly(t, m, false) }

// checkEarly is check, but where early is set a channel closed while the
// model says it has not fired is allowed, and from then on expected
// closed: the step showed the count above 0 where the model never did
// (see semRun.servedParked).
func (rl *readyList) checkEarly(t *trail, m *model.Counter, early bool) {
	for i := range rl.chans {
		r := &rl.chans[i]
		got, want := testkit.IsClosed(r.ch), rl.fired(m, r.ticket)
		switch {
		case got && (r.early || early && !want):
			r.early = true
		case got != want:
			t.fail("%s channel #%d closed = %v, model %v", rl.name(), i, got, want)
		}
	}
}

func (rl *readyList) arm(m *model.Counter) model.Ticket {
	if rl.out {
		return m.Writable()
	}
	return m.Ready()
}

func (rl *readyList) fired(m *model.Counter, ticket model.Ticket) bool {
	if rl.out {
		return m.WritableFired(ticket)
	}
	return m.Fired(ticket)
}

func (rl *readyList) name() string {
	if rl.out {
		return "Writable"
	}
	return "Ready"
}

// validate fails t if the model's own invariants are broken, which would
// be a harness bug (a call the model does not allow).
func validate(t *trail, m interface{ Validate() error }) {
	if err := m.Validate(); err != nil {
		t.fail("model: %v", err)
	}
}

// result is the outcome of a blocking call parked in a goroutine.
type result struct {
	v   uint64
	err error
}

// settled reports, without blocking, the result of a parked call, if it
// has returned.
func settled(ch <-chan result) (result, bool) {
	select {
	case r := <-ch:
		return r, true
	default:
		return result{}, false
	}
}

// A trail keeps the descriptions of a run's steps, so that a failure
// reports the steps that led to it.
type trail struct {
	t     *testing.T
	steps []string
}

// add records a step that went through.
func (tr *trail) add(step string) { tr.steps = append(tr.steps, step) }

// fail stops the run with the message and the last steps before the
// failing one (which the message names).
func (tr *trail) fail(format string, args ...any) {
	tr.t.Helper()
	var b strings.Builder
	for _, s := range tr.steps[max(0, len(tr.steps)-30):] {
		fmt.Fprintf(&b, "\n\t%s", s)
	}
	tr.t.Fatalf("step %d: %s\nafter %d steps, the last ones:%s", len(tr.steps), fmt.Sprintf(format, args...), len(tr.steps), b.String())
}

// sameErr fails the run unless a call (what) returned the model's error.
func (tr *trail) sameErr(what string, got, want error) {
	if !errMatches(got, want) {
		tr.t.Helper()
		tr.fail("%s = %v, model %v", what, got, want)
	}
}

// same fails the run unless a call (what) returned the model's bool.
func (tr *trail) same(what string, got, want bool) {
	if got != want {
		tr.t.Helper()
		tr.fail("%s = %v, model %v", what, got, want)
	}
}
