package main

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
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

// TestEventualRowLetsARunningCallerIn: the eventual row's semaphore lets
// a running caller take a free unit while a waiter is parked, one unit
// short, and the strict row's keeps it for the waiter. Inside the bubble
// the waiter's age stays 0, below the 1 ms bound.
func TestEventualRowLetsARunningCallerIn(t *testing.T) {
	for _, tc := range []struct {
		impl   string
		newSem func(uint64) (anchor.Semaphore, error)
		barges bool
	}{
		{"evsync", anchor.NewEvsyncSemaphore, false},
		{eventualImpl, newEventual, true},
	} {
		t.Run(tc.impl, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s, err := tc.newSem(2)
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				if !s.TryAcquire(1) {
					t.Fatal("TryAcquire on an idle semaphore failed")
				}
				done := make(chan error)
				go func() { done <- s.Acquire(context.Background(), 2) }()
				synctest.Wait() // the waiter is parked, one unit short
				if got := s.TryAcquire(1); got != tc.barges {
					t.Errorf("TryAcquire of the free unit with a waiter parked = %v, want %v", got, tc.barges)
				} else if got {
					s.Release(1)
				}
				s.Release(1) // the waiter's two
				if err := <-done; err != nil {
					t.Fatal(err)
				}
				s.Release(2)
			})
		})
	}
	if _, err := newEventual(0); err == nil {
		t.Error("newEventual(0) succeeded")
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
		s, err := measure(c, 10*time.Millisecond)
		if err != nil {
			t.Fatalf("%s: %v", c.impl, err)
		}
		if s.n.wakeups > s.n.ops {
			t.Errorf("%s: %d takes, %d waited", c.impl, s.n.ops, s.n.wakeups)
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

// TestModeAdviceSaysWhichModeForEachVerdict builds the rows of the two
// standing queues with made-up runs of both evsync modes (and x/sync's,
// which set the situation) and checks the mode advice's line for each mix
// of verdicts of the eventual row against the strict one: every outcome
// the mode advice can print (see modeAdvice.String).
func TestModeAdviceSaysWhichModeForEachVerdict(t *testing.T) {
	var queues []workload
	for _, w := range semaphoreWorkloads() {
		if w.paramN("limit") != 0 && strings.HasSuffix(w.name(), "hold=yield") {
			queues = append(queues, w)
		}
	}
	if len(queues) != 2 {
		t.Fatalf("%d standing queues, want 2", len(queues))
	}
	const use = "  " + useLimiterQueue + ": "
	ev := eventualImpl
	for _, tc := range []struct {
		name     string
		eventual [2][]float64 // per workload; strict's runs are 10, 10, 10
		want     string
	}{
		{"won", [2][]float64{{5, 5, 5}, {4, 5, 6}},
			"pick eventual where throughput matters more than arrival order: " + ev + " beat strict evsync in every run of both workloads (cost 0.50× strict's)"},
		{"level", [2][]float64{{9, 10, 11}, {10, 12, 10}},
			"the modes are level here (cost 1.00× strict's): neither beat the other in every run, so keep strict FIFO, the default, and its arrival order"},
		{"lost", [2][]float64{{20, 20, 20}, {15, 15, 15}},
			"keep strict FIFO, the default: strict evsync beat " + ev + " in every run of both workloads (cost 1.50–2.00× strict's)"},
		{"won and level", [2][]float64{{5, 5, 5}, {9, 10, 11}},
			"pick eventual where throughput matters more than arrival order, never behind strict: " + ev + " against strict evsync won in 1, level in 1 of 2 workloads (cost 0.50–1.00× strict's)"},
		{"lost and level", [2][]float64{{20, 20, 20}, {9, 10, 11}},
			"keep strict FIFO, the default, never behind eventual: " + ev + " against strict evsync level in 1, lost in 1 of 2 workloads (cost 1.00–2.00× strict's); eventual loses at limit=1 g=8 hold=yield"},
		{"level and unjudged", [2][]float64{{9, 10, 11}, {5}},
			"neither mode beat the other in every run, so keep strict FIFO, the default: " + ev + " against strict evsync level in 1, unjudged in 1 of 2 workloads (cost 0.50–1.00× strict's)"},
		{"won and lost", [2][]float64{{5, 5, 5}, {20, 20, 20}},
			"it depends: " + ev + " against strict evsync won in 1, lost in 1 of 2 workloads (cost 0.50–2.00× strict's); eventual wins at limit=1 g=8 hold=yield and loses at limit=4 g=64 hold=yield"},
		{"unjudged, eventual cheaper", [2][]float64{{5}, {8}},
			"unjudged, but " + ev + " was cheaper than strict evsync in both workloads (cost 0.50–0.80× strict's)"},
		{"unjudged, strict cheaper", [2][]float64{{20}, {30}},
			"unjudged, but strict evsync was cheaper than " + ev + " in both workloads (cost 2.00–3.00× strict's)"},
		{"unjudged, split", [2][]float64{{5}, {20}},
			"unjudged, but " + ev + " was cheaper than strict evsync in 1 of 2 workloads (cost 0.50–2.00× strict's)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var rs []result
			for i, w := range queues {
				rs = append(rs,
					waitRuns(w, caseOf(t, w, "evsync"), 1, 10, 10, 10),
					waitRuns(w, caseOf(t, w, eventualImpl), 1, tc.eventual[i]...),
					waitRuns(w, caseOf(t, w, "xsync"), 1, 20, 20, 20))
			}
			var out bytes.Buffer
			writeSummary(&out, rs)
			text := out.String()
			lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
			if last := lines[len(lines)-1]; last != use+tc.want {
				t.Errorf("the run ends with\n%q\nwant\n%q\n%s", last, use+tc.want, text)
			}
			_, modes, ok := strings.Cut(text, "\nstrict FIFO (the default) or eventual fairness (WithEventualFairness), from this run's verdicts of "+ev+" against strict evsync:\n")
			if !ok || strings.Count(modes, "\n  "+useLimiterQueue+": ") != 1 {
				t.Errorf("no heading for the mode advice, or not one line for the standing queue:\n%s", text)
			}
			// The eventual rows are evsync's own: the advice against
			// x/sync does not count them.
			if !strings.Contains(text, "\n  "+useLimiterQueue+": pick evsync, ahead of xsync in both workloads (2.00×)\n") {
				t.Errorf("the advice against x/sync changed:\n%s", text)
			}
		})
	}
}

// TestModeAdviceNeedsBothModes: without an eventual row, or without its
// strict row, there is no mode advice; a situation's line counts only
// the workloads that ran both.
func TestModeAdviceNeedsBothModes(t *testing.T) {
	w := releaseThenWorkWorkload()
	both := []result{
		runsOf(w, caseOf(t, w, "evsync"), 10, 10, 10),
		runsOf(w, caseOf(t, w, eventualImpl), 5, 5, 5),
		runsOf(w, caseOf(t, w, "xsync"), 20, 20, 20),
	}
	as := adviseModes(both)
	if len(as) != 1 || as[0].use != useLimiterBusy || len(as[0].rows) != 1 {
		t.Fatalf("adviseModes = %+v, want one line for %q", as, useLimiterBusy)
	}
	for name, rs := range map[string][]result{
		"no eventual row":  {both[0], both[2]},
		"no strict row":    {both[1], both[2]},
		"eventual skipped": {both[0], {w: w, c: both[1].c, skipped: true}, both[2]},
	} {
		if as := adviseModes(rs); len(as) != 0 {
			t.Errorf("%s: adviseModes = %+v", name, as)
		}
		var out bytes.Buffer
		writeSummary(&out, rs)
		if strings.Contains(out.String(), "eventual fairness") {
			t.Errorf("%s: a mode advice:\n%s", name, out.String())
		}
	}
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
}

// TestReleaseThenWorkEndsWithTheRoundsUnderWay: once stop is set, the
// rounds that hold a unit finish and count, and the callers still queued
// give theirs back at once, uncounted. In a bubble, 10 ms of holds of 1
// ms on 4 units are 40 rounds, and up to 4 more that start at the instant
// stop is set; the run then ends within one hold. A run stopped before
// it starts counts nothing and leaves every unit free.
func TestReleaseThenWorkEndsWithTheRoundsUnderWay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, err := anchor.NewEvsyncSemaphore(rtwLimit)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		var stop atomic.Bool
		done := make(chan tally, 1)
		go func() {
			n, err := releaseThenWork(s, &stop, 1)
			if err != nil {
				t.Error(err)
			}
			done <- n
		}()
		time.Sleep(10 * rtwHold)
		stop.Store(true)
		stopped := time.Now()
		n := <-done
		if d := time.Since(stopped); d > rtwHold {
			t.Errorf("the run ended %v after stop, over one hold (%v)", d, rtwHold)
		}
		if n.ops < 40 || n.ops > 44 || n.wakeups > n.ops {
			t.Errorf("%d rounds, %d waited; want 40 to 44 rounds in 10 holds on 4 units", n.ops, n.wakeups)
		}

		n, err = releaseThenWork(s, &stop, 1)
		if err != nil || n.ops != 0 {
			t.Errorf("a run stopped before it starts: %d rounds, %v", n.ops, err)
		}
		if !s.TryAcquire(rtwLimit) {
			t.Error("a unit is still held after the runs")
		}
		s.Release(rtwLimit)
	})
}
