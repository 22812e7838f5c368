package fuzz_test

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var updateCorpus = flag.Bool("update-corpus", false, "rewrite the seed files testdata/fuzz/*/seed-* from corpusSeeds")

// A target is a fuzz target's run function, for the corpus tests.
type target struct {
	name string
	run  func(t *testing.T, data []byte, tl tally)
	// seeds are the hand-written inputs (see decode_test.go for the
	// format), written to testdata/fuzz/<name>/seed-<key>.
	seeds map[string]string
	// want are the tally labels the corpus must reach: every operation
	// and every outcome it can have.
	want []string
	// linuxOnly marks a target that exists on Linux only.
	linuxOnly bool
	// also names another target whose corpus this one runs too, in its
	// own way (addCorpus).
	also string
}

var targets = []target{
	{
		name: "FuzzSemaphore", run: runSemaphore,
		seeds: map[string]string{
			// New(0): Ready armed then fired, TryAcquire both ways, the
			// context choices, a parked Acquire granted, overflow at Max,
			// and everything after Close.
			"basics": "10" + "YR1YT1T1A11A01R1A21A1iRiRhR1W11W21Ta" + "A0hW01" +
				"CR1W01A02A01A11",
			// Parked Acquires: cancelled while queued, granted in order,
			// refused by Close, and a cancel after the return.
			"parked": "10" + "A02A01K0R1" + "R1A03CK2K0",
			// WithLimit(1): reservations pending, granted at once (also
			// Reserve(0)), too big, granted by a Release, handed back by
			// Cancel, kept by a Cancel that would pass the limit, refused
			// after Close; a Release past the limit.
			"reserve": "20" + "V1V0V2R1X0V1R1X2R1" + "CV1V1",
			// WithLimit(1<<63) from 1<<63 - 1 (an edge relative to the
			// limit, 'd'): the top of the range and a raw 8-byte amount.
			"zero": "00" + "YR1T1Y",
			// Two parked Acquires: the first cancelled right before a
			// Release, whose unit must go to the second.
			"cancel-then-release": "10" + "A01A01L01" + "A02L11",
			// The head Acquire cancelled just before a Release that fits
			// only once the reservation behind it is served: the queue
			// must be served before the room check (core.md, "Found on
			// the way").
			"cancelled-head-then-release": "10" + "A01V\xaaA0dL0dVjL0j",
			"limits":                      "9d" + "R1R1T\x80\x80R#\x01\x00\x00\x00\x00\x00\x00\x80A1rW1m",
			// After Close: an Acquire that does not fit what is left is
			// refused, a holder's Release is taken back and serves the
			// next Acquire; with WithLimit(1) and no room, ReleaseWait
			// is refused rather than waiting on a closed semaphore.
			"closed-gives-back": "10" + "CA01R1A01",
			"closed-full":       "21" + "CW01R1",
			// WithLimit(5) from 0: parked Acquires of 2, 1 and 3; SetLimit
			// below the one for 3, to 0 and past Max refused; raises by 1
			// (nobody served: the head needs 2), by 3 (the head, then the
			// one behind it, in order) and by 3 again (the last).
			"resize-fifo": "50" + "A02A01A03" + "S1S0S9" + "S5S6S6",
			// WithLimit(8), full: 6 taken, then a cut to 1 below what is
			// held (the 2 free units go, a debt of 5). TryAcquire fails in
			// debt and Writable is ready (count 0 < limit 1); releases pay
			// the debt before they add to the count; a stray Release is
			// refused at the new limit; Drain returns at once; a Writable
			// armed at the limit fires when a unit is taken; then a raise,
			// a cut of free units and a SetLimit to the same limit.
			"resize-debt": "6e" + "T6S1T1OR3R3R1D0OT1" + "R1S6S3S4",
			// SetLimit after Close: ErrClosed for a valid limit (the same
			// one too), ErrInvalid for 0 (the range is checked first).
			"resize-closed": "30" + "CS5S4S0",
			// WithLimit(5), full: Drain returns at once, then with a unit
			// out it is cancelled, parks (and is cancelled), and a parked
			// Drain returns once a Release brings the count to the limit.
			"drain": "5e" + "D0T1D1D0K0D0R1",
			// TakeAll with a parked Acquire queued takes nothing; once it
			// is cancelled, everything, then nothing.
			"takeall-parked": "53" + "A05EK0EE",
			// AcquireUpTo: a parked one for 1, one for 3 that would wait
			// (made with a cancelled context), cancelled, nil and 0 behind
			// it; a Release serves the parked one; takes 3 of 4 and the
			// last one; parked ones cancelled and refused by Close; empty
			// after Close; Drain with a nil context.
			"upto": "10" + "U01U03U12U22U00R5U03U09" + "U01K1U01CU01D2",
			// A parked AcquireUpTo cancelled right before a Release, whose
			// unit goes to the parked Acquire behind it.
			"cancel-then-release-kinds": "10" + "U01A01L01",
			// Writable: armed at the limit and fired by a take, ready at
			// once below it, armed again and fired by Close.
			"writable": "33" + "OT1OR1OC",
		},
		want: []string{
			"New/zero value", "New/default limit", "New/WithLimit",
			"Acquire/ok", "Acquire/ErrInvalid", "Acquire/ErrClosed", "Acquire/Canceled", "Acquire/parked",
			"Parked Acquire/ok", "Parked Acquire/ErrClosed", "Parked Acquire/Canceled", "CancelParked/after return",
			"TryAcquire/true", "TryAcquire/false",
			"Release/ok", "Release/ErrWouldBlock", "Release/ErrInvalid",
			"ReleaseWait/ok", "ReleaseWait/Canceled", "ReleaseWait/ErrInvalid", "ReleaseWait/ErrClosed",
			"Reserve/ok", "Reserve/pending", "Reserve/ErrInvalid", "Reserve/ErrClosed",
			"Cancel/true", "Cancel/false",
			"Ready/fired", "Ready/armed", "Close/ok",
			"CancelThenRelease/ok",
			"SetLimit/raise", "SetLimit/cut", "SetLimit/cut into debt", "SetLimit/same",
			"SetLimit/ErrInvalid", "SetLimit/ErrClosed",
			"TakeAll/some", "TakeAll/none", "TakeAll/queued",
			"AcquireUpTo/ok", "AcquireUpTo/Canceled", "AcquireUpTo/ErrInvalid", "AcquireUpTo/ErrClosed", "AcquireUpTo/parked",
			"Parked AcquireUpTo/ok", "Parked AcquireUpTo/ErrClosed", "Parked AcquireUpTo/Canceled",
			"Drain/ok", "Drain/Canceled", "Drain/ErrInvalid", "Drain/parked", "Parked Drain/ok", "Parked Drain/Canceled",
			"Writable/fired", "Writable/armed",
		},
	},
	{
		name: "FuzzLimiter", run: runStrictLimiter,
		seeds: map[string]string{
			// NewLimiter(3): Acquire and TryAcquire in every form, bad
			// arguments, over-releases, a parked Acquire granted by a
			// Release; after Close, acquires refused with units free while
			// a holder still gives back, and Drain returns.
			"basics": "2" + "A01A11A21A0iA0fT1T2T0R1RnRiR0A02A01R1R1" + "CA01A00T1R2D0",
			// NewLimiter(2), all taken: a parked Acquire cancelled, the
			// head for 2 waits while 1 is free, and Close refuses it and
			// the one for 1 behind it (whose unit is free); a cancel
			// after the return.
			"parked": "1" + "A02A01A02K0R1A01CK0",
			// NewLimiter(1): the first of two parked Acquires cancelled
			// right before a Release, whose unit must go to the second.
			"cancel-then-release": "0" + "A01A01A01L01L01",
			// NewLimiter(4): TryAcquire fails behind a head for 3 although a
			// unit is free; the head cancelled lets the one for 1 in;
			// a head cancelled right before a Release of 2.
			"cancelled-head": "3" + "A04A03A01R2T1K0A03A01L02",
			// NewLimiter(5), all taken, parked Acquires of 2, 1 and 3:
			// SetLimit below a parked one and out of range refused; raises
			// serve them in order; a cut into debt that releases pay; a
			// cut of free units; the same limit; after Close ErrClosed.
			"resize": "4" + "A05A02A01A03S2S0S1S6S6S7S5R5S8T1R1R1S4S5" + "CS5S0",
			// NewLimiter(3): Drain at once, cancelled, with a nil
			// context, parked and cancelled, parked and released.
			"drain": "2" + "D0A01D1D2D0K0D0R1",
			// NewLimiter(1<<36), whose count lives under the lock: every
			// unit taken, a parked Acquire served, a Release of all, an
			// over-release, a raise, then after Close an Acquire of all.
			"big": "6" + "A0eA01R1ReRbS8S6CA0eD0",
			// NewLimiter(5): Split of a permit of 5 into 2 and 3, a split
			// of more than it holds, of 0 and of -1 refused; the 3 merged
			// back, a merge with itself and with another limiter's permit
			// refused; the emptied permit's Release is false, the merged
			// one gives back all 5. A forgotten unit stays in use: Drain
			// is cancelled, parks (and is cancelled); a stray Release
			// brings it home. An empty permit takes another limiter's.
			"permit-split-merge": "4" + "Q5H03H0fH00H0iJ01J00J02G1G0D0" + "Q1F2F2D1D0K0R1D0J03",
			// NewLimiter(3): a permit released twice, the second false,
			// and twice in a row from one call site.
			"permit-twice": "2" + "Q2G0G0P02B1B1",
			// NewLimiter(2): a stray Release gives back a permit's unit
			// first, so the permit's Release is an over-release that it
			// keeps its unit through; once a unit is taken it goes back.
			"permit-over-release": "1" + "Q1R1G0B0QfT1G0",
			// NewLimiter(5), all taken: a parked AcquirePermit granted by a
			// Release, one cancelled and one nil; the head cancelled so
			// that the one behind is served; one refused by Close; after
			// Close one that fits what is free and one above the limit.
			"permit-parked": "4" + "A05P02P11P22R2G0" + "P03P01K1" + "P03CP01P0f",
			// NewLimiter(4): TryAcquireUpTo takes 2 of 4, AcquireUpTo the
			// 2 left; one parks with nothing free and an Acquire behind
			// it; TryAcquireUpTo takes nothing from the queue; a Release
			// of 2 goes to the parked one, one of 1 to the Acquire; a
			// negative max, a cancelled and a nil context, max 0 both
			// ways; a parked one cancelled, one refused by Close; after
			// Close, refused with a unit free.
			"upto": "3" + "E2U09U03A01E3R2R1" + "U1iU11U21E0U00" + "U01K2U01C" + "R1U01E1",
			// NewLimiter(3): TryAcquirePermitUpTo takes 2, AcquirePermitUpTo
			// the last; a parked one, and TryAcquirePermitUpTo takes
			// nothing behind it; the first permit's Release serves it
			// (kept as permit #2, then split); max 0, a cancelled
			// context, and after Close units free but refused.
			"upto-permit": "2" + "N2M09M01N1G0H21N0M11" + "CG1M01N1",
			// NewLimiter(1): a parked AcquireUpTo cancelled right before a
			// Release, whose unit goes to the Acquire behind it.
			"upto-cancel-then-release": "0" + "A01U05A01L01",
			// NewLimiter(5), all taken: a parked AcquireUpTo does not stop a
			// cut to 1 (it asks for no fixed number); the Release of all 5
			// pays the debt of 4 and hands it the one unit left.
			"upto-resize": "4" + "A05U09S2R5",
			// NewLimiter(2), 1 taken: a parked Acquire for 2 cancelled
			// right before a Release of 1, with an AcquireUpTo for 5
			// parked behind it while a unit is free. It takes the free
			// unit, and the Release's unit stays free.
			"upto-cancel-then-release-free": "1" + "A01A02U05L01T1",
			// NewLimiter(4), 3 taken, a parked Acquire for 2: sleeps with
			// nobody parked, to the bound and past it change nothing in
			// the strict mode, and TryAcquire fails behind the head. In
			// FuzzLimiterEventual the first TryAcquire barges.
			"sleep": "3" + "Z0A03A02Z2T1Z1T1R1",
		},
		want: limWant,
	},
	{
		name: "FuzzLimiterEventual", run: runEventualLimiter, also: "FuzzLimiter",
		seeds: map[string]string{
			// NewLimiter(4), 3 taken, a parked Acquire for 2, the head,
			// 1ns old: each form of acquire takes the free unit ahead of
			// it, and gives it back; then a Release of 1 serves the head.
			"barge": "3" + "A03A02Z1" + "T1R1Q1G0A01R1P01G1E5R1N5G2U05R1M05G3" + "R1",
			// NewLimiter(4), 3 taken, a parked Acquire for 2: a barge at
			// the bound; one nanosecond past it nothing takes the free
			// unit, and the acquires behind park; Releases serve them in
			// order; with nobody parked, a TryAcquire takes a unit.
			"old-head": "3" + "Z0A03A02Z4T1R1Z5" + "T1E1N1Q1A01U01P01M01" + "R1R1R1R1R1" + "R1T1",
			// NewLimiter(4), 3 taken: a head for 2 past the bound, and
			// an Acquire for 1 parked behind it with a unit free, which
			// Close refuses.
			"close-old-head": "3" + "A03A02Z3A01C",
			// NewLimiter(3), all taken: a head for 2 past the bound, a
			// young one for 2 behind it, a unit free that nobody may
			// take; the old head cancelled, the young one is barged past
			// until a Release serves it.
			"cancel-old-head": "2" + "A03A02Z3A02R1T1K0T1R2",
			// NewLimiter(2), 1 taken: a young head for 2, a permit that
			// barges past it, an Acquire for 1 parked behind it, and the
			// permit given back. The head is cancelled right before a
			// Release of 2, which is an over-release: the one behind has
			// been woken for the free unit, not handed it. Once it has
			// run, a Release of 2 is not.
			"cancel-then-release": "1" + "A01A02Q1A01G0L02R2",
			// NewLimiter(2), all taken: an Acquire for 1 and a Drain
			// parked. A Release of 2 brings every unit back, and wakes
			// the Acquire to take one: the Drain returns first.
			"drain-before-the-woken": "1" + "E2A01D0R2",
		},
		want: append(slices.Clone(limWant),
			"Acquire/ok, barged", "AcquirePermit/ok, barged", "AcquireUpTo/ok, barged", "AcquirePermitUpTo/ok, barged",
			"TryAcquire/true, barged", "TryAcquirePermit/true, barged",
			"TryAcquireUpTo/some, barged", "TryAcquirePermitUpTo/some, barged",
			"Sleep/head within the bound", "CancelThenRelease/ErrOverRelease before those behind were served",
			"Parked Drain/ok before the woken took their units",
		),
	},
	{
		name: "FuzzSemaphoreEventual", run: runEventualSemaphore, also: "FuzzSemaphore",
		seeds: map[string]string{
			// New(4) with 3 units taken, an Acquire for 2 parked: while it
			// is young a TryAcquire, a TakeAll and an Acquire take the
			// free unit ahead of it; past the bound a parked Acquire
			// looks, and then nothing takes units ahead of it until a
			// Release serves it.
			"old-head": "4" + "1" + "A02Z1T1R1E" + "Z3A03T1E" + "R1R1R1R1R1",
		},
		want: []string{
			"New/default limit", "New/WithLimit",
			"Acquire/ok", "Acquire/parked", "Parked Acquire/ok",
			"TryAcquire/true", "TryAcquire/false", "TakeAll/some, barged", "TakeAll/queued",
			"Release/ok", "Sleep/head past the bound", "Sleep/head within the bound",
		},
	},
	{
		name: "FuzzSignal", run: runSignal,
		seeds: map[string]string{
			// New(0): Ready, Add and Take, the context choices of Wait,
			// two parked Waits each handed a sum (by Add and AddWait), a
			// third cancelled, overflow at Max, and everything after
			// Close, including a parked Wait it refuses.
			"basics": "10" + "YA3YTTR1R2R0R0YA5W05R0K0" + "AhA1AiW11W21R0W01" +
				"TR0CA1W01R0",
			// The zero value, and a count that starts at Max.
			"zero": "0" + "0A1T",
			// Two parked Waits: the first cancelled right before an Add,
			// whose sum must go to the second.
			"cancel-then-add": "10" + "R0R0L03" + "R0L02",
			"full":            "1h" + "A0A1W11TA#\xfe\xff\xff\xff\xff\xff\xff\xffT",
		},
		want: []string{
			"New/zero value", "New/initial",
			"Add/ok", "Add/ErrWouldBlock", "Add/ErrInvalid", "Add/ErrClosed", "Add/handed to a parked Wait",
			"AddWait/ok", "AddWait/Canceled", "AddWait/ErrInvalid", "AddWait/ErrClosed", "AddWait/handed to a parked Wait",
			"Take/zero", "Take/non-zero",
			"Wait/ok", "Wait/Canceled", "Wait/ErrInvalid", "Wait/ErrClosed", "Wait/parked",
			"Parked Wait/ok", "Parked Wait/ErrClosed", "Parked Wait/Canceled",
			"Ready/fired", "Ready/armed", "Close/ok",
			"CancelThenAdd/handed to a parked Wait", "CancelThenAdd/ok",
		},
	},
	{
		name: "FuzzCoalesce", run: runCoalesce,
		seeds: map[string]string{
			// Audit, 5ms: a window of three Wakes, Wait in every form, a
			// parked Wait woken by the timer, one cancelled, Flush, and
			// Close with an event pending.
			"audit": "2000" + "TW2A3TA3TX1X2X0W0A5X0KW0FRW1" + "CX0X0",
			// Debounce, 5ms with maxWait 10ms and maxBatch 3: a stream
			// that extends the window, the batch threshold, and a parked
			// Wait refused by Close.
			"debounce": "2320" + "W0A4W0A4W0X0A9W0A4W0A4W0A4A9R" + "X0CT",
			// Adaptive, 5ms: five immediate wakeups within a delay, then a
			// stream that is coalesced until a quiet window.
			"adaptive": "2001" + "W0TW0TW0TW0TW0TA5W0W0TA5TW3A9A9W0TA9",
			// Zero delay: every Wake wakes at once.
			"zero": "0000" + "X0W0W3TRW1X0",
			// The zero value: Events alone with nothing and with a wakeup
			// (whose token it takes), then a token on C at Close, which
			// must not outlive the Events that reports its event.
			"zero-value": "0002" + "EW0ETW0TW0X0" + "W0CETX0",
		},
		want: []string{
			"New/audit", "New/debounce", "New/maxBatch", "New/zero delay", "New/adaptive", "New/zero value",
			"Wake", "Advance", "Flush", "Close",
			"C/true", "C/false", "Ready/true", "Ready/false", "Events/none", "Events/some",
			"Wait/ok", "Wait/Canceled", "Wait/ErrInvalid", "Wait/ErrClosed", "Wait/parked",
			"Parked Wait/ok", "Parked Wait/ErrClosed", "Parked Wait/Canceled",
		},
	},
	{
		name: "FuzzWorkqueue", run: runWorkqueue,
		seeds: map[string]string{
			// New(): Ready armed then fired, duplicates, a mark kept
			// aside and absorbed, every bad max and nil context, Done of
			// unknown, repeated and marked items, Remove in every state,
			// Drain in every form, parked Waits served, cancelled and
			// skipped (L), and Close with a parked Wait.
			"edge": "10" + "YA1A1A2T1A1A1U0T-W21W10W11W01D11D13D222V05R1R1D11A3R3R3L03D13R3" +
				"G0A4U1D14A4G1G2G0T1D14A5G0G0K1T1D15" + "W05A5W05K0W05W05L06A5W05W05" +
				"CA7CD15W01YD256U5T5",
			// AddMode on an edge queue: every mode, the invalid ones, a
			// mark kept aside, and after Close.
			"addmode": "20" + "M10M10M21M13M24T5M10M12D0D212T+" + "CM10",
			// Next: served at once, parked and served by an Add, parked
			// and served by a Done after Close, refused, cancelled; the
			// Append form parked, cancelled and refused by Close.
			"next": "10" + "A1A2A3N020N01212N0513A4N2114N1014N1114V05K0V05A6V11V10V21A7V11" +
				"A5T1A5N010N010K1V05N010CD15N0115V01D267",
			// Level with a recheck: re-queued while ready, dropped when
			// not, a kept-aside mark first, not re-queued after Close.
			"level": "31" + "A1A2T2D12S1D11T1A2D12T1S1CD12G1",
			// One-shot: disarmed with and without a mark, Rearm in every
			// state, Remove of disarmed items, after Close.
			"oneshot": "40" + "A1T1A1D11A1E1T1E1D11E1A1T1D11E1R1A2T1D12A2R2D12A3T1D13D13" +
				"CE3M31",
			// Kept-aside marks: two re-queued by one Done in the order
			// they arrived, to a parked Wait(1) that takes only the first;
			// a mark dropped by Remove in flight, and an Add that makes
			// the item known again.
			"marks": "10" + "A1A2T2A2A1W01D212T1" + "A1R1A1D11T1D11",
			// The zero value.
			"zero": "00" + "A1W01D11Y",
			// Level with a recheck, Done of more than 64 items: an item
			// held at both ends, queued again and handed to a parked Wait
			// by the first copy, untouched by the second; then a level
			// item and a kept-aside mark at either end, queued again in
			// one order for the whole call (the mark first).
			"long-done": "31" + "A1T1W01" + "B11111" + "T1" + "A2A3T2A3" + "B2" + "12" + "13" + "T5",
			// Delays: a new item delayed, an earlier time kept, a tie, a
			// non-positive delay queued at once and a duplicate, delays cut
			// short by Add and by AddAfter(0); the clock queues them in
			// ready-time order; a kept-aside mark with a time absorbs a
			// later one and delays the item at Done; a parked Wait served
			// by the timer; a parked Drain that waits for delays; Close
			// queues what is still delayed, in order, and refuses AddAfter.
			"delays": "10" + "F17F12F22F30F39F47A4F57F50W01P2T5" +
				"F17F18D11W01P0D11" + "D3452F62F72G0P0T8D267" +
				"F05F45F16P1CF27T8D43041",
			// Rate-limited retries with ExponentialRateLimiter(1ms, 8ms):
			// a retry delayed by the backoff and counted; a retry of an
			// item in flight kept aside and delayed at Done; Forget with
			// and without retries; a retry of a queued item counted and
			// forgotten with the item; AddWith rate limited takes the
			// sooner of After and the backoff; the cap; Remove of a
			// delayed retry forgets it; after Close, refused.
			"retries": "28" + "I1O1P2T1I1O1D11P0T1I1I1O1J1J1D11" +
				"A2I2O2T1D12" + "H2713H3013P0P0T8D3231" +
				"I4I4I4I4I4O4P8T1D14O4I5R5O5" + "CI6O6",
			// Priorities and fair share (tenant k%3): the ends of int, a
			// queued item raised to the tail of a higher priority, a
			// delayed item keeping its priority, round-robin across the
			// tenants of one priority, a priority raised by a kept-aside
			// mark and kept at Done.
			"priorities": "12" + "H1001H2001H400+H500_A3A6A0H3002H7203P2T3T8" +
				"H1006A1D11A2T8D44731D42605T1D12" + "A0A3A1A4A2T8",
			// FairShare of two dimensions with weights (bit 16): turns
			// of 3 for key 0, spread over its two keys below; a batch
			// that ends in a turn; a tenant that joins last in a turn.
			"fairshare": "1@" + "A0A2A4A6A1A3A5A7T2T3A0T8",
			// Level with a recheck, metrics and the short limiter: depth,
			// adds, retries, waits and work times reported and Running
			// while items are in flight; a retry of a queued item; a level
			// item dropped by the recheck forgets its retries; Next; Close.
			"metrics": "3=" + "A1A2F32T1P2T5D212I1W01P1S1D11T8F12D12S1" + "N01213P8T8" + "CD3231",
			// One-shot with metrics: a disarmed item's mark with a ready
			// time, delayed by Rearm; re-armed in flight with a mark still
			// to come, delayed at Done.
			"oneshot-delays": "44" + "A1T1D11F12E1P2T1E1F13D11P0T1D11",
			// Replace: a delayed item's time moved later, a queued item
			// delayed, each then queued at its new time.
			"replace": "10" + "F17H1820" + "A2H2720" + "P0T8D12P0T8D11",
		},
		want: readyqWant(),
	},
	{
		name: "FuzzKernel", run: runKernel, linuxOnly: true,
		seeds: map[string]string{
			// EFD_SEMAPHORE from 0 and plain from 0: reads at 0, the
			// context choices, every poll state, writes up to Max and past
			// it, the invalid write, and fdinfo.
			"semaphore": "00" + "RS1S2PW1PRWhPW1WiB01B21S0B01B11R" + "F",
			"plain":     "10" + "RS1S2PW1PRWhPW1WiB01B21S0B01B11R" + "F",
			// Initial counts above eventfd(2)'s 32 bits.
			"initial-semaphore": "0q" + "RPF",
			"initial-plain":     "1r" + "RPF",
		},
		want: kernelWant(),
	},
}

