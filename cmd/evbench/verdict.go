package main

import (
	"math"
	"strconv"
	"strings"
)

// How a row is compared with evsync.
//
// Each workload has one cost column that its ratios divide: ns/op in the
// operation workloads, CPU ns/op in poll deadlines (whose runs last the
// deadlines' span), CPU µs/write in the notify and sweep workloads.
// Lower is better in all. Every row but the reference and the floor is
// compared with one evsync row, its evsync row: the workload's reference
// ("evsync" unless the workload names another). The AfterFunc debouncer
// is the exception: its evsync row is evsync's own 5 ms window, the same
// policy. An evsync variant's row (evsync/...) is compared with the
// reference like any other row. One rule holds on every row, so the
// table, the summary and the JSON rows say it one way.
//
// The ratio rule: the ratio is the row's median divided by its evsync
// row's, both read back from the table's own text. So it is above 1
// exactly when the evsync row's printed figure is the lower one, and 1
// when the two print alike. ratioText never rounds it to 1.00× unless it
// is 1.
//
// The verdict rule: the ratio's interval runs from the row's lowest run
// over the evsync row's highest to the row's highest over the evsync
// row's lowest, as printed. The verdict is the evsync row's: ahead when
// the interval lies above 1, which means every run of the evsync row beat
// every run of the row. It is behind when the interval lies below 1, and
// level otherwise. Each side needs at least minJudgedRuns runs, or the
// row is unjudged. So on a variant's row, behind says that the variant
// beat plain evsync in every run.
//
// Why three runs: if both rows' runs came from one distribution, disjoint
// ranges in a given direction would happen one time in C(6,3) = 20. This
// is the extreme case of the Mann-Whitney test. With two runs each, it
// would happen one time in six.

// minJudgedRuns is how many runs each side of a comparison needs for a
// verdict.
const minJudgedRuns = 3

// A verdict says where a row's evsync row stands against it.
type verdict string

// The verdicts, as the table and the JSON rows spell them.
const (
	ahead    verdict = "ahead"    // every run of the evsync row was cheaper than every run of the other
	behind   verdict = "behind"   // every run of the evsync row was dearer
	level    verdict = "level"    // the runs overlap
	unjudged verdict = "unjudged" // fewer than minJudgedRuns runs on a side
)

// A comparison is how a row's evsync row did against it, on the
// workload's cost column. It is the "vs" object of a JSON row.
type comparison struct {
	Evsync  string  `json:"evsync"`  // the evsync row's impl: the reference, or evsync/delay=5ms for the debouncer
	Other   string  `json:"other"`   // the row's own impl, a variant of evsync included
	Metric  string  `json:"metric"`  // the cost column divided, lower is better
	Ratio   float64 `json:"ratio"`   // the other's median / the evsync row's: above 1, the evsync row is cheaper
	Lo      float64 `json:"lo"`      // the interval from the runs' ranges
	Hi      float64 `json:"hi"`      //
	Verdict verdict `json:"verdict"` // ahead, level, behind or unjudged
}

// costColumn is w's cost column and how the table prints it.
func (w workload) costColumn() (string, func(float64) string) {
	switch {
	case w.kind == notifyKind:
		return mCPUUsPerWrite, fmtUsPerWrite
	case w.cpuCost:
		return mCPUNsPerOp, fmtNsPerOp
	}
	return mNsPerOp, fmtNsPerOp
}

// How the table prints the cost columns.
var (
	fmtNsPerOp    = format("%.1f")
	fmtUsPerWrite = format("%.3f")
)

// cost is the cost of one run of a row of w.
func (w workload) cost(s sample) float64 {
	switch {
	case w.kind == notifyKind:
		return cpuPerWrite(s)
	case w.cpuCost:
		return float64(s.cpu.Nanoseconds()) / float64(s.n.ops)
	}
	return float64(s.wall.Nanoseconds()) / float64(s.n.ops)
}

