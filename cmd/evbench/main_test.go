package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"
	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
)

// TestMain runs the command itself when the tests re-execute their own
// binary with evbenchMainEnv set (TestExitStatus), and otherwise the tests
// under goleak, with the deadline workload at testDeadlineN deadlines.
func TestMain(m *testing.M) {
	if os.Getenv(evbenchMainEnv) == "1" {
		os.Args = append([]string{"evbench"}, strings.Fields(os.Getenv(evbenchArgsEnv))...)
		main()
		os.Exit(0)
	}
	deadlineN = testDeadlineN
	goleak.VerifyTestMain(m)
}

// testDeadlineN is the size of the deadline workload in the tests. CI's
// smoke run of the command (.ci/run) runs the real one.
const testDeadlineN = 2_000

const (
	evbenchMainEnv = "EVBENCH_TEST_RUN_MAIN"
	evbenchArgsEnv = "EVBENCH_TEST_ARGS"
)

// short is a configuration for fast test runs of real workloads; the
// figures are measurements, not assertions.
func short(format string, groups ...string) config {
	return config{groups: groups, duration: 3 * time.Millisecond, repeat: 2, format: format}
}

// TestEveryGroupRuns runs every case of every group briefly and checks
// that the table has the heading, each column's explanation, one section
// per workload naming its anchor, and one row per case.
func TestEveryGroupRuns(t *testing.T) {
	for _, g := range groupNames() {
		t.Run(g, func(t *testing.T) {
			var out, errs bytes.Buffer
			if err := run(short("table", g), &out, &errs); err != nil {
				t.Fatal(err)
			}
			text := out.String()
			if errs.Len() != 0 {
				t.Errorf("stderr is not a terminal, yet it got %q", errs.String())
			}
			for _, want := range []string{"evbench:", "2 runs of 3ms", "columns (", "ns/op", "ratio", "verdict", "median"} {
				if want == "ns/op" && (g == "notify" || g == "sweep") {
					want = "over floor"
				}
				if !strings.Contains(text, want) {
					t.Errorf("output lacks %q:\n%s", want, text)
				}
			}
			if _, tail, ok := strings.Cut(text, "\nsummary: "); !ok || !strings.HasPrefix(strings.Split(tail, "\n")[2], "  "+g+" ") {
				t.Errorf("no summary line for %s at the end:\n%s", g, tail)
			}
			for _, w := range workloadsOf([]string{g}, nil) {
				label := "main alternative"
				if isEvsync(w.anchor) {
					label = "reference"
				}
				section := "\n" + w.name() + "\n  " + w.about + "\n  " + label + ": " + w.anchor + ", " + w.why + "\n"
				if !strings.Contains(text, section) {
					t.Errorf("no section for %q (its about and anchor) in:\n%s", w.name(), text)
				}
				for _, c := range w.cases {
					if !strings.Contains(text, "\n  "+c.impl+" ") {
						t.Errorf("%s: no row for %s", w.name(), c.impl)
					}
				}
			}
		})
	}
}

