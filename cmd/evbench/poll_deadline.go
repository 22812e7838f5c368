package main

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"sync/atomic"
	"time"

	"github.com/evsync/evsync/poll"
)

// The deadline workload: n one-shot deadlines at distinct times, spread
// evenly over deadlineSpan, expire while one goroutine takes them as they
// are reported, up to deadlineMax a wakeup. An op is one deadline
// reported. The latencies are lateness: from a deadline's time to the
// return of the wait that reported it.
//
// Its cost column is CPU time per op, not wall time: a run lasts as long
// as the deadlines' span whatever they cost, so its wall time per op is
// the span over n.
//
// The setup (prep) arms every deadline off the clock, the first one a
// lead ahead, so that the run sees them all expire (armAhead).
const (
	deadlineSpan  = 100 * time.Millisecond
	deadlineLead  = 20 * time.Millisecond // the least lead; armAhead sets a case's own
	deadlineArm   = 2 * time.Microsecond  // a guess at what arming a deadline takes, for the first lead
	deadlineMax   = 64
	deadlineAlt   = "timer-per-deadline"
	deadlineTries = 4 // arming tries before prep gives up
)

// deadlineN is how many deadlines the workload arms. It is a variable
// so that the tests run it smaller (TestMain): under the race detector
// 100,000 take a minute.
var deadlineN = 100_000

// deadlineWorkload is the poll group's deadline workload over n
// deadlines: a Set's, against a timer's per deadline.
func deadlineWorkload(n int) workload {
	w := workload{group: "poll", title: "poll deadlines", bench: "PollDeadlines",
		params: []param{intParam("n", n)},
		about: fmt.Sprintf("%s at distinct times over %v, armed before the run; one goroutine takes them as they expire, "+
			"up to %d a wakeup (wakeups/op: its waits that returned); one op is one deadline reported; "+
			"a run lasts from a lead before the first to the last report, whatever -duration (so cpu/wall is low). "+
			"No epoll row: %s timerfds would be as many fds, more than many systems' file limit allows (the wait rows leave out epoll at n=100000 too)",
			count(n, "one-shot deadline"), deadlineSpan, deadlineMax, itoa(n)),
		anchor: deadlineAlt, why: "one time.AfterFunc per deadline sending its key to a channel: the Go way to wait on many deadlines",
		use: "waiting on many deadlines at once", wakeups: true, latency: true, lateness: true, cpuCost: true,
		fixed: deadlineLead + deadlineSpan}
	w.cases = []bench{
		{impl: "evsync", note: "one Set, one timer for all, checked with Stats", prep: deadlineSetCase(n, deadlineSpan)},
		{impl: deadlineAlt, note: "time.AfterFunc each, to a channel of 64", prep: deadlineTimerCase(n, deadlineSpan)},
	}
	return w
}

// deadlineTimes are n distinct times, evenly spread over span from base
// on.
func deadlineTimes(base time.Time, n int, span time.Duration) []time.Time {
	ats := make([]time.Time, n)
	for i := range ats {
		ats[i] = base.Add(span * time.Duration(i) / time.Duration(n))
	}
	return ats
}

// firstLead is the lead of a case's first run over n deadlines.
func firstLead(n int) time.Duration { return deadlineLead + time.Duration(n)*deadlineArm }

// armAhead calls arm with n times over span, the first *lead from now,
// and returns what arm made and the times. The lead must outlast the rest
// of the setup and the start of the measurement: a GC, which marks what
// arming made, and a snapshot. They take well under half as long as
// arming did, so armAhead checks that at least that half is left. If not,
// it frees what arm made and arms again with a lead of 4 times what
// arming took, deadlineTries times in all. It sets *lead for the case's
// next run: twice what arming took, and at least deadlineLead.
func armAhead[S any](n int, lead *time.Duration, span time.Duration, arm func(ats []time.Time) (S, error), free func(S)) (S, []time.Time, error) {
	for try := 1; ; try++ {
		start := time.Now()
		ats := deadlineTimes(start.Add(*lead), n, span)
		s, err := arm(ats)
		if err != nil {
			return s, nil, err
		}
		took := time.Since(start)
		if left := time.Until(ats[0]); left >= took/2 {
			*lead = max(deadlineLead, 2*took)
			return s, ats, nil
		}
		free(s)
		if try == deadlineTries {
			var zero S
			return zero, nil, fmt.Errorf("arming %d deadlines took %v, more than their lead of %v allows, %d times", n, took, *lead, try)
		}
		*lead = 4 * took
	}
}

// A deadlineTaker counts the deadlines reported and the wakeups that
// reported them, and records how late each was.
type deadlineTaker struct {
	ats  []time.Time // by key
	seen []bool      // by key
	t    tally
}

func newDeadlineTaker(ats []time.Time) *deadlineTaker {
	return &deadlineTaker{ats: ats, seen: make([]bool, len(ats)), t: tally{lat: newLatencies()}}
}

// done reports whether every deadline was reported.
func (d *deadlineTaker) done() bool { return d.t.ops == uint64(len(d.ats)) }

