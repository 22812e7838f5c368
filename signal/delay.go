package signal

import (
	"github.com/evsync/evsync/internal/counter"
	"github.com/evsync/evsync/internal/window"
)

// delayer is a Signal's wake delay (WithWakeDelay): the adds that find
// readers blocked note events in a coalescing window, whose wakeup serves
// those readers.
type delayer struct {
	window.Window
	c        *counter.Counter
	batch    uint64 // WithMaxBatch: wake at once at this count; 0 if not set
	limit    uint64 // an add notes an event while no more than this are pending
	debounce bool   // WithMaxWait: an add also notes the first event of each timer period
}

// delayer makes s's delayer for the policy of WithWakeDelay.
func (s *Signal) delayer(p wakePolicy) counter.Delayer {
	d := &delayer{c: &s.c, batch: p.batch, debounce: p.win.MaxWait != 0}
	if p.win.Adaptive {
		d.limit = window.AdaptiveWakeups
	}
	d.Init(p.win)
	s.wake = d
	return d
}

// Deliver is the window's wakeup: it serves the readers blocked since the
// adds it covers. It runs under the window's lock and takes the
// counter's: the window's lock comes first. Note is called without the
// counter's lock, and Serve never calls it (readers still waiting after
// Serve have no count to be told of), so neither lock is ever taken
// under the other the other way round.
func (d *delayer) Deliver(uint64) { d.c.Serve() }

// Note takes an add that left count with readers blocked. Only the first
// add of a window notes an event (the first AdaptiveWakeups+1 with
// WithAdaptive, which judges a window by them). With WithMaxWait, so does
// the first add of each timer period, which makes the expiry extend the
// window. The count already holds the sum, so the other adds only load
// the window's counts. That keeps them from writing a second shared cache
// line, which would cost several times the add itself while writers run
// unthrottled.
//
// No add is missed: an add that finds an event pending made its units
// visible before that load, and the wakeup that clears the event reads
// the count only after clearing it (Serve), so it sees them. Nor does a
// debounce wake too early. An add that skips found its period's event
// noted, or a re-arm came between its two loads. The add then belongs to
// the period that the re-arm ended, and the wakeup is still a delay away.
func (d *delayer) Note(count uint64) {
	if d.batch != 0 && count >= d.batch {
		d.Wake(d) // make sure there is an event to flush
		d.Flush(d)
		return
	}
	if p := d.Pending(); p <= d.limit || d.debounce && p == d.Seen() {
		d.Wake(d)
	}
}
