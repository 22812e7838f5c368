package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// The mode advice follows the advice. Where a workload ran evsync in
// eventual-fairness mode beside the strict default (eventualImpl), one
// line per situation says which mode to pick, from this run's verdicts of
// the eventual row against the strict one. The situations are the
// advice's (situationOf): a workload without one has no say here either.
//
// The verdict on an eventual row is the strict row's, as on any variant's
// row: behind means eventual cost less in every run. The lines speak for
// eventual: it won where the strict row is behind, lost where it is ahead.
//   - won in every workload: pick eventual where throughput matters more
//     than arrival order;
//   - won in some, never lost: the same, with the count of each;
//   - level in every workload: neither beat the other, so keep strict
//     FIFO, the default, and its arrival order;
//   - lost in every workload, or in some and never won: keep strict FIFO;
//   - neither won nor lost anywhere (level and unjudged): keep strict FIFO;
//   - won in some and lost in others: it depends, with where;
//   - none judged: no pick, only which mode was cheaper where.

// A modeAdvice is one line of the mode advice: a situation, and the
// eventual rows of its workloads against the strict ones.
type modeAdvice struct {
	use              string
	strict, eventual string     // the rows' impls
	rows             []judgment // eventual against strict, one per workload, in the order they ran
}

// adviseModes builds the mode advice from rs: one line per situation
// whose workloads ran both modes, in the order the situations ran.
func adviseModes(rs []result) []modeAdvice {
	var out []modeAdvice
	byWorkload := workloadsOfResults(rs)
	for _, r := range rs {
		if r.c.impl != eventualImpl || r.skipped {
			continue
		}
		rsw := byWorkload[r.w.name()]
		use := situationOf(r.w, rsw)
		c, ok := compareRow(r, rsw)
		if use == "" || !ok {
			continue
		}
		i := slices.IndexFunc(out, func(a modeAdvice) bool { return a.use == use })
		if i < 0 {
			out = append(out, modeAdvice{use: use, strict: c.Evsync, eventual: c.Other})
			i = len(out) - 1
		}
		out[i].rows = append(out[i].rows, judgment{where: params(r.w), c: c})
	}
	return out
}

// The mode lines' words for the verdicts, said for the eventual row, and
// their order: eventual won where the strict row is behind.
var (
	modeWords = map[verdict]string{behind: "won", level: "level", ahead: "lost", unjudged: "unjudged"}
	modeOrder = []verdict{behind, level, ahead, unjudged}
)

// String is the line: the situation, then which mode to pick.
func (a modeAdvice) String() string {
	m := mixOf(a.rows)
	n, by, won, lost := m.n, m.by, m.behind, m.ahead
	span := fmt.Sprintf("cost %s strict's", m.span())
	mix := fmt.Sprintf("%s against strict %s %s of %s (%s)", a.eventual, a.strict, m.counts(modeOrder, modeWords), count(n, "workload"), span)
	const (
		pickEventual = "pick eventual where throughput matters more than arrival order"
		keepStrict   = "keep strict FIFO, the default"
	)
	var s string
	switch {
	case by[unjudged] == n && m.below == n:
		s = fmt.Sprintf("unjudged, but %s was cheaper than strict %s in %s (%s)", a.eventual, a.strict, every(n), span)
	case by[unjudged] == n && m.above == n:
		s = fmt.Sprintf("unjudged, but strict %s was cheaper than %s in %s (%s)", a.strict, a.eventual, every(n), span)
	case by[unjudged] == n:
		s = fmt.Sprintf("unjudged, but %s was cheaper than strict %s in %d of %s (%s)", a.eventual, a.strict, m.below, count(n, "workload"), span)
	case by[behind] == n:
		s = fmt.Sprintf("%s: %s beat strict %s in every run of %s (%s)", pickEventual, a.eventual, a.strict, every(n), span)
	case by[level] == n:
		s = fmt.Sprintf("the modes are level here (%s): neither beat the other in every run, so %s, and its arrival order", span, keepStrict)
	case by[ahead] == n:
		s = fmt.Sprintf("%s: strict %s beat %s in every run of %s (%s)", keepStrict, a.strict, a.eventual, every(n), span)
	case by[ahead] == 0 && by[behind] > 0:
		s = fmt.Sprintf("%s, never behind strict: %s", pickEventual, mix)
	case by[behind] == 0 && by[ahead] > 0:
		s = fmt.Sprintf("%s, never behind eventual: %s; eventual loses at %s", keepStrict, mix, strings.Join(lost, ", "))
	case by[behind] == 0 && by[ahead] == 0:
		s = fmt.Sprintf("neither mode beat the other in every run, so %s: %s", keepStrict, mix)
	default:
		s = fmt.Sprintf("it depends: %s; eventual wins at %s and loses at %s", mix, strings.Join(won, ", "), strings.Join(lost, ", "))
	}
	return a.use + ": " + s
}

// writeModes writes the mode advice of rs, if any workload ran both
// modes, under a heading that says what each mode promises.
func writeModes(w io.Writer, rs []result) {
	as := adviseModes(rs)
	if len(as) == 0 {
		return
	}
	fmt.Fprintf(w, "\nstrict FIFO (the default) or eventual fairness (WithEventualFairness), from this run's verdicts of %s against strict %s:\n",
		as[0].eventual, as[0].strict)
	fmt.Fprintf(w, "  (strict: waiters are served in arrival order, with a hand-off to a parked waiter per contended take; eventual: a running caller may take\n")
	fmt.Fprintf(w, "  free units ahead of the queue until its oldest waiter has waited %v, then the queue is served in order until none has waited that long;\n", eventualBound)
	fmt.Fprintf(w, "  won: every run of eventual cost less than every run of strict, lost: more)\n")
	for _, a := range as {
		fmt.Fprintf(w, "  %s\n", a)
	}
}
