package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// The summary closes the table with one line per group. It counts the
// rows that compare evsync with another implementation by verdict, and
// gives each verdict's range of ratios and its alternatives. A second
// line names the printed rows it does not count, and why: evsync's own
// variants (compared with evsync, not alternatives), the ceilings (not
// alternatives), the rows that did not run here and those without a
// ratio. The reference and floor rows have no ratio and are not rows of
// the count either.
//
// The advice ends the run. Each workload stands for a situation a user is
// in (a limiter under a standing queue, a work queue taking batches). One
// line per situation says, from this run's verdicts against the
// workloads' main alternative, whether to pick evsync, the alternative or
// either, or that it depends, and names any other alternative that beat
// evsync there. A contended limiter workload's situation comes from the
// share of takes that waited in this run (waitSituation).

// A groupSummary is one group's line of the summary.
type groupSummary struct {
	group   string
	classes []verdictClass // in the order ahead, level, behind, unjudged; empty ones left out
	left    []leftOut      // the rows not counted, by reason, in the order first met
}

// A verdictClass is the rows of one verdict in a group.
type verdictClass struct {
	verdict verdict
	n       int
	lo, hi  float64     // the least and the greatest ratio
	above   int         // how many ratios are above 1 (said of unjudged rows)
	others  []nameCount // per alternative, in the order they ran
}

// A nameCount is how many rows of a class an alternative has.
type nameCount struct {
	name string
	n    int
}

// addName counts one more row of name in ns.
func addName(ns []nameCount, name string) []nameCount {
	j := slices.IndexFunc(ns, func(o nameCount) bool { return o.name == name })
	if j < 0 {
		return append(ns, nameCount{name: name, n: 1})
	}
	ns[j].n++
	return ns
}

// Why a printed row with a ratio column is not counted.
type leftReason int

const (
	leftVariant     leftReason = iota // evsync's own variant, compared with the reference
	leftCeiling                       // an upper bound, not an alternative
	leftUnsupported                   // it did not run on this platform
	leftNoRatio                       // it ran, but a side has no figure to divide
)

// A leftOut is the rows of a group not counted for one reason.
type leftOut struct {
	reason leftReason
	note   string // the variants' reference; the ceiling's note
	rows   []nameCount
}

// summarize builds the summary of rs, a group's lines in the order the
// groups ran. A group without a comparison with an alternative has a
// line without classes.
func summarize(rs []result) []groupSummary {
	var out []groupSummary
	byWorkload := workloadsOfResults(rs)
	for _, r := range rs {
		if len(out) == 0 || out[len(out)-1].group != r.w.group {
			out = append(out, groupSummary{group: r.w.group})
		}
		g := &out[len(out)-1]
		if r.c.impl == r.w.reference() || r.c.impl == floorImpl {
			continue // no ratio: not a row of the count
		}
		c, ok := compareRow(r, byWorkload[r.w.name()])
		switch {
		case r.skipped:
			g.leave(leftUnsupported, "", r.c.impl)
		case r.c.ceiling:
			g.leave(leftCeiling, r.c.note, r.c.impl)
		case isEvsync(r.c.impl):
			g.leave(leftVariant, r.w.reference(), r.c.impl)
		case !ok:
			g.leave(leftNoRatio, "", r.c.impl)
		default:
			g.add(c)
		}
	}
	for i := range out {
		slices.SortStableFunc(out[i].classes, func(a, b verdictClass) int {
			return slices.Index(verdictOrder, a.verdict) - slices.Index(verdictOrder, b.verdict)
		})
	}
	return out
}

// verdictOrder is the order the summary and the advice give verdicts in.
var verdictOrder = []verdict{ahead, level, behind, unjudged}

// workloadsOfResults groups rs by workload name.
func workloadsOfResults(rs []result) map[string][]result {
	m := map[string][]result{}
	for _, r := range rs {
		m[r.w.name()] = append(m[r.w.name()], r)
	}
	return m
}

