package workqueue

import (
	"math"
	"time"

	"github.com/evsync/evsync/internal/clk"
)

// A timebase is a queue's time: a clock, the wall clock or a user's
// (WithClock), and the zero its times count from, the epoch, which is the
// first reading. Times are nanoseconds. New sets src and user, which
// never change after, so they are read without the lock. The epoch is set
// at the first reading, with the queue's mu held, as every reading is.
type timebase struct {
	src     clk.Clock // WithClock's, or the wall clock (the zero Clock)
	user    bool      // src is a user's: !src.Wall(), which now reads inline
	epoch   time.Time // the zero of now, once started
	started bool      // a fake clock's time may be the zero Time
}

// timebaseOf returns the timebase of clock c, before its first reading.
func timebaseOf(c clk.Clock) timebase { return timebase{src: c, user: !c.Wall()} }

// now returns the time on the queue's clock, in nanoseconds. Only with mu held.
//
// On the wall clock it calls package time itself, at the cost it had
// before WithClock. The compiler does not inline clk's methods into ours,
// and a call through them would add to every reading. The time is then
// the monotonic time since the queue's first reading.
func (c *timebase) now() int64 {
	if c.user {
		return c.userNow()
	}
	if !c.started {
		c.epoch, c.started = time.Now(), true
	}
	return int64(time.Since(c.epoch))
}

// userNow is now on a user's clock. It is the clock's own reading, so a
// delay ends d after the reading at its call, even on a clock set back
// since an earlier call. The queue's first reading is userZero, and every
// reading is userZero plus the clock's time since that one. So a clock
// set back past the first reading still gives a time above 0, and each
// ready time keeps its place on the clock. A clock more than 2⁶² ns
// (about 146 years) away from the first reading reads as the nearest
// bound.
func (c *timebase) userNow() int64 {
	t := c.src.Now()
	if !c.started {
		c.epoch, c.started = t, true
	}
	return userTime(t.Sub(c.epoch))
}

// after returns the ready time d from now, capped at the clock's end. A
// delay so long that now+d would wrap waits until the clock's end, or
// Close or a sooner mark. Only with mu held.
func (c *timebase) after(d time.Duration) int64 {
	at, _ := c.afterNow(d)
	return at
}

// afterNow returns the ready time d from now, as after does, and whether
// it is still to come. For d > 0 it is, except at the clock's end, where
// every ready time has come. Only with mu held.
func (c *timebase) afterNow(d time.Duration) (int64, bool) {
	now := c.now()
	if int64(d) > math.MaxInt64-now {
		return math.MaxInt64, now < math.MaxInt64
	}
	return now + int64(d), d > 0
}

// userZero is a user's clock's first reading, in the queue's time. It is
// the middle of the times above 0, so the clock may go as far back as
// forward.
const userZero = 1 << 62

// userTime returns the queue's time for a user's clock that reads s after
// the queue's first reading: userZero+s, kept within [1, MaxInt64]. A time
// of 0 would read as "no ready time" in a kept-aside mark.
func userTime(s time.Duration) int64 {
	switch {
	case int64(s) >= math.MaxInt64-userZero:
		return math.MaxInt64
	case int64(s) <= 1-userZero:
		return 1
	}
	return userZero + int64(s)
}
