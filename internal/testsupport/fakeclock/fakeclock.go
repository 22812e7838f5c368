// Package fakeclock is a clock for tests that moves only when told to. It
// has the shape of k8s.io/utils/clock/testing's FakeClock, which evsync's
// own module cannot import. So the tests of readyq, coalesce and signal
// pass it where a user would pass that one.
package fakeclock

import (
	"slices"
	"sync"
	"testing/synctest"
	"time"
)

// A Clock is a fake clock. Its time moves only through Step. Make one
// with New. It is safe for concurrent use.
type Clock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*Timer // armed, in the order made
	onStep bool     // a timer made with d ≤ 0 fires at the next Step, not at once
}

// New returns a Clock whose time is t.
func New(t time.Time) *Clock { return &Clock{now: t} }

// NewFiringOnStep returns a Clock whose time is t, and whose timers fire
// only in Step, even one made with d ≤ 0. It waits for the next Step.
// k8s.io/utils/clock/testing's FakeClock does the same, so a test can
// show that a caller never arms a timer for a time already passed.
func NewFiringOnStep(t time.Time) *Clock { return &Clock{now: t, onStep: true} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// NewTimer returns a timer that fires once the clock has moved d on.
// A d ≤ 0 fires at once, or at the next Step on a clock made by
// NewFiringOnStep.
func (c *Clock) NewTimer(d time.Duration) *Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &Timer{c: c, at: c.now.Add(d), ch: make(chan time.Time, 1)}
	if d <= 0 && !c.onStep {
		t.ch <- c.now
		return t
	}
	c.timers = append(c.timers, t)
	return t
}

// Step moves the clock d on, or back for a d < 0. Every timer due by
// then fires, the earliest first, each with its own time on its channel.
func (c *Clock) Step(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	var due []*Timer
	c.timers = slices.DeleteFunc(c.timers, func(t *Timer) bool {
		if t.at.After(c.now) {
			return false
		}
		due = append(due, t)
		return true
	})
	slices.SortStableFunc(due, func(a, b *Timer) int { return a.at.Compare(b.at) })
	for _, t := range due {
		t.ch <- t.at
	}
}

// Waiters returns the number of timers that have neither fired nor been
// stopped.
func (c *Clock) Waiters() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// Next returns how long until the earliest armed timer is due (0 if it
// is due already, which a clock made by NewFiringOnStep allows), and
// whether one is armed.
func (c *Clock) Next() (time.Duration, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.timers) == 0 {
		return 0, false
	}
	at := c.timers[0].at
	for _, t := range c.timers[1:] {
		if t.at.Before(at) {
			at = t.at
		}
	}
	return max(at.Sub(c.now), 0), true
}

// A Timer is a timer of a fake Clock.
type Timer struct {
	c  *Clock
	at time.Time
	ch chan time.Time // buffered: Step never waits for a reader
}

// C returns the channel the timer's time comes on when it fires.
func (t *Timer) C() <-chan time.Time { return t.ch }

// Stop keeps the timer from firing. It reports whether it was armed.
func (t *Timer) Stop() bool {
	c := t.c
	c.mu.Lock()
	defer c.mu.Unlock()
	i := slices.Index(c.timers, t)
	if i < 0 {
		return false
	}
	c.timers = slices.Delete(c.timers, i, i+1)
	return true
}

// StepWait moves the clock d on inside a testing/synctest bubble, one
// timer deadline at a time. After each Step it waits until every
// goroutine of the bubble is blocked, so each timer's run has finished.
// A timer that a run sets is then due within the same call, as time
// passes through each deadline.
func (c *Clock) StepWait(d time.Duration) {
	for {
		next, ok := c.Next()
		if !ok || next > d {
			c.Step(d)
			synctest.Wait()
			return
		}
		c.Step(next)
		synctest.Wait()
		d -= next
	}
}
