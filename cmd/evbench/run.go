package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// sample is one run of one case.
type sample struct {
	n       tally
	wall    time.Duration
	cpu     time.Duration
	mallocs uint64
}

// result is every run of one case, in round order.
type result struct {
	w       workload
	c       bench
	d       time.Duration // each run's length
	runs    []sample
	skipped bool // unsupported on this platform
}

// snapshot is the process state a measurement compares before and after.
type snapshot struct {
	at      time.Time
	cpu     time.Duration
	mallocs uint64
}

func snap() snapshot {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return snapshot{time.Now(), cpuTime(), ms.Mallocs}
}

// measure runs c for about d (the driver finishes the operations under
// way when the time is up) and reports what it did. A run that completed
// no operation says nothing. That happens with a short d on a busy
// machine, when the first batch takes longer than d. So measure runs
// again for 4 times as long, up to maxRun, and reports that run.
func measure(c bench, d time.Duration) (sample, error) {
	for {
		s, err := measureFor(c, d)
		if err != nil || s.n.ops != 0 {
			return s, err
		}
		if d >= maxRun {
			return s, errors.New("no operation completed")
		}
		d = min(4*d, maxRun)
	}
}

// maxRun is the longest run measure tries before it gives up on a case
// that completes no operation.
const maxRun = time.Second

// measureFor runs c once for about d.
func measureFor(c bench, d time.Duration) (sample, error) {
	run := c.run
	if c.prep != nil {
		r, free, err := c.prep()
		if err != nil {
			return sample{}, err
		}
		defer free()
		run = r
	}
	runtime.GC()
	var stop atomic.Bool
	before := snap()
	t := time.AfterFunc(d, func() { stop.Store(true) })
	defer t.Stop()
	n, err := run(&stop)
	after := snap()
	return sample{n: n, wall: after.at.Sub(before.at), cpu: after.cpu - before.cpu,
		mallocs: after.mallocs - before.mallocs}, err
}

// run runs the workloads cfg asks for and writes their rows to stdout as
// each workload finishes, and the charts if asked.
func run(cfg config, stdout, stderr io.Writer) error {
	ws := cfg.workloads()
	if len(ws) == 0 {
		return usagef("-match %q matches no case of the workloads %s (run with -list to see their names)",
			cfg.match, strings.Join(cfg.groups, ","))
	}
	if cfg.list {
		for _, w := range ws {
			for _, c := range w.cases {
				fmt.Fprintln(stdout, w.caseName(c))
			}
		}
		return nil
	}
	return runWorkloads(ws, cfg, stdout, stderr)
}

// planOf is what running ws with cfg will do.
func planOf(ws []workload, cfg config) plan {
	p := plan{ws: ws, repeat: cfg.repeat, machine: machine(), date: time.Now().Format(time.DateOnly)}
	for _, w := range ws {
		p.runs += len(w.cases) * cfg.repeat
		p.time += time.Duration(len(w.cases)*cfg.repeat) * cfg.runLen(w)
	}
	return p
}

// runWorkloads runs ws and writes their rows as each one finishes.
func runWorkloads(ws []workload, cfg config, stdout, stderr io.Writer) error {
	out := newOutput(cfg.format, stdout)
	if cfg.format == "bench" && cfg.repeat < benchRepeat {
		fmt.Fprintf(stderr, "evbench: %s per case; benchstat needs %d for a confidence interval and 4 to compare\n",
			count(cfg.repeat, "run"), benchRepeat)
	}
	if n := slices.Max(append([]int{0}, cfg.cpus...)); n > runtime.NumCPU() {
		fmt.Fprintf(stderr, "evbench: -cpu %d is more than the %s here: the runs at GOMAXPROCS above %d share them\n",
			n, count(runtime.NumCPU(), "CPU"), runtime.NumCPU())
	}
	p := planOf(ws, cfg)
	out.begin(p, cfg)
	prog := newProgress(cfg.progress, stderr, p.runs)
	defer prog.clear()
	var all []result
	for i, w := range ws {
		// A discarded warm-up run where a group of paced writers starts:
		// after the workloads before it the runtime is still settling
		// (returning memory, finishing GC work), which the first row, a
		// floor that the rows after it are compared with, would pay for.
		if w.kind == notifyKind && (i == 0 || ws[i-1].group != w.group) {
			if _, err := measure(w.cases[0], cfg.runFor(w.group)); err != nil && !errors.Is(err, errors.ErrUnsupported) {
				return fmt.Errorf("%s: %w", w.caseName(w.cases[0]), err)
			}
		}
		rs, err := runWorkload(w, cfg.runLen(w), cfg.repeat, prog)
		prog.clear()
		out.workload(w, rs)
		all = append(all, rs...)
		if err != nil {
			return err
		}
	}
	if err := out.end(); err != nil {
		return err
	}
	if cfg.plotDir != "" {
		files, err := writeCharts(cfg.plotDir, all, p.machine+", "+p.date)
		if err != nil {
			return err
		}
		note := stdout
		if cfg.format != "table" {
			note = stderr // stdout holds rows only
		}
		dir, err := filepath.Abs(cfg.plotDir)
		if err != nil {
			dir = cfg.plotDir
		}
		names := make([]string, len(files))
		for i, f := range files {
			names[i] = filepath.Base(f)
		}
		fmt.Fprintf(note, "\ncharts, in %s: %s\n", dir, strings.Join(names, " "))
	}
	return nil
}

