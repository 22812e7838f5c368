package main

import (
	"bytes"
	"cmp"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// The charts -plot writes, from the sweep, scaling and poll workloads:
//
//	sweep-cpu.svg        CPU per write relative to immediate wake-ups,
//	                     against the write rate, one line per policy, the
//	                     grey zone shaded
//	sweep-p99.svg        p99 write-to-read latency against the write rate
//	scaling-limit1.svg   semaphore ns/op against the number of goroutines,
//	scaling-limit4.svg   one line per implementation, limits 1 and 4
//	scaling-cpu.svg      with -cpu: semaphore ns/op against GOMAXPROCS, one
//	                     line per implementation, limit 4, 64 goroutines
//	poll.svg             ns per ready event against the registered
//	                     sources, one line per way of waiting
//
// Every point is the median of its runs; its bar spans the fastest and
// the slowest run. On sweep-cpu.svg a point is the policy's median cost
// over immediate's, as the table prints them, and its bar is the ratio's
// interval (see verdict.go). A chart whose workloads did not run is not
// written. So with -cpu the goroutine charts are not written: those
// runs set GOMAXPROCS and keep two goroutine counts.

// chartW and chartH are every chart's size.
const chartW, chartH = 7 * vg.Inch, 4.5 * vg.Inch

// A point is one row's median at x, and its runs' range.
type point struct{ x, y, lo, hi float64 }

// A series is one implementation's points, in x order.
type series struct {
	name string
	pts  []point
}

// A chartMeasure is what a chart shows of row r, given its workload's rows:
// a median and a range.
type chartMeasure func(r result, rs []result) (stat, bool)

// metricOf measures a metric of the rows (a metrics name).
func metricOf(name string) chartMeasure {
	return func(r result, rs []result) (stat, bool) {
		s, ok := metrics(r, rs)[name]
		return s, ok
	}
}

// costVsImmediate measures a notify row's cost relative to immediate
// evsync's, both as printed: the ratio of the medians, and the interval
// that the verdict rule judges (on a variant's row, the table's ratio).
func costVsImmediate(r result, rs []result) (stat, bool) {
	imm, ok := find(rs, immediateImpl)
	if !ok {
		return stat{}, false
	}
	fr, okR := figure(r)
	fi, okI := figure(imm)
	if !okR || !okI || fi.Min <= 0 {
		return stat{}, false
	}
	return stat{fr.Median / fi.Median, fr.Min / fi.Max, fr.Max / fi.Min}, true
}

// collect gathers, from the rows of group, one series per implementation
// (in the order they ran) of m against x, leaving out the rows keep
// refuses and those m has nothing for.
func collect(rs []result, group string, m chartMeasure, x func(workload) float64, keep func(result) bool) []series {
	var out []series
	byWorkload := map[string][]result{}
	for _, r := range rs {
		if r.w.group == group {
			byWorkload[r.w.name()] = append(byWorkload[r.w.name()], r)
		}
	}
	for _, r := range rs {
		if r.w.group != group || !keep(r) {
			continue
		}
		s, ok := m(r, byWorkload[r.w.name()])
		if !ok {
			continue
		}
		i := slices.IndexFunc(out, func(s series) bool { return s.name == r.c.impl })
		if i < 0 {
			out = append(out, series{name: r.c.impl})
			i = len(out) - 1
		}
		out[i].pts = append(out[i].pts, point{x(r.w), s.Median, s.Min, s.Max})
	}
	for _, s := range out {
		slices.SortFunc(s.pts, func(a, b point) int { return cmp.Compare(a.x, b.x) })
	}
	return out
}

// chartFont is the charts' font. The plot lays text out with Liberation
// Sans, whose metrics are Arial's, so a viewer that falls back to Arial
// or Helvetica keeps every label in place.
var chartFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

// The font-family the SVG names, and the one it names in its place:
// Liberation Sans, then faces with its metrics, then any sans-serif.
const (
	svgFamily    = "font-family:Liberation Sans;"
	svgFallbacks = "font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"
)

// writeCharts writes the charts of the results it has into dir, each
// titled with caption (the machine and the date), and returns the files'
// paths.
func writeCharts(dir string, rs []result, caption string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	plot.DefaultFont = chartFont // plot.New takes every text style from it
	var files []string
	save := func(p *plot.Plot, err error, name string) error {
		if err != nil {
			return err
		}
		p.Title.Text += "\n" + caption
		path := filepath.Join(dir, name)
		if err := writeSVG(p, path); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		files = append(files, path)
		return nil
	}
	rate := func(w workload) float64 { return float64(w.paramN("rate")) }
	paced := func(r result) bool { return r.w.paramN("rate") > 0 && r.c.impl != floorImpl }
	if cpu := collect(rs, "sweep", costVsImmediate, rate, paced); len(cpu) != 0 {
		p, err := sweepCPUChart(cpu)
		if err := save(p, err, "sweep-cpu.svg"); err != nil {
			return files, err
		}
	}
	if lat := collect(rs, "sweep", metricOf(mLatP99Ns), rate, paced); len(lat) != 0 {
		p, err := lineChart(scaled(lat, 1e-6), "p99 write-to-read latency, 4 writers, one reader",
			"writes per second per writer", "p99 latency, ms (lower is better)", true, true)
		if err := save(p, err, "sweep-p99.svg"); err != nil {
			return files, err
		}
	}
	for _, limit := range []int{1, 4} {
		g := func(w workload) float64 { return float64(w.paramN("g")) }
		atLimit := func(r result) bool { return r.w.paramN("limit") == limit && r.w.procs == 0 }
		ns := collect(rs, "scaling", metricOf(mNsPerOp), g, atLimit)
		if len(ns) == 0 {
			continue
		}
		p, err := lineChart(ns, fmt.Sprintf("semaphore Acquire+Release under contention, limit %d", limit),
			"goroutines", "ns per Acquire+Release (lower is better)", true, true)
		if err == nil {
			p.X.Tick.Marker = powersOfTwo{}
		}
		if err := save(p, err, fmt.Sprintf("scaling-limit%d.svg", limit)); err != nil {
			return files, err
		}
	}
	procs := func(w workload) float64 { return float64(w.procs) }
	queued := func(r result) bool {
		return r.w.procs > 0 && r.w.paramN("limit") == cpuChartLimit && r.w.paramN("g") == cpuChartG
	}
	if ns := collect(rs, "scaling", metricOf(mNsPerOp), procs, queued); len(ns) != 0 {
		p, err := lineChart(ns, fmt.Sprintf("semaphore Acquire+Release against GOMAXPROCS, limit %d, %d goroutines", cpuChartLimit, cpuChartG),
			"GOMAXPROCS", "ns per Acquire+Release (lower is better)", true, true)
		if err == nil {
			p.X.Tick.Marker = valueTicks(ns)
		}
		if err := save(p, err, "scaling-cpu.svg"); err != nil {
			return files, err
		}
	}
	n := func(w workload) float64 { return float64(w.paramN("n")) }
	oneReady := func(r result) bool { return r.w.bench == pollWaitBench } // not the cross workload's round trips
	if ns := collect(rs, "poll", metricOf(mNsPerOp), n, oneReady); len(ns) != 0 {
		p, err := lineChart(ns, "one ready event among n registered sources",
			"registered sources", "ns per ready event (lower is better)", true, false)
		if err := save(p, err, "poll.svg"); err != nil {
			return files, err
		}
	}
	return files, nil
}

// The scaling rows scaling-cpu.svg draws: a standing queue, 16
// goroutines a unit.
const cpuChartLimit, cpuChartG = 4, 64

// scaled multiplies every point of ss by k.
func scaled(ss []series, k float64) []series {
	for i := range ss {
		for j := range ss[i].pts {
			pt := &ss[i].pts[j]
			pt.y, pt.lo, pt.hi = pt.y*k, pt.lo*k, pt.hi*k
		}
	}
	return ss
}

// writeSVG writes p as an SVG file at path, naming fallback fonts.
func writeSVG(p *plot.Plot, path string) error {
	// A single x (a -match that kept one rate or goroutine count) makes
	// an empty range, which the plot would widen by ±1, to 0 on the log
	// axis.
	if p.X.Min == p.X.Max {
		p.X.Min, p.X.Max = p.X.Min/2, p.X.Max*2
	}
	// A margin on the right holds the last tick's label in a wider font.
	c := vgsvg.New(chartW, chartH)
	p.Draw(draw.Crop(draw.New(c), 0, -vg.Points(8), 0, 0))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return err
	}
	svg := bytes.ReplaceAll(b.Bytes(), []byte(svgFamily), []byte(svgFallbacks))
	return os.WriteFile(path, svg, 0o644)
}

