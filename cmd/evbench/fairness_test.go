package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evsync/evsync/internal/testsupport/anchor"
)

// TestEventualRowsStandBesideStrict: the eventual row runs, right after
// the strict evsync row, in the contended workloads where takes queue
// (limit 1 with 8 goroutines, and the two standing queues) and in
// ReleaseThenWork, and nowhere else; the scaling group has none.
func TestEventualRowsStandBesideStrict(t *testing.T) {
	want := []string{
		"semaphore contended limit=1 g=8",
		"semaphore contended limit=1 g=8 hold=yield",
		"semaphore contended limit=4 g=64 hold=yield",
		"semaphore release-then-work limit=4 g=100 hold=1ms work=500µs",
	}
	var got []string
	for _, w := range workloadsOf(groupNames(), nil) {
		i := slices.IndexFunc(w.cases, func(c bench) bool { return c.impl == eventualImpl })
		if i < 0 {
			continue
		}
		got = append(got, w.name())
		if i == 0 || w.cases[i-1].impl != "evsync" || w.reference() != "evsync" {
			t.Errorf("%s: the eventual row is not right after the strict evsync row, its reference", w.name())
		}
		if !strings.Contains(w.about, eventualImpl+": evsync with WithEventualFairness(1ms)") {
			t.Errorf("%s: the about does not say what %s is: %q", w.name(), eventualImpl, w.about)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("workloads with an eventual row:\n%q\nwant\n%q", got, want)
	}
}

// TestReleaseThenWorkNeverBeatsTheFloor runs ReleaseThenWork briefly on
// every implementation it lists and checks the floor the table divides
// by: no run completes a take faster than hold ÷ limit, since each take
// holds one of limit units for at least hold.
func TestReleaseThenWorkNeverBeatsTheFloor(t *testing.T) {
	w := releaseThenWorkWorkload()
	if w.floor != 250*time.Microsecond {
		t.Fatalf("floor %v, want 1ms ÷ 4", w.floor)
	}
	if impls := implsOf(w); !slices.Equal(impls, []string{"evsync", eventualImpl, "xsync", "chan", "cond"}) {
		t.Errorf("impls %q", impls)
	}
	for _, c := range w.cases {
		s, err := measure(c, 5*time.Millisecond)
		if err != nil {
			t.Fatalf("%s: %v", c.impl, err)
		}
		if s.n.ops < rtwGoroutines || s.n.wakeups > s.n.ops {
			t.Errorf("%s: %d takes, %d waited: every goroutine takes at least once", c.impl, s.n.ops, s.n.wakeups)
		}
		if perOp := s.wall / time.Duration(s.n.ops); perOp < w.floor {
			t.Errorf("%s: %v per take, under the floor %v", c.impl, perOp, w.floor)
		}
	}
}

// TestReleaseThenWorkFloorColumn: ReleaseThenWork's table says its floor
// and has a ÷ floor column, the row's ns/op as printed over the floor;
// its JSON rows carry floor_ns and per_floor. Other workloads have
// neither.
func TestReleaseThenWorkFloorColumn(t *testing.T) {
	w := releaseThenWorkWorkload()
	rs := []result{
		runsOf(w, caseOf(t, w, "evsync"), 500000, 500000, 500000),
		runsOf(w, caseOf(t, w, eventualImpl), 300000, 275000, 310000),
		runsOf(w, caseOf(t, w, "xsync"), 520000, 510000, 530000),
	}
	var out bytes.Buffer
	tab := &tableOutput{w: &out}
	tab.begin(planOf([]workload{w}, config{repeat: 3}), config{})
	tab.workload(w, rs)
	text := out.String()
	for _, want := range []string{
		"\n  ÷ floor      ns/op over the workload's floor",
		"\n  floor: 250µs per operation (250000.0 ns/op), hold 1ms ÷ limit 4: no limiter does better",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the table lacks %q:\n%s", want, text)
		}
	}
	_, section, _ := strings.Cut(text, "\nsemaphore release-then-work")
	want := map[string]string{"evsync": "2.00×", eventualImpl: "1.20×", "xsync": "2.08×"}
	for _, row := range parseTable(t, section) {
		if row["÷ floor"] != want[row["impl"]] {
			t.Errorf("%s: ÷ floor %q, want %q", row["impl"], row["÷ floor"], want[row["impl"]])
		}
	}
	out.Reset()
	j := &jsonOutput{enc: json.NewEncoder(&out)}
	j.workload(w, rs)
	for line := range strings.Lines(out.String()) {
		var row struct {
			Impl     string
			FloorNs  float64 `json:"floor_ns"`
			PerFloor *stat   `json:"per_floor"`
		}
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatal(err)
		}
		if row.FloorNs != 250000 || row.PerFloor == nil || ratioText(row.PerFloor.Median) != want[row.Impl] {
			t.Errorf("JSON row: floor_ns %v, per_floor %+v; want 250000 and %s: %s", row.FloorNs, row.PerFloor, want[row.Impl], line)
		}
	}

	other := semaphoreWorkloads()[0]
	out.Reset()
	tab = &tableOutput{w: &out}
	tab.begin(planOf([]workload{other}, config{repeat: 3}), config{})
	tab.workload(other, []result{runsOf(other, other.cases[0], 10, 10, 10)})
	if strings.Contains(out.String(), "floor") {
		t.Errorf("a workload without a floor shows one:\n%s", out.String())
	}
}

// implsOf is w's impls, in order.
func implsOf(w workload) []string {
	var impls []string
	for _, c := range w.cases {
		impls = append(impls, c.impl)
	}
	return impls
}

// TestWorkRoundsLastTheWork: the work loop runs rounds of xorshift, and
// workRounds finds a positive count of them; the loop never reaches 0
// from a non-zero start, so the check that keeps it is never the error.
func TestWorkRoundsLastTheWork(t *testing.T) {
	if n := workRounds(); n < 1 {
		t.Fatalf("workRounds() = %d", n)
	}
	x := uint64(1)
	for range 1000 {
		if x = spin(x, 1); x == 0 {
			t.Fatal("xorshift reached 0")
		}
	}
	var stop atomic.Bool
	stop.Store(true)
	s, err := anchor.NewEvsyncSemaphore(rtwLimit)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n, err := releaseThenWork(s, &stop, 1)
	if err != nil || n.ops != rtwGoroutines {
		t.Errorf("a run stopped before it starts: %d takes, %v; want one per goroutine", n.ops, err)
	}
}
