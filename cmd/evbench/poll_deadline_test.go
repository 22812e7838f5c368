package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/perf/benchfmt"
)

// TestDeadlineWorkloadIsNamedForItsSize: the demo's deadline workload is
// "poll deadlines n=100000", last in the poll group, with an evsync row
// and the timer-per-deadline one, and no epoll row, which its about says.
func TestDeadlineWorkloadIsNamedForItsSize(t *testing.T) {
	w := deadlineWorkload(100_000)
	if w.name() != "poll deadlines n=100000" || w.benchName(w.cases[1]) != "BenchmarkPollDeadlines/n=100000/impl=timer-per-deadline" {
		t.Errorf("named %q, %q", w.name(), w.benchName(w.cases[1]))
	}
	var impls []string
	for _, c := range w.cases {
		impls = append(impls, c.impl)
	}
	if want := []string{"evsync", deadlineAlt}; !slices.Equal(impls, want) || w.anchor != deadlineAlt {
		t.Errorf("rows %q, anchor %q; want %q, anchored on %s", impls, w.anchor, want, deadlineAlt)
	}
	if !strings.Contains(w.about, "No epoll row: 100000 timerfds") {
		t.Errorf("the about does not say why epoll is left out: %q", w.about)
	}
	ws := pollWorkloads()
	if last := ws[len(ws)-1]; last.name() != "poll deadlines n="+itoa(testDeadlineN) || last.headline {
		t.Errorf("the poll group ends with %q (headline %v), want the deadline workload, not a headline", last.name(), last.headline)
	}
}

// TestDeadlineCasesReportEachAtItsTime runs both cases in a synctest
// bubble, where a timer fires at its exact time and time stands still
// while goroutines run. So every deadline must be reported once, at its
// time (lateness 0, recorded as the histogram's least value), and, each
// at a time of its own, in a wakeup of its own. The evsync case's own
// checks pass: all armed on one timer before, none and no timer after.
func TestDeadlineCasesReportEachAtItsTime(t *testing.T) {
	const n = 500
	for _, tc := range []struct {
		impl string
		p    prep
	}{{"evsync", deadlineSetCase(n, 10*time.Millisecond)}, {deadlineAlt, deadlineTimerCase(n, 10*time.Millisecond)}} {
		synctest.Test(t, func(t *testing.T) {
			run, free, err := tc.p()
			if err != nil {
				t.Fatal(err)
			}
			defer free()
			got, err := run(new(atomic.Bool))
			if err != nil {
				t.Fatal(err)
			}
			if got.ops != n || got.wakeups != n {
				t.Errorf("%s: %d deadlines in %d wakeups, want %d in %d", tc.impl, got.ops, got.wakeups, n, n)
			}
			if got.lat.TotalCount() != n || got.lat.Max() > latLowest {
				t.Errorf("%s: %d latencies up to %dns, want %d of 0", tc.impl, got.lat.TotalCount(), got.lat.Max(), n)
			}
		})
	}
}

// TestArmAheadLeavesTheLead: on synctest's clock, an arming that takes
// 10ms, or 30ms, leaves enough of a 50ms lead (half what it took). One
// that takes 40ms leaves too little: it is undone and done again with a
// lead of 160ms. The lead kept for the next run is twice the arming's, at
// least deadlineLead. An arming that keeps taking longer gives up after
// deadlineTries tries.
func TestArmAheadLeavesTheLead(t *testing.T) {
	for _, tc := range []struct {
		cost     time.Duration // what the first arming takes
		growth   time.Duration // each arming takes this many times the one before
		frees    int
		firstAt  time.Duration // the first time, from the start
		nextLead time.Duration
		fails    bool
	}{
		{cost: 10 * time.Millisecond, growth: 1, firstAt: 50 * time.Millisecond, nextLead: deadlineLead},
		{cost: 30 * time.Millisecond, growth: 1, firstAt: 50 * time.Millisecond, nextLead: 60 * time.Millisecond},
		{cost: 40 * time.Millisecond, growth: 1, frees: 1, firstAt: 40*time.Millisecond + 160*time.Millisecond, nextLead: 80 * time.Millisecond},
		{cost: 40 * time.Millisecond, growth: 10, frees: deadlineTries, fails: true},
	} {
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			cost, frees := tc.cost, 0
			arm := func(ats []time.Time) (int, error) {
				time.Sleep(cost)
				cost *= tc.growth
				return len(ats), nil
			}
			lead := 50 * time.Millisecond
			_, ats, err := armAhead(4, &lead, 8*time.Millisecond, arm, func(int) { frees++ })
			if frees != tc.frees || (err != nil) != tc.fails {
				t.Fatalf("arming in %v: %d frees, err %v; want %d, failing %v", tc.cost, frees, err, tc.frees, tc.fails)
			}
			if tc.fails {
				if !strings.Contains(err.Error(), "more than their lead") {
					t.Errorf("err %v does not say why", err)
				}
				return
			}
			first := start.Add(tc.firstAt)
			want := []time.Time{first, first.Add(2 * time.Millisecond), first.Add(4 * time.Millisecond), first.Add(6 * time.Millisecond)}
			if !slices.EqualFunc(ats, want, time.Time.Equal) || lead != tc.nextLead {
				t.Errorf("arming in %v: times %v, next lead %v; want %v, %v", tc.cost, ats, lead, want, tc.nextLead)
			}
		})
	}
}

