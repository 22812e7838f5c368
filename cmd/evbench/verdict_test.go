package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// fataler is what the table readers need of a *testing.T or *rapid.T.
type fataler interface {
	Fatalf(format string, args ...any)
}

// tableRow is one row of a printed workload table, cell by column name.
type tableRow map[string]string

// cells splits a table line at its column gaps (two spaces or more).
var cells = regexp.MustCompile(`\s{2,}`)

// parseTable reads the rows of one workload's printed table.
func parseTable(t fataler, text string) []tableRow {
	var header []string
	var rows []tableRow
	for _, line := range strings.Split(text, "\n") {
		fields := cells.Split(strings.TrimSpace(line), -1)
		switch {
		case strings.HasPrefix(line, "  impl  "):
			header = fields
		case header != nil && strings.HasPrefix(line, "  ") && len(fields) > 1:
			if len(fields) != len(header) {
				t.Fatalf("row %q has %d cells for %d columns", line, len(fields), len(header))
			}
			row := tableRow{}
			for i, h := range header {
				row[h] = fields[i]
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// number reads a printed figure, without its spread.
func number(t fataler, cell string) float64 {
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.Fields(cell)[0], "×"), 64)
	if err != nil {
		t.Fatalf("cell %q: %v", cell, err)
	}
	return v
}

// drawRun draws one run of a row of kind k whose cost lands on or near
// a printed step, so that printed figures often tie.
func drawRun(t *rapid.T, k kind, label string) sample {
	const ops = 1000
	steps := rapid.IntRange(1, 40).Draw(t, label+" steps")
	jitter := rapid.IntRange(0, 99).Draw(t, label+" jitter")
	s := sample{n: tally{ops: ops, wakeups: 1}, wall: time.Second, cpu: time.Second / 2}
	if k == notifyKind { // µs/write in thousandths
		s.cpu = time.Duration(steps*ops + jitter*ops/100)
	} else { // ns/op in tenths
		s.wall = time.Duration(steps*ops/10 + jitter)
	}
	return s
}

// printedCost is one run's cost as the table prints it.
func printedCost(w workload, s sample) float64 {
	_, f := w.costColumn()
	v, _ := strconv.ParseFloat(f(w.cost(s)), 64)
	return v
}

// TestRatioAgreesWithPrintedFigures prints the table of made-up runs of
// every row type (an alternative, an evsync variant, the reference, a
// ceiling, the floor, the debouncer paired with evsync's window) and
// checks the ratio rule and the verdict rule on the printed text.
func TestRatioAgreesWithPrintedFigures(t *testing.T) {
	kinds := []workload{semaphoreWorkloads()[0], readyqWorkloads()[0], observedWorkload(writersN), notifyWorkloads()[0], crossWorkload(crossN)}
	perOpCell := regexp.MustCompile(`^(\d+\.\d{3}|<0\.001|-)$`)
	rapid.Check(t, func(t *rapid.T) {
		w := rapid.SampledFrom(kinds).Draw(t, "workload")
		n := rapid.IntRange(1, 6).Draw(t, "runs")
		var rs []result
		for _, c := range w.cases {
			r := result{w: w, c: c, d: time.Second}
			for i := range n {
				r.runs = append(r.runs, drawRun(t, w.kind, fmt.Sprintf("%s %d", c.impl, i)))
			}
			rs = append(rs, r)
		}
		var out bytes.Buffer
		(&tableOutput{w: &out}).workload(w, rs)
		rows := parseTable(t, out.String())
		if len(rows) != len(rs) {
			t.Fatalf("%d rows for %d cases:\n%s", len(rows), len(rs), out.String())
		}
		costCol := "ns/op"
		if w.kind == notifyKind {
			costCol = "µs/write"
		}
		byImpl := map[string]tableRow{}
		for i, row := range rows {
			byImpl[rs[i].c.impl] = row
		}
		for i, r := range rs {
			row := rows[i]
			for _, col := range []string{"allocs/op", "wakeups/op"} {
				if c, ok := row[col]; ok && !perOpCell.MatchString(c) {
					t.Fatalf("%s: %s cell %q", r.c.impl, col, c)
				}
			}
			ev, other, ok := pairOf(w, r.c)
			if !ok {
				if row["ratio"] != "ref" && row["ratio"] != "-" || row["verdict"] != "-" {
					t.Fatalf("%s: a row without a pair printed %q %q", r.c.impl, row["ratio"], row["verdict"])
				}
				continue
			}
			e, o := number(t, byImpl[ev][costCol]), number(t, byImpl[other][costCol])
			ratio := number(t, row["ratio"])
			if (ratio > 1) != (e < o) || (ratio < 1) != (e > o) {
				t.Fatalf("%s: ratio %s, yet evsync's %s is %v against %v:\n%s", r.c.impl, row["ratio"], costCol, e, o, out.String())
			}
			checkVerdict(t, w, rs, ev, other, row["verdict"])
		}
		if w.floorRow != "" {
			floor := number(t, byImpl[w.floorRow][costCol])
			for impl, row := range byImpl {
				want := "-"
				if impl != w.floorRow {
					want = ratioText(number(t, row[costCol]) / floor)
				}
				if got := row["÷ floor"]; got != want {
					t.Fatalf("%s: ÷ floor %q, but its figure over the floor row's is %s:\n%s", impl, got, want, out.String())
				}
			}
		}
		if w.kind == notifyKind {
			floor := number(t, byImpl[floorImpl][costCol])
			for impl, row := range byImpl {
				if impl == floorImpl {
					continue
				}
				want := math.Round((number(t, row[costCol])-floor)*1e3) / 1e3
				if got := number(t, row["over floor"]); got != want {
					t.Fatalf("%s: over floor %v, but its figure minus the floor's is %v", impl, got, want)
				}
			}
		}
	})
}

// checkVerdict checks a printed verdict against the runs: ahead when
// every run of ev printed a lower cost than every run of other, behind
// when higher, "-" with fewer than three runs, level otherwise.
func checkVerdict(t *rapid.T, w workload, rs []result, ev, other, got string) {
	e, _ := find(rs, ev)
	o, _ := find(rs, other)
	want := "-"
	if len(e.runs) >= 3 && len(o.runs) >= 3 {
		lower, higher := true, true
		for _, a := range e.runs {
			for _, b := range o.runs {
				ca, cb := printedCost(w, a), printedCost(w, b)
				lower = lower && ca < cb
				higher = higher && ca > cb
			}
		}
		want = map[[2]bool]string{{true, false}: "ahead", {false, true}: "behind", {false, false}: "level"}[[2]bool{lower, higher}]
	}
	if got != want {
		t.Fatalf("%s against %s: verdict %q, want %q", ev, other, got, want)
	}
}

// TestRatioText checks that a ratio's text is above, at or below 1 as the
// ratio is, with two decimals where those suffice.
func TestRatioText(t *testing.T) {
	for r, want := range map[float64]string{1: "1.00×", 1.52: "1.52×", 0.87: "0.87×", 1.00096: "1.001×",
		0.9996: "0.9996×", 0.0043: "0.0043×", 0.061: "0.061×", 18.19: "18.2×", 349.04: "349×", 0.1: "0.10×"} {
		if got := ratioText(r); got != want {
			t.Errorf("ratioText(%v) = %q, want %q", r, got, want)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		r := rapid.Float64Range(1e-6, 1e6).Draw(t, "ratio")
		v, err := strconv.ParseFloat(strings.TrimSuffix(ratioText(r), "×"), 64)
		if err != nil || (v > 1) != (r > 1) || (v < 1) != (r < 1) {
			t.Fatalf("ratioText(%v) = %q", r, ratioText(r))
		}
	})
}

// TestJudge checks the verdict rule at its edges.
func TestJudge(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		runs   int
		want   verdict
	}{
		{1.01, 2, 3, ahead},
		{1, 2, 3, level}, // the best run of the other tied the worst of evsync
		{0.5, 0.99, 6, behind},
		{0.5, 1, 3, level},
		{0.9, 1.1, 3, level},
		{1.5, 2, 2, unjudged},
		{1.5, 2, 1, unjudged},
	} {
		if got := judge(tc.lo, tc.hi, tc.runs); got != tc.want {
			t.Errorf("judge(%v, %v, %d runs) = %s, want %s", tc.lo, tc.hi, tc.runs, got, tc.want)
		}
	}
}

// runsOf is n runs of a row of w, each of the given ns/op (opsKind).
func runsOf(w workload, c bench, ns ...float64) result {
	r := result{w: w, c: c, d: time.Second}
	for _, v := range ns {
		r.runs = append(r.runs, sample{n: tally{ops: 1000}, wall: time.Duration(v * 1000), cpu: time.Millisecond})
	}
	return r
}

// TestSummary checks the summary's lines: one per group, the rows
// counted by verdict with their ratios and alternatives, the ceilings
// and evsync's own variants left out, unjudged rows said so.
func TestSummary(t *testing.T) {
	sem := semaphoreWorkloads()[0] // evsync, xsync, chan, cond, eventfd
	rq := readyqWorkloads()[0]     // evsync, evsync/workqueue, mutex, chan (a ceiling)
	obs := observedWorkload(writersN)
	rs := []result{
		runsOf(sem, sem.cases[0], 10, 10, 10),
		runsOf(sem, sem.cases[1], 20, 21, 19), // xsync: ahead 2.00×
		runsOf(sem, sem.cases[2], 12, 9, 10),  // chan: level 1.00×
		runsOf(sem, sem.cases[3], 5, 5, 6),    // cond: behind 0.50×
		{w: sem, c: sem.cases[4], skipped: true},
		runsOf(rq, rq.cases[0], 10, 10, 10),
		runsOf(rq, rq.cases[1], 12, 12, 12), // evsync/workqueue: evsync's own, left out
		runsOf(rq, rq.cases[2], 30, 30, 30), // mutex: ahead 3.00×
		runsOf(rq, rq.cases[3], 1, 1, 1),    // chan: left out
		runsOf(obs, obs.cases[0], 10, 10, 10),
		runsOf(obs, obs.cases[1], 20, 20, 20),
	}
	var out bytes.Buffer
	writeSummary(&out, rs)
	for _, want := range []string{
		"\n  semaphore  3 rows: ahead 1 (2.00×; xsync 1), level 1 (1.00×; chan 1), behind 1 (0.50×; cond 1)\n",
		"\n  readyq     1 row: ahead 1 (3.00×; mutex 1)\n",
		"\n  signal     no row compares evsync with another implementation\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the summary lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "unjudged") {
		t.Errorf("three runs a side, yet unjudged rows:\n%s", out.String())
	}
	out.Reset()
	writeSummary(&out, []result{runsOf(sem, sem.cases[0], 10), runsOf(sem, sem.cases[1], 20), runsOf(sem, sem.cases[2], 40), runsOf(sem, sem.cases[3], 5)})
	for _, want := range []string{"  semaphore  3 rows: unjudged 3 (2 above 1, 0.50–4.00×; xsync 1, chan 1, cond 1)\n", "fewer than 3 runs a side"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("one run a side: the summary lacks %q:\n%s", want, out.String())
		}
	}
}

