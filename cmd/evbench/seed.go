package main

// The seed workload (issue 3): N writer goroutines each Add(1) to one
// signal at a set rate per writer (or unthrottled), one reader Waits and
// takes the sum, for a fixed time. It runs after the main table and
// prints a second one:
//
//	w, rate/w         writers, and the writes per second each aims at
//	                  ("max": unthrottled)
//	impl              floor: the writers pace and do nothing else, no
//	                  signal and no reader; else the signal (internal/anchor)
//	writes/s          writes completed per wall-clock second, all writers
//	wakeups/s         the reader's Waits that returned, per second
//	cpu/wall          CPU seconds (user+sys, getrusage) per wall second
//	cpu µs/w          CPU microseconds per write
//	over floor        cpu µs/w minus the floor's at the same w and rate:
//	                  what notifying costs per write
//	lat p50, p99      write-to-read latency: from the first write after a
//	                  read to the reader's return from the Wait that takes it
//
// -sweep runs the rate sweep instead (w=4; ~100/s to 100k/s per writer
// and unthrottled; evsync immediate, and 5ms fixed or adaptive, with and
// without a batch of 64).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/evsync/evsync/internal/anchor"
	"github.com/evsync/evsync/signal"
)

// seedRate is the seed's paced rate, in writes per second per writer.
const seedRate = 20000

// A seedImpl is one notifier of the seed table; new is nil for the floor.
type seedImpl struct {
	name string
	new  func() (anchor.Signal, error)
}

// evsyncWith builds evsync signals with opts.
func evsyncWith(opts ...signal.Option) func() (anchor.Signal, error) {
	return func() (anchor.Signal, error) { return anchor.AdaptSignal(signal.New(0, opts...)), nil }
}

// seedImpls lists the seed table's rows for one w, floor first.
func seedImpls() []seedImpl {
	const ms = time.Millisecond
	return []seedImpl{
		{"floor", nil},
		{"eventfd", anchor.NewEventfdSignal},
		{"atomictoken", anchor.NewTokenSignal},
		{"evsync", evsyncWith()},
		{"evsync/delay=1ms", evsyncWith(signal.WithWakeDelay(ms))},
		{"evsync/delay=5ms", evsyncWith(signal.WithWakeDelay(5 * ms))},
		{"evsync/delay=20ms", evsyncWith(signal.WithWakeDelay(20 * ms))},
		{"evsync/delay=5ms,batch=64", evsyncWith(signal.WithWakeDelay(5*ms), signal.WithWakeBatch(64))},
		{"evsync/delay=5ms,adaptive", evsyncWith(signal.WithWakeDelay(5*ms), signal.WithAdaptiveWake())},
		{"evsync/delay=5ms,adaptive,batch=64", evsyncWith(signal.WithWakeDelay(5*ms), signal.WithAdaptiveWake(), signal.WithWakeBatch(64))},
		{"afterfunc/delay=5ms", func() (anchor.Signal, error) { return anchor.NewDebounceSignal(5 * ms) }},
	}
}

// sweepImpls is the subset of seedImpls the rate sweep runs.
func sweepImpls() []seedImpl {
	var out []seedImpl
	for _, im := range seedImpls() {
		switch im.name {
		case "floor", "evsync", "evsync/delay=5ms", "evsync/delay=5ms,batch=64",
			"evsync/delay=5ms,adaptive", "evsync/delay=5ms,adaptive,batch=64":
			out = append(out, im)
		}
	}
	return out
}

// seedCase is one row to run: w writers at rate writes/s each (0:
// unthrottled) on impl.
type seedCase struct {
	w, rate int
	impl    seedImpl
}

func (c seedCase) name() string {
	return fmt.Sprintf("seed w=%d rate=%s impl=%s", c.w, rateName(c.rate), c.impl.name)
}

func rateName(rate int) string {
	if rate == 0 {
		return "max"
	}
	return si(float64(rate))
}

// seedCases is every impl at every w and rate, filtered by match.
func seedCases(ws, rates []int, impls []seedImpl, match string) []seedCase {
	var cs []seedCase
	for _, w := range ws {
		for _, rate := range rates {
			for _, im := range impls {
				if c := (seedCase{w, rate, im}); strings.Contains(c.name(), match) {
					cs = append(cs, c)
				}
			}
		}
	}
	return cs
}

// seedOpts are the seed table's settings from the command line.
type seedOpts struct {
	d      time.Duration // per run
	quick  bool          // w=1 and 16 only
	sweep  bool          // the rate sweep instead of the table
	repeat int           // runs per row; the table shows medians
	match  string        // only rows whose name contains it
}

