package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// An output writes the rows of each workload as it finishes.
type output interface {
	begin(p plan, cfg config)
	workload(w workload, rs []result)
	end() error
}

func newOutput(format string, w io.Writer) output {
	switch format {
	case "json":
		return &jsonOutput{enc: json.NewEncoder(w)}
	case "bench":
		return &benchOutput{w: w}
	}
	return &tableOutput{w: w}
}

// tableOutput is the table for people: a heading that says what ran and
// what each column means, one section per workload, and the summary.
type tableOutput struct {
	w  io.Writer
	rs []result // every workload's, for the summary
}

func (t *tableOutput) begin(p plan, cfg config) {
	w := t.w
	fmt.Fprintf(w, "evbench: evsync and the alternatives, side by side (%s; %s)\n", p.machine, p.date)
	cases := 0
	var groups []string
	for _, wl := range p.ws {
		cases += len(wl.cases)
		if len(groups) == 0 || groups[len(groups)-1] != wl.group {
			groups = append(groups, wl.group)
		}
	}
	runs := "runs"
	if p.repeat == 1 {
		runs = "run"
	}
	fmt.Fprintf(w, "%d cases in %d workloads (%s), %d %s of %s per case: about %s of runs\n",
		cases, len(p.ws), strings.Join(groups, ", "), p.repeat, runs, runLengths(p.ws, cfg), p.time.Round(100*time.Millisecond))
	if cfg.headline {
		writeHeadlines(w, p.ws)
	}
	fmt.Fprintf(w, "each row: the median of its runs, made in rounds (every implementation once, then again); ±: half the runs' range, relative to the median\n")
	if slices.ContainsFunc(p.ws, func(wl workload) bool { return wl.procs > 0 }) {
		fmt.Fprintf(w, "cpu=N rows (-cpu %s): their runs set GOMAXPROCS to N; any other row runs at %d\n",
			joinInts(cfg.cpus), runtime.GOMAXPROCS(0))
	}
	var opsGroups, notifyGroups []string
	var floored, wall, cpu, timedWrite, timedDeadline bool
	for _, wl := range p.ws {
		switch {
		case wl.kind == opsKind && !slices.Contains(opsGroups, wl.group):
			opsGroups = append(opsGroups, wl.group)
		case wl.kind == notifyKind && !slices.Contains(notifyGroups, wl.group):
			notifyGroups = append(notifyGroups, wl.group)
		}
		floored = floored || wl.floored()
		if wl.kind == opsKind {
			wall, cpu = wall || !wl.cpuCost, cpu || wl.cpuCost
			timedWrite = timedWrite || wl.latency && !wl.lateness
			timedDeadline = timedDeadline || wl.latency && wl.lateness
		}
	}
	if len(opsGroups) != 0 {
		fmt.Fprintf(w, "\ncolumns (%s):\n", strings.Join(opsGroups, ", "))
		if wall {
			fmt.Fprint(w, "  ns/op        wall-clock nanoseconds per operation; each workload says what one operation is\n")
		}
		if cpu {
			fmt.Fprint(w, "  cpu ns/op    CPU nanoseconds (user+sys, the whole process) per operation, in place of ns/op where\n"+
				"               a run lasts as long as its work's span whatever it costs (poll deadlines)\n")
		}
		if floored {
			fmt.Fprint(w, "  ÷ floor      ns/op over the workload's floor (where it has one): the least any implementation\n"+
				"               can take, or the ns/op of a row that does less than any must, run in the same rounds\n")
		}
		fmt.Fprint(w, `  allocs/op    heap allocations per operation, the whole process, the run's setup included
  wakeups/op   blocking calls that returned, per operation, as the workload says; "-": not counted
  cpu/wall     CPU seconds (user+sys) per wall-clock second: how many cores stayed busy
`)
		switch {
		case timedWrite && timedDeadline:
			fmt.Fprint(w, "  p50, p99     wake latency (where the workload times it): from a source's write, in another\n"+
				"               goroutine, or from a deadline's time, to the return of the wait that reports it\n"+
				"               (HDR histogram, 3 significant digits)\n")
		case timedWrite:
			fmt.Fprint(w, "  p50, p99     wake latency (where the workload times it): from a source's write to the return of\n"+
				"               the wait that reports it, in another goroutine (HDR histogram, 3 significant digits)\n")
		case timedDeadline:
			fmt.Fprint(w, "  p50, p99     lateness: from a deadline's time to the return of the wait that reports it\n"+
				"               (HDR histogram, 3 significant digits)\n")
		}
	}
	if len(notifyGroups) != 0 {
		fmt.Fprintf(w, `
columns (%s):
  writes/s     writes completed per wall-clock second, all writers together
  wakeups/s    the reader's Waits that returned, per second
  cpu/wall     CPU seconds (user+sys) per wall-clock second
  µs/write     CPU microseconds per write, the writers' own pacing included
  over floor   µs/write minus the floor row's: what notifying costs per write
  p50, p99     write-to-read latency, from the first write after a read to the reader's return
               from the Wait that takes it (HDR histogram, 3 significant digits)
`, strings.Join(notifyGroups, ", "))
	}
	fmt.Fprintf(w, `
the last columns (every workload), one rule on every row:
  ratio        the row's cost divided by its evsync row's, both as printed (ns/op; cpu ns/op where
               a workload has it; µs/write in notify and sweep): above 1, the evsync row is
               cheaper. A row's evsync row is the workload's reference, "ref" in this column:
               plain evsync unless the workload names another. The debouncer's is
               evsync/delay=5ms, the same policy
  verdict      the evsync row against the row. ahead: every run of the evsync row cost less
               than every run of the row; behind: more; level: the runs overlap; "-": fewer
               than %d runs a side, too few to judge. On an evsync variant's row (evsync/...)
               the same holds: behind says the variant beat the reference in every run
`, minJudgedRuns)
}

