package main

import (
	"regexp"
	"testing"
)

// TestAboutAgreesInNumber checks that no workload's description pairs 1
// with a plural ("1 goroutines") or a number above 1 with a singular verb.
func TestAboutAgreesInNumber(t *testing.T) {
	wrong := regexp.MustCompile(`(^|[^0-9.,])1 (goroutine|writer|producer|consumer)s\b|[02-9] (goroutine|writer|producer|consumer)s (takes|calls|Adds)\b`)
	for _, w := range workloadsOf(groupNames(), nil) {
		if m := wrong.FindString(w.about); m != "" {
			t.Errorf("%s: %q in %q", w.name(), m, w.about)
		}
	}
	for _, tc := range []struct {
		n    int
		want string
	}{{1, "1 writer"}, {2, "2 writers"}, {0, "0 writers"}} {
		if got := count(tc.n, "writer"); got != tc.want {
			t.Errorf("count(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

// TestPerOpFormat checks that counts per operation have one format.
func TestPerOpFormat(t *testing.T) {
	for v, want := range map[float64]string{0: "0.000", 2.25e-06: "<0.001", 0.0004: "<0.001", 0.0005: "0.001", 0.417: "0.417", 1.254: "1.254"} {
		if got := perOp(v); got != want {
			t.Errorf("perOp(%v) = %q, want %q", v, got, want)
		}
	}
}