// add counts c in its verdict's class.
func (g *groupSummary) add(c comparison) {
	i := slices.IndexFunc(g.classes, func(k verdictClass) bool { return k.verdict == c.Verdict })
	if i < 0 {
		g.classes = append(g.classes, verdictClass{verdict: c.Verdict, lo: c.Ratio, hi: c.Ratio})
		i = len(g.classes) - 1
	}
	k := &g.classes[i]
	k.n++
	k.lo, k.hi = min(k.lo, c.Ratio), max(k.hi, c.Ratio)
	if c.Ratio > 1 {
		k.above++
	}
	k.others = addName(k.others, c.Other)
}

// leave records impl's row as not counted for reason.
func (g *groupSummary) leave(reason leftReason, note, impl string) {
	i := slices.IndexFunc(g.left, func(l leftOut) bool { return l.reason == reason && l.note == note })
	if i < 0 {
		g.left = append(g.left, leftOut{reason: reason, note: note})
		i = len(g.left) - 1
	}
	g.left[i].rows = addName(g.left[i].rows, impl)
}

// String is the line of the summary: "semaphore  32 rows: ahead 19
// (1.21×–80.5×; eventfd 8, xsync 7), level 6 (...), behind 7 (...)".
// Unjudged rows also say how many of their ratios are above 1. The rows
// left out follow on a line of their own.
func (g groupSummary) String() string {
	rows := 0
	var parts []string
	for _, k := range g.classes {
		rows += k.n
		span := ratioSpan(k.lo, k.hi)
		if k.verdict == unjudged {
			span = fmt.Sprintf("%d above 1, %s", k.above, span)
		}
		parts = append(parts, fmt.Sprintf("%s %d (%s; %s)", k.verdict, k.n, span, names(k.others)))
	}
	line := fmt.Sprintf("%-10s %s: %s", g.group, count(rows, "row"), strings.Join(parts, ", "))
	if rows == 0 {
		line = fmt.Sprintf("%-10s no row compares evsync with another implementation", g.group)
	}
	if len(g.left) == 0 {
		return line
	}
	left, n := make([]string, len(g.left)), 0
	for i, l := range g.left {
		left[i] = l.String()
		for _, r := range l.rows {
			n += r.n
		}
	}
	return line + fmt.Sprintf("\n  %-10s not counted, %s: %s", "", count(n, "row"), strings.Join(left, "; "))
}

// String says which rows l holds and why they are not counted.
func (l leftOut) String() string {
	switch l.reason {
	case leftVariant:
		who := names(l.rows)
		if len(l.rows) > 3 {
			who = fmt.Sprintf("those of %d evsync variants", len(l.rows))
		}
		return fmt.Sprintf("%s (evsync's own, compared with %s: not alternatives)", who, l.note)
	case leftCeiling:
		why := "a ceiling, not an alternative"
		if l.note != "" {
			why = l.note
		}
		return fmt.Sprintf("%s (%s)", names(l.rows), why)
	case leftUnsupported:
		return fmt.Sprintf("%s (unsupported here: not run)", names(l.rows))
	}
	return fmt.Sprintf("%s (no ratio: a side has no figure)", names(l.rows))
}

// names is "xsync 2, cond 1".
func names(ns []nameCount) string {
	var who []string
	for _, o := range ns {
		who = append(who, fmt.Sprintf("%s %d", o.name, o.n))
	}
	return strings.Join(who, ", ")
}

// ratioSpan is "1.21–80.5×", or one ratio where lo is hi.
func ratioSpan(lo, hi float64) string {
	if lo == hi {
		return ratioText(lo)
	}
	return strings.TrimSuffix(ratioText(lo), "×") + "–" + ratioText(hi)
}

// An advice is one line of the closing advice: a situation, and how
// evsync did in the workloads that stand for it against their main
// alternative and against the others.
type advice struct {
	use    string
	alt    string     // the main alternative
	ev     string     // the evsync row it is compared with
	rows   []judgment // against alt, one per workload, in the order they ran
	others []altScore // the other alternatives, in the order they ran
}

// A judgment is one workload's comparison, with the workload's
// parameters ("limit=1 g=64") to say where.
type judgment struct {
	where string
	c     comparison
}