// take counts one wakeup, at now, that reported the deadlines keys. A
// key that is no deadline's, one reported twice, and one reported before
// its time are errors.
func (d *deadlineTaker) take(now time.Time, keys iter.Seq[int]) error {
	d.t.wakeups++
	for k := range keys {
		if k < 0 || k >= len(d.ats) || d.seen[k] {
			return fmt.Errorf("deadline %d reported twice, or no such deadline", k)
		}
		late := now.Sub(d.ats[k])
		if late < 0 {
			return fmt.Errorf("deadline %d reported %v before its time", k, -late)
		}
		d.seen[k] = true
		d.t.ops++
		_ = d.t.lat.RecordValue(min(max(int64(late), latLowest), latHighest))
	}
	return nil
}

// armDeadlineSet adds a one-shot Deadline at each of ats to a new Set,
// keyed by its index.
func armDeadlineSet(ats []time.Time) (*poll.Set[int], error) {
	set := poll.New[int]()
	for i, at := range ats {
		if err := set.Add(poll.NewDeadline(at), i, poll.In, poll.OneShot); err != nil {
			set.Close()
			return nil, err
		}
	}
	return set, nil
}

// deadlineSetCase arms n Deadlines in one Set (armDeadlineSet) and takes
// them with Wait, up to deadlineMax at a time. The setup checks that the
// Set holds them all armed on its one timer, before the first is due; the
// run, that the Set ends with none armed and its timer stopped.
func deadlineSetCase(n int, span time.Duration) prep {
	lead := firstLead(n) // this case's, kept from run to run (armAhead)
	return func() (func(*atomic.Bool) (tally, error), func(), error) {
		set, ats, err := armAhead(n, &lead, span, armDeadlineSet, (*poll.Set[int]).Close)
		if err != nil {
			return nil, nil, err
		}
		if st := set.Stats(); st.Armed != n || !st.Timer || st.Queued != 0 {
			set.Close()
			return nil, nil, fmt.Errorf("poll: a Set of %d Deadlines, none due: Stats %+v, want them all armed on its timer", n, st)
		}
		ctx := context.Background()
		buf := make([]poll.Event[int], 0, deadlineMax)
		run := func(*atomic.Bool) (tally, error) {
			d := newDeadlineTaker(ats)
			for !d.done() {
				var err error
				if buf, err = set.Wait(ctx, buf[:0], deadlineMax); err != nil {
					return d.t, fmt.Errorf("poll: Wait: %w", err)
				}
				if err := d.take(time.Now(), eventKeys(buf)); err != nil {
					return d.t, fmt.Errorf("poll: %w", err)
				}
			}
			if st := set.Stats(); st.Armed != 0 || st.Timer {
				return d.t, fmt.Errorf("poll: every Deadline reported, yet Stats %+v: want none armed and no timer", st)
			}
			return d.t, nil
		}
		return run, set.Close, nil
	}
}

// eventKeys is the keys of evs, in order.
func eventKeys(evs []poll.Event[int]) iter.Seq[int] {
	return func(yield func(int) bool) {
		for _, ev := range evs {
			if !yield(ev.Key) {
				return
			}
		}
	}
}

// deadlineTimers is the alternative's state: one time.AfterFunc per
// deadline, whose function sends the deadline's key to ch, or gives up
// once quit is closed.
type deadlineTimers struct {
	ts   []*time.Timer
	ch   chan int
	quit chan struct{}
}

// armDeadlineTimers starts a timer for each of ats.
func armDeadlineTimers(ats []time.Time) (*deadlineTimers, error) {
	s := &deadlineTimers{ts: make([]*time.Timer, len(ats)), ch: make(chan int, deadlineMax), quit: make(chan struct{})}
	for i, at := range ats {
		// time.Until(at) is read before AfterFunc reads the clock: the
		// timer fires at at or after it, never before.
		s.ts[i] = time.AfterFunc(time.Until(at), func() {
			select {
			case s.ch <- i:
			case <-s.quit:
			}
		})
	}
	return s, nil
}

// stop stops the timers and ends the functions still blocked in a send.
func (s *deadlineTimers) stop() {
	close(s.quit)
	for _, t := range s.ts {
		t.Stop()
	}
}

// deadlineTimerCase is the alternative: a timer per deadline
// (armDeadlineTimers), and one goroutine that receives the keys, up to
// deadlineMax a wakeup: a receive that waits, then what the channel
// holds, as a Wait takes what is queued.
func deadlineTimerCase(n int, span time.Duration) prep {
	lead := firstLead(n) // this case's, kept from run to run (armAhead)
	return func() (func(*atomic.Bool) (tally, error), func(), error) {
		s, ats, err := armAhead(n, &lead, span, armDeadlineTimers, (*deadlineTimers).stop)
		if err != nil {
			return nil, nil, err
		}
		keys := make([]int, 0, deadlineMax)
		run := func(*atomic.Bool) (tally, error) {
			d := newDeadlineTaker(ats)
			for !d.done() {
				keys = receiveUpTo(s.ch, keys[:0], deadlineMax)
				if err := d.take(time.Now(), slices.Values(keys)); err != nil {
					return d.t, fmt.Errorf("%s: %w", deadlineAlt, err)
				}
			}
			return d.t, nil
		}
		return run, s.stop, nil
	}
}

// receiveUpTo appends to keys a key from ch, waiting for it, then those
// ch holds, up to max in all.
func receiveUpTo(ch <-chan int, keys []int, max int) []int {
	keys = append(keys, <-ch)
	for len(keys) < max {
		select {
		case k := <-ch:
			keys = append(keys, k)
		default:
			return keys
		}
	}
	return keys
}
