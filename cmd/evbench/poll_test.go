package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/internal/testsupport/anchor"
)

// TestDefaultRunKeepsPollsHeadline: without -workloads, the run has every
// workload of the semaphore, readyq, signal and notify groups and, of the
// poll group, only its headline, one ready among 10,000. Naming the poll
// group, even in a list equal to the default one, runs all of it.
func TestDefaultRunKeepsPollsHeadline(t *testing.T) {
	names := func(args ...string) []string {
		t.Helper()
		cfg, err := parseConfig(args, new(bytes.Buffer))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, w := range cfg.workloads() {
			out = append(out, w.name())
		}
		return out
	}
	var want []string
	for _, w := range workloadsOf([]string{"semaphore", "readyq", "signal", "notify"}, nil) {
		want = append(want, w.name())
	}
	want = append(want, "poll wait n=10000")
	if got := names(); !slices.Equal(got, want) {
		t.Errorf("the default run's workloads:\n%q\nwant\n%q", got, want)
	}
	if got := names("-quick", "-json"); !slices.Equal(got, want) {
		t.Errorf("-quick -json: %q, want the default run's", got)
	}
	var poll []string
	for _, w := range pollWorkloads() {
		poll = append(poll, w.name())
	}
	if got := names("-workloads", "poll"); !slices.Equal(got, poll) {
		t.Errorf("-workloads poll: %q, want the group's workloads %q", got, poll)
	}
	if got := names("-workloads", strings.Join(defaultGroups, ",")); len(got) != len(want)-1+len(poll) {
		t.Errorf("-workloads naming the default groups runs %d workloads, want every one of them (%d)", len(got), len(want)-1+len(poll))
	}
	if got := names("-match", "poll"); !slices.Equal(got, []string{"poll wait n=10000"}) {
		t.Errorf("-match poll in the default run: %q, want the headline only", got)
	}
}

// TestDefaultRunSaysWhatItKeeps: the default run's table says which poll
// workload it keeps and how to run them all; a run of the whole group
// does not.
func TestDefaultRunSaysWhatItKeeps(t *testing.T) {
	note := fmt.Sprintf(`poll: the default run keeps "poll wait n=10000" of its %d workloads; -workloads poll runs them all`, len(pollWorkloads()))
	for _, tc := range []struct {
		args []string
		says bool
	}{
		{[]string{"-match", "poll wait n=10000 impl=evsync", "-duration", "2ms", "-repeat", "1"}, true},
		{[]string{"-workloads", "poll", "-match", "poll wait n=10 impl=evsync", "-duration", "2ms", "-repeat", "1"}, false},
	} {
		cfg, err := parseConfig(tc.args, new(bytes.Buffer))
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := run(cfg, &out, new(bytes.Buffer)); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(out.String(), "\n"+note+"\n"); got != tc.says {
			t.Errorf("%q: says %q: %v, want %v:\n%s", tc.args, note, got, tc.says, out.String())
		}
		if !strings.Contains(out.String(), "\ncolumns (poll):\n") {
			t.Errorf("%q: the columns' heading does not name the poll group:\n%s", tc.args, out.String())
		}
	}
}

// TestCrossRowsTimeTheWake runs the cross workload briefly: every row
// that ran has wake latencies (p50 at most p99) and, but the floor row,
// a ÷ floor figure over chan-pingpong's; the floor row is left out of
// the summary as not an alternative.
func TestCrossRowsTimeTheWake(t *testing.T) {
	cfg := short("json", "poll")
	cfg.match = "across"
	var out bytes.Buffer
	if err := run(cfg, &out, new(bytes.Buffer)); err != nil {
		t.Fatal(err)
	}
	var impls []string
	for line := range strings.Lines(out.String()) {
		var row struct {
			Impl        string
			FloorImpl   string `json:"floor_impl"`
			Unsupported bool
			PerFloor    *stat       `json:"per_floor"`
			P50         *stat       `json:"lat_p50_ns"`
			P99         *stat       `json:"lat_p99_ns"`
			Vs          *comparison `json:"vs"`
		}
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		impls = append(impls, row.Impl)
		if row.FloorImpl != crossFloor {
			t.Errorf("floor_impl %q, want %q: %s", row.FloorImpl, crossFloor, line)
		}
		if row.Unsupported {
			continue
		}
		if row.P50 == nil || row.P99 == nil || row.P50.Median <= 0 || row.P50.Median > row.P99.Median {
			t.Errorf("no wake latencies, or p50 above p99: %s", line)
		}
		if (row.PerFloor == nil) != (row.Impl == crossFloor) {
			t.Errorf("per_floor %v on the %s row: only the floor row has none: %s", row.PerFloor, row.Impl, line)
		}
		if row.Impl != "evsync" && row.Vs == nil {
			t.Errorf("a row without vs: %s", line)
		}
	}
	if want := []string{"evsync", crossFloor, crossFanIn, "epoll"}; !slices.Equal(impls, want) {
		t.Errorf("rows %q, want %q", impls, want)
	}
	cfg.format = "table"
	out.Reset()
	if err := run(cfg, &out, new(bytes.Buffer)); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{"  impl  ", "÷ floor", "p50", "p99", "floor: the chan-pingpong row's ns/op",
		"not counted, 1 row: chan-pingpong 1 (one channel, no sources: the floor, not an alternative)"} {
		if !strings.Contains(text, want) {
			t.Errorf("the table lacks %q:\n%s", want, text)
		}
	}
}

