package main

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/evsync/evsync/internal/testsupport/anchor"
	"github.com/evsync/evsync/signal"
)

// The notify workloads (the experiment behind the rejected kernel patch
// for coalescing eventfd wakeups): w writer goroutines each Add(1) to one
// signal at a set rate per writer (or unthrottled), one reader Waits and
// takes the sum. The floor row runs the writers' pacing alone, with no
// signal and no reader, so that a row's CPU per write minus the floor's,
// in the same round, is what notifying costs.

// notifyRate is the notify group's rate, in writes per second per writer.
const notifyRate = 20000

// sweepRates are the sweep group's rates per writer; 0 is unthrottled.
var sweepRates = []int{100, 300, 1000, 3000, 10000, 30000, 100000, 0}

// sweepWriters is how many goroutines write in the sweep.
const sweepWriters = 4

// A notifyImpl is one notifier; new is nil for the floor.
type notifyImpl struct {
	name string
	new  func() (anchor.Signal, error)
}

// evsyncWith builds evsync signals with opts.
func evsyncWith(opts ...signal.Option) func() (anchor.Signal, error) {
	return func() (anchor.Signal, error) { return anchor.AdaptSignal(signal.New(0, opts...)), nil }
}

// The policies the sweep's charts single out.
const (
	immediateImpl = "evsync"
	fixedImpl     = "evsync/delay=5ms"
	adaptiveImpl  = "evsync/delay=5ms,adaptive"
	floorImpl     = "floor"
	debounceImpl  = "afterfunc/delay=5ms"
)

// notifyImpls lists the notify group's rows, floor first.
func notifyImpls() []notifyImpl {
	const ms = time.Millisecond
	return []notifyImpl{
		{floorImpl, nil},
		{"eventfd", anchor.NewEventfdSignal},
		{"atomictoken", anchor.NewTokenSignal},
		{immediateImpl, evsyncWith()},
		{"evsync/delay=1ms", evsyncWith(signal.WithWakeDelay(ms))},
		{fixedImpl, evsyncWith(signal.WithWakeDelay(5 * ms))},
		{"evsync/delay=20ms", evsyncWith(signal.WithWakeDelay(20 * ms))},
		{"evsync/delay=5ms,batch=64", evsyncWith(signal.WithWakeDelay(5*ms, signal.WithMaxBatch(64)))},
		{adaptiveImpl, evsyncWith(signal.WithWakeDelay(5*ms, signal.WithAdaptive()))},
		{"evsync/delay=5ms,adaptive,batch=64", evsyncWith(signal.WithWakeDelay(5*ms, signal.WithAdaptive(), signal.WithMaxBatch(64)))},
		{debounceImpl, func() (anchor.Signal, error) { return anchor.NewDebounceSignal(5 * ms) }},
	}
}

// sweepImpls is the subset of notifyImpls the sweep runs: the floor, the
// three evsync policies it compares and the debouncer a user would write.
func sweepImpls() []notifyImpl {
	var out []notifyImpl
	for _, im := range notifyImpls() {
		switch im.name {
		case floorImpl, immediateImpl, fixedImpl, adaptiveImpl, debounceImpl:
			out = append(out, im)
		}
	}
	return out
}

// notifyWorkloads is the notify group: 1, 4 and 16 writers at 20k writes/s
// each.
func notifyWorkloads() []workload {
	var ws []workload
	for _, w := range []int{1, 4, 16} {
		ws = append(ws, notifyWorkload("notify", "Notify", w, notifyRate, notifyImpls()))
	}
	return ws
}

// sweepWorkloads is the sweep group: 4 writers at each of sweepRates.
func sweepWorkloads() []workload {
	var ws []workload
	for _, rate := range sweepRates {
		ws = append(ws, notifyWorkload("sweep", "NotifySweep", sweepWriters, rate, sweepImpls()))
	}
	return ws
}

func notifyWorkload(group, benchName string, w, rate int, impls []notifyImpl) workload {
	pace := fmt.Sprintf("%s times a second", si(float64(rate)))
	if rate == 0 {
		pace = "as fast as it can"
	}
	wl := workload{group: group, title: "notify", bench: benchName, kind: notifyKind,
		params: []param{intParam("w", w), {"rate", rateName(rate), rate}},
		about: fmt.Sprintf("%s %s Add(1) %s, one reader Waits and takes the sum; floor: the writers' pacing alone, no signal",
			count(w, "writer"), plural(w, "calls", "each call"), pace),
		ref: immediateImpl, anchor: debounceImpl, why: whyNotify,
		use: "paced writers waking a reader through a 5 ms window"}
	if group == "sweep" {
		wl.use = "paced writers at 100/s to unthrottled, through a 5 ms window"
	}
	for _, im := range impls {
		c := bench{impl: im.name, run: notifyCase(im, w, rate)}
		if im.name == debounceImpl {
			c.against = fixedImpl // the same policy, the timer done by hand
		}
		wl.cases = append(wl.cases, c)
	}
	return wl
}

