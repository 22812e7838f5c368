package poll_test

import (
	"context"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evsync/evsync/internal/testsupport/fakeclock"
	"github.com/evsync/evsync/poll"
)

// expiries is the number of Deadlines of BenchmarkDeadlineExpiry.
const expiries = 100_000

// countClock is a fake clock that counts the timers made on it.
type countClock struct {
	*fakeclock.Clock
	made atomic.Int64
}

// NewTimer counts the timer and makes it on the fake clock.
func (c *countClock) NewTimer(d time.Duration) *fakeclock.Timer {
	c.made.Add(1)
	return c.Clock.NewTimer(d)
}

// BenchmarkDeadlineExpiry is 10^5 one-shot Deadlines at distinct times,
// 1µs apart, in one Set, all expiring and reported. An op is the whole
// round: the Adds, then the expiries. The metrics split it:
//
//   - ns/expiry: from the clock passing the last Deadline until TryWait
//     has reported them all, per Deadline; cpu-ns/expiry: the process's
//     CPU time over the same span (cpuMeter)
//   - add-ns/deadline: the Adds, per Deadline (the Deadlines are made with
//     the timer stopped)
//   - timers-made/op: the timers the Set made on the fake clock (a Set
//     makes a new one each time its earliest Deadline moves)
//   - armed-timers: the most timers armed on the fake clock at once
//
// The Deadlines are added in the order of their times (order=asc) or in a
// shuffled order (order=shuffled). The impls:
//
//   - fakeclock: the Set runs on a fake clock, which one Step moves past
//     every Deadline; then TryWait with max 1,024 takes them.
//   - wall: the wall clock; the Deadlines start 500ms after the Adds began
//     and span 100ms. A goroutine blocked in Wait with max 1,024 takes
//     them as the Set's timer fires. ns/expiry there is wall time, so
//     cpu-ns/expiry (the process's CPU time over the same span, every
//     thread counted, from getrusage) is the figure, with waits/expiry.
func BenchmarkDeadlineExpiry(b *testing.B) {
	b.Run("order=asc/impl=fakeclock", func(b *testing.B) { benchExpiryFake(b, false) })
	b.Run("order=shuffled/impl=fakeclock", func(b *testing.B) { benchExpiryFake(b, true) })
	b.Run("order=shuffled/impl=wall", benchExpiryWall)
}

// expiryOffsets returns the offsets of the Deadlines' times from a base:
// 1µs, 2µs, … in order, or shuffled.
func expiryOffsets(shuffled bool) []time.Duration {
	off := make([]time.Duration, expiries)
	for i := range off {
		off[i] = time.Duration(i+1) * time.Microsecond
	}
	if shuffled {
		r := rand.New(rand.NewPCG(1, 2))
		r.Shuffle(len(off), func(i, j int) { off[i], off[j] = off[j], off[i] })
	}
	return off
}

// addDeadlines adds dls to set, key i for dls[i], OneShot.
func addDeadlines(b *testing.B, set *poll.Set[int], dls []*poll.Deadline) {
	for i, d := range dls {
		if err := set.Add(d, i, poll.In, poll.OneShot); err != nil {
			b.Fatal(err)
		}
	}
}

// checkExpired fails b unless evs are In events of Deadlines in the order
// of their times, from after last on. It returns the time of the last.
func checkExpired(b *testing.B, evs []poll.Event[int], dls []*poll.Deadline, last time.Time) time.Time {
	for _, ev := range evs {
		at := dls[ev.Key].Time()
		if ev.Events != poll.In || at.Before(last) {
			b.Fatalf("event %v of the Deadline at %v after one at %v", ev, at, last)
		}
		last = at
	}
	return last
}

func benchExpiryFake(b *testing.B, shuffled bool) {
	off := expiryOffsets(shuffled)
	base := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	buf := make([]poll.Event[int], 0, 1024)
	var adding, expiring, cpuExpiring time.Duration
	var made int64
	armedMax, rounds := 0, 0
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		fake := &countClock{Clock: fakeclock.New(base)}
		set := poll.New[int](poll.WithClock[*fakeclock.Timer](fake))
		dls := make([]*poll.Deadline, expiries)
		for i := range dls {
			dls[i] = poll.NewDeadline(base.Add(off[i]))
		}
		b.StartTimer()

		start := time.Now()
		addDeadlines(b, set, dls)
		adding += time.Since(start)
		armedMax = max(armedMax, fake.Waiters())
		if st := set.Stats(); !st.Timer || st.Armed != expiries {
			b.Fatalf("Stats = %+v after the Adds, want the timer armed for %d Deadlines", st, expiries)
		}

		start, cpu := time.Now(), startCPU()
		fake.Step(expiries*time.Microsecond + 1)
		last := time.Time{}
		for n := 0; n < expiries; {
			buf = set.TryWait(buf[:0], cap(buf))
			if len(buf) == 0 {
				b.Fatalf("TryWait reported nothing after %d of %d expiries", n, expiries)
			}
			n += len(buf)
			last = checkExpired(b, buf, dls, last)
		}
		expiring += time.Since(start)
		cpuExpiring += cpu.since()

		if st := set.Stats(); st.Timer || st.Armed != 0 || st.Queued != 0 || st.Wakeups != expiries {
			b.Fatalf("Stats = %+v after the expiries", st)
		}
		made += fake.made.Load()
		rounds++
		set.Close()
	}
	b.ReportMetric(float64(expiring.Nanoseconds())/float64(rounds*expiries), "ns/expiry")
	if _, ok := cpuTime(); ok {
		b.ReportMetric(float64(cpuExpiring.Nanoseconds())/float64(rounds*expiries), "cpu-ns/expiry")
	}
	b.ReportMetric(float64(adding.Nanoseconds())/float64(rounds*expiries), "add-ns/deadline")
	b.ReportMetric(float64(made)/float64(rounds), "timers-made/op")
	b.ReportMetric(float64(armedMax), "armed-timers")
}

func benchExpiryWall(b *testing.B) {
	off := expiryOffsets(true)
	buf := make([]poll.Event[int], 0, 1024)
	ctx := context.Background()
	var adding, cpu time.Duration
	waits, rounds := 0, 0
	cpuOK := true
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		set := poll.New[int]()
		dls := make([]*poll.Deadline, expiries)
		base := time.Now().Add(500 * time.Millisecond)
		for i := range dls {
			dls[i] = poll.NewDeadline(base.Add(off[i]))
		}
		b.StartTimer()

		start := time.Now()
		addDeadlines(b, set, dls)
		adding += time.Since(start)
		if time.Now().After(base) {
			b.Fatalf("the Adds took %v, past the first Deadline", time.Since(start))
		}

		cpu0, ok := cpuTime()
		last := time.Time{}
		for n := 0; n < expiries; {
			var err error
			if buf, err = set.Wait(ctx, buf[:0], cap(buf)); err != nil {
				b.Fatal(err)
			}
			waits++
			n += len(buf)
			last = checkExpired(b, buf, dls, last)
		}
		cpu1, ok1 := cpuTime()
		cpu += cpu1 - cpu0
		cpuOK = cpuOK && ok && ok1
		if st := set.Stats(); st.Timer || st.Armed != 0 || st.Wakeups != expiries {
			b.Fatalf("Stats = %+v after the expiries", st)
		}
		rounds++
		set.Close()
	}
	if cpuOK {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(rounds*expiries), "cpu-ns/expiry")
	}
	b.ReportMetric(float64(waits)/float64(rounds*expiries), "waits/expiry")
	b.ReportMetric(float64(adding.Nanoseconds())/float64(rounds*expiries), "add-ns/deadline")
}
