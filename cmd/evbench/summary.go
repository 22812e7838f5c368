package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// The summary closes the table with one line per group. It counts the
// rows that compare evsync with another implementation by verdict, and
// gives each verdict's range of ratios and its alternatives. It leaves
// out the rows that compare evsync with itself (variants, observers) and
// the ceilings, which are not alternatives.

// A groupSummary is one group's line of the summary.
type groupSummary struct {
	group   string
	classes []verdictClass // in the order ahead, level, behind, unjudged; empty ones left out
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

// summarize builds the summary of rs, a group's lines in the order the
// groups ran. A group without a comparison with an alternative has a
// line without classes.
func summarize(rs []result) []groupSummary {
	var out []groupSummary
	byWorkload := map[string][]result{}
	for _, r := range rs {
		byWorkload[r.w.name()] = append(byWorkload[r.w.name()], r)
	}
	for _, r := range rs {
		if len(out) == 0 || out[len(out)-1].group != r.w.group {
			out = append(out, groupSummary{group: r.w.group})
		}
		c, ok := compareRow(r, byWorkload[r.w.name()])
		if !ok || isEvsync(c.Other) || r.c.ceiling {
			continue
		}
		out[len(out)-1].add(c)
	}
	order := []verdict{ahead, level, behind, unjudged}
	for i := range out {
		slices.SortStableFunc(out[i].classes, func(a, b verdictClass) int {
			return slices.Index(order, a.verdict) - slices.Index(order, b.verdict)
		})
	}
	return out
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
	j := slices.IndexFunc(k.others, func(o nameCount) bool { return o.name == c.Other })
	if j < 0 {
		k.others = append(k.others, nameCount{name: c.Other})
		j = len(k.others) - 1
	}
	k.others[j].n++
}

// String is the line of the summary: "semaphore  32 rows: ahead 19
// (1.21×–80.5×; eventfd 8, xsync 7), level 6 (...), behind 7 (...)".
// Unjudged rows also say how many of their ratios are above 1.
func (g groupSummary) String() string {
	rows := 0
	var parts []string
	for _, k := range g.classes {
		rows += k.n
		span := ratioText(k.lo)
		if k.hi != k.lo {
			span = strings.TrimSuffix(span, "×") + "–" + ratioText(k.hi)
		}
		var who []string
		for _, o := range k.others {
			who = append(who, fmt.Sprintf("%s %d", o.name, o.n))
		}
		if k.verdict == unjudged {
			span = fmt.Sprintf("%d above 1, %s", k.above, span)
		}
		parts = append(parts, fmt.Sprintf("%s %d (%s; %s)", k.verdict, k.n, span, strings.Join(who, ", ")))
	}
	if rows == 0 {
		return fmt.Sprintf("%-10s no row compares evsync with another implementation", g.group)
	}
	return fmt.Sprintf("%-10s %s: %s", g.group, count(rows, "row"), strings.Join(parts, ", "))
}

// writeSummary writes the summary of rs.
func writeSummary(w io.Writer, rs []result) {
	gs := summarize(rs)
	if len(gs) == 0 {
		return
	}
	fmt.Fprintf(w, "\nsummary: evsync against the other implementations in this run, row by row\n")
	fmt.Fprintf(w, "  (ratios above 1: evsync is cheaper; ahead or behind: every run of one cost less than every run of the other)\n")
	unjudgedRows := false
	for _, g := range gs {
		fmt.Fprintf(w, "  %s\n", g)
		unjudgedRows = unjudgedRows || slices.ContainsFunc(g.classes, func(k verdictClass) bool { return k.verdict == unjudged })
	}
	if unjudgedRows {
		fmt.Fprintf(w, "  (unjudged: fewer than %d runs a side, and -quick makes one; -repeat %d or more judges them)\n", minJudgedRuns, minJudgedRuns)
	}
}
