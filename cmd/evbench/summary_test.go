package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

// caseOf is the case of w named impl.
func caseOf(t *testing.T, w workload, impl string) bench {
	t.Helper()
	for _, c := range w.cases {
		if c.impl == impl {
			return c
		}
	}
	t.Fatalf("%s has no case %s", w.name(), impl)
	return bench{}
}

// TestSummaryNamesTheRowsItLeavesOut: every printed row with a ratio
// column, but the reference and the floor, is either counted or named on
// the group's second line with its reason: a ceiling, evsync's own
// variants, a row that did not run here.
func TestSummaryNamesTheRowsItLeavesOut(t *testing.T) {
	var rs []result
	printed := 0
	for _, w := range append(append(readyqWorkloads(), signalWorkloads()...), notifyWorkloads()...) {
		for _, c := range w.cases {
			r := runsOf(w, c, 10, 10, 10)
			if c.impl == "eventfd" {
				r = result{w: w, c: c, skipped: true}
			}
			rs = append(rs, r)
			if c.impl != w.reference() && c.impl != floorImpl {
				printed++
			}
		}
	}
	var out bytes.Buffer
	writeSummary(&out, rs)
	text := out.String()
	for _, want := range []string{
		"\n  readyq     4 rows: level 4 (1.00×; mutex 4)\n" +
			"             not counted, 6 rows: evsync/workqueue 4 (evsync's own, compared with evsync: not alternatives); chan 2 (no de-duplication: a ceiling, not an alternative)\n",
		"\n  signal     7 rows: level 7 (1.00×; atomictoken 3, cond 3, chan 1)\n" +
			"             not counted, 5 rows: eventfd 3 (unsupported here: not run); evsync/observer=on 1, evsync/observer=control 1 (evsync's own, compared with evsync/observer=off: not alternatives)\n",
		"\n  notify     6 rows: level 6 (1.00×; atomictoken 3, afterfunc/delay=5ms 3)\n" +
			"             not counted, 21 rows: eventfd 3 (unsupported here: not run); those of 6 evsync variants (evsync's own, compared with evsync: not alternatives)\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the summary lacks %q:\n%s", want, text)
		}
	}
	total := 0
	for _, g := range summarize(rs) {
		for _, k := range g.classes {
			total += k.n
		}
		for _, l := range g.left {
			for _, n := range l.rows {
				total += n.n
			}
		}
	}
	if total != printed {
		t.Errorf("the summary accounts for %d rows, %d were printed with a ratio column", total, printed)
	}
}