// lineChart draws one line per series with log-scaled x (and y if logY),
// each point with a bar over its runs' range, and the legend at the top,
// on the left or the right, above the lines. A legend on the left keeps
// inside the chart in a fallback font wider than Liberation Sans.
func lineChart(ss []series, title, xLabel, yLabel string, logY, legendLeft bool) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.Left = legendLeft
	for i, s := range ss {
		if err := addSeries(p, s, i); err != nil {
			return nil, err
		}
	}
	if logY && len(ss) != 0 {
		p.Y.Max *= 8 // room for the legend above the lines: three ticks of a log axis
	}
	return p, nil
}

// addSeries adds s's line, points and range bars in the i-th style.
func addSeries(p *plot.Plot, s series, i int) error {
	xys := make(plotter.XYs, len(s.pts))
	errs := make(plotter.YErrors, len(s.pts))
	for j, pt := range s.pts {
		xys[j] = plotter.XY{X: pt.x, Y: pt.y}
		errs[j].Low, errs[j].High = pt.y-pt.lo, pt.hi-pt.y
	}
	line, points, err := plotter.NewLinePoints(xys)
	if err != nil {
		return fmt.Errorf("%s: %w", s.name, err)
	}
	c := plotutil.Color(i)
	line.Color, line.Dashes = c, plotutil.Dashes(i)
	points.Color, points.Shape = c, plotutil.Shape(i)
	bars, err := plotter.NewYErrorBars(struct {
		plotter.XYs
		plotter.YErrors
	}{xys, errs})
	if err != nil {
		return fmt.Errorf("%s: %w", s.name, err)
	}
	bars.Color = c
	p.Add(line, points, bars)
	p.Legend.Add(s.name, line, points)
	return nil
}

