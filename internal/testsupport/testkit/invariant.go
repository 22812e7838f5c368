package testkit

import (
	"github.com/evsync/evsync/model"
	"pgregory.net/rapid"
)

// maxReady bounds how many Ready channels ReadyChans re-checks.
const maxReady = 8

// ReadyChans keeps the last few channels a counter's Ready returned, each
// with the model's ticket for it, so that the invariant can check that
// each is closed exactly when the model says it has fired. The zero value
// is empty and ready to use; with Writable set it keeps the channels of
// Writable instead, checked against the model's WritableFired.
type ReadyChans struct {
	Writable bool
	list     []readyChan
}

// fired reports whether the model says the channel of ticket has fired.
func (rc *ReadyChans) fired(m *model.Counter, ticket model.Ticket) bool {
	if rc.Writable {
		return m.WritableFired(ticket)
	}
	return m.Fired(ticket)
}

type readyChan struct {
	ch     <-chan struct{}
	ticket model.Ticket
}

// Add checks that ch, just returned by Ready, is closed at once exactly
// when m says the ticket has fired, and keeps it.
func (rc *ReadyChans) Add(t *rapid.T, m *model.Counter, ch <-chan struct{}, ticket model.Ticket) {
	if got, want := IsClosed(ch), rc.fired(m, ticket); got != want {
		t.Helper()
		t.Fatalf("Ready() or Writable() ready at once = %v, want %v (writable: %v)", got, want, rc.Writable)
	}
	rc.list = append(rc.list, readyChan{ch, ticket})
	if len(rc.list) > maxReady {
		rc.list = rc.list[1:]
	}
}

// Check checks every kept channel against m.
func (rc *ReadyChans) Check(t *rapid.T, m *model.Counter) {
	for i, r := range rc.list {
		if got, want := IsClosed(r.ch), rc.fired(m, r.ticket); got != want {
			t.Helper()
			t.Fatalf("Ready channel #%d closed = %v, want %v (writable: %v)", i, got, want, rc.Writable)
		}
	}
}

// A Counter is an evsync counter as the state-machine invariant sees it;
// S is its Stats type.
type Counter[S any] interface {
	Count() uint64
	Stats() S
	String() string
}

// CheckCounter checks the invariant that every counter shares with its
// model m: m is consistent, Count is the model's, Stats is want (built
// from the model) and String is Stats().String().
func CheckCounter[S interface {
	comparable
	String() string
}](t *rapid.T, m *model.Counter, c Counter[S], want S) {
	// Helper only on failure: it is costly, and this runs at every step.
	if err := m.Validate(); err != nil {
		t.Helper()
		t.Fatal(err)
	}
	if got, want := c.Count(), m.Count(); got != want {
		t.Helper()
		t.Fatalf("Count() = %d, want %d", got, want)
	}
	st := c.Stats()
	if st != want {
		t.Helper()
		t.Fatalf("Stats() = %+v, want %+v", st, want)
	}
	if s := c.String(); s != st.String() {
		t.Helper()
		t.Fatalf("String() = %q, Stats().String() = %q", s, st.String())
	}
}