// fakeCross is an anchor.Poller over one channel in a synctest bubble: a
// write takes writeDelay before it sends, the wait takes wakeDelay after
// it receives to return, and the read readDelay.
func fakeCross(n int, writeDelay, wakeDelay, readDelay time.Duration, answer func(i int) int) anchor.Poller {
	ping := make(chan int)
	var once sync.Once
	return anchor.Poller{N: n,
		Write: func(i int) error { time.Sleep(writeDelay); ping <- i; return nil },
		Wait: func() (int, error) {
			k, ok := <-ping
			if !ok {
				return 0, anchor.ErrEnded
			}
			time.Sleep(wakeDelay)
			return answer(k), nil
		},
		Read: func(int) error { time.Sleep(readDelay); return nil },
		End:  func() { once.Do(func() { close(ping) }) },
		Free: func() {},
	}
}

// TestCrossLatencyIsWriteToWake: on synctest's clock, a write that takes
// 2µs, a wait that returns 3µs after it and a read that takes 50µs more
// give a latency of exactly 5µs: the clock runs from the start of the
// write to the wait's return, and the read is not in it. One batch of
// round trips runs.
func TestCrossLatencyIsWriteToWake(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var stop atomic.Bool
		stop.Store(true) // one batch
		cw := fakeCross(10, 2*time.Microsecond, 3*time.Microsecond, 50*time.Microsecond, func(i int) int { return i })
		n, err := crossRounds(cw, &stop)
		if err != nil {
			t.Fatal(err)
		}
		if n.ops != batch || n.lat.TotalCount() != batch {
			t.Errorf("%d ops, %d latencies; want %d each", n.ops, n.lat.TotalCount(), batch)
		}
		if lo, hi := n.lat.Min(), n.lat.Max(); !n.lat.ValuesAreEquivalent(lo, 5000) || !n.lat.ValuesAreEquivalent(hi, 5000) {
			t.Errorf("latencies from %dns to %dns, want 5µs", lo, hi)
		}
	})
}

// TestCrossRoundsFailsAWrongAnswer: a waiter that answers another source
// than the one written, or whose wait fails, fails the run, which still
// ends its goroutine (goleak checks).
func TestCrossRoundsFailsAWrongAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var stop atomic.Bool
		cw := fakeCross(10, 0, 0, 0, func(i int) int { return (i + 1) % 10 })
		if _, err := crossRounds(cw, &stop); err == nil || !strings.Contains(err.Error(), "answered 1 (open true) after a write to 0") {
			t.Errorf("a wrong answer: err %v", err)
		}
		broken := errors.New("broken wait")
		cw = fakeCross(10, 0, 0, 0, func(i int) int { return i })
		cw.Read = func(int) error { return broken }
		if _, err := crossRounds(cw, &stop); !errors.Is(err, broken) {
			t.Errorf("a failed read: err %v, want it to carry %v", err, broken)
		}
	})
}

// TestCrossFloorColumn: the cross workload's ÷ floor is each row's ns/op
// as printed over the chan-pingpong row's, as the ratio's interval, and
// the floor row has none.
func TestCrossFloorColumn(t *testing.T) {
	w := crossWorkload(crossN)
	rs := []result{
		runsOf(w, caseOf(t, w, "evsync"), 900, 1000, 1100),
		runsOf(w, caseOf(t, w, crossFloor), 400, 500, 600),
		runsOf(w, caseOf(t, w, crossFanIn), 1500, 1500, 1500),
	}
	want := map[string]stat{"evsync": {2, 1.5, 2.75}, crossFanIn: {3, 2.5, 3.75}}
	for _, r := range rs {
		got, ok := metrics(r, rs)[mPerFloor]
		if w, has := want[r.c.impl]; ok != has || got != w {
			t.Errorf("%s: per_floor %+v (%v), want %+v (%v)", r.c.impl, got, ok, w, has)
		}
	}
	var out bytes.Buffer
	(&tableOutput{w: &out}).workload(w, rs)
	for _, row := range parseTable(t, out.String()) {
		cell := "-"
		if s, ok := want[row["impl"]]; ok {
			cell = ratioText(s.Median)
		}
		if row["÷ floor"] != cell {
			t.Errorf("%s: ÷ floor %q, want %q", row["impl"], row["÷ floor"], cell)
		}
	}
}