// TestJSONRows checks that -json prints one object per case with the
// documented fields, each metric's median between its min and max.
func TestJSONRows(t *testing.T) {
	var out bytes.Buffer
	if err := run(short("json", "semaphore", "notify"), &out, new(bytes.Buffer)); err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, w := range workloadsOf([]string{"semaphore", "notify"}, nil) {
		want += len(w.cases)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != want {
		t.Fatalf("%d JSON lines for %d cases", len(lines), want)
	}
	sawVs, sawFloor := false, false
	for _, line := range lines {
		var row struct {
			Group, Workload, Bench, Impl, Anchor string
			Params                               map[string]string
			Runs                                 int
			RunMs                                float64 `json:"run_ms"`
			Unsupported                          bool
			Vs                                   *comparison `json:"vs"`
			NsPerOp                              *stat       `json:"ns_per_op"`
			CPUUsPerWrite                        *stat       `json:"cpu_us_per_write"`
			OverFloorUs                          *stat       `json:"over_floor_us"`
		}
		dec := json.NewDecoder(strings.NewReader(line))
		if err := dec.Decode(&row); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		if row.Group == "" || row.Workload == "" || row.Impl == "" || row.Anchor == "" || row.Bench == "" || row.RunMs != 3 {
			t.Errorf("a field is missing: %s", line)
		}
		if row.Unsupported {
			continue
		}
		if row.Runs != 2 {
			t.Errorf("runs = %d, want 2: %s", row.Runs, line)
		}
		var all map[string]any
		_ = json.Unmarshal([]byte(line), &all)
		for name, v := range all {
			if m, ok := v.(map[string]any); ok && name != "params" && name != "vs" {
				lo, mid, hi := m["min"].(float64), m["median"].(float64), m["max"].(float64)
				if !(lo <= mid && mid <= hi) {
					t.Errorf("%s: median %v outside [%v, %v]: %s", name, mid, lo, hi, line)
				}
			}
		}
		if v := row.Vs; v != nil {
			sawVs = true
			if v.Other != row.Impl || !isEvsync(v.Evsync) || !(v.Lo <= v.Ratio && v.Ratio <= v.Hi) || v.Verdict != unjudged {
				t.Errorf("vs %+v: other not this row, evsync not an evsync row, the ratio outside its interval, or judged on 2 runs: %s", *v, line)
			}
		} else if row.Impl != "evsync" && row.Impl != floorImpl {
			t.Errorf("a row without vs: %s", line)
		}
		switch row.Group {
		case "semaphore":
			if row.NsPerOp == nil || row.Params == nil && strings.Contains(row.Workload, "=") {
				t.Errorf("semaphore row without ns_per_op or params: %s", line)
			}
		case "notify":
			if row.CPUUsPerWrite == nil {
				t.Errorf("notify row without cpu_us_per_write: %s", line)
			}
			if row.Impl == floorImpl {
				sawFloor = true
				if row.OverFloorUs != nil {
					t.Errorf("the floor is over itself: %s", line)
				}
			} else if row.OverFloorUs == nil {
				t.Errorf("a notifier without over_floor_us: %s", line)
			}
		}
	}
	if !sawVs || !sawFloor {
		t.Errorf("no vs (%v) or no floor row (%v)", sawVs, sawFloor)
	}
}

// TestBenchFormat checks that -format bench prints lines the benchmark
// format's own parser reads, one per run, named with impl= keys.
func TestBenchFormat(t *testing.T) {
	var out bytes.Buffer
	if err := run(short("bench", "signal", "notify"), &out, new(bytes.Buffer)); err != nil {
		t.Fatal(err)
	}
	r := benchfmt.NewReader(bytes.NewReader(out.Bytes()), "evbench")
	results, units := 0, map[string]bool{}
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.Result:
			results++
			if !strings.Contains(string(rec.Name), "/impl=") {
				t.Errorf("a name without impl=: %s", rec.Name)
			}
			for _, v := range rec.Values {
				units[v.Unit] = true
			}
		case *benchfmt.SyntaxError:
			t.Errorf("not a benchmark line: %v", rec)
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, w := range workloadsOf([]string{"signal", "notify"}, nil) {
		want += 2 * len(w.cases)
	}
	if results > want || results < want-4 { // eventfd's rows are left out off Linux
		t.Errorf("%d benchmark lines for %d runs", results, want)
	}
	for _, u := range []string{"sec/op", "allocs/op", "cpu/wall", "cpu-sec/write"} { // benchfmt reads ns as sec
		if !units[u] {
			t.Errorf("no %s values (units: %v)", u, units)
		}
	}
}

// TestBenchstatRecipe runs the README's recipe, -format bench with its
// default runs, and checks that benchstat's statistics (benchmath, as
// benchstat calls it) get what they need: a confidence interval for
// every benchmark and unit, and a comparison of every impl with evsync,
// without a warning.
func TestBenchstatRecipe(t *testing.T) {
	cfg, err := parseConfig([]string{"-format", "bench", "-workloads", "semaphore", "-match", "acquire+release", "-duration", "2ms"}, new(bytes.Buffer))
	if err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	if err := run(cfg, &out, &errs); err != nil {
		t.Fatal(err)
	}
	if errs.Len() != 0 {
		t.Errorf("stderr: %q", errs.String())
	}
	samples := map[string][]float64{} // by name without impl, impl and unit
	r := benchfmt.NewReader(bytes.NewReader(out.Bytes()), "evbench")
	for r.Scan() {
		if rec, ok := r.Result().(*benchfmt.Result); ok {
			for _, v := range rec.Values {
				samples[string(rec.Name)+" "+v.Unit] = append(samples[string(rec.Name)+" "+v.Unit], v.Value)
			}
		}
	}
	if err := r.Err(); err != nil || len(samples) == 0 {
		t.Fatalf("%d samples, err %v", len(samples), err)
	}
	for key, v := range samples {
		s := benchmath.NewSample(v, &benchmath.DefaultThresholds)
		if w := benchmath.AssumeNothing.Summary(s, 0.95).Warnings; len(w) != 0 {
			t.Errorf("%s: %v", key, w)
		}
		name, unit, _ := strings.Cut(key, " ")
		base, impl, _ := strings.Cut(name, "/impl=")
		procs := impl[strings.LastIndex(impl, "-"):] // the -GOMAXPROCS suffix
		ev, ok := samples[base+"/impl=evsync"+procs+" "+unit]
		if !ok {
			t.Errorf("%s: no evsync sample to compare with", key)
			continue
		}
		if w := benchmath.AssumeNothing.Compare(benchmath.NewSample(ev, &benchmath.DefaultThresholds), s).Warnings; len(w) != 0 {
			t.Errorf("%s against evsync: %v", key, w)
		}
	}
	cfg.repeat = 2
	out.Reset()
	errs.Reset()
	if err := run(cfg, &out, &errs); err != nil || !strings.Contains(errs.String(), "benchstat needs 6") {
		t.Errorf("-repeat 2: err %v, stderr %q, want a note that benchstat needs 6 runs", err, errs.String())
	}
}

// TestRowsStreamAsEachWorkloadFinishes checks that a workload's rows are
// written before the next workload starts.
func TestRowsStreamAsEachWorkloadFinishes(t *testing.T) {
	var out bytes.Buffer
	var sawFirst atomic.Bool
	count := func(stop *atomic.Bool) (tally, error) {
		n := tally{ops: 1}
		for !stop.Load() {
			n.ops++
		}
		return n, nil
	}
	first := workload{group: "semaphore", title: "first", bench: "First", about: "a", anchor: "a", why: "w",
		cases: []bench{{impl: "a", run: count}, {impl: "zz-first-row", run: count}}}
	second := workload{group: "semaphore", title: "second", bench: "Second", about: "b", anchor: "a", why: "w",
		cases: []bench{{impl: "a", run: func(stop *atomic.Bool) (tally, error) {
			sawFirst.Store(strings.Contains(out.String(), "zz-first-row"))
			return count(stop)
		}}}}
	cfg := config{groups: []string{"semaphore"}, duration: time.Millisecond, repeat: 1, format: "table"}
	if err := runWorkloads([]workload{first, second}, cfg, &out, new(bytes.Buffer)); err != nil {
		t.Fatal(err)
	}
	if !sawFirst.Load() {
		t.Fatalf("the second workload ran before the first one's rows were written:\n%s", out.String())
	}
}

// TestUsageErrors checks that each command line asking for something
// that does not exist is refused with a message, as a usage error.
func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"-workloads", "nosuch"}, `unknown workload group "nosuch"`},
		{[]string{"-workloads", "semaphore,"}, `unknown workload group ""`},
		{[]string{"-duration", "fast"}, `invalid value "fast"`},
		{[]string{"-duration", "0s"}, "must last longer than 0"},
		{[]string{"-duration", "-1s"}, "must last longer than 0"},
		{[]string{"-repeat", "0"}, "at least once"},
		{[]string{"-format", "xml"}, "the formats are"},
		{[]string{"-json", "-format", "bench"}, "two outputs"},
		{[]string{"-seed"}, "-workloads notify"},
		{[]string{"-sweep"}, "-workloads sweep"},
		{[]string{"semaphore"}, "unexpected argument"},
		{[]string{"-plotdir", "x", "-workloads", "semaphore"}, "-plot draws"},
		{[]string{"-plot", "charts"}, "-plotdir charts names one"},
		{[]string{"-plot=charts"}, "-plotdir DIR names one"},
		{[]string{"-nosuchflag"}, "not defined"},
		{[]string{"-cpu", ""}, `"" is not a positive number`},
		{[]string{"-cpu", "0"}, `"0" is not a positive number`},
		{[]string{"-cpu", "1,-2"}, `"-2" is not a positive number`},
		{[]string{"-cpu", "1,,2"}, `"" is not a positive number`},
		{[]string{"-cpu", "two"}, `"two" is not a positive number`},
		{[]string{"-cpu", "1.5"}, `"1.5" is not a positive number`},
		{[]string{"-cpu", "2,4,2"}, "2 is listed twice"},
		{[]string{"-cpu", "1,2", "-workloads", "semaphore"}, "does not run them"},
		{[]string{"-cpu", "4", "-plot"}, "one point"},
	} {
		_, err := parseConfig(tc.args, new(bytes.Buffer))
		if !errors.As(err, new(usageError)) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%q: err = %v, want a usage error saying %q", tc.args, err, tc.says)
		}
	}
	cfg, err := parseConfig([]string{"-match", "nosuchthing"}, new(bytes.Buffer))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err = run(cfg, &out, new(bytes.Buffer))
	if !errors.As(err, new(usageError)) || !strings.Contains(err.Error(), "matches no case") {
		t.Errorf("-match nosuchthing: err = %v, want a usage error", err)
	}
	if out.Len() != 0 {
		t.Errorf("-match nosuchthing printed %q", out.String())
	}
}

