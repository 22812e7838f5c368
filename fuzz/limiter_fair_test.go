package fuzz_test

import (
	"fmt"
	"testing/synctest"
	"time"
)

// The clock of FuzzLimiter and FuzzLimiterEventual: Z sleeps in the
// bubble. The parked acquirers have no timer, so the bubble's clock
// jumps by exactly the sleep, which the Limiter reads as the wall clock.
// The model's clock moves on by as much. A strict Limiter ignores both.

// limSleeps is how many choices Z's operand has (limSleep).
const limSleeps = 6

// limSleep decodes Z's operand, a choice among:
//
//	'0' 0             '3' the bound and 1ns
//	'1' 1ns           '4' what brings the head's age to the bound
//	'2' the bound     '5' what brings it to the bound and 1ns
//
// The bound is limFuzzBound in both targets. With nobody parked, or a
// head already older than the bound, '4' and '5' are 0 and 1ns.
func (r *limRun) limSleep(d *decoder) time.Duration {
	toBound := time.Duration(0)
	if len(r.queue) != 0 {
		toBound = max(0, limFuzzBound-(r.m.Now()-r.queue[0].start))
	}
	table := [limSleeps]time.Duration{0, 1, limFuzzBound, limFuzzBound + 1, toBound, toBound + 1}
	return table[d.choice(limSleeps)]
}

// sleep is Z: the bubble's clock and the model's move on by limSleep.
// It serves nobody; it ages the parked acquirers, which in the eventual
// mode may end barging.
func (r *limRun) sleep(d *decoder) string {
	dur := r.limSleep(d)
	time.Sleep(dur)
	synctest.Wait()
	r.m.Advance(dur)
	r.tl.hit("Sleep", r.headAge())
	return fmt.Sprintf("sleep(%v)", dur)
}

// headAge describes the head's age after a sleep, for the tally.
func (r *limRun) headAge() string {
	if len(r.queue) == 0 {
		return "nobody parked"
	}
	switch age := r.m.Now() - r.queue[0].start; {
	case age < limFuzzBound:
		return "head within the bound"
	case age == limFuzzBound:
		return "head at the bound"
	}
	return "head past the bound"
}
