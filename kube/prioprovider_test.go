package kube_test

import (
	"runtime"
	"slices"
	"sync"

	"github.com/evsync/evsync/kube"
	"k8s.io/client-go/util/workqueue"
)

// prioProvider is a MetricsProvider in the shape of controller-runtime's
// own. Its depth gauge is per priority, of a type named in this package
// only (controller-runtime's is internal), and its plain depth gauge must
// not be asked for. It records each priority's readings in order.
type prioProvider struct {
	provider // the other metrics

	mu       sync.Mutex
	series   map[int][]int // each priority's readings
	negative int           // readings below zero
}

// depthByPriority is the type of prioProvider's gauge.
type depthByPriority interface {
	Inc(priority int)
	Dec(priority int)
}

func newPrioProvider() *prioProvider { return &prioProvider{series: make(map[int][]int)} }

func (p *prioProvider) NewDepthMetric(string) workqueue.GaugeMetric {
	panic("NewDepthMetric called: a provider with a depth per priority gets no other depth")
}

func (p *prioProvider) NewDepthMetricWithPriority(name string) depthByPriority {
	p.names = append(p.names, name)
	return (*prioGauge)(p)
}

// readings returns a copy of each priority's readings.
func (p *prioProvider) readings() map[int][]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	series := make(map[int][]int)
	for prio, s := range p.series {
		series[prio] = slices.Clone(s)
	}
	return series
}

// prioGauge is prioProvider's gauge. It yields before each change, to
// widen the windows between reports.
type prioGauge prioProvider

func (g *prioGauge) Inc(priority int) { g.move(priority, 1) }
func (g *prioGauge) Dec(priority int) { g.move(priority, -1) }

func (g *prioGauge) move(priority, d int) {
	runtime.Gosched()
	g.mu.Lock()
	defer g.mu.Unlock()
	s := g.series[priority]
	n := d
	if len(s) > 0 {
		n += s[len(s)-1]
	}
	if n < 0 {
		g.negative++
	}
	g.series[priority] = append(s, n)
}

// kubeProvider is a prioProvider through kube's own interface.
type kubeProvider struct{ *prioProvider }

var _ kube.MetricsProviderWithPriority = kubeProvider{}

func (p kubeProvider) NewDepthMetricWithPriority(name string) kube.DepthMetricWithPriority {
	return p.prioProvider.NewDepthMetricWithPriority(name)
}