// TestAdviceSaysWhatToPickForEachVerdict builds the rows of the two
// uncontended semaphore workloads with made-up runs and checks the
// advice's line for each mix of verdicts against x/sync: every outcome
// the advice can print (see advice.String and the README's Commands).
func TestAdviceSaysWhatToPickForEachVerdict(t *testing.T) {
	const use = "  " + useLimiterAlone + ": "
	sem := semaphoreWorkloads()[:2] // acquire+release, tryacquire+release
	for _, tc := range []struct {
		name     string
		ev       []float64
		xs, cond [2][]float64 // per workload
		want     string
	}{
		{"ahead", []float64{10, 10, 10}, [2][]float64{{20, 21, 19}, {20, 20, 20}}, [2][]float64{},
			"pick evsync, ahead of xsync in both workloads (2.00×)"},
		{"level", []float64{10, 10, 10}, [2][]float64{{9, 10, 11}, {10, 12, 10}}, [2][]float64{},
			"xsync is level with evsync here (1.00×): neither beat the other in every run, so choose by API"},
		{"behind", []float64{10, 10, 10}, [2][]float64{{5, 5, 5}, {5, 6, 4}}, [2][]float64{},
			"xsync is ahead of evsync in both workloads (0.50×): evsync loses here, pick xsync"},
		{"unjudged, evsync cheaper", []float64{10}, [2][]float64{{20}, {30}}, [2][]float64{},
			"unjudged, but evsync was cheaper than xsync in both workloads (2.00–3.00×)"},
		{"unjudged, xsync cheaper", []float64{10}, [2][]float64{{5}, {5}}, [2][]float64{},
			"unjudged, but xsync was cheaper than evsync in both workloads (0.50×)"},
		{"unjudged, split", []float64{10}, [2][]float64{{5}, {20}}, [2][]float64{},
			"unjudged, but evsync was cheaper than xsync in 1 of 2 workloads (0.50–2.00×)"},
		{"ahead and level", []float64{10, 10, 10}, [2][]float64{{20, 20, 20}, {9, 10, 11}}, [2][]float64{},
			"pick evsync, never behind xsync: evsync against xsync is ahead in 1, level in 1 of 2 workloads (1.00–2.00×)"},
		{"behind and level", []float64{10, 10, 10}, [2][]float64{{5, 5, 5}, {9, 10, 11}}, [2][]float64{},
			"pick xsync, never behind evsync: evsync against xsync is level in 1, behind in 1 of 2 workloads (0.50–1.00×); evsync loses at semaphore acquire+release"},
		{"ahead and behind", []float64{10, 10, 10}, [2][]float64{{20, 20, 20}, {5, 5, 5}}, [2][]float64{},
			"it depends: evsync against xsync is ahead in 1, behind in 1 of 2 workloads (0.50–2.00×); evsync wins at semaphore acquire+release and loses at semaphore tryacquire+release"},
		{"ahead, and one unjudged", []float64{10, 10, 10}, [2][]float64{{20, 20, 20}, {5}}, [2][]float64{},
			"pick evsync, never behind xsync: evsync against xsync is ahead in 1, unjudged in 1 of 2 workloads (0.50–2.00×)"},
		{"level, and one unjudged", []float64{10, 10, 10}, [2][]float64{{9, 10, 11}, {30}}, [2][]float64{},
			"neither beat the other in every run, so choose by API: evsync against xsync is level in 1, unjudged in 1 of 2 workloads (1.00–3.00×)"},
		{"behind, and one unjudged", []float64{10, 10, 10}, [2][]float64{{30}, {5, 5, 5}}, [2][]float64{},
			"pick xsync, never behind evsync: evsync against xsync is behind in 1, unjudged in 1 of 2 workloads (0.50–3.00×); evsync loses at semaphore tryacquire+release"},
		{"another alternative wins", []float64{10, 10, 10}, [2][]float64{{20, 20, 20}, {20, 20, 20}}, [2][]float64{{5, 5, 5}, {10, 10, 10}},
			"pick evsync, ahead of xsync in both workloads (2.00×); cond also beat evsync in 1 of 2 judged workloads"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var rs []result
			for i, w := range sem {
				rs = append(rs, runsOf(w, caseOf(t, w, "evsync"), tc.ev...), runsOf(w, caseOf(t, w, "xsync"), tc.xs[i]...))
				if tc.cond[i] != nil {
					rs = append(rs, runsOf(w, caseOf(t, w, "cond"), tc.cond[i]...))
				}
			}
			var out bytes.Buffer
			writeSummary(&out, rs)
			lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			if last := lines[len(lines)-1]; last != use+tc.want {
				t.Errorf("the run ends with\n%q\nwant\n%q\n%s", last, use+tc.want, out.String())
			}
			if !strings.Contains(out.String(), "\nwhen to pick evsync, from this run's verdicts") {
				t.Errorf("no heading for the advice:\n%s", out.String())
			}
		})
	}
}

// TestAdviceFollowsTheDebouncersEvsyncRow: in the notify workloads the
// main alternative, the AfterFunc debouncer, is compared with evsync's 5 ms
// window, and the advice names that row.
func TestAdviceFollowsTheDebouncersEvsyncRow(t *testing.T) {
	w := notifyWorkloads()[0]
	var rs []result
	for _, c := range w.cases {
		r := result{w: w, c: c, d: time.Second}
		cpu := 1000
		if c.impl == debounceImpl {
			cpu = 2000
		}
		for range 3 {
			r.runs = append(r.runs, sample{n: tally{ops: 1000}, wall: time.Second, cpu: time.Duration(cpu) * time.Microsecond})
		}
		rs = append(rs, r)
	}
	got := advise(rs)
	if len(got) != 1 || !strings.HasSuffix(got[0].String(), ": pick evsync/delay=5ms, ahead of afterfunc/delay=5ms in the one workload (2.00×)") {
		t.Errorf("advice %q", got)
	}
}

// waitRuns is runsOf with a share of the takes that waited in each run.
func waitRuns(w workload, c bench, share float64, ns ...float64) result {
	r := runsOf(w, c, ns...)
	for i := range r.runs {
		r.runs[i].n.ops = 100000
		r.runs[i].n.wakeups = uint64(share*100000 + 0.5)
		r.runs[i].wall = time.Duration(ns[i] * 100000)
	}
	return r
}

