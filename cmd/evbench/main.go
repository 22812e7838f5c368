// Command evbench runs evsync's primitives side by side with the
// alternatives a Go programmer would otherwise use (golang.org/x/sync's
// semaphore, channels, sync.Cond, a hand-rolled atomic+channel notifier, a
// time.AfterFunc debouncer, a time.AfterFunc per deadline, a mutex+map
// queue, reflect.Select, the kernel's eventfd and epoll) and prints what
// it measured as each workload finishes. From the repository's root:
//
//	go -C cmd/evbench run .                       the default workloads, about 45 s
//	go -C cmd/evbench run . -quick                a smoke run, a few seconds
//	go -C cmd/evbench run . -workloads sweep      one workload group
//	go -C cmd/evbench run . -json > rows.json     one JSON object per row
//	go -C cmd/evbench run . -format bench > a.txt benchmark lines for benchstat, six runs a case
//	go -C cmd/evbench run . -plot                 SVG charts, into cmd/evbench/evbench-charts
//	go -C cmd/evbench run . -plotdir charts       the same, replacing the README's charts
//	go -C cmd/evbench run . -cpu=1,2,4,8,16       the scaling workloads at each GOMAXPROCS, about 40 s
//
// The default run has the semaphore, readyq, signal and notify groups,
// and of the poll group one workload: one ready source among 10,000
// registered (-workloads poll runs the whole group). The table explains
// its columns at its top and ends with a summary, one line per group, of
// where evsync is ahead, level or behind, and which rows the count leaves
// out and why. Then one line per situation (a
// limiter under a standing queue, a work queue taking batches) says when
// to pick evsync, from this run's verdicts against the main alternative.
// A contended limiter workload counts under a standing queue, light
// contention or units to spare by the share of takes that waited in this
// run, and its section of the table says which and why. Where a workload
// ran evsync in eventual-fairness mode beside the strict default
// (evsync/eventual=1ms), the last lines say which mode to pick in each
// situation, from this run's verdicts of one against the other.
// The ratios and verdicts follow the rules in verdict.go. `-help` lists the flags and
// the workload groups. Each case runs -repeat times, in rounds (every
// implementation of a workload once, then again). So a slow patch of a
// shared machine spreads over the implementations it compares instead of
// landing on one. Rows show the median of the runs and their spread.
//
// -cpu takes GOMAXPROCS values, as go test -cpu does. The scaling
// workloads then run once per value, with GOMAXPROCS set for their runs
// and restored after. Their rows name it: "limit=4 g=64 cpu=8". Such a
// run covers 8 and 64 goroutines only, to stay short. With -plot it
// draws scaling-cpu.svg, ns/op against GOMAXPROCS, in place of the
// charts against goroutines.
//
// evbench is a module of its own (see go.mod) so that its plotting and
// histogram libraries never reach the module graph of evsync's users.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/term"
)

func main() {
	cfg, err := parseConfig(os.Args[1:], os.Stderr)
	if errors.Is(err, errHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "evbench:", err)
		fmt.Fprintln(os.Stderr, "run 'evbench -help' for the flags and the workload groups")
		os.Exit(2)
	}
	cfg.progress = isTerminal(os.Stderr)
	if err := run(cfg, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "evbench:", err)
		if errors.As(err, new(usageError)) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// isTerminal reports whether w is a terminal, where a progress line may
// be drawn and redrawn.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
