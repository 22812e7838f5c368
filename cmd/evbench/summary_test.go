package main

import (
	"bytes"
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