// plan is what a run will do, where and when, for the heading.
type plan struct {
	ws      []workload
	runs    int
	repeat  int
	time    time.Duration // the runs' lengths added up
	machine string        // "go1.26.8 linux/amd64, GOMAXPROCS 2, AMD EPYC"
	date    string        // the day it starts, 2026-12-01
}

// machine says what the runs run on: the Go version, the platform, the
// processors Go may use and the processor's model where the system says it.
func machine() string {
	m := fmt.Sprintf("%s %s/%s, GOMAXPROCS %d", runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0))
	if name := cpuName(); name != "" {
		m += ", " + name
	}
	return m
}

// runWorkload runs every case of w repeat times, in rounds: each case
// once, then again, so that a slow patch of the machine spreads over the
// implementations instead of landing on one. It stops at the first
// failure and returns what it has. A workload with procs runs at that
// GOMAXPROCS, and runWorkload restores the one before when it returns.
func runWorkload(w workload, d time.Duration, repeat int, prog *progress) ([]result, error) {
	if w.procs > 0 {
		// Set for every run of w, then restored: the GOMAXPROCS that was.
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(w.procs))
	}
	rs := make([]result, len(w.cases))
	for i, c := range w.cases {
		rs[i] = result{w: w, c: c, d: d}
	}
	for round := range repeat {
		for i := range rs {
			r := &rs[i]
			prog.show(fmt.Sprintf("%s, run %d of %d", w.caseName(r.c), round+1, repeat))
			if r.skipped {
				continue
			}
			s, err := measure(r.c, d)
			switch {
			case errors.Is(err, errors.ErrUnsupported):
				r.skipped, r.runs = true, nil
			case err != nil:
				return rs[:i], fmt.Errorf("%s: %w", w.caseName(r.c), err)
			default:
				r.runs = append(r.runs, s)
			}
		}
	}
	return rs, nil
}

// stat is a column's median over a case's runs and the runs' range.
type stat struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

func statOf(v []float64) stat {
	v = slices.Clone(v)
	slices.Sort(v)
	n := len(v)
	m := v[n/2]
	if n%2 == 0 {
		m = (v[n/2-1] + v[n/2]) / 2
	}
	return stat{m, v[0], v[n-1]}
}

// spread is half the range relative to the median: "±4%".
func (s stat) spread() string {
	if s.Median == 0 || s.Max == s.Min {
		return ""
	}
	pct := 50 * (s.Max - s.Min) / abs(s.Median)
	if pct > 99 {
		return "±>99%" // the runs disagree: the median says little
	}
	return fmt.Sprintf("±%.0f%%", pct)
}

func abs(x float64) float64 { return max(x, -x) }

// The metrics, by the names the JSON rows give them.
const (
	mOpsPerSec     = "ops_per_sec"
	mNsPerOp       = "ns_per_op"
	mCPUNsPerOp    = "cpu_ns_per_op" // the cost column of a workload with cpuCost, in place of ns_per_op
	mAllocsPerOp   = "allocs_per_op"
	mWakeupsPerOp  = "wakeups_per_op"
	mCPUPerWall    = "cpu_per_wall"
	mWritesPerSec  = "writes_per_sec"  // notify
	mWakeupsPerSec = "wakeups_per_sec" // notify
	mCPUUsPerWrite = "cpu_us_per_write"
	mOverFloorUs   = "over_floor_us" // cpu µs/write minus the floor's, as printed
	mPerFloor      = "per_floor"     // ns/op as printed, divided by the workload's floor (ReleaseThenWork)
	mLatP50Ns      = "lat_p50_ns"
	mLatP99Ns      = "lat_p99_ns"
)