// An altScore is how often an alternative other than the main one beat
// evsync in every run (evsync behind), out of the workloads judged.
type altScore struct {
	name           string
	behind, judged int
}

// advise builds the advice from rs: one line per situation, in the order
// the situations ran. Situations whose workloads compared nothing with
// their main alternative have no line.
func advise(rs []result) []advice {
	var out []advice
	byWorkload := workloadsOfResults(rs)
	for _, r := range rs {
		use := situationOf(r.w, byWorkload[r.w.name()])
		if use == "" || r.skipped || r.c.ceiling || isEvsync(r.c.impl) {
			continue
		}
		c, ok := compareRow(r, byWorkload[r.w.name()])
		if !ok {
			continue
		}
		i := slices.IndexFunc(out, func(a advice) bool { return a.use == use })
		if i < 0 {
			out = append(out, advice{use: use, alt: r.w.anchor})
			i = len(out) - 1
		}
		a := &out[i]
		if r.c.impl == a.alt {
			a.ev = c.Evsync
			a.rows = append(a.rows, judgment{where: params(r.w), c: c})
			continue
		}
		j := slices.IndexFunc(a.others, func(s altScore) bool { return s.name == r.c.impl })
		if j < 0 {
			a.others = append(a.others, altScore{name: r.c.impl})
			j = len(a.others) - 1
		}
		if c.Verdict != unjudged {
			a.others[j].judged++
		}
		if c.Verdict == behind {
			a.others[j].behind++
		}
	}
	return slices.DeleteFunc(out, func(a advice) bool { return len(a.rows) == 0 })
}

// situationOf is the situation w stands for in the advice, from rs, its
// results: its use, or for a contended limiter workload the one its
// share of takes that waited gives. "" for none.
func situationOf(w workload, rs []result) string {
	if !w.byWaits {
		return w.use
	}
	ws, ok := waitSituation(w, rs)
	if !ok {
		return ""
	}
	return ws.use
}

// The contended limiter workloads stand for a situation by the share of
// takes that waited (wakeups/op, the median of the runs, as the table
// prints it) in the workload's evsync row and in its main alternative's:
//   - a standing queue where at least queueShare of the takes waited in
//     both: most callers found the queue there;
//   - units to spare where fewer than spareShare waited in both: nine
//     takes in ten or more found a unit free;
//   - light contention otherwise.
//
// Both rows must agree because the advice compares them: a workload is
// under a standing queue only where each side was measured under one. The
// number of goroutines per unit does not decide. With no work while
// holding, many goroutines on a few cores wait for a processor, not for
// the semaphore (0.3 % of takes waited at limit 4 with 8 goroutines).
const (
	queueShare = 0.5
	spareShare = 0.1
)

// A waitShares is a contended workload's situation and the shares of
// takes that waited it comes from.
type waitShares struct {
	use               string
	ev, alt           string  // the evsync row's and the main alternative's impls
	evShare, altShare float64 // their shares, the medians of their runs
}

// waitSituation is the situation of w, a contended limiter workload, by
// the shares of takes that waited in rs, its results. ok is false when
// its evsync row or its main alternative's has no share (it did not run).
func waitSituation(w workload, rs []result) (waitShares, bool) {
	ws := waitShares{ev: w.reference(), alt: w.anchor}
	var ok bool
	if ws.evShare, ok = waitShare(rs, ws.ev); !ok {
		return waitShares{}, false
	}
	if ws.altShare, ok = waitShare(rs, ws.alt); !ok {
		return waitShares{}, false
	}
	e, a := shownShare(ws.evShare), shownShare(ws.altShare)
	switch lo, hi := min(e, a), max(e, a); {
	case lo >= queueShare:
		ws.use = useLimiterQueue
	case hi < spareShare:
		ws.use = useLimiterSpare
	default:
		ws.use = useLimiterSome
	}
	return ws, true
}

// waitShare is the share of takes that waited in impl's row of rs, the
// median of its runs.
func waitShare(rs []result, impl string) (float64, bool) {
	r, ok := find(rs, impl)
	if !ok {
		return 0, false
	}
	m, ok := metrics(r, rs)[mWakeupsPerOp]
	return m.Median, ok
}