// readyqWant is every readyq operation and outcome.
func readyqWant() []string {
	want := []string{
		"New/zero value", "New/default", "New/edge", "New/level", "New/oneshot", "New/recheck",
		"Add/queued", "Add/duplicate", "Add/kept aside", "Add/mark absorbed", "Add/kept while disarmed",
		"Add/handed to a parked Wait", "Add/refused after Close", "Add/known again after Remove in flight",
		"AddMode/queued", "AddMode/duplicate", "AddMode/kept aside", "AddMode/invalid mode", "AddMode/refused after Close",
		"CancelThenAdd/handed to a parked Wait", "CancelThenAdd/queued",
		"TryTake/items", "TryTake/none", "TryTake/max<=0",
		"TryTakeAppend/items", "TryTakeAppend/none", "TryTakeAppend/max<=0",
		"Done/empty", "Done/unknown", "Done/queued item", "Done/idle or disarmed item", "Done/repeated",
		"Done/edge forgotten", "Done/removed item forgotten", "Done/kept-aside mark re-queued",
		"Done/level re-queued", "Done/level dropped by recheck", "Done/level not re-queued after Close",
		"Done/one-shot disarmed", "Done/one-shot disarmed with a mark", "Done/one-shot re-armed",
		"Remove/unknown", "Remove/queued", "Remove/in flight", "Remove/in flight, already removed", "Remove/idle or disarmed",
		"Rearm/queued", "Rearm/idle", "Rearm/in flight", "Rearm/refused", "Rearm/after Close",
		"Drain/ok", "Drain/Canceled", "Drain/ErrInvalid", "Drain/parked",
		"Parked Drain/ok", "Parked Drain/Canceled",
		"Ready/fired", "Ready/armed", "Ready/fired later",
		"Close/ok", "Close/again", "SetReady/false",
		"DoneLong/an item held at both ends", "DoneLong/other",
		"New/fairness", "New/fair share", "New/metrics", "New/short limiter",
		"AddAfter/delayed", "AddAfter/queued", "AddAfter/duplicate", "AddAfter/delayed, the earliest time kept",
		"AddAfter/delay cut short", "AddAfter/kept aside", "AddAfter/mark absorbed", "AddAfter/refused after Close",
		"Add/delay cut short",
		"AddWith/delayed", "AddWith/queued", "AddWith/duplicate", "AddWith/rate limited", "AddWith/raised a queued item",
		"AddWith/replace: a delayed item's time moved", "AddWith/replace: a queued item delayed",
		"AddRateLimited/delayed", "AddRateLimited/kept aside", "AddRateLimited/duplicate", "AddRateLimited/refused after Close",
		"Forget/had retries", "Forget/none", "NumRequeues/0", "NumRequeues/1", "NumRequeues/2",
		"Advance/nothing due", "Advance/queued delayed items", "Advance/handed to a parked Wait",
		"Done/kept-aside mark delayed", "Rearm/delayed", "Close/queued delayed items",
	}
	for _, op := range []string{"Wait", "WaitAppend", "Next"} {
		for _, l := range []string{"ok", "ErrInvalid nil ctx", "ErrInvalid max<=0", "Canceled", "ErrClosed", "parked"} {
			want = append(want, op+"/"+l)
		}
		for _, l := range []string{"ok", "ErrClosed", "Canceled"} {
			want = append(want, "Parked "+op+"/"+l)
		}
	}
	return want
}