// runSeedTable runs the seed table (or the rate sweep) and prints it under
// its heading line.
func runSeedTable(w io.Writer, o seedOpts) error {
	cs := seedCases([]int{1, 4, 16}, []int{seedRate}, seedImpls(), o.match)
	switch {
	case o.sweep:
		cs = seedCases([]int{4}, []int{100, 1000, 10000, 100000, 0}, sweepImpls(), o.match)
	case o.quick:
		cs = seedCases([]int{1, 16}, []int{seedRate}, seedImpls(), o.match)
	}
	rows, err := runSeeds(cs, o.d, max(o.repeat, 1))
	fmt.Fprintf(os.Stderr, "\r%-70s\r", "")
	fmt.Fprintln(w)
	title := "seed workload (paced N writers, 1 reader)"
	if o.sweep {
		title = "seed workload, write-rate sweep (4 writers, 1 reader)"
	}
	if o.repeat > 1 {
		title += fmt.Sprintf(", medians of %d runs", o.repeat)
	}
	fmt.Fprintln(w, title)
	printSeed(w, rows)
	return err
}

// runSeeds measures every case repeat times for d each, in rounds (every
// case once, then again), so that a slow patch of the machine spreads
// over the cases instead of landing on one. Progress goes to stderr. It
// stops at the first failure and returns the medians so far.
func runSeeds(cs []seedCase, d time.Duration, repeat int) ([]seedResult, error) {
	if len(cs) == 0 {
		return nil, nil
	}
	// A discarded warm-up run: right after the main table the runtime is
	// still settling (returning memory, finishing GC work), which the
	// first row, a floor that the rows after it are compared with, would
	// otherwise pay for.
	if _, err := runSeed(cs[0], d); err != nil {
		return nil, fmt.Errorf("%s: %w", cs[0].name(), err)
	}
	runs := make([][]seedRow, len(cs))
	var err error
	for rep := 0; rep < repeat && err == nil; rep++ {
		for i, c := range cs {
			fmt.Fprintf(os.Stderr, "\r%-70s", fmt.Sprintf("[%d/%d] %s", rep*len(cs)+i+1, repeat*len(cs), c.name()))
			r, rerr := runSeed(c, d)
			if rerr != nil {
				err = fmt.Errorf("%s: %w", c.name(), rerr)
				break
			}
			runs[i] = append(runs[i], r)
		}
	}
	var out []seedResult
	for i, rs := range runs {
		if len(rs) != 0 {
			out = append(out, medianOf(cs[i], rs))
		}
	}
	return out, err
}

// seedResult is one row of the table: the medians of a case's runs.
type seedResult struct {
	c                            seedCase
	skipped                      bool
	writesPS, wakeupsPS, cpuWall float64
	cpuPerW                      float64 // µs
	p50, p99                     time.Duration
}

// medianOf reduces a case's runs to the median of each column.
func medianOf(c seedCase, rs []seedRow) seedResult {
	if rs[0].skipped {
		return seedResult{c: c, skipped: true}
	}
	col := func(f func(seedRow) float64) float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = f(r)
		}
		return median(v)
	}
	return seedResult{
		c:         c,
		writesPS:  col(func(r seedRow) float64 { return float64(r.writes) / r.wall.Seconds() }),
		wakeupsPS: col(func(r seedRow) float64 { return float64(r.wakeups) / r.wall.Seconds() }),
		cpuWall:   col(func(r seedRow) float64 { return r.cpu.Seconds() / r.wall.Seconds() }),
		cpuPerW:   col(seedRow.cpuPerWrite),
		p50:       time.Duration(col(func(r seedRow) float64 { return float64(r.lat.quantile(0.5)) })),
		p99:       time.Duration(col(func(r seedRow) float64 { return float64(r.lat.quantile(0.99)) })),
	}
}

