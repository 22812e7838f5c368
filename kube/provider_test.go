package kube_test

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"k8s.io/client-go/util/workqueue"
)

// provider is a workqueue.MetricsProvider that records what a queue
// reports, for one queue name. With settable, its depth gauge has Set.
type provider struct {
	settable            bool
	names               []string // the names the metrics were made for
	depth               depthGauge
	adds, retries       atomic.Int64
	latency, work       observations
	unfinished, longest gauge
}

func (p *provider) NewDepthMetric(name string) workqueue.GaugeMetric {
	p.names = append(p.names, name)
	if p.settable {
		return (*settableDepth)(&p.depth)
	}
	return &p.depth
}
func (p *provider) NewAddsMetric(string) workqueue.CounterMetric {
	return (*gaugeCounter)(&p.adds)
}
func (p *provider) NewLatencyMetric(string) workqueue.HistogramMetric      { return &p.latency }
func (p *provider) NewWorkDurationMetric(string) workqueue.HistogramMetric { return &p.work }
func (p *provider) NewUnfinishedWorkSecondsMetric(string) workqueue.SettableGaugeMetric {
	return &p.unfinished
}
func (p *provider) NewLongestRunningProcessorSecondsMetric(string) workqueue.SettableGaugeMetric {
	return &p.longest
}
func (p *provider) NewRetriesMetric(string) workqueue.CounterMetric {
	return (*gaugeCounter)(&p.retries)
}

// gaugeCounter is a GaugeMetric and a CounterMetric.
type gaugeCounter atomic.Int64

func (g *gaugeCounter) Inc() { (*atomic.Int64)(g).Add(1) }
func (g *gaugeCounter) Dec() { (*atomic.Int64)(g).Add(-1) }

// depthGauge is a GaugeMetric that counts the times it read below zero.
// It yields before each change, to widen the windows between reports.
type depthGauge struct {
	v, negative, sets atomic.Int64 // sets: with Set
}

func (g *depthGauge) Inc() {
	runtime.Gosched()
	g.v.Add(1)
}

func (g *depthGauge) Dec() {
	runtime.Gosched()
	if g.v.Add(-1) < 0 {
		g.negative.Add(1)
	}
}

// Load returns the gauge's value.
func (g *depthGauge) Load() int64 { return g.v.Load() }

// settableDepth is a depthGauge with Set, as Prometheus's gauges have.
type settableDepth depthGauge

func (g *settableDepth) Inc() { (*depthGauge)(g).Inc() }
func (g *settableDepth) Dec() { (*depthGauge)(g).Dec() }
func (g *settableDepth) Set(v float64) {
	runtime.Gosched()
	if v < 0 {
		g.negative.Add(1)
	}
	g.v.Store(int64(v))
	g.sets.Add(1)
}

// observations is a HistogramMetric that keeps every observation.
type observations struct {
	mu sync.Mutex
	v  []float64
}

func (o *observations) Observe(v float64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.v = append(o.v, v)
}

func (o *observations) values() []float64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]float64(nil), o.v...)
}

// gauge is a SettableGaugeMetric; it remembers the last value and how
// often it was set.
type gauge struct {
	bits atomic.Uint64
	sets atomic.Int64
}

func (g *gauge) Set(v float64) {
	g.bits.Store(math.Float64bits(v))
	g.sets.Add(1)
}

func (g *gauge) value() float64 { return math.Float64frombits(g.bits.Load()) }