// writeHeadlines says, for each group of ws that ran only its headline
// workloads (the default run), which, and how to run the whole group.
func writeHeadlines(w io.Writer, ws []workload) {
	var done []string
	for _, wl := range ws {
		if !wl.headline || slices.Contains(done, wl.group) {
			continue
		}
		done = append(done, wl.group)
		var kept []string
		for _, o := range ws {
			if o.group == wl.group {
				kept = append(kept, strconv.Quote(o.name()))
			}
		}
		all := len(workloadsOf([]string{wl.group}, nil))
		fmt.Fprintf(w, "%s: the default run keeps %s of its %d workloads; -workloads %s runs them all\n",
			wl.group, strings.Join(kept, ", "), all, wl.group)
	}
}

// joinInts is ns as -cpu takes them: "1,2,4".
func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = itoa(n)
	}
	return strings.Join(s, ",")
}

// runLengths says how long each run lasts, per group where they differ.
// A workload of fixed length (poll deadlines) is named on its own.
func runLengths(ws []workload, cfg config) string {
	d := map[time.Duration][]string{}
	var order []time.Duration
	seen := map[string]bool{}
	for _, w := range ws {
		label := w.group
		if w.fixed > 0 {
			label = w.name()
		}
		if seen[label] {
			continue
		}
		seen[label] = true
		l := cfg.runLen(w)
		if _, ok := d[l]; !ok {
			order = append(order, l)
		}
		d[l] = append(d[l], label)
	}
	if len(order) == 1 {
		return order[0].String()
	}
	var parts []string
	for _, l := range order {
		parts = append(parts, fmt.Sprintf("%v (%s)", l, strings.Join(d[l], ", ")))
	}
	return strings.Join(parts, ", ")
}