// perRun is one value per run of r.
func perRun(r result, f func(sample) float64) []float64 {
	v := make([]float64, len(r.runs))
	for i, s := range r.runs {
		v[i] = f(s)
	}
	return v
}

func opsPerSec(s sample) float64 { return float64(s.n.ops) / s.wall.Seconds() }

func cpuPerWrite(s sample) float64 { return float64(s.cpu.Nanoseconds()) / 1e3 / float64(s.n.ops) }

// metrics computes r's columns; rs is its workload's results.
func metrics(r result, rs []result) map[string]stat {
	m := map[string]stat{}
	if r.skipped || len(r.runs) == 0 {
		return m
	}
	put := func(name string, v []float64) { m[name] = statOf(v) }
	put(mCPUPerWall, perRun(r, func(s sample) float64 { return s.cpu.Seconds() / s.wall.Seconds() }))
	if r.w.kind == opsKind {
		put(mOpsPerSec, perRun(r, opsPerSec))
		cost, _ := r.w.costColumn()
		put(cost, perRun(r, r.w.cost))
		put(mAllocsPerOp, perRun(r, func(s sample) float64 { return float64(s.mallocs) / float64(s.n.ops) }))
		if r.w.wakeups {
			put(mWakeupsPerOp, perRun(r, func(s sample) float64 { return float64(s.n.wakeups) / float64(s.n.ops) }))
		}
		if per, ok := perFloor(r, rs); ok {
			m[mPerFloor] = per
		}
	} else {
		put(mWritesPerSec, perRun(r, opsPerSec))
		put(mWakeupsPerSec, perRun(r, func(s sample) float64 { return float64(s.n.wakeups) / s.wall.Seconds() }))
		put(mCPUUsPerWrite, perRun(r, r.w.cost))
		if over, ok := overFloor(r, rs); ok {
			m[mOverFloorUs] = over
		}
	}
	// Latency percentiles of the runs that recorded any (the notify
	// workloads and those with latency; a very short run may read no
	// stamped write).
	var p50, p99 []float64
	for _, s := range r.runs {
		if s.n.lat != nil && s.n.lat.TotalCount() > 0 {
			p50 = append(p50, float64(s.n.lat.ValueAtQuantile(50)))
			p99 = append(p99, float64(s.n.lat.ValueAtQuantile(99)))
		}
	}
	if len(p50) != 0 {
		put(mLatP50Ns, p50)
		put(mLatP99Ns, p99)
	}
	return m
}

// overFloor is r's µs/write minus the floor row's, both as printed, so
// that the column is the difference of the two figures above it; its
// range runs from the nearest runs to the farthest.
func overFloor(r result, rs []result) (stat, bool) {
	if r.c.impl == floorImpl {
		return stat{}, false
	}
	f, ok := find(rs, floorImpl)
	if !ok {
		return stat{}, false
	}
	fr, okR := figure(r)
	ff, okF := figure(f)
	if !okR || !okF {
		return stat{}, false
	}
	return stat{fr.Median - ff.Median, fr.Min - ff.Max, fr.Max - ff.Min}, true
}

// perFloor is r's ns/op as printed divided by its workload's floor, for
// the median and each end of the range. A floor row's (floorRow) is its
// ns/op as printed in the same rounds, and the range then runs from the
// nearest runs to the farthest, as the ratio's interval does; the floor
// row itself has none. rs is r's workload's results.
func perFloor(r result, rs []result) (stat, bool) {
	fig, ok := figure(r)
	if !ok {
		return stat{}, false
	}
	if r.w.floorRow != "" {
		f, okF := find(rs, r.w.floorRow)
		ff, okF2 := figure(f)
		if r.c.impl == r.w.floorRow || !okF || !okF2 || ff.Min <= 0 {
			return stat{}, false
		}
		return stat{fig.Median / ff.Median, fig.Min / ff.Max, fig.Max / ff.Min}, true
	}
	f := float64(r.w.floor.Nanoseconds())
	if f <= 0 {
		return stat{}, false
	}
	return stat{fig.Median / f, fig.Min / f, fig.Max / f}, true
}
