package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestSeedTableRuns runs every seed row and every sweep row briefly and
// checks the table's heading, columns and one line per row; the figures
// are measurements, not assertions.
func TestSeedTableRuns(t *testing.T) {
	for _, sweep := range []bool{false, true} {
		var out bytes.Buffer
		if err := runSeedTable(&out, seedOpts{d: 5 * time.Millisecond, sweep: sweep, repeat: 2}); err != nil {
			t.Fatal(err)
		}
		text := out.String()
		for _, want := range []string{"seed workload", "medians of 2 runs",
			"wakeups/s", "over floor", "lat p99", "afterfunc", "batch=64"} {
			if want == "afterfunc" && sweep {
				continue
			}
			if !strings.Contains(text, want) {
				t.Errorf("sweep=%v: table lacks %q:\n%s", sweep, want, text)
			}
		}
		if sweep && !strings.Contains(text, "max") {
			t.Errorf("sweep table lacks the unthrottled rows:\n%s", text)
		}
	}
}

// TestLatHistQuantile checks the histogram's buckets bound the samples.
func TestLatHistQuantile(t *testing.T) {
	var h latHist
	if h.quantile(0.5) != -1 {
		t.Fatal("empty histogram has a quantile")
	}
	for i := range 100 {
		h.add(time.Duration(i+1) * time.Microsecond)
	}
	p50, p99 := h.quantile(0.5), h.quantile(0.99)
	if p50 < 50*time.Microsecond || p50 > 57*time.Microsecond {
		t.Errorf("p50 = %v, want about 50µs", p50)
	}
	if p99 < 99*time.Microsecond || p99 > 112*time.Microsecond {
		t.Errorf("p99 = %v, want about 99µs", p99)
	}
}