func rateName(rate int) string {
	if rate == 0 {
		return "max"
	}
	return si(float64(rate))
}

// Latencies are recorded from 1ns to a minute with three significant
// digits (0.1 %).
const (
	latLowest  = 1
	latHighest = int64(time.Minute)
	latDigits  = 3
)

func newLatencies() *hdrhistogram.Histogram {
	return hdrhistogram.New(latLowest, latHighest, latDigits)
}

// notifyCase runs w writers at rate on a new notifier of im until stop.
func notifyCase(im notifyImpl, w, rate int) func(*atomic.Bool) (tally, error) {
	return func(stop *atomic.Bool) (tally, error) {
		if im.new == nil {
			return fanOut(w, func() (tally, error) {
				return tally{ops: pace(rate, stop, func() {})}, nil
			})
		}
		s, err := im.new()
		if err != nil {
			return tally{}, err
		}
		defer s.Close()
		return writeReadPaced(s, w, rate, stop)
	}
}

// writeReadPaced runs w paced writers on s until stop and the reader on
// the calling goroutine. Once the writers are done it raises finished and
// adds one more unit (unstamped) so that a blocked reader wakes up and
// sees it.
func writeReadPaced(s anchor.Signal, w, rate int, stop *atomic.Bool) (tally, error) {
	n := tally{lat: newLatencies()}
	st := stamp{base: time.Now()}
	var finished atomic.Bool
	written := make(chan uint64, 1)
	go func() {
		t, _ := fanOut(w, func() (tally, error) {
			return tally{ops: pace(rate, stop, func() { st.mark(); s.Add(1) })}, nil
		})
		finished.Store(true)
		s.Add(1)
		written <- t.ops
	}()
	ctx := context.Background()
	var err error
	for err == nil && !finished.Load() {
		if _, err = s.Wait(ctx); err == nil {
			n.wakeups++
			if lat, ok := st.take(); ok {
				// Out of range only past a minute; clamp rather than lose it.
				_ = n.lat.RecordValue(min(max(int64(lat), latLowest), latHighest))
			}
		}
	}
	n.ops = <-written
	s.Take()
	if err == nil && n.ops == 0 {
		err = errors.New("no write completed")
	}
	return n, err
}

// pace calls write rate times a second until stop, and returns how many
// times it did. It sleeps between slots of at least 1ms (one write per
// slot below 1k/s), then makes the slot's writes at once; slots are laid
// on a fixed grid, so a late wakeup is made up by the next slot, unless it
// is more than ten slots late. rate 0 writes in a tight loop.
func pace(rate int, stop *atomic.Bool, write func()) uint64 {
	var n uint64
	// Each loop makes its first writes before it looks at stop: on a
	// loaded machine a writer may start only after a very short run has
	// been stopped, and a run must write something.
	if rate <= 0 {
		for {
			for range batch {
				write()
			}
			n += batch
			if stop.Load() {
				return n
			}
		}
	}
	slot := max(time.Millisecond, time.Second/time.Duration(rate))
	// Writes per slot, rounded (1s/300 is not a whole number of ns).
	per := max(1, int((int64(rate)*int64(slot)+int64(time.Second)/2)/int64(time.Second)))
	next := time.Now()
	for first := true; first || !stop.Load(); first = false {
		for range per {
			write()
		}
		n += uint64(per)
		next = next.Add(slot)
		if late := -time.Until(next); late < 0 {
			time.Sleep(-late)
		} else if late > 10*slot {
			next = time.Now()
		}
	}
	return n
}

// stamp holds the time of the first write not yet read, for the latency
// columns. Writers mark before they add, so a read that takes the write
// finds its mark; the reader takes the mark after its Wait returns. A
// write landing between the Wait's take and the reader's take of the mark
// loses its own mark (the next write marks again), so the figures lean
// low by at most that sliver.
type stamp struct {
	base  time.Time
	first atomic.Int64 // nanoseconds since base, plus 1; 0: no mark
}

// mark records now unless a mark is there; the plain load keeps the
// common case (a mark is there) to a read of a shared cache line.
func (p *stamp) mark() {
	if p.first.Load() == 0 {
		p.first.CompareAndSwap(0, int64(time.Since(p.base))+1)
	}
}

// take removes the mark and returns the time since it.
func (p *stamp) take() (time.Duration, bool) {
	t := p.first.Swap(0)
	if t == 0 {
		return 0, false
	}
	return time.Since(p.base) - time.Duration(t-1), true
}