// limWant is every operation and outcome of FuzzLimiter's corpus.
var limWant = []string{
	"New/small", "New/big",
	"Acquire/ok", "Acquire/ErrInvalid", "Acquire/ErrClosed with units free", "Acquire/Canceled", "Acquire/parked",
	"Parked Acquire/ok", "Parked Acquire/ErrClosed", "Parked Acquire/Canceled", "CancelParked/after return",
	"TryAcquire/true", "TryAcquire/false", "TryAcquire/false, queued", "TryAcquire/false, closed with units free",
	"Release/ok", "Release/ErrOverRelease", "Release/ErrInvalid",
	"Close/ok", "Close/refused a waiter with units free", "CancelThenRelease/ok",
	"SetLimit/raise", "SetLimit/cut", "SetLimit/cut into debt", "SetLimit/same",
	"SetLimit/ErrInvalid", "SetLimit/ErrInvalid below a parked acquirer", "SetLimit/ErrClosed",
	"Drain/ok", "Drain/Canceled", "Drain/ErrInvalid", "Drain/parked", "Parked Drain/ok", "Parked Drain/Canceled",
	"AcquirePermit/ok", "AcquirePermit/Canceled", "AcquirePermit/ErrInvalid",
	"AcquirePermit/ErrClosed with units free", "AcquirePermit/parked",
	"Parked AcquirePermit/ok", "Parked AcquirePermit/ErrClosed", "Parked AcquirePermit/Canceled",
	"TryAcquirePermit/true", "TryAcquirePermit/false",
	"PermitRelease/true", "PermitRelease/false, nothing held", "PermitRelease/false, over-release",
	"PermitReleaseTwice/true", "PermitReleaseTwice/false, nothing held", "PermitReleaseTwice/false, over-release",
	"Split/ok", "Split/ErrInvalid", "Merge/ok", "Merge/ErrInvalid", "Forget/true", "Forget/false",
	"AcquireUpTo/ok", "AcquireUpTo/Canceled", "AcquireUpTo/ErrInvalid",
	"AcquireUpTo/ErrClosed with units free", "AcquireUpTo/parked",
	"Parked AcquireUpTo/ok", "Parked AcquireUpTo/ErrClosed", "Parked AcquireUpTo/Canceled",
	"TryAcquireUpTo/some", "TryAcquireUpTo/none", "TryAcquireUpTo/none, queued",
	"TryAcquireUpTo/none, closed with units free",
	"AcquirePermitUpTo/ok", "AcquirePermitUpTo/Canceled", "AcquirePermitUpTo/ErrClosed with units free",
	"AcquirePermitUpTo/parked", "Parked AcquirePermitUpTo/ok",
	"TryAcquirePermitUpTo/some", "TryAcquirePermitUpTo/none", "TryAcquirePermitUpTo/none, queued",
	"Sleep/nobody parked", "Sleep/head at the bound", "Sleep/head past the bound",
}

