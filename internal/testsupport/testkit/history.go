package testkit

import (
	"fmt"
	"strings"
)

// A History is the steps of one differential run, kept for the failure
// report. The zero value is empty and ready to use.
type History struct{ steps []step }

// step is one call: its kind and, for writes and the initial count, its
// argument.
type step struct {
	kind   string
	v      uint64
	hasArg bool
}

// String formats the step for a failure report.
func (s step) String() string {
	if s.hasArg {
		return fmt.Sprintf("%s(%d)", s.kind, s.v)
	}
	return s.kind
}

// Add records a step without an argument, such as "poll".
func (h *History) Add(kind string) { h.steps = append(h.steps, step{kind: kind}) }

// AddArg records a step with its argument, such as a write's value.
func (h *History) AddArg(kind string, v uint64) { h.steps = append(h.steps, step{kind, v, true}) }

// Len is the number of steps recorded.
func (h *History) Len() int { return len(h.steps) }

// Last formats the last n steps (all, if fewer), each on a line of its own
// after a newline and a tab; the last one is the latest.
func (h *History) Last(n int) string {
	var b strings.Builder
	for _, s := range h.steps[max(0, len(h.steps)-n):] {
		fmt.Fprintf(&b, "\n\t%v", s)
	}
	return b.String()
}