// median returns the middle value of v (the mean of the two middle ones
// for an even count); it reorders v.
func median(v []float64) float64 {
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// seedRow is one measured seed case.
type seedRow struct {
	c       seedCase
	writes  uint64
	wakeups uint64
	wall    time.Duration
	cpu     time.Duration
	lat     latHist
	skipped bool // unsupported here
}

// runSeed runs c for about d.
func runSeed(c seedCase, d time.Duration) (seedRow, error) {
	var s anchor.Signal
	if c.impl.new != nil {
		var err error
		if s, err = c.impl.new(); errors.Is(err, errors.ErrUnsupported) {
			return seedRow{c: c, skipped: true}, nil
		} else if err != nil {
			return seedRow{}, err
		}
		defer s.Close()
	}
	runtime.GC()
	var stop atomic.Bool
	r := seedRow{c: c}
	before := snap()
	t := time.AfterFunc(d, func() { stop.Store(true) })
	defer t.Stop()
	var err error
	if s == nil {
		var n tally
		n, err = fanOut(c.w, func() (tally, error) {
			return tally{ops: pace(c.rate, &stop, func() {})}, nil
		})
		r.writes = n.ops
	} else {
		err = seedWriteRead(s, c, &stop, &r)
	}
	after := snap()
	r.wall, r.cpu = after.at.Sub(before.at), after.cpu-before.cpu
	if err == nil && r.writes == 0 {
		err = errors.New("no write completed")
	}
	return r, err
}

// seedWriteRead runs c's writers on s until stop and the reader on the
// calling goroutine, filling r's counts. Once the writers are done it
// raises finished and adds one more unit (unstamped) so that a blocked
// reader wakes up and sees it.
func seedWriteRead(s anchor.Signal, c seedCase, stop *atomic.Bool, r *seedRow) error {
	st := stamp{base: time.Now()}
	var finished atomic.Bool
	written := make(chan uint64, 1)
	go func() {
		n, _ := fanOut(c.w, func() (tally, error) {
			return tally{ops: pace(c.rate, stop, func() { st.mark(); s.Add(1) })}, nil
		})
		finished.Store(true)
		s.Add(1)
		written <- n.ops
	}()
	ctx := context.Background()
	var err error
	for err == nil && !finished.Load() {
		if _, err = s.Wait(ctx); err == nil {
			r.wakeups++
			if lat, ok := st.take(); ok {
				r.lat.add(lat)
			}
		}
	}
	r.writes = <-written
	s.Take()
	return err
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
	per := int(int64(rate) * int64(slot) / int64(time.Second))
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

// latHist is a log-linear histogram of durations: eight buckets per
// power of two (about 12% wide), exact below 8ns. One goroutine fills it.
type latHist struct {
	n     [64 * 8]uint64
	total uint64
}

func (h *latHist) add(d time.Duration) {
	ns := uint64(max(d, 1))
	e := bits.Len64(ns) - 1
	i := int(ns)
	if e >= 3 {
		i = e*8 + int(ns>>(e-3)&7)
	}
	h.n[i]++
	h.total++
}

// quantile returns the middle of the bucket holding the q-th quantile
// (within 6% of the samples in it), or -1 when the histogram is empty.
func (h *latHist) quantile(q float64) time.Duration {
	if h.total == 0 {
		return -1
	}
	want := uint64(math.Ceil(q * float64(h.total)))
	var seen uint64
	for i, c := range h.n {
		if seen += c; c != 0 && seen >= want {
			if i < 24 {
				return time.Duration(i)
			}
			e, sub := i/8, i%8
			return time.Duration(uint64(2*(8+sub)+1) << (e - 4))
		}
	}
	return -1
}

// printSeed writes the seed rows as one aligned table.
func printSeed(w io.Writer, rows []seedResult) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "w\trate/w\timpl\twrites/s\twakeups/s\tcpu/wall\tcpu µs/w\tover floor\tlat p50\tlat p99\t")
	for _, r := range rows {
		c := r.c
		if r.skipped {
			fmt.Fprintf(tw, "%d\t%s\t%s\tunsupported here\t\t\t\t\t\t\t\n", c.w, rateName(c.rate), c.impl.name)
			continue
		}
		over := "-"
		if f, ok := seedFloor(r, rows); ok && c.impl.new != nil {
			over = fmt.Sprintf("%.3f", r.cpuPerW-f)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%.3f\t%.3f\t%s\t%s\t%s\t\n", c.w, rateName(c.rate),
			c.impl.name, si(r.writesPS), si(r.wakeupsPS), r.cpuWall, r.cpuPerW, over,
			latName(r.p50), latName(r.p99))
	}
	tw.Flush()
}

// cpuPerWrite is r's CPU time per write in microseconds.
func (r seedRow) cpuPerWrite() float64 {
	return float64(r.cpu.Nanoseconds()) / 1e3 / float64(r.writes)
}

// seedFloor is the cpu µs/w of the floor row with r's w and rate.
func seedFloor(r seedResult, rows []seedResult) (float64, bool) {
	for _, o := range rows {
		if o.c.impl.new == nil && !o.skipped && o.c.w == r.c.w && o.c.rate == r.c.rate {
			return o.cpuPerW, true
		}
	}
	return 0, false
}

// latName formats a latency: "-" for none, µs below 1ms, else ms.
func latName(d time.Duration) string {
	switch {
	case d < 0:
		return "-"
	case d < time.Millisecond:
		return fmt.Sprintf("%.1fµs", float64(d)/1e3)
	}
	return fmt.Sprintf("%.2fms", float64(d)/1e6)
}