// TestConfigDefaults checks the flags' defaults and how -quick, -json and
// -plot change them.
func TestConfigDefaults(t *testing.T) {
	parse := func(args ...string) config {
		t.Helper()
		cfg, err := parseConfig(args, new(bytes.Buffer))
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	if c := parse(); strings.Join(c.groups, ",") != "semaphore,readyq,signal,notify,poll" || !c.headline ||
		c.repeat != defaultRepeat || c.runFor("semaphore") != defaultDuration || c.runFor("sweep") != sweepDuration || c.format != "table" {
		t.Errorf("defaults: %+v", c)
	}
	if c := parse("-quick"); c.repeat != 1 || c.runFor("sweep") != quickDuration {
		t.Errorf("-quick: %+v", c)
	}
	if c := parse("-quick", "-repeat", "4"); c.repeat != 4 {
		t.Errorf("-quick -repeat 4: repeat %d", c.repeat)
	}
	if c := parse("-format", "bench"); c.repeat != benchRepeat {
		t.Errorf("-format bench: repeat %d, want %d", c.repeat, benchRepeat)
	}
	if c := parse("-format", "bench", "-repeat", "2"); c.repeat != 2 {
		t.Errorf("-format bench -repeat 2: repeat %d", c.repeat)
	}
	if c := parse("-quick", "-format", "bench"); c.repeat != 1 {
		t.Errorf("-quick -format bench: repeat %d, want 1", c.repeat)
	}
	if c := parse("-json"); c.format != "json" {
		t.Errorf("-json: format %q", c.format)
	}
	if c := parse("-plot"); strings.Join(c.groups, ",") != "sweep,scaling,poll" || c.plotDir != defaultPlotDir {
		t.Errorf("-plot: groups %v, into %q", c.groups, c.plotDir)
	}
	if c := parse("-plotdir", "charts"); c.plotDir != "charts" || strings.Join(c.groups, ",") != "sweep,scaling,poll" {
		t.Errorf("-plotdir charts: into %q, groups %v", c.plotDir, c.groups)
	}
	if c := parse(); c.plotDir != "" {
		t.Errorf("no -plot, yet charts into %q", c.plotDir)
	}
	if defaultPlotDir == "charts" || filepath.Clean(defaultPlotDir) == "charts" {
		t.Errorf("-plot's default directory is the committed charts' own")
	}
	if c := parse("-workloads", "all"); len(c.groups) != len(groupOrder) || c.headline {
		t.Errorf("-workloads all: groups %v, headlines only %v", c.groups, c.headline)
	}
	for _, args := range [][]string{{"-plot"}, {"-cpu", "2"}, {"-workloads", "poll"}} {
		if c := parse(args...); c.headline {
			t.Errorf("%q runs the headlines only", args)
		}
	}
	if c := parse("-workloads", "signal,semaphore"); strings.Join(c.groups, ",") != "semaphore,signal" {
		t.Errorf("groups run in their order: %v", c.groups)
	}
	if c := parse(); c.cpus != nil {
		t.Errorf("no -cpu, yet cpus %v", c.cpus)
	}
	if c := parse("-cpu=1,2,4,8,16"); !slices.Equal(c.cpus, []int{1, 2, 4, 8, 16}) || strings.Join(c.groups, ",") != "scaling" {
		t.Errorf("-cpu=1,2,4,8,16: cpus %v, groups %v; want the values and the scaling group", c.cpus, c.groups)
	}
	if c := parse("-cpu", " 8, 1 "); !slices.Equal(c.cpus, []int{8, 1}) {
		t.Errorf("-cpu ' 8, 1 ': cpus %v, want [8 1] in the order given", c.cpus)
	}
	if c := parse("-cpu", "3", "-workloads", "scaling,semaphore"); !slices.Equal(c.cpus, []int{3}) || strings.Join(c.groups, ",") != "semaphore,scaling" {
		t.Errorf("-cpu 3 -workloads scaling,semaphore: cpus %v, groups %v", c.cpus, c.groups)
	}
	if c := parse("-plot", "-cpu", "1,2"); strings.Join(c.groups, ",") != "sweep,scaling,poll" {
		t.Errorf("-plot -cpu 1,2: groups %v, want -plot's", c.groups)
	}
}

// TestCPURows checks the scaling group's rows with -cpu: each of g 8 and
// 64 at each limit runs once per value, named with it, in the order
// given; without -cpu the rows have no cpu parameter.
func TestCPURows(t *testing.T) {
	for _, w := range workloadsOf([]string{"scaling"}, nil) {
		if w.procs != 0 || strings.Contains(w.name(), "cpu=") {
			t.Errorf("no -cpu, yet %q sets GOMAXPROCS %d", w.name(), w.procs)
		}
	}
	var names []string
	for _, w := range workloadsOf([]string{"scaling"}, []int{4, 1}) {
		names = append(names, w.name())
		if w.procs != w.paramN("cpu") || !strings.HasSuffix(w.about, "; GOMAXPROCS "+itoa(w.procs)) {
			t.Errorf("%q: procs %d, about %q", w.name(), w.procs, w.about)
		}
	}
	var want []string
	for _, limit := range []string{"1", "4"} {
		for _, g := range []string{"8", "64"} {
			for _, cpu := range []string{"4", "1"} {
				want = append(want, "semaphore scaling limit="+limit+" g="+g+" cpu="+cpu)
			}
		}
	}
	if !slices.Equal(names, want) {
		t.Errorf("-cpu 4,1: workloads\n%s\nwant\n%s", strings.Join(names, "\n"), strings.Join(want, "\n"))
	}
	if !slices.Contains(cpuGoroutines, cpuChartG) {
		t.Errorf("scaling-cpu.svg draws g=%d, which -cpu does not run (%v)", cpuChartG, cpuGoroutines)
	}
}

// TestCPURunsSetGOMAXPROCS runs the scaling group with -cpu on fake
// cases. Each run must see its row's GOMAXPROCS, and the run must
// restore the one before. The benchmark lines' -N suffix must be that
// GOMAXPROCS, and -plot must draw scaling-cpu.svg (and no goroutine chart).
func TestCPURunsSetGOMAXPROCS(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	cpus := []int{before + 2, before + 1} // neither is the GOMAXPROCS the run starts with
	ws := workloadsOf([]string{"scaling"}, cpus)
	var runs atomic.Int64
	for i := range ws {
		for j := range ws[i].cases {
			w := ws[i]
			ws[i].cases[j].run = func(stop *atomic.Bool) (tally, error) {
				runs.Add(1)
				if got := runtime.GOMAXPROCS(0); got != w.procs {
					t.Errorf("%s: a run at GOMAXPROCS %d, want %d", w.name(), got, w.procs)
				}
				n := tally{ops: 1}
				for !stop.Load() {
					n.ops++
				}
				return n, nil
			}
		}
	}
	dir := t.TempDir()
	cfg := config{groups: []string{"scaling"}, cpus: cpus, duration: time.Millisecond, repeat: 1, format: "bench", plotDir: dir}
	var out, errs bytes.Buffer
	if err := runWorkloads(ws, cfg, &out, &errs); err != nil {
		t.Fatal(err)
	}
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Errorf("after the run GOMAXPROCS is %d, want %d as before", got, before)
	}
	cases := 0
	for _, w := range ws {
		cases += len(w.cases)
	}
	if runs.Load() != int64(cases) || cases != 2*2*len(cpus)*len(ws[0].cases) {
		t.Errorf("%d runs of %d cases", runs.Load(), cases)
	}
	if before+2 > runtime.NumCPU() && !strings.Contains(errs.String(), "share them") {
		t.Errorf("GOMAXPROCS %d is above %d CPUs, yet stderr says nothing of it: %q", before+2, runtime.NumCPU(), errs.String())
	}
	cpuParam := regexp.MustCompile(`/cpu=(\d+)/`)
	lines := 0
	r := benchfmt.NewReader(bytes.NewReader(out.Bytes()), "evbench")
	for r.Scan() {
		rec, ok := r.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		lines++
		name := string(rec.Name)
		m := cpuParam.FindStringSubmatch(name)
		if m == nil || !strings.HasSuffix(name, "-"+m[1]) {
			t.Errorf("%s: the -GOMAXPROCS suffix is not the row's cpu", name)
		}
	}
	if err := r.Err(); err != nil || lines != cases {
		t.Errorf("%d benchmark lines for %d runs, err %v", lines, cases, err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 || entries[0].Name() != "scaling-cpu.svg" {
		t.Fatalf("charts %v, err %v; want scaling-cpu.svg alone", entries, err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "scaling-cpu.svg"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{">GOMAXPROCS<", "limit 4, 64 goroutines", ">evsync<", ">xsync<", ">" + itoa(before+1) + "<", ">" + itoa(before+2) + "<"} {
		if !bytes.Contains(b, []byte(s)) {
			t.Errorf("scaling-cpu.svg lacks %q", s)
		}
	}
}

// TestPlotWritesToItsOwnDirectory runs -plot without -plotdir and
// checks that the charts land in evbench-charts, in the current
// directory, and that the run says where. Each run keeps one rate or one
// goroutine count, a chart with a single x.
func TestPlotWritesToItsOwnDirectory(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	want := filepath.Join(dir, defaultPlotDir)
	for match, chart := range map[string]string{"rate=100 impl": "sweep-cpu.svg", "limit=1 g=1 impl": "scaling-limit1.svg"} {
		cfg, err := parseConfig([]string{"-plot", "-match", match, "-duration", "1ms", "-repeat", "1"}, new(bytes.Buffer))
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := run(cfg, &out, new(bytes.Buffer)); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(want, chart)); err != nil {
			t.Errorf("-match %q: no chart in %s: %v", match, want, err)
		}
		if !strings.Contains(out.String(), "charts, in "+want+": ") {
			t.Errorf("-match %q: the run does not say where the charts went:\n%s", match, out.String())
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("-plot wrote beside its directory: %v", entries)
	}
}

// TestUsageListsTheFlags checks that -help lists every flag evbench
// defines and nothing else: no removed flag, which says its new spelling
// when used instead.
func TestUsageListsTheFlags(t *testing.T) {
	var help bytes.Buffer
	if _, err := parseConfig([]string{"-help"}, &help); !errors.Is(err, errHelp) {
		t.Fatalf("-help: err %v", err)
	}
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^  -(\w+)`).FindAllStringSubmatch(help.String(), -1) {
		listed[m[1]] = true
	}
	defined := map[string]bool{}
	newFlags().fs.VisitAll(func(f *flag.Flag) { defined[f.Name] = true })
	for name := range defined {
		if !listed[name] {
			t.Errorf("-help does not list -%s:\n%s", name, help.String())
		}
	}
	for name := range listed {
		if !defined[name] {
			t.Errorf("-help lists -%s, which is not a flag", name)
		}
	}
	for name, hint := range removedFlags {
		if strings.Contains(help.String(), "-"+name+" ") || strings.Contains(help.String(), "removed") {
			t.Errorf("-help mentions the removed -%s:\n%s", name, help.String())
		}
		if _, err := parseConfig([]string{"-" + name}, new(bytes.Buffer)); err == nil || err.Error() != hint {
			t.Errorf("-%s: err %v, want %q", name, err, hint)
		}
	}
	for _, g := range groupNames() {
		if !strings.Contains(help.String(), "\n  "+g+" ") {
			t.Errorf("-help does not list the %s group", g)
		}
	}
}

// TestRunBudget checks that the default run's runs add up to well under a
// minute and -quick's to a few seconds (the time the runs take by
// construction, not a timing of this machine).
func TestRunBudget(t *testing.T) {
	for _, tc := range []struct {
		args []string
		max  time.Duration
	}{
		{nil, 44 * time.Second}, // 38.9 s before the eventual rows and ReleaseThenWork, 41.8 s with them, 43.2 s with poll's headline
		{[]string{"-quick"}, 5 * time.Second},
		{[]string{"-format", "bench"}, 87 * time.Second},
		{[]string{"-cpu", "1,2,4,8,16"}, 40 * time.Second}, // the GOMAXPROCS curves of a 16-core machine
	} {
		cfg, err := parseConfig(tc.args, new(bytes.Buffer))
		if err != nil {
			t.Fatal(err)
		}
		if p := planOf(cfg.workloads(), cfg); p.time > tc.max {
			t.Errorf("%q: the runs add up to %v, over %v", tc.args, p.time, tc.max)
		}
	}
}

// TestExitStatus runs the command (this test binary re-executed as
// evbench) and checks its exit status and that piped output holds rows
// and no progress line.
func TestExitStatus(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	evbench := func(args string) (stdout, stderr string, code int) {
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), evbenchMainEnv+"=1", evbenchArgsEnv+"="+args)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return o.String(), e.String(), exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return o.String(), e.String(), 0
	}
	for _, args := range []string{"-match nosuchthing", "-workloads nosuch", "-duration fast", "-seed", "-cpu 0", "-cpu=1,x"} {
		out, errs, code := evbench(args)
		if code != 2 || out != "" || !strings.Contains(errs, "evbench:") {
			t.Errorf("evbench %s: exit %d, stdout %q, stderr %q; want 2, nothing, a message", args, code, out, errs)
		}
	}
	out, errs, code := evbench("-quick -workloads semaphore -match acquire+release")
	if code != 0 || errs != "" || !strings.Contains(out, "impl=") && !strings.Contains(out, "evsync") {
		t.Errorf("a piped run: exit %d, stderr %q (want none), stdout:\n%s", code, errs, out)
	}
	if _, _, code := evbench("-help"); code != 0 {
		t.Errorf("-help: exit %d", code)
	}
}

// TestProgress checks the progress line: drawn only when asked (stderr
// is a terminal), redrawn in place, erased before rows.
func TestProgress(t *testing.T) {
	var off bytes.Buffer
	p := newProgress(false, &off, 2)
	p.show("a")
	p.clear()
	if off.Len() != 0 {
		t.Errorf("progress off wrote %q", off.String())
	}
	var on bytes.Buffer
	p = newProgress(true, &on, 2)
	p.show("first case")
	p.show("second case")
	p.clear()
	want := "\r\x1b[K[1/2] first case\r\x1b[K[2/2] second case\r\x1b[K"
	if on.String() != want {
		t.Errorf("progress wrote %q, want %q", on.String(), want)
	}
}

// TestStat checks the median, the range and the spread's text.
func TestStat(t *testing.T) {
	s := statOf([]float64{3, 1, 2})
	if s != (stat{2, 1, 3}) || s.spread() != "±50%" {
		t.Errorf("statOf(3,1,2) = %+v %q", s, s.spread())
	}
	if s := statOf([]float64{4, 1, 2, 3}); s.Median != 2.5 {
		t.Errorf("median of 1..4 = %v", s.Median)
	}
	if s := statOf([]float64{5}); s.spread() != "" {
		t.Errorf("one run has a spread: %q", s.spread())
	}
	if s := statOf([]float64{1, 10, 1}); s.spread() != "±>99%" {
		t.Errorf("runs 1, 10, 1: spread %q", s.spread())
	}
}

// TestGreyZones checks the shaded ranges: around each run of rates at
// which every run was above 1, halfway (log) to the neighbours.
func TestGreyZones(t *testing.T) {
	pts := []point{{x: 100, lo: 1.5}, {x: 400, lo: 1.1}, {x: 1600, lo: 0.9}, {x: 6400, lo: 1.2}}
	got := greyZones(pts)
	if len(got) != 2 {
		t.Fatalf("zones %v", got)
	}
	near := func(a, b float64) bool { return a > b*0.999 && a < b*1.001 }
	if !near(got[0][0], 100/1.41421356) || !near(got[0][1], 800) || !near(got[1][0], 3200) || !near(got[1][1], 6400*1.41421356) {
		t.Errorf("zones %v", got)
	}
	if z := greyZones([]point{{x: 100, lo: 0.5}}); len(z) != 0 {
		t.Errorf("a zone where no run is above 1: %v", z)
	}
}

// TestCharts draws the charts from made-up results and checks the files.
func TestCharts(t *testing.T) {
	var rs []result
	add := func(ws []workload, f func(w workload, c bench, round int) sample) {
		for _, w := range ws {
			for _, c := range w.cases {
				r := result{w: w, c: c, d: time.Second}
				for round := range 3 {
					r.runs = append(r.runs, f(w, c, round))
				}
				rs = append(rs, r)
			}
		}
	}
	add(sweepWorkloads(), func(w workload, c bench, round int) sample {
		cpu := 1000 * time.Microsecond
		if c.impl == fixedImpl && w.paramN("rate") < 1000 {
			cpu *= 2 // the grey zone
		}
		lat := newLatencies()
		_ = lat.RecordValue(int64(time.Millisecond) * int64(1+round))
		return sample{n: tally{ops: 1000, wakeups: 10, lat: lat}, wall: time.Second, cpu: cpu + time.Duration(round)*time.Microsecond}
	})
	scaling := func(w workload, c bench, round int) sample {
		return sample{n: tally{ops: uint64(1000 * (1 + round))}, wall: time.Millisecond * time.Duration(w.paramN("g")), cpu: time.Millisecond}
	}
	add(scalingWorkloads(nil), scaling)
	add(scalingWorkloads([]int{1, 2, 4, 8, 16}), scaling) // -cpu's rows, drawn on a chart of their own
	dir := t.TempDir()
	const caption = "go1.26.8 linux/amd64, GOMAXPROCS 2, AMD EPYC, 2026-12-01"
	files, err := writeCharts(dir, rs, caption)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"sweep-cpu.svg", "sweep-p99.svg", "scaling-limit1.svg", "scaling-limit4.svg", "scaling-cpu.svg"}
	if len(files) != len(want) {
		t.Fatalf("files %v, want %v", files, want)
	}
	for i, name := range want {
		if files[i] != filepath.Join(dir, name) {
			t.Errorf("file %d: %s, want %s", i, files[i], name)
		}
		b, err := os.ReadFile(files[i])
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte("<svg")) {
			t.Errorf("%s is not an SVG", name)
		}
		for _, s := range []string{"lower is better", caption} {
			if !bytes.Contains(b, []byte(">"+s)) && !bytes.Contains(b, []byte("("+s+")")) {
				t.Errorf("%s does not say %q", name, s)
			}
		}
		families := regexp.MustCompile(`font-family:([^;"]*)`).FindAllSubmatch(b, -1)
		if len(families) == 0 {
			t.Errorf("%s names no font", name)
		}
		for _, f := range families {
			if !bytes.HasSuffix(f[1], []byte(",sans-serif")) {
				t.Errorf("%s: font-family %s has no sans-serif fallback", name, f[1])
			}
		}
	}
	cpu, _ := os.ReadFile(files[0])
	for _, s := range []string{"grey zone", fixedImpl, adaptiveImpl, "immediate evsync"} {
		if !bytes.Contains(cpu, []byte(s)) {
			t.Errorf("sweep-cpu.svg lacks %q", s)
		}
	}
	procs, _ := os.ReadFile(files[4])
	for _, s := range []string{">GOMAXPROCS<", ">1<", ">16<", ">evsync<", ">eventfd<"} {
		if !bytes.Contains(procs, []byte(s)) {
			t.Errorf("scaling-cpu.svg lacks %q", s)
		}
	}
	if files, err := writeCharts(t.TempDir(), nil, caption); err != nil || len(files) != 0 {
		t.Errorf("no results: files %v, err %v", files, err)
	}
}

// TestPaceRate checks, on synctest's clock, that pace makes rate writes a
// second, including rates whose slot is not a whole number of
// nanoseconds (300/s) and rates above one write per millisecond.
func TestPaceRate(t *testing.T) {
	for _, rate := range []int{100, 300, 1000, 3000, 20000} {
		synctest.Test(t, func(t *testing.T) {
			var stop atomic.Bool
			time.AfterFunc(time.Second, func() { stop.Store(true) })
			n := pace(rate, &stop, func() {})
			slot := max(1, rate/1000) // writes per slot
			if d := int(n) - rate; d < -slot || d > 2*slot {
				t.Errorf("rate %d/s: %d writes in a second", rate, n)
			}
		})
	}
}
