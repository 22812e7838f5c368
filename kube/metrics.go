package kube

import (
	"time"

	"k8s.io/client-go/util/workqueue"
)

// metrics is a client-go MetricsProvider's metrics as a readyq.Metrics.
// The provider's metrics must be safe for concurrent use (Prometheus's
// are): readyq calls the hooks from the goroutines whose calls cause the
// events, after releasing its lock, and Depth one call at a time.
type metrics struct {
	depth      workqueue.GaugeMetric
	setDepth   workqueue.SettableGaugeMetric // depth, if it has Set (Prometheus's gauges do)
	shown      int                           // the depth gauge's value; only in Depth
	adds       workqueue.CounterMetric
	latency    workqueue.HistogramMetric
	work       workqueue.HistogramMetric
	unfinished workqueue.SettableGaugeMetric
	longest    workqueue.SettableGaugeMetric
	retries    workqueue.CounterMetric
}

func newMetrics(p workqueue.MetricsProvider, name string) *metrics {
	m := &metrics{
		depth:      p.NewDepthMetric(name),
		adds:       p.NewAddsMetric(name),
		latency:    p.NewLatencyMetric(name),
		work:       p.NewWorkDurationMetric(name),
		unfinished: p.NewUnfinishedWorkSecondsMetric(name),
		longest:    p.NewLongestRunningProcessorSecondsMetric(name),
		retries:    p.NewRetriesMetric(name),
	}
	m.setDepth, _ = m.depth.(workqueue.SettableGaugeMetric)
	return m
}

// Depth brings the depth gauge to total. A gauge with Set is set to it.
// client-go's gauge only has Inc and Dec, so it steps there one item at a
// time, through values between two depths that readyq reported in order.
func (m *metrics) Depth(_, _, total int) {
	if m.setDepth != nil {
		if total != m.shown {
			m.setDepth.Set(float64(total))
			m.shown = total
		}
		return
	}
	for ; m.shown < total; m.shown++ {
		m.depth.Inc()
	}
	for ; m.shown > total; m.shown-- {
		m.depth.Dec()
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
// readyq.Queue.Running.
func (m *metrics) running(unfinished, longest time.Duration) {
	m.unfinished.Set(unfinished.Seconds())
	m.longest.Set(longest.Seconds())
}