// TestDeadlineTakerRefusesWrongReports: a report before its deadline's
// time, a second report of a deadline and a key that is no deadline's are
// errors; reports at or after the time count, with their lateness.
func TestDeadlineTakerRefusesWrongReports(t *testing.T) {
	base := time.Now()
	d := newDeadlineTaker(deadlineTimes(base, 4, 4*time.Microsecond)) // at base+0, +1, +2, +3µs
	if err := d.take(base.Add(2*time.Microsecond), slices.Values([]int{0, 2})); err != nil {
		t.Fatal(err)
	}
	if d.t.ops != 2 || d.t.wakeups != 1 || d.done() || !d.t.lat.ValuesAreEquivalent(d.t.lat.Max(), 2000) {
		t.Errorf("after 0 and 2 at +2µs: %d ops, %d wakeups, done %v, latest %dns; want 2, 1, false, 2000", d.t.ops, d.t.wakeups, d.done(), d.t.lat.Max())
	}
	for _, tc := range []struct {
		keys []int
		says string
	}{{[]int{3}, "1µs before its time"}, {[]int{2}, "reported twice"}, {[]int{4}, "no such deadline"}, {[]int{-1}, "no such deadline"}} {
		if err := d.take(base.Add(2*time.Microsecond), slices.Values(tc.keys)); err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("keys %v at +2µs: err %v, want one saying %q", tc.keys, err, tc.says)
		}
	}
}

