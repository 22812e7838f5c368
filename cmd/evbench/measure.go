package main

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync/atomic"
	"text/tabwriter"
	"time"
)

// A workload is one scenario, run once for each implementation.
type workload struct {
	name    string // e.g. "semaphore contended limit=1 g=8"
	ref     string // the impl "vs ref" compares with; "" for the fastest anchor
	wakeups bool   // whether the drivers count wakeups
	cases   []bench
}

// A bench runs one implementation of a workload until stop is set and
// returns what it counted. It returns errors.ErrUnsupported (wrapped) for
// an implementation missing on this platform; the case is then left out.
type bench struct {
	impl string
	run  func(stop *atomic.Bool) (tally, error)
}

// tally is what a driver counts: operations and wakeups (see the package
// doc for what each workload counts as one).
type tally struct{ ops, wakeups uint64 }

func (t *tally) add(u tally) { t.ops += u.ops; t.wakeups += u.wakeups }

// caseRef is one bench of one workload.
type caseRef struct {
	w workload
	c bench
}

// row is one measured case.
type row struct {
	w       workload
	impl    string
	n       tally
	wall    time.Duration
	cpu     time.Duration
	mallocs uint64
	skipped bool // unsupported here
}

// sample is the process state a measurement compares before and after.
type sample struct {
	at      time.Time
	cpu     time.Duration
	mallocs uint64
}

func snap() sample {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return sample{time.Now(), cpuTime(), ms.Mallocs}
}

// measure runs c for about d (the driver finishes the operations under
// way when the time is up) and reports what it did.
func measure(c caseRef, d time.Duration) (row, error) {
	runtime.GC()
	var stop atomic.Bool
	before := snap()
	t := time.AfterFunc(d, func() { stop.Store(true) })
	defer t.Stop()
	n, err := c.c.run(&stop)
	after := snap()
	r := row{w: c.w, impl: c.c.impl, n: n, wall: after.at.Sub(before.at),
		cpu: after.cpu - before.cpu, mallocs: after.mallocs - before.mallocs}
	if errors.Is(err, errors.ErrUnsupported) {
		return row{w: c.w, impl: c.c.impl, skipped: true}, nil
	}
	if err == nil && n.ops == 0 {
		err = errors.New("no operation completed")
	}
	return r, err
}

// printTable writes the rows as one aligned table.
func printTable(w io.Writer, rows []row) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "workload\timpl\tops/s\tns/op\tallocs/op\twakeups/op\tcpu/wall\tvs ref\t")
	for _, r := range rows {
		if r.skipped {
			fmt.Fprintf(tw, "%s\t%s\tunsupported here\t\t\t\t\t\t\n", r.w.name, r.impl)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.1f\t%.3f\t%s\t%.2f\t%s\t\n", r.w.name, r.impl,
			si(r.opsPerSec()), float64(r.wall.Nanoseconds())/float64(r.n.ops),
			float64(r.mallocs)/float64(r.n.ops), r.wakeupsPerOp(),
			r.cpu.Seconds()/r.wall.Seconds(), ratio(r, rows))
	}
	tw.Flush()
}

func (r row) opsPerSec() float64 { return float64(r.n.ops) / r.wall.Seconds() }

func (r row) wakeupsPerOp() string {
	if !r.w.wakeups {
		return "-"
	}
	return fmt.Sprintf("%.3g", float64(r.n.wakeups)/float64(r.n.ops))
}

// ratio is r's ops/s over its reference's (see the package doc).
func ratio(r row, rows []row) string {
	best := 0.0
	for _, o := range rows {
		isRef := o.impl == r.w.ref || r.w.ref == "" && o.impl != "evsync"
		if o.w.name == r.w.name && !o.skipped && isRef {
			best = max(best, o.opsPerSec())
		}
	}
	if best == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", r.opsPerSec()/best)
}

// si formats v with a metric suffix: 12.3M.
func si(v float64) string {
	for _, u := range []struct {
		div    float64
		suffix string
	}{{1e9, "G"}, {1e6, "M"}, {1e3, "k"}} {
		if v >= u.div {
			return fmt.Sprintf("%.3g%s", v/u.div, u.suffix)
		}
	}
	return fmt.Sprintf("%.3g", v)
}
