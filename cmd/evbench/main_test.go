package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestEveryWorkloadRuns runs each case briefly and checks that the table
// has one row per case with the evsync rows present; the figures
// themselves are measurements, not assertions.
func TestEveryWorkloadRuns(t *testing.T) {
	cs := selectCases(workloads(), "")
	rows, err := runAll(cs, 5*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(cs) {
		t.Fatalf("%d rows for %d cases", len(rows), len(cs))
	}
	var out bytes.Buffer
	printTable(&out, rows)
	text := out.String()
	for _, want := range []string{"ops/s", "allocs/op", "wakeups/op", "cpu/wall", "evsync"} {
		if !strings.Contains(text, want) {
			t.Errorf("table lacks %q:\n%s", want, text)
		}
	}
}

func TestMatchSelectsCases(t *testing.T) {
	all := selectCases(workloads(), "")
	some := selectCases(workloads(), "impl=never-matches")
	if len(all) == 0 || len(some) != 0 {
		t.Fatalf("selectCases: %d for all, %d for a non-matching filter", len(all), len(some))
	}
}