// kernelWant is every kernel operation and outcome, in both modes.
func kernelWant() []string {
	var want []string
	for _, mode := range []string{"semaphore", "plain"} {
		want = append(want, "Open/"+mode)
		for _, l := range []string{
			"write/ok", "write/ErrWouldBlock", "write/ErrInvalid",
			"blocking write/ok", "blocking write/Canceled", "blocking write/ErrInvalid",
			"read/ok", "read/ErrWouldBlock",
			"blocking read/ok", "blocking read/Canceled", "blocking read/ErrInvalid",
			"poll/in=false out=true", "poll/in=true out=true", "poll/in=true out=false",
			"fdinfo/ok",
		} {
			want = append(want, mode+" "+l)
		}
	}
	return want
}

// TestWriteCorpus writes the seed corpus from corpusSeeds when run with
// -update-corpus: go test ./fuzz -run TestWriteCorpus -update-corpus.
func TestWriteCorpus(t *testing.T) {
	if !*updateCorpus {
		t.Skip("run with -update-corpus to rewrite the seed corpus")
	}
	for _, tg := range targets {
		dir := filepath.Join("testdata", "fuzz", tg.name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, seed := range tg.seeds {
			if err := os.WriteFile(filepath.Join(dir, "seed-"+name), encodeCorpus([]byte(seed)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestCorpusMatchesSeeds: every hand-written seed is in the corpus as
// written, so the files and corpusSeeds cannot drift apart.
func TestCorpusMatchesSeeds(t *testing.T) {
	for _, tg := range targets {
		for name, seed := range tg.seeds {
			path := filepath.Join("testdata", "fuzz", tg.name, "seed-"+name)
			got, err := readCorpus(path)
			if err != nil {
				t.Fatalf("%v (regenerate with -update-corpus)", err)
			}
			if !bytes.Equal(got, []byte(seed)) {
				t.Errorf("%s = %q, corpusSeeds has %q (regenerate with -update-corpus)", path, got, seed)
			}
		}
	}
}

// TestCorpusCoverage runs every corpus file of every target (the seeds and
// anything the fuzzer added) with a tally and fails unless each
// operation and each outcome in the target's want list was reached: the
// corpus that go test runs covers every operation and every error.
func TestCorpusCoverage(t *testing.T) {
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			if tg.linuxOnly && runtime.GOOS != "linux" {
				t.Skip("Linux only")
			}
			files, err := corpusFiles(tg.name)
			if err != nil || len(files) == 0 {
				t.Fatalf("no corpus for %s: %v", tg.name, err)
			}
			if tg.also != "" {
				more, err := corpusFiles(tg.also)
				if err != nil || len(more) == 0 {
					t.Fatalf("no corpus for %s: %v", tg.also, err)
				}
				files = append(files, more...)
			}
			tl := tally{}
			for _, f := range files {
				data, err := readCorpus(f)
				if err != nil {
					t.Fatal(err)
				}
				tg.run(t, data, tl)
			}
			var missing []string
			for _, w := range tg.want {
				if tl[w] == 0 {
					missing = append(missing, w)
				}
			}
			if len(missing) != 0 {
				t.Errorf("the corpus never reaches %q\nreached: %v", missing, labels(tl))
			}
		})
	}
}

// corpusFiles lists the corpus files of the target name.
func corpusFiles(name string) ([]string, error) {
	return filepath.Glob(filepath.Join("testdata", "fuzz", name, "*"))
}

// addCorpus adds the corpus of the target name to f's seeds, for a target
// that runs another's inputs in a mode of its own.
func addCorpus(f *testing.F, name string) {
	files, err := corpusFiles(name)
	if err != nil || len(files) == 0 {
		f.Fatalf("no corpus for %s: %v", name, err)
	}
	for _, file := range files {
		data, err := readCorpus(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

func labels(tl tally) []string {
	var l []string
	for k := range tl {
		l = append(l, k)
	}
	slices.Sort(l)
	return l
}

// The corpus file format of go test: a header line, then one line per
// argument; the targets here take one []byte.
const corpusHeader = "go test fuzz v1"

func encodeCorpus(data []byte) []byte {
	return fmt.Appendf(nil, "%s\n[]byte(%q)\n", corpusHeader, data)
}

// readCorpus reads a corpus file with one []byte argument.
func readCorpus(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, len(b)+1)
	if !sc.Scan() || sc.Text() != corpusHeader {
		return nil, fmt.Errorf("%s: no %q header", path, corpusHeader)
	}
	if !sc.Scan() {
		return nil, fmt.Errorf("%s: no argument", path)
	}
	line := strings.TrimSpace(sc.Text())
	inner, ok := strings.CutPrefix(line, "[]byte(")
	if inner, ok2 := strings.CutSuffix(inner, ")"); ok && ok2 {
		s, err := strconv.Unquote(inner)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		return []byte(s), nil
	}
	return nil, fmt.Errorf("%s: argument %q is not a []byte", path, line)
}