// TestContendedLimiterGoesByItsWaits: a contended limiter workload counts
// under the advice line its share of takes that waited gives, in its
// evsync row and in x/sync's, as printed: a standing queue from 0.5 in
// both, units to spare under 0.1 in both, light contention otherwise.
// Goroutines per unit do not decide.
func TestContendedLimiterGoesByItsWaits(t *testing.T) {
	w := contendedWorkload("semaphore", "semaphore contended", "SemaphoreContended", 4, 8, false)
	for _, tc := range []struct {
		name    string
		ev, alt float64
		want    string
	}{
		{"all wait", 1, 1, useLimiterQueue},
		{"half wait in both", 0.5, 0.5, useLimiterQueue},
		{"printed as half", 0.4996, 0.9, useLimiterQueue},
		{"under half in xsync", 1, 0.499, useLimiterSome},
		{"under half in evsync", 0.499, 1, useLimiterSome},
		{"a tenth in evsync", 0.1, 0, useLimiterSome},
		{"printed as a tenth", 0.0996, 0, useLimiterSome},
		{"under a tenth in both", 0.099, 0.099, useLimiterSpare},
		{"nearly none", 0.0003, 0, useLimiterSpare},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := []result{
				waitRuns(w, caseOf(t, w, "evsync"), tc.ev, 10, 10, 10),
				waitRuns(w, caseOf(t, w, "xsync"), tc.alt, 20, 20, 20),
				waitRuns(w, caseOf(t, w, "chan"), 0.7, 5, 5, 5), // not the main alternative: no say
			}
			ws, ok := waitSituation(w, rs)
			if !ok || ws.use != tc.want {
				t.Fatalf("waitSituation = %+v, %v; want %q", ws, ok, tc.want)
			}
			as := advise(rs)
			if len(as) != 1 || as[0].use != tc.want || len(as[0].rows) != 1 {
				t.Errorf("advise = %+v, want one line %q with one workload", as, tc.want)
			}
		})
	}
	// Without x/sync's row there is no share to compare, and no line.
	rs := []result{waitRuns(w, caseOf(t, w, "evsync"), 1, 10, 10, 10), waitRuns(w, caseOf(t, w, "chan"), 1, 5, 5, 5)}
	if ws, ok := waitSituation(w, rs); ok {
		t.Errorf("waitSituation without an xsync row = %+v", ws)
	}
	if as := advise(rs); len(as) != 0 {
		t.Errorf("advise without an xsync row = %+v", as)
	}
}

// TestContendedLimiterShowsItsWaits: the table says under each contended
// limiter workload which advice line it counts under and from which
// shares, the JSON rows carry the line as situation, and the advice puts
// a standing queue and a workload where few takes wait on lines of their
// own, whatever their goroutines per unit.
func TestContendedLimiterShowsItsWaits(t *testing.T) {
	queued := contendedWorkload("semaphore", "semaphore contended", "SemaphoreContended", 1, 8, true)
	spare := contendedWorkload("semaphore", "semaphore contended", "SemaphoreContended", 4, 8, false)
	q := []result{
		waitRuns(queued, caseOf(t, queued, "evsync"), 0.986, 10, 10, 10),
		waitRuns(queued, caseOf(t, queued, "xsync"), 1, 20, 20, 20),
	}
	s := []result{
		waitRuns(spare, caseOf(t, spare, "evsync"), 0.003, 10, 10, 10),
		waitRuns(spare, caseOf(t, spare, "xsync"), 0.0002, 9, 10, 11),
	}
	var table bytes.Buffer
	out := &tableOutput{w: &table}
	out.workload(queued, q)
	out.workload(spare, s)
	for _, want := range []string{
		"\nsemaphore contended limit=1 g=8 hold=yield\n" +
			"  8 goroutines each take one unit (TryAcquire; Acquire when that fails), yielding the processor while holding it, and give it back; limit 1; wakeups/op: the share of takes that had to wait\n",
		`  advice line: "a limiter under a standing queue (most takes wait)": 0.986 of evsync's takes waited and 1.000 of xsync's (0.5 or more in both)` + "\n",
		`  advice line: "a limiter with units to spare (few takes wait)": 0.003 of evsync's takes waited and <0.001 of xsync's (under 0.1 in both)` + "\n",
	} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, table.String())
		}
	}
	if err := out.end(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"\n  " + useLimiterQueue + ": pick evsync, ahead of xsync in the one workload (2.00×)\n",
		"\n  " + useLimiterSpare + ": xsync is level with evsync here (1.00×): neither beat the other in every run, so choose by API\n",
	} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("the advice lacks %q:\n%s", want, table.String())
		}
	}

	var js bytes.Buffer
	j := &jsonOutput{enc: json.NewEncoder(&js)}
	j.workload(queued, q)
	j.workload(spare, s)
	var uses []string
	for line := range strings.Lines(js.String()) {
		var row struct{ Situation string }
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatal(err)
		}
		uses = append(uses, row.Situation)
	}
	if want := []string{useLimiterQueue, useLimiterQueue, useLimiterSpare, useLimiterSpare}; !slices.Equal(uses, want) {
		t.Errorf("JSON situations %q, want %q", uses, want)
	}
}