// shownShare is a share as the wakeups/op column prints it, read back, so
// that a workload's situation agrees with its printed figures. "<0.001"
// reads as 0: below every threshold.
func shownShare(v float64) float64 {
	x, err := strconv.ParseFloat(perOp(v), 64)
	if err != nil {
		return 0
	}
	return x
}

// String says which advice line the workload counts under, and why:
// `advice line: "a limiter under a standing queue (most takes wait)":
// 0.986 of evsync's takes waited and 0.970 of xsync's (0.5 or more in
// both)`.
func (ws waitShares) String() string {
	var why string
	switch ws.use {
	case useLimiterQueue:
		why = fmt.Sprintf("%s or more in both", shareText(queueShare))
	case useLimiterSpare:
		why = fmt.Sprintf("under %s in both", shareText(spareShare))
	default:
		why = fmt.Sprintf("not %s or more in both, nor under %s in both", shareText(queueShare), shareText(spareShare))
	}
	return fmt.Sprintf("advice line: %q: %s of %s's takes waited and %s of %s's (%s)",
		ws.use, perOp(ws.evShare), ws.ev, perOp(ws.altShare), ws.alt, why)
}

// shareText is a threshold as the advice line says it: "0.5".
func shareText(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// params is w's parameters as its name gives them, or its title for a
// workload without any.
func params(w workload) string {
	var parts []string
	for _, p := range w.params {
		parts = append(parts, p.key+"="+p.value)
	}
	if len(parts) == 0 {
		return w.title
	}
	return strings.Join(parts, " ")
}

// String is the advice's line: the situation, then what to pick. It
// goes by the verdicts against the main alternative, one per workload,
// and the judged ones (ahead, level, behind) decide:
//   - evsync ahead in every workload: pick evsync;
//   - ahead in some, level in the others, never behind: pick evsync, with
//     the count of each (never worse, better somewhere);
//   - level in every workload: neither wins, choose by API;
//   - behind in every workload: evsync loses, pick the alternative;
//   - behind in some, level in the others, never ahead: pick the
//     alternative, with the count of each and where evsync lost;
//   - ahead in some and behind in others: it depends, with the count of
//     each and where evsync won and lost;
//   - none judged (fewer than minJudgedRuns runs): no verdict, only which
//     side was cheaper where.
//
// Unjudged workloads among judged ones do not decide; the counts name
// them. Any other alternative that beat evsync in a workload is named
// after.
func (a advice) String() string {
	m := mixOf(a.rows)
	n, by, span, cheaper, won, lost := m.n, m.by, m.span(), m.above, m.ahead, m.behind
	mix := fmt.Sprintf("%s against %s is %s of %s (%s)", a.ev, a.alt, m.counts(verdictOrder, nil), count(n, "workload"), span)
	var s string
	switch {
	case by[unjudged] == n && cheaper == n:
		s = fmt.Sprintf("unjudged, but %s was cheaper than %s in %s (%s)", a.ev, a.alt, every(n), span)
	case by[unjudged] == n && cheaper == 0:
		s = fmt.Sprintf("unjudged, but %s was cheaper than %s in %s (%s)", a.alt, a.ev, every(n), span)
	case by[unjudged] == n:
		s = fmt.Sprintf("unjudged, but %s was cheaper than %s in %d of %s (%s)", a.ev, a.alt, cheaper, count(n, "workload"), span)
	case by[ahead] == n:
		s = fmt.Sprintf("pick %s, ahead of %s in %s (%s)", a.ev, a.alt, every(n), span)
	case by[level] == n:
		s = fmt.Sprintf("%s is level with %s here (%s): neither beat the other in every run, so choose by API", a.alt, a.ev, span)
	case by[behind] == n:
		s = fmt.Sprintf("%s is ahead of %s in %s (%s): %s loses here, pick %s", a.alt, a.ev, every(n), span, a.ev, a.alt)
	case by[behind] == 0 && by[ahead] > 0:
		s = fmt.Sprintf("pick %s, never behind %s: %s", a.ev, a.alt, mix)
	case by[ahead] == 0 && by[behind] > 0:
		s = fmt.Sprintf("pick %s, never behind %s: %s; %s loses at %s", a.alt, a.ev, mix, a.ev, strings.Join(lost, ", "))
	case by[ahead] == 0 && by[behind] == 0:
		s = fmt.Sprintf("neither beat the other in every run, so choose by API: %s", mix)
	default:
		s = fmt.Sprintf("it depends: %s; %s wins at %s and loses at %s", mix, a.ev, strings.Join(won, ", "), strings.Join(lost, ", "))
	}
	for _, o := range a.others {
		if o.behind > 0 {
			s += fmt.Sprintf("; %s also beat %s in %d of %s", o.name, a.ev, o.behind, count(o.judged, "judged workload"))
		}
	}
	return a.use + ": " + s
}

// A verdictMix is how the workloads of an advice line were judged.
type verdictMix struct {
	n             int
	by            map[verdict]int
	lo, hi        float64  // the least and the greatest ratio
	ahead, behind []string // where the evsync row was ahead, and behind, in run order
	above, below  int      // how many ratios are above 1, and below 1
}

// mixOf counts rows by verdict.
func mixOf(rows []judgment) verdictMix {
	m := verdictMix{n: len(rows), by: map[verdict]int{}}
	for i, j := range rows {
		if i == 0 {
			m.lo, m.hi = j.c.Ratio, j.c.Ratio
		}
		m.lo, m.hi = min(m.lo, j.c.Ratio), max(m.hi, j.c.Ratio)
		m.by[j.c.Verdict]++
		switch j.c.Verdict {
		case ahead:
			m.ahead = append(m.ahead, j.where)
		case behind:
			m.behind = append(m.behind, j.where)
		}
		switch {
		case j.c.Ratio > 1:
			m.above++
		case j.c.Ratio < 1:
			m.below++
		}
	}
	return m
}

// span is the range of the ratios: "0.50–2.00×".
func (m verdictMix) span() string { return ratioSpan(m.lo, m.hi) }

// counts is "ahead in 1, level in 2": the verdicts in order, each said
// as words has it (as itself if absent).
func (m verdictMix) counts(order []verdict, words map[verdict]string) string {
	var parts []string
	for _, v := range order {
		if m.by[v] == 0 {
			continue
		}
		word, ok := words[v]
		if !ok {
			word = string(v)
		}
		parts = append(parts, fmt.Sprintf("%s in %d", word, m.by[v]))
	}
	return strings.Join(parts, ", ")
}

// every is "the one workload", "both workloads" or "all 5 workloads".
func every(n int) string {
	switch n {
	case 1:
		return "the one workload"
	case 2:
		return "both workloads"
	}
	return fmt.Sprintf("all %d workloads", n)
}

// writeSummary writes the summary of rs, then the advice and the mode
// advice.
func writeSummary(w io.Writer, rs []result) {
	gs := summarize(rs)
	if len(gs) == 0 {
		return
	}
	fmt.Fprintf(w, "\nsummary: evsync against the other implementations in this run, row by row\n")
	fmt.Fprintf(w, "  (ratios above 1: evsync is cheaper; ahead: every run of evsync cost less than every run of the row; behind: more)\n")
	unjudgedRows := false
	for _, g := range gs {
		fmt.Fprintf(w, "  %s\n", g)
		unjudgedRows = unjudgedRows || slices.ContainsFunc(g.classes, func(k verdictClass) bool { return k.verdict == unjudged })
	}
	if unjudgedRows {
		fmt.Fprintf(w, "  (unjudged: fewer than %d runs a side, and -quick makes one; -repeat %d or more judges them)\n", minJudgedRuns, minJudgedRuns)
	}
	as := advise(rs)
	if len(as) == 0 {
		return
	}
	fmt.Fprintf(w, "\nwhen to pick evsync, from this run's verdicts against each workload's main alternative:\n")
	for _, a := range as {
		fmt.Fprintf(w, "  %s\n", a)
	}
	writeModes(w, rs)
}
