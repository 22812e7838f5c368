package main

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// kind says which columns a workload's rows have.
type kind int

const (
	opsKind    kind = iota // operations per second, ns/op, allocs, wakeups, cpu
	notifyKind             // paced writes: CPU per write, wakeups/s, latency
)

// A workload is one scenario, run once per round for each implementation
// (case) it lists.
type workload struct {
	group    string  // the -workloads group it belongs to
	title    string  // "semaphore contended"
	bench    string  // "SemaphoreContended": the benchmark name's first part
	params   []param // limit=1 g=8
	about    string  // what runs, in a line
	kind     kind
	ref      string        // the evsync row the others are compared with; "" for "evsync"
	anchor   string        // the alternative a user would most likely pick instead
	why      string        // why that anchor is the one a user would pick instead
	use      string        // the situation it stands for, in the closing advice; "" for none
	byWaits  bool          // the situation comes from this run's share of takes that waited (waitSituation), not from use
	wakeups  bool          // whether the drivers count wakeups (opsKind)
	procs    int           // the GOMAXPROCS its runs set (-cpu); 0: the process's own
	headline bool          // of its group, what the default run keeps (defaultGroups); a group without one runs whole
	floor    time.Duration // the least time an operation can take, whatever the implementation; 0 for none
	floorOf  string        // where the floor comes from, for the table
	floorRow string        // the case whose ns/op, measured in the same rounds, is the floor; "" for none
	latency  bool          // the drivers record wake latencies (opsKind): the table adds p50 and p99
	lateness bool          // its latencies run from a deadline's time, not from a write
	cpuCost  bool          // its cost column is CPU ns per op, not wall: a run's wall time is its work's span, not its cost (opsKind)
	fixed    time.Duration // about how long a run lasts whatever -duration, for a workload of fixed work; 0: -duration
	cases    []bench
}

// A param is one of a workload's parameters: its name, its value as the
// name shows it, and as a number (0 for "max").
type param struct {
	key, value string
	n          int
}

func intParam(key string, n int) param { return param{key, itoa(n), n} }

// paramN is w's numeric parameter key, 0 if it has none.
func (w workload) paramN(key string) int {
	for _, p := range w.params {
		if p.key == key {
			return p.n
		}
	}
	return 0
}

// name is the workload's name in the table: its title and parameters.
func (w workload) name() string {
	parts := []string{w.title}
	for _, p := range w.params {
		parts = append(parts, p.key+"="+p.value)
	}
	return strings.Join(parts, " ")
}

// benchName is the name of c's benchmark lines in -format bench, in the
// key=value form benchstat splits into columns.
func (w workload) benchName(c bench) string {
	parts := []string{"Benchmark" + w.bench}
	for _, p := range w.params {
		parts = append(parts, p.key+"="+p.value)
	}
	// benchstat splits names at "/", so the policy's own slashes become "+".
	parts = append(parts, "impl="+strings.ReplaceAll(c.impl, "/", "+"))
	return strings.Join(parts, "/")
}

// caseName is what -match looks in: "semaphore acquire+release impl=xsync".
func (w workload) caseName(c bench) string { return w.name() + " impl=" + c.impl }

// A bench runs one implementation of a workload until stop is set and
// returns what it counted. It returns errors.ErrUnsupported (wrapped) for
// an implementation missing on this platform; the case is then left out.
type bench struct {
	impl    string
	note    string // said next to the impl in the table, or ""
	against string // the evsync row it is compared with, if not the reference
	ceiling bool   // not an alternative: the summary leaves it out
	run     func(stop *atomic.Bool) (tally, error)
	// prep, if set, is called before each run and off the clock: it
	// makes the run's state (100,000 registered sources), and returns
	// the run and a function that frees the state after it. run is then
	// unused.
	prep func() (run func(stop *atomic.Bool) (tally, error), free func(), err error)
}

// tally is what a driver counts: operations (writes in the notify
// workloads) and wakeups (see each workload's about), and in the notify
// workloads the write-to-read latencies.
type tally struct {
	ops, wakeups uint64
	lat          *hdrhistogram.Histogram
}

func (t *tally) add(u tally) { t.ops += u.ops; t.wakeups += u.wakeups }

// Why each anchor is the one compared with.
const (
	whyXSync  = "golang.org/x/sync/semaphore, the weighted semaphore Go limiters are usually built on"
	whyMutex  = "a mutex, a slice and a map: the de-duplicating queue one writes by hand (client-go's workqueue is compared in the bench module)"
	whyToken  = "an atomic counter and a one-slot channel: the notifier one writes by hand"
	whyChan   = "two unbuffered channels: the hand-shake Go code writes without a library"
	whyQuiet  = "the same writers with nobody observing: what String() costs them"
	whyNotify = "the time.AfterFunc debouncer one writes by hand, compared with evsync's own 5 ms window (the same policy)"
)

// workloadsOf builds the workloads of the given groups, in order. The
// scaling group runs at each of cpus (-cpu) if it is not nil.
func workloadsOf(groups []string, cpus []int) []workload {
	var ws []workload
	for _, g := range groups {
		switch g {
		case "semaphore":
			ws = append(ws, semaphoreWorkloads()...)
		case "readyq":
			ws = append(ws, readyqWorkloads()...)
		case "signal":
			ws = append(ws, signalWorkloads()...)
		case "notify":
			ws = append(ws, notifyWorkloads()...)
		case "sweep":
			ws = append(ws, sweepWorkloads()...)
		case "scaling":
			ws = append(ws, scalingWorkloads(cpus)...)
		case "poll":
			ws = append(ws, pollWorkloads()...)
		default:
			panic("evbench: no workload group " + g)
		}
	}
	return ws
}

// selectCases keeps the cases whose caseName contains match, and the
// workloads left with a case.
func selectCases(ws []workload, match string) []workload {
	var out []workload
	for _, w := range ws {
		var cs []bench
		for _, c := range w.cases {
			if strings.Contains(w.caseName(c), match) {
				cs = append(cs, c)
			}
		}
		if len(cs) != 0 {
			w.cases = cs
			out = append(out, w)
		}
	}
	return out
}

func itoa(n int) string { return fmt.Sprint(n) }

// count is "1 writer" or "4 writers".
func count(n int, noun string) string {
	return fmt.Sprintf("%d %s", n, plural(n, noun, noun+"s"))
}

// plural is one if n is 1, else many: the verb or noun that agrees with n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// batch is how many operations the single-goroutine drivers run between
// looks at the stop flag.
const batch = 64

// fanOut runs f on g goroutines and adds up what they counted.
func fanOut(g int, f func() (tally, error)) (tally, error) {
	var (
		mu    sync.Mutex
		total tally
		errs  []error
		wg    sync.WaitGroup
	)
	for range g {
		wg.Go(func() {
			n, err := f()
			mu.Lock()
			defer mu.Unlock()
			total.add(n)
			errs = append(errs, err)
		})
	}
	wg.Wait()
	return total, errors.Join(errs...)
}
