package signal

import (
	"github.com/evsync/evsync/internal/clk"
	"github.com/evsync/evsync/internal/counter"
	"github.com/evsync/evsync/internal/window"
)

// delayer is a Signal's wake delay, set by WithWakeDelay. The adds that
// find readers blocked note events in a coalescing window. The window's
// wakeup serves those readers.
type delayer struct {
	window.Window
	c        *counter.Counter
	batch    uint64 // wake at once at this count (WithMaxBatch), 0 if not set
	limit    uint64 // an add notes an event while no more than this are pending
	debounce bool   // an add also notes the first event of each timer period (WithMaxWait)
}

// delayer makes s's delayer for the policy of WithWakeDelay, on the
// clock of WithClock.
func (s *Signal) delayer(p wakePolicy, c clk.Clock) counter.Delayer {
	d := &delayer{c: &s.c, batch: p.batch, debounce: p.win.MaxWait != 0}
	if p.win.Adaptive {
		d.limit = window.AdaptiveWakeups
	}
	d.Init(p.win, c)
	s.wake = d
	return d
}

// Deliver is the window's wakeup. It serves the readers blocked since the
// adds it covers. It runs under the window's lock and takes the
// counter's, so the window's lock comes first. Note is called without the
// counter's lock. Serve never calls Note, because readers still waiting
// after Serve have no count to be told of. So neither lock is ever taken
// under the other the other way round.
func (d *delayer) Deliver(uint64) { d.c.Serve() }

// Note takes an add that left count with readers blocked. Only the first
// add of a window notes an event. With WithAdaptive, the first
// AdaptiveWakeups+1 adds do, since the policy judges a window by them.
// With WithMaxWait, so does the first add of each timer period, which
// makes the expiry extend the window. The count already holds the sum, so
// the other adds only load the window's counts. That keeps them from
// writing a second shared cache line. It would cost several times the add
// itself while writers run unthrottled.
//
// No add is missed. An add that finds an event pending made its units
// visible before that load. The wakeup that clears the event reads the
// count only after clearing it, in Serve, so it sees them. Nor does a
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
