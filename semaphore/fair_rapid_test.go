package semaphore_test

import (
	"time"

	"github.com/evsync/evsync/internal/testsupport/fakeclock"
	"github.com/evsync/evsync/semaphore"
	"pgregory.net/rapid"
)

// The state machines (TestSemaphoreModel, TestLimiterModel) draw their
// mode: strict FIFO, or eventually fair with the bound machineBound.
// Either way the primitive reads a fake clock that only the machine's
// Advance action moves, in step with the model's. A strict primitive
// ignores it. The machines make their primitives themselves, so the
// suite's -eventual flag does not change them: each run draws both
// modes.

// machineBound is the bound of the machines' eventually fair primitives.
const machineBound = time.Millisecond

// machineEpoch is where a machine's fake clock starts.
var machineEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// A machineClock is a machine's drawn mode and its fake clock.
type machineClock struct {
	eventual bool
	fc       *fakeclock.Clock
}

// drawMode draws a machine's mode, and makes its fake clock.
func drawMode(t *rapid.T) machineClock {
	return machineClock{rapid.Bool().Draw(t, "eventual"), fakeclock.New(machineEpoch)}
}

// opts returns the options of the drawn mode, with the fake clock in
// both: WithClock alone changes nothing.
func (mc machineClock) opts(opts ...semaphore.Option) []semaphore.Option {
	opts = append(opts, semaphore.WithClock(mc.fc))
	if mc.eventual {
		opts = append(opts, semaphore.WithEventualFairness(machineBound))
	}
	return opts
}

// drawAdvance draws how far the clock moves on: 0, 1ns, the bound and one
// past it, and with a reservation pending, what brings the head's age to
// the bound and to one past it. ages are the model's, oldest first.
func drawAdvance(t *rapid.T, ages []time.Duration) time.Duration {
	steps := []time.Duration{0, 1, machineBound, machineBound + 1}
	if len(ages) != 0 && ages[0] <= machineBound {
		d := machineBound - ages[0]
		steps = append(steps, d, d+1)
	}
	return rapid.SampledFrom(steps).Draw(t, "advance")
}
