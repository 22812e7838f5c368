// Package clk is how evsync's primitives read the time and set timers.
// The zero Clock is package time, with no cost over calling it. Of wraps
// a user's clock.Clock for tests.
package clk

import (
	"sync/atomic"
	"time"

	"github.com/evsync/evsync/clock"
)

// A Clock is the wall clock (the zero value) or a user's clock.Clock.
// It is a small value, meant to be copied into the primitive's settings.
type Clock struct {
	src source // nil: package time
}

// A source is a user's clock with its timer type erased.
type source interface {
	Now() time.Time
	NewTimer(d time.Duration) clock.Timer
}

// user erases the timer type T of a user's clock.
type user[T clock.Timer] struct{ c clock.Clock[T] }

func (u user[T]) Now() time.Time                       { return u.c.Now() }
func (u user[T]) NewTimer(d time.Duration) clock.Timer { return u.c.NewTimer(d) }

// Of returns c as a Clock. A nil c is the wall clock.
func Of[T clock.Timer](c clock.Clock[T]) Clock {
	if c == nil {
		return Clock{}
	}
	return Clock{src: user[T]{c}}
}

// Wall reports whether c is the wall clock.
func (c Clock) Wall() bool { return c.src == nil }

// Now returns the clock's current time.
func (c Clock) Now() time.Time {
	if c.src == nil {
		return time.Now()
	}
	return c.src.Now()
}

// Since returns the time elapsed since t on the clock.
func (c Clock) Since(t time.Time) time.Duration {
	if c.src == nil {
		return time.Since(t)
	}
	return c.src.Now().Sub(t)
}

// AfterFunc calls f in its own goroutine once d has passed on the clock.
// The Timer it returns stops or re-arms that call, as time.AfterFunc's.
func (c Clock) AfterFunc(d time.Duration, f func()) Timer {
	if c.src == nil {
		return Timer{wall: time.AfterFunc(d, f)}
	}
	u := &userTimer{src: c.src, f: f}
	u.start(d)
	return Timer{user: u}
}

// A Timer is an AfterFunc timer on a Clock. Stop and Reset mean what they
// mean for a time.AfterFunc timer:
//   - Stop reports true if it kept f from being called.
//   - Reset re-arms the timer and reports whether it was armed.
//
// On a user's clock, Stop and Reset must not run at the same time as
// each other. Every caller in evsync holds its own lock for them.
type Timer struct {
	wall *time.Timer // the wall clock's timer
	user *userTimer  // or a user's clock's
}

// Stop keeps the call from happening, if it has not started.
func (t *Timer) Stop() bool {
	if t.wall != nil {
		return t.wall.Stop()
	}
	return t.user.stop()
}

// Reset arms the timer again for d.
func (t *Timer) Reset(d time.Duration) bool {
	if t.wall != nil {
		return t.wall.Reset(d)
	}
	return t.user.reset(d)
}

// A userTimer runs f once a user's timer fires. Each arming is a run
// with a timer and a goroutine of its own. A stopped run's goroutine ends
// on quit. So an old run's fire can never be taken for a new run's.
type userTimer struct {
	src source
	f   func()
	cur *run // the last run started, under the caller's lock
}

// A run is one arming of a userTimer.
//
// Invariants:
//   - state goes from armed to fired or to stopped, once.
//   - fired ⇒ f is called, once. stopped ⇒ f is not called.
//   - stopped ⇒ quit is closed, so the goroutine ends.
type run struct {
	state atomic.Uint32
	t     clock.Timer
	quit  chan struct{}
}

const (
	armed uint32 = iota
	fired
	stopped
)

func (u *userTimer) start(d time.Duration) {
	r := &run{t: u.src.NewTimer(d), quit: make(chan struct{})}
	u.cur = r
	go r.wait(u.f)
}

// wait calls f when the timer fires, unless Stop wins the race for the
// state first.
func (r *run) wait(f func()) {
	select {
	case <-r.t.C():
		hookFired()
		if r.state.CompareAndSwap(armed, fired) {
			f()
		}
	case <-r.quit:
	}
}

func (u *userTimer) stop() bool {
	r := u.cur
	if !r.state.CompareAndSwap(armed, stopped) {
		return false // fired: f is running or will run
	}
	r.t.Stop()
	close(r.quit)
	return true
}

func (u *userTimer) reset(d time.Duration) bool {
	was := u.stop()
	u.start(d)
	return was
}