// TestVariantRowSaysItTheHeadersWay: on an evsync variant's row, the
// ratio and the verdict follow the one rule the heading states (the row's
// cost over its evsync row's; ahead when every run of the evsync row cost
// less), in the table and in the JSON row. A variant cheaper than the
// reference is below 1 and behind, not ahead.
func TestVariantRowSaysItTheHeadersWay(t *testing.T) {
	obs := observedWorkload(writersN) // observer=off (the reference), on, control
	rs := []result{
		runsOf(obs, obs.cases[0], 10, 10, 10),
		runsOf(obs, obs.cases[1], 5, 5, 5),    // on: cheaper than the reference
		runsOf(obs, obs.cases[2], 20, 21, 19), // control: dearer
	}
	var out bytes.Buffer
	tab := &tableOutput{w: &out}
	tab.begin(planOf([]workload{obs}, config{repeat: 3}), config{})
	for _, rule := range []string{"the row's cost divided by its evsync row's", "ahead: every run of the evsync row cost less\n               than every run of the row"} {
		if !strings.Contains(out.String(), rule) {
			t.Fatalf("the heading does not state %q:\n%s", rule, out.String())
		}
	}
	out.Reset()
	tab.workload(obs, rs)
	rows := parseTable(t, out.String())
	want := map[string][2]string{
		"evsync/observer=off":     {"ref", "-"},
		"evsync/observer=on":      {"0.50×", "behind"},
		"evsync/observer=control": {"2.00×", "ahead"},
	}
	for _, row := range rows {
		if w := want[row["impl"]]; row["ratio"] != w[0] || row["verdict"] != w[1] {
			t.Errorf("%s: ratio %s, verdict %s; want %s, %s", row["impl"], row["ratio"], row["verdict"], w[0], w[1])
		}
	}
	out.Reset()
	j := &jsonOutput{enc: json.NewEncoder(&out)}
	j.workload(obs, rs)
	for line := range strings.Lines(out.String()) {
		var row struct {
			Impl string
			Vs   *comparison
		}
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatal(err)
		}
		w := want[row.Impl]
		if row.Vs == nil {
			if w[0] != "ref" {
				t.Errorf("%s: no vs", row.Impl)
			}
			continue
		}
		if row.Vs.Other != row.Impl || row.Vs.Evsync != obs.reference() || ratioText(row.Vs.Ratio) != w[0] || string(row.Vs.Verdict) != w[1] {
			t.Errorf("%s: vs %+v, want other %s, evsync %s, ratio %s, verdict %s", row.Impl, *row.Vs, row.Impl, obs.reference(), w[0], w[1])
		}
	}
}
