// Command evbench runs evsync's workloads side by side with the anchors it
// replaces (golang.org/x/sync's semaphore, channel and sync.Cond idioms,
// the kernel's eventfd) for a fixed time each and prints one table:
//
//	workload    what runs, with its parameters
//	impl        the implementation (see internal/anchor)
//	ops/s       operations completed per wall-clock second
//	ns/op       wall-clock nanoseconds per operation (1e9 / ops/s)
//	allocs/op   heap allocations (runtime.MemStats.Mallocs) per operation,
//	            whole process, setup included
//	wakeups/op  blocking calls that returned, per operation, where a caller
//	            waits for another: contended semaphores call Acquire only
//	            after TryAcquire failed, so it is the share of operations
//	            that had to wait; the writers workloads count the reader's
//	            Wait calls per unit added (1 / mean batch); "-" elsewhere
//	cpu/wall    CPU seconds (user+sys, getrusage) per wall-clock second:
//	            how many cores the workload kept busy
//	vs ref      ops/s relative to the reference: the fastest anchor (any
//	            impl but evsync) of that workload; for the observed writers,
//	            the run without an observer; above 1 is faster
//
// A progress line is written to stderr while it runs. Flags: -duration
// sets the time per case, -quick runs each case for 100ms (a smoke run),
// -match keeps the cases whose "workload impl" contains a string. A second
// table, the seed workload, follows (see seed.go): -seed runs only it,
// -sweep only its write-rate sweep, and -repeat N runs each of its rows N
// times and prints the medians.
//
// Operations: an Acquire+Release or TryAcquire+Release pair, an Add+Take
// pair, a ping-pong round trip, one Add(1) in the writers workloads, one
// item handed out in the readyq workloads (the channel row there does not
// de-duplicate; it is the ceiling, not a like-for-like alternative).
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"
)

func main() {
	d := flag.Duration("duration", 600*time.Millisecond, "how long to run each case")
	quick := flag.Bool("quick", false, "run each case for 100ms (smoke run)")
	match := flag.String("match", "", "run only cases whose \"workload impl\" contains this")
	sweep := flag.Bool("sweep", false, "run only the seed workload's write-rate sweep")
	seedOnly := flag.Bool("seed", false, "run only the seed workload's table")
	repeat := flag.Int("repeat", 1, "runs per seed row; the seed tables show medians")
	flag.Parse()
	if *quick {
		*d = 100 * time.Millisecond
	}
	var err error
	if !*sweep && !*seedOnly {
		var rows []row
		rows, err = runAll(selectCases(workloads(), *match), *d)
		fmt.Fprintf(os.Stderr, "\r%-70s\r", "")
		printTable(os.Stdout, rows)
	}
	if err == nil {
		err = runSeedTable(os.Stdout, seedOpts{d: *d, quick: *quick, sweep: *sweep, repeat: *repeat, match: *match})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "evbench:", err)
		os.Exit(1)
	}
}

// selectCases flattens the workloads into their cases, keeping those
// whose "workload impl" contains match.
func selectCases(ws []workload, match string) []caseRef {
	var cs []caseRef
	for _, w := range ws {
		for _, c := range w.cases {
			if strings.Contains(w.name+" "+c.impl, match) {
				cs = append(cs, caseRef{w, c})
			}
		}
	}
	return cs
}

// runAll measures every case for d, reporting progress on stderr. It
// stops at the first case that fails and returns the rows so far.
func runAll(cs []caseRef, d time.Duration) ([]row, error) {
	rows := make([]row, 0, len(cs))
	for i, c := range cs {
		fmt.Fprintf(os.Stderr, "\r%-70s", fmt.Sprintf("[%d/%d] %s impl=%s", i+1, len(cs), c.w.name, c.c.impl))
		r, err := measure(c, d)
		if err != nil {
			return rows, fmt.Errorf("%s impl=%s: %w", c.w.name, c.c.impl, err)
		}
		rows = append(rows, r)
	}
	return rows, nil
}
