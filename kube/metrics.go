package kube

import (
	"reflect"
	"time"

	"k8s.io/client-go/util/workqueue"
)

// DepthMetricWithPriority is a depth gauge per priority, the shape of
// controller-runtime's. Inc and Dec move the gauge of one priority.
type DepthMetricWithPriority interface {
	Inc(priority int)
	Dec(priority int)
}

// MetricsProviderWithPriority is a MetricsProvider that also makes a
// depth gauge per priority, as controller-runtime's own provider does. A
// Queue given one reports its depth per priority, and never asks for the
// plain depth gauge. A provider that has the method with another result
// type, one with the methods of DepthMetricWithPriority, is used the same
// way. The provider of controller-runtime returns such a type, of an
// internal package.
type MetricsProviderWithPriority interface {
	workqueue.MetricsProvider
	NewDepthMetricWithPriority(name string) DepthMetricWithPriority
}

// metrics is a client-go MetricsProvider's metrics as an evsync workqueue.Metrics.
// The provider's metrics must be safe for concurrent use, as Prometheus's
// are. The hooks run on the goroutines whose calls cause the events,
// after the queue releases its lock. Depth gets one call at a time.
type metrics struct {
	depth    workqueue.GaugeMetric         // nil with byPrio
	setDepth workqueue.SettableGaugeMetric // depth, if it has Set (Prometheus's gauges do)
	shown    int                           // the depth gauge's value, used only in Depth

	byPrio  DepthMetricWithPriority // the depth per priority, if the provider has it
	shownBy map[int]int             // its gauges' values other than 0, used only in Depth

	adds       workqueue.CounterMetric
	latency    workqueue.HistogramMetric
	work       workqueue.HistogramMetric
	unfinished workqueue.SettableGaugeMetric
	longest    workqueue.SettableGaugeMetric
	retries    workqueue.CounterMetric
}

func newMetrics(p workqueue.MetricsProvider, name string) *metrics {
	m := &metrics{
		adds:       p.NewAddsMetric(name),
		latency:    p.NewLatencyMetric(name),
		work:       p.NewWorkDurationMetric(name),
		unfinished: p.NewUnfinishedWorkSecondsMetric(name),
		longest:    p.NewLongestRunningProcessorSecondsMetric(name),
		retries:    p.NewRetriesMetric(name),
	}
	if m.byPrio = depthWithPriority(p, name); m.byPrio != nil {
		m.shownBy = make(map[int]int)
	} else {
		m.depth = p.NewDepthMetric(name)
		m.setDepth, _ = m.depth.(workqueue.SettableGaugeMetric)
	}
	return m
}

var depthWithPriorityType = reflect.TypeFor[DepthMetricWithPriority]()

// depthWithPriority returns p's depth gauge per priority for the queue
// name, or nil if p has none. The provider of controller-runtime returns
// its gauge as a type that only controller-runtime can name. So its method
// is looked up by name and signature, not through an interface.
func depthWithPriority(p workqueue.MetricsProvider, name string) DepthMetricWithPriority {
	if pp, ok := p.(MetricsProviderWithPriority); ok {
		return pp.NewDepthMetricWithPriority(name)
	}
	f := reflect.ValueOf(p).MethodByName("NewDepthMetricWithPriority")
	if !f.IsValid() {
		return nil
	}
	t := f.Type()
	if t.NumIn() != 1 || t.In(0).Kind() != reflect.String || t.NumOut() != 1 || !t.Out(0).Implements(depthWithPriorityType) {
		return nil
	}
	d, _ := f.Call([]reflect.Value{reflect.ValueOf(name).Convert(t.In(0))})[0].Interface().(DepthMetricWithPriority)
	return d
}

// Depth brings the depth gauge of priority prio to n. With a plain depth
// gauge, it brings that gauge to total. A gauge with Set is set to it.
// The gauges of client-go and controller-runtime only have Inc and Dec.
// So they step one item at a time, through values between two depths that
// the queue reported in order.
func (m *metrics) Depth(prio, n, total int) {
	switch {
	case m.byPrio != nil:
		m.stepPriority(prio, n)
	case m.setDepth != nil:
		if total != m.shown {
			m.setDepth.Set(float64(total))
			m.shown = total
		}
	default:
		for ; m.shown < total; m.shown++ {
			m.depth.Inc()
		}
		for ; m.shown > total; m.shown-- {
			m.depth.Dec()
		}
	}
}

// stepPriority moves the depth gauge of priority prio to n.
func (m *metrics) stepPriority(prio, n int) {
	shown := m.shownBy[prio]
	for ; shown < n; shown++ {
		m.byPrio.Inc(prio)
	}
	for ; shown > n; shown-- {
		m.byPrio.Dec(prio)
	}
	if n == 0 {
		delete(m.shownBy, prio)
	} else {
		m.shownBy[prio] = n
	}
}

// Added counts an add (client-go's adds).
func (m *metrics) Added() { m.adds.Inc() }

// Waited observes a queue latency, in seconds as client-go's histogram has it.
func (m *metrics) Waited(d time.Duration) { m.latency.Observe(d.Seconds()) }

// Worked observes a work duration, in seconds.
func (m *metrics) Worked(d time.Duration) { m.work.Observe(d.Seconds()) }

// Retried counts a retry.
func (m *metrics) Retried() { m.retries.Inc() }

// running sets the two gauges client-go updates in the background, from
// the evsync workqueue.Queue.Running.
func (m *metrics) running(unfinished, longest time.Duration) {
	m.unfinished.Set(unfinished.Seconds())
	m.longest.Set(longest.Seconds())
}
