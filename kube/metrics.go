package kube

import (
	"time"

	"k8s.io/client-go/util/workqueue"
)

// metrics is a client-go MetricsProvider's metrics as a readyq.Metrics.
// The provider's metrics must be safe for concurrent use (Prometheus's
// are): readyq calls the hooks from the goroutines whose calls cause the
// events, after releasing its lock.
type metrics struct {
	depth      workqueue.GaugeMetric
	adds       workqueue.CounterMetric
	latency    workqueue.HistogramMetric
	work       workqueue.HistogramMetric
	unfinished workqueue.SettableGaugeMetric
	longest    workqueue.SettableGaugeMetric
	retries    workqueue.CounterMetric
}

func newMetrics(p workqueue.MetricsProvider, name string) *metrics {
	return &metrics{
		depth:      p.NewDepthMetric(name),
		adds:       p.NewAddsMetric(name),
		latency:    p.NewLatencyMetric(name),
		work:       p.NewWorkDurationMetric(name),
		unfinished: p.NewUnfinishedWorkSecondsMetric(name),
		longest:    p.NewLongestRunningProcessorSecondsMetric(name),
		retries:    p.NewRetriesMetric(name),
	}
}

// Depth moves the depth gauge by delta: client-go's gauge only has Inc and
// Dec.
func (m *metrics) Depth(delta int) {
	for ; delta > 0; delta-- {
		m.depth.Inc()
	}
	for ; delta < 0; delta++ {
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