// TestDeadlineRowsRun runs the deadline workload briefly. Its JSON rows
// carry CPU ns per op in place of wall ns/op, lateness p50 at most p99 and
// wakeups per deadline between 1/64 and 1; the timer row is compared on
// CPU. Its table heads the cost column "cpu ns/op" and explains it and
// the lateness, and -format bench writes cpu-ns/op.
func TestDeadlineRowsRun(t *testing.T) {
	cfg := short("json", "poll")
	cfg.match = "deadlines"
	var out bytes.Buffer
	if err := run(cfg, &out, new(bytes.Buffer)); err != nil {
		t.Fatal(err)
	}
	var impls []string
	for line := range strings.Lines(out.String()) {
		var row struct {
			Impl       string
			RunMs      float64     `json:"run_ms"`
			NsPerOp    *stat       `json:"ns_per_op"`
			CPUNsPerOp *stat       `json:"cpu_ns_per_op"`
			Wakeups    *stat       `json:"wakeups_per_op"`
			P50        *stat       `json:"lat_p50_ns"`
			P99        *stat       `json:"lat_p99_ns"`
			Vs         *comparison `json:"vs"`
		}
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		impls = append(impls, row.Impl)
		switch {
		case row.NsPerOp != nil || row.CPUNsPerOp == nil || row.CPUNsPerOp.Median <= 0:
			t.Errorf("want cpu_ns_per_op above 0 and no ns_per_op: %s", line)
		case row.P50 == nil || row.P99 == nil || row.P50.Median > row.P99.Median:
			t.Errorf("no lateness, or p50 above p99: %s", line)
		case row.Wakeups == nil || row.Wakeups.Min < 1.0/deadlineMax || row.Wakeups.Max > 1:
			t.Errorf("wakeups_per_op outside [1/%d, 1]: %s", deadlineMax, line)
		case row.RunMs != float64((deadlineLead + deadlineSpan).Milliseconds()):
			t.Errorf("run_ms %v, want the workload's fixed %v, not -duration's: %s", row.RunMs, deadlineLead+deadlineSpan, line)
		case row.Impl == deadlineAlt && (row.Vs == nil || row.Vs.Metric != mCPUNsPerOp):
			t.Errorf("the timer row is not compared on %s: %s", mCPUNsPerOp, line)
		}
	}
	if want := []string{"evsync", deadlineAlt}; !slices.Equal(impls, want) {
		t.Errorf("rows %q, want %q", impls, want)
	}
	cfg.format = "table"
	out.Reset()
	if err := run(cfg, &out, new(bytes.Buffer)); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{"2 runs of " + (deadlineLead + deadlineSpan).String() + " per case", "  impl  ", "  cpu ns/op  ", "\n  cpu ns/op    CPU nanoseconds",
		"\n  p50, p99     lateness: from a deadline's time", "evsync (one Set, one timer for all, checked with Stats)",
		"waiting on many deadlines at once: "} {
		if !strings.Contains(text, want) {
			t.Errorf("the table lacks %q:\n%s", want, text)
		}
	}
	for _, no := range []string{"\n  ns/op  ", "from a source's write"} {
		if strings.Contains(text, no) {
			t.Errorf("the table has %q, which no row of it needs:\n%s", no, text)
		}
	}
	cfg.format = "bench"
	out.Reset()
	if err := run(cfg, &out, new(bytes.Buffer)); err != nil {
		t.Fatal(err)
	}
	r := benchfmt.NewReader(bytes.NewReader(out.Bytes()), "evbench")
	lines := 0
	for r.Scan() {
		if rec, ok := r.Result().(*benchfmt.Result); ok {
			lines++
			if _, ok := rec.Value("cpu-sec/op"); !ok { // benchfmt reads ns as sec
				t.Errorf("%s: no cpu-ns/op", rec.Name)
			}
			if _, ok := rec.Value("sec/op"); ok {
				t.Errorf("%s: a wall ns/op", rec.Name)
			}
		}
	}
	if lines != 4 {
		t.Errorf("%d benchmark lines, want 2 runs of 2 rows", lines)
	}
}

// TestDeadlineCostIsCPU: a cpuCost workload's figure, ratio and JSON
// metric are CPU ns per op, whatever the wall time: runs of 1000 ops, of
// a second's wall each, at 100µs and 250µs of CPU, give 100 and 250 ns/op,
// a ratio of 2.5, ahead.
func TestDeadlineCostIsCPU(t *testing.T) {
	w := deadlineWorkload(1000)
	runs := func(c bench, cpu time.Duration) result {
		r := result{w: w, c: c, d: time.Second}
		for range 3 {
			r.runs = append(r.runs, sample{n: tally{ops: 1000, wakeups: 100}, wall: time.Second, cpu: cpu})
		}
		return r
	}
	rs := []result{runs(w.cases[0], 100*time.Microsecond), runs(w.cases[1], 250*time.Microsecond)}
	m := metrics(rs[1], rs)
	if _, wall := m[mNsPerOp]; wall || m[mCPUNsPerOp] != (stat{250, 250, 250}) {
		t.Errorf("metrics %v: want %s of 250 and no %s", m, mCPUNsPerOp, mNsPerOp)
	}
	if c, ok := compareRow(rs[1], rs); !ok || c.Ratio != 2.5 || c.Verdict != ahead || c.Metric != mCPUNsPerOp {
		t.Errorf("compared %+v (%v), want 2.5× on %s, ahead", c, ok, mCPUNsPerOp)
	}
}

// TestFixedRunsInThePlan: a workload of fixed length runs for that
// length whatever -duration, in the plan's time and in the heading, where
// it is named apart from its group.
func TestFixedRunsInThePlan(t *testing.T) {
	cfg := config{duration: 3 * time.Millisecond, repeat: 3}
	ws := []workload{crossWorkload(10), deadlineWorkload(100_000)}
	fixed := deadlineLead + deadlineSpan
	if got, want := planOf(ws, cfg).time, 3*(4*cfg.duration+2*fixed); got != want {
		t.Errorf("the plan's time %v, want %v", got, want)
	}
	if got, want := runLengths(ws, cfg), "3ms (poll), "+fixed.String()+" (poll deadlines n=100000)"; got != want {
		t.Errorf("runLengths %q, want %q", got, want)
	}
}