// printed is s's values as f prints them, read back.
func printed(s stat, f func(float64) string) stat {
	back := func(v float64) float64 {
		x, err := strconv.ParseFloat(f(v), 64)
		if err != nil {
			panic("evbench: a cost column printed a non-number: " + f(v))
		}
		return x
	}
	return stat{back(s.Median), back(s.Min), back(s.Max)}
}

// figure is r's cost column as the table prints it, from its runs.
func figure(r result) (stat, bool) {
	if r.skipped || len(r.runs) == 0 {
		return stat{}, false
	}
	_, f := r.w.costColumn()
	return printed(statOf(perRun(r, r.w.cost)), f), true
}

// floored reports whether w's table has a ÷ floor column: an operation
// workload with a floor, fixed or measured.
func (w workload) floored() bool { return w.kind == opsKind && (w.floor > 0 || w.floorRow != "") }

// isEvsync reports whether impl is evsync, plain or a variant.
func isEvsync(impl string) bool { return impl == "evsync" || strings.HasPrefix(impl, "evsync/") }

// reference is the evsync row the others of w are compared with.
func (w workload) reference() string {
	if w.ref != "" {
		return w.ref
	}
	return "evsync"
}

// pairOf names the evsync row of c's ratio and c's own row, which is
// always other; ok is false for the rows that have none.
func pairOf(w workload, c bench) (ev, other string, ok bool) {
	switch ref := w.reference(); {
	case c.impl == ref || c.impl == floorImpl:
		return "", "", false
	case c.against != "":
		return c.against, c.impl, true
	default:
		return ref, c.impl, true
	}
}

// compareRow is r's comparison; rs is its workload's results. ok is false
// for a row without a ratio, or when a side did not run.
func compareRow(r result, rs []result) (comparison, bool) {
	ev, other, ok := pairOf(r.w, r.c)
	if !ok {
		return comparison{}, false
	}
	e, okE := find(rs, ev)
	o, okO := find(rs, other)
	if !okE || !okO {
		return comparison{}, false
	}
	fe, okE := figure(e)
	fo, okO := figure(o)
	if !okE || !okO || fe.Min <= 0 {
		return comparison{}, false // a cost printed as 0 has no ratio
	}
	metric, _ := r.w.costColumn()
	c := comparison{Evsync: ev, Other: other, Metric: metric}
	c.Ratio, c.Lo, c.Hi = fo.Median/fe.Median, fo.Min/fe.Max, fo.Max/fe.Min
	c.Verdict = judge(c.Lo, c.Hi, min(len(e.runs), len(o.runs)))
	return c, true
}

// find is impl's result in rs.
func find(rs []result, impl string) (result, bool) {
	for _, r := range rs {
		if r.c.impl == impl {
			return r, true
		}
	}
	return result{}, false
}

// judge applies the verdict rule to a ratio's interval [lo, hi] from
// runs runs on the side with fewer.
func judge(lo, hi float64, runs int) verdict {
	switch {
	case runs < minJudgedRuns:
		return unjudged
	case lo > 1:
		return ahead
	case hi < 1:
		return behind
	}
	return level
}

// ratioText prints a ratio with two decimals, two significant digits
// below 0.1, one decimal from 10 on and none from 100 on. Where that would print 1.00 for
// a ratio that is not 1, it adds digits until the text is above or below
// 1 as the ratio is.
func ratioText(r float64) string {
	d := 2
	switch {
	case r >= 100:
		d = 0
	case r >= 10:
		d = 1
	case r > 0 && r < 0.1:
		d = 1 - int(math.Floor(math.Log10(r)))
	}
	for ; ; d++ {
		s := strconv.FormatFloat(r, 'f', d, 64)
		v, _ := strconv.ParseFloat(s, 64)
		if d >= 17 || (v > 1) == (r > 1) && (v < 1) == (r < 1) {
			return s + "×"
		}
	}
}