// sweepCPUChart is the rate sweep's CPU chart: each policy's CPU per
// write relative to immediate evsync (the line at 1), with the grey zone
// shaded: the rates at which every run of the fixed window cost more
// than every run of waking at once.
func sweepCPUChart(ss []series) (*plot.Plot, error) {
	var others []series
	var fixed *series
	for i := range ss {
		switch ss[i].name {
		case immediateImpl: // 1 by definition; drawn as the reference line
			continue
		case fixedImpl:
			fixed = &ss[i]
		}
		others = append(others, ss[i])
	}
	p, err := lineChart(nil, "CPU per write against the write rate, 4 writers, one reader",
		"writes per second per writer", "CPU per write ÷ immediate's (lower is better)", false, true)
	if err != nil {
		return nil, err
	}
	top := 1.0
	for _, s := range others {
		for _, pt := range s.pts {
			top = max(top, pt.hi)
		}
	}
	top *= 1.4 // room for the legend above the lines
	p.Y.Min, p.Y.Max = 0, top
	if fixed != nil {
		for i, zone := range greyZones(fixed.pts) {
			poly, err := plotter.NewPolygon(plotter.XYs{{X: zone[0], Y: 0}, {X: zone[1], Y: 0}, {X: zone[1], Y: top}, {X: zone[0], Y: top}})
			if err != nil {
				return nil, err
			}
			poly.Color = color.Gray{Y: 220}
			poly.LineStyle.Width = 0
			p.Add(poly)
			if i == 0 {
				p.Legend.Add("grey zone: the fixed window costs more than immediate", poly)
			}
		}
	}
	ref := plotter.NewFunction(func(float64) float64 { return 1 })
	ref.Color, ref.Dashes = color.Black, []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(ref)
	p.Legend.Add("immediate evsync (= 1)", ref)
	for i, s := range others {
		if err := addSeries(p, s, i+1); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// greyZones returns the x ranges, on a log axis, around the runs of
// points whose every run is above 1, each reaching halfway (in log terms)
// to its neighbours.
func greyZones(pts []point) [][2]float64 {
	edge := func(i, j int) float64 { return math.Sqrt(pts[i].x * pts[j].x) }
	var zones [][2]float64
	for i := 0; i < len(pts); i++ {
		if pts[i].lo <= 1 {
			continue
		}
		j := i
		for j+1 < len(pts) && pts[j+1].lo > 1 {
			j++
		}
		lo, hi := pts[i].x/math.Sqrt(2), pts[j].x*math.Sqrt(2)
		if i > 0 {
			lo = edge(i-1, i)
		}
		if j+1 < len(pts) {
			hi = edge(j, j+1)
		}
		zones = append(zones, [2]float64{lo, hi})
		i = j
	}
	return zones
}

// powersOfTwo ticks a log axis at 1, 2, 4, 8 ...
type powersOfTwo struct{}

// Ticks returns a tick at every power of two from lo to hi.
func (powersOfTwo) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for v := 1.0; v <= hi; v *= 2 {
		if v >= lo {
			ts = append(ts, plot.Tick{Value: v, Label: fmt.Sprint(v)})
		}
	}
	return ts
}

// valueTicks ticks an axis at the x values of the points of ss.
type valueTicks []series

// Ticks returns a tick at every x of a point from lo to hi.
func (ss valueTicks) Ticks(lo, hi float64) []plot.Tick {
	var xs []float64
	for _, s := range ss {
		for _, pt := range s.pts {
			if pt.x >= lo && pt.x <= hi && !slices.Contains(xs, pt.x) {
				xs = append(xs, pt.x)
			}
		}
	}
	slices.Sort(xs)
	ts := make([]plot.Tick, len(xs))
	for i, x := range xs {
		ts[i] = plot.Tick{Value: x, Label: fmt.Sprint(x)}
	}
	return ts
}