func (t *tableOutput) workload(wl workload, rs []result) {
	t.rs = append(t.rs, rs...)
	w := t.w
	fmt.Fprintf(w, "\n%s\n  %s\n", wl.name(), wl.about)
	label := "main alternative"
	if isEvsync(wl.anchor) {
		label = "reference"
	}
	fmt.Fprintf(w, "  %s: %s, %s\n", label, wl.anchor, wl.why)
	if ws, ok := waitSituation(wl, rs); ok && wl.byWaits {
		fmt.Fprintf(w, "  %s\n", ws)
	}
	floored, timed := wl.floored(), wl.kind == opsKind && wl.latency
	switch {
	case floored && wl.floorRow != "":
		fmt.Fprintf(w, "  floor: the %s row's ns/op, run in the same rounds, %s; ÷ floor: the row's ns/op over it\n", wl.floorRow, wl.floorOf)
	case floored:
		fmt.Fprintf(w, "  floor: %v per operation (%s ns/op), %s; ÷ floor: the row's ns/op over it\n", wl.floor, fmtNsPerOp(float64(wl.floor.Nanoseconds())), wl.floorOf)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	switch {
	case wl.kind == opsKind:
		head := "ns/op"
		if wl.cpuCost {
			head = "cpu ns/op"
		}
		fmt.Fprintf(tw, "  impl\t%s\t%sallocs/op\twakeups/op\tcpu/wall\tratio\tverdict%s\n",
			head, cell(floored, "÷ floor\t"), cell(timed, "\tp50\tp99"))
	default:
		fmt.Fprintf(tw, "  impl\twrites/s\twakeups/s\tcpu/wall\tµs/write\tover floor\tratio\tverdict\tp50\tp99\n")
	}
	for _, r := range rs {
		impl := r.c.impl
		if r.c.note != "" {
			impl += " (" + r.c.note + ")"
		}
		if r.skipped {
			fmt.Fprintf(tw, "  %s\tunsupported here\n", impl)
			continue
		}
		m := metrics(r, rs)
		col := func(name string, f func(float64) string, spread bool) string {
			s, ok := m[name]
			if !ok {
				return "-"
			}
			if spread && s.spread() != "" {
				return f(s.Median) + " " + s.spread()
			}
			return f(s.Median)
		}
		ratio, judged := ratioCells(r, rs)
		metric, cost := wl.costColumn()
		if wl.kind == opsKind {
			fmt.Fprintf(tw, "  %s\t%s\t%s%s\t%s\t%s\t%s\t%s%s\n", impl,
				col(metric, cost, true),
				cell(floored, col(mPerFloor, ratioText, false)+"\t"),
				col(mAllocsPerOp, perOp, false),
				col(mWakeupsPerOp, perOp, false),
				col(mCPUPerWall, format("%.2f"), false),
				ratio, judged,
				cell(timed, "\t"+col(mLatP50Ns, latName, false)+"\t"+col(mLatP99Ns, latName, true)))
			continue
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", impl,
			col(mWritesPerSec, si, false),
			col(mWakeupsPerSec, si, false),
			col(mCPUPerWall, format("%.2f"), false),
			col(mCPUUsPerWrite, cost, true),
			col(mOverFloorUs, format("%+.3f"), false),
			ratio, judged,
			col(mLatP50Ns, latName, false),
			col(mLatP99Ns, latName, true))
	}
	tw.Flush()
}

// cell is text if the table has its column, else nothing.
func cell(has bool, text string) string {
	if has {
		return text
	}
	return ""
}

// ratioCells are r's ratio and verdict as the table prints them.
func ratioCells(r result, rs []result) (ratio, judged string) {
	if r.c.impl == r.w.reference() {
		return "ref", "-"
	}
	c, ok := compareRow(r, rs)
	if !ok {
		return "-", "-"
	}
	if c.Verdict == unjudged {
		return ratioText(c.Ratio), "-"
	}
	return ratioText(c.Ratio), string(c.Verdict)
}

func (t *tableOutput) end() error {
	writeSummary(t.w, t.rs)
	return nil
}

func format(f string) func(float64) string {
	return func(v float64) string { return fmt.Sprintf(f, v) }
}

// perOp formats a count per operation (allocations, wakeups) with three
// decimals, and as "<0.001" where those would hide a count above 0.
func perOp(v float64) string {
	if v > 0 && v < 0.0005 {
		return "<0.001"
	}
	return fmt.Sprintf("%.3f", v)
}

// si formats v with a metric suffix: 12.3M.
func si(v float64) string {
	for _, u := range []struct {
		div    float64
		suffix string
	}{{1e9, "G"}, {1e6, "M"}, {1e3, "k"}} {
		if v >= u.div {
			return fmt.Sprintf("%.3g%s", v/u.div, u.suffix)
		}
	}
	return fmt.Sprintf("%.3g", v)
}

// latName formats a latency in nanoseconds with two or three
// significant digits: ns below 1µs, µs below 1ms, else ms.
func latName(ns float64) string {
	switch {
	case ns < 1e3:
		return fmt.Sprintf("%.0fns", ns)
	case ns < 1e4:
		return fmt.Sprintf("%.2fµs", ns/1e3)
	case ns < 1e6:
		return fmt.Sprintf("%.1fµs", ns/1e3)
	}
	return fmt.Sprintf("%.2fms", ns/1e6)
}

// jsonOutput writes one JSON object per row. The field names are stable:
// group, workload, bench, impl, params, anchor, runs, run_ms, note,
// floor_ns, floor_impl (the row whose ns_per_op is the floor), situation
// and unsupported. Each metric is a {median, min, max} object named by its
// m* constant: ops_per_sec, ns_per_op (cpu_ns_per_op in its place in a
// workload whose cost is CPU time), allocs_per_op, wakeups_per_op,
// cpu_per_wall, writes_per_sec, wakeups_per_sec, cpu_us_per_write,
// over_floor_us, per_floor (ns_per_op ÷ floor_ns, or ÷ the floor_impl
// row's ns_per_op), lat_p50_ns and lat_p99_ns. "situation" is the advice
// line the row's workload counts under (a contended limiter's by the
// share of takes that waited, wakeups_per_op). "vs" is the row's
// comparison with its evsync row, the table's ratio and verdict: its
// "other" is the row's own impl, its "evsync" the row it is compared
// with, on an evsync variant's row as on any other. Each field is present
// where the row has it.
type jsonOutput struct {
	enc *json.Encoder
	err error
}

func (j *jsonOutput) begin(plan, config) {}

func (j *jsonOutput) workload(wl workload, rs []result) {
	params := map[string]string{}
	for _, p := range wl.params {
		params[p.key] = p.value
	}
	use := situationOf(wl, rs)
	for _, r := range rs {
		row := map[string]any{
			"group":    wl.group,
			"workload": wl.name(),
			"bench":    strings.TrimPrefix(wl.benchName(r.c), "Benchmark"),
			"impl":     r.c.impl,
			"params":   params,
			"anchor":   wl.anchor,
			"runs":     len(r.runs),
			"run_ms":   float64(r.d) / 1e6,
		}
		if r.c.note != "" {
			row["note"] = r.c.note
		}
		if wl.floor > 0 {
			row["floor_ns"] = float64(wl.floor.Nanoseconds())
		}
		if wl.floorRow != "" {
			row["floor_impl"] = wl.floorRow
		}
		if use != "" {
			row["situation"] = use
		}
		if r.skipped {
			row["unsupported"] = true
		}
		for name, s := range metrics(r, rs) {
			row[name] = s
		}
		if c, ok := compareRow(r, rs); ok {
			row["vs"] = c
		}
		if err := j.enc.Encode(row); err != nil && j.err == nil {
			j.err = err
		}
	}
}

func (j *jsonOutput) end() error { return j.err }

// benchOutput writes every run as a Go benchmark line, so that benchstat
// can compare two evbench runs (before and after an upgrade, two
// machines) with its own statistics.
type benchOutput struct{ w io.Writer }

func (b *benchOutput) begin(plan, config) {
	fmt.Fprintf(b.w, "goos: %s\ngoarch: %s\npkg: github.com/evsync/evsync/cmd/evbench\n", runtime.GOOS, runtime.GOARCH)
	if name := cpuName(); name != "" {
		fmt.Fprintf(b.w, "cpu: %s\n", name)
	}
}

func (b *benchOutput) workload(wl workload, rs []result) {
	// The name's -N suffix is the GOMAXPROCS the runs had, as go test's.
	procs := wl.procs
	if procs == 0 {
		procs = runtime.GOMAXPROCS(0)
	}
	for _, r := range rs {
		for _, s := range r.runs {
			fmt.Fprintf(b.w, "%s-%d\t%d", wl.benchName(r.c), procs, s.n.ops)
			if wl.kind == opsKind {
				// The counts per op in one format, with the digits a
				// small count needs (a reader's wakeups per Add are ~1e-6).
				unit := "ns/op"
				if wl.cpuCost {
					unit = "cpu-ns/op"
				}
				fmt.Fprintf(b.w, "\t%.2f %s\t%.4g allocs/op", wl.cost(s), unit, float64(s.mallocs)/float64(s.n.ops))
				if wl.wakeups {
					fmt.Fprintf(b.w, "\t%.4g wakeups/op", float64(s.n.wakeups)/float64(s.n.ops))
				}
			} else {
				fmt.Fprintf(b.w, "\t%.1f cpu-ns/write\t%.1f wakeups/s", 1e3*cpuPerWrite(s), float64(s.n.wakeups)/s.wall.Seconds())
			}
			if s.n.lat != nil && s.n.lat.TotalCount() > 0 {
				fmt.Fprintf(b.w, "\t%d p50-ns\t%d p99-ns", s.n.lat.ValueAtQuantile(50), s.n.lat.ValueAtQuantile(99))
			}
			fmt.Fprintf(b.w, "\t%.3f cpu/wall\n", s.cpu.Seconds()/s.wall.Seconds())
		}
	}
}

func (b *benchOutput) end() error { return nil }

// cpuName is the processor's model name where the system says it
// (/proc/cpuinfo), as go test prints it; "" elsewhere.
func cpuName() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
