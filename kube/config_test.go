package kube_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/evsync/evsync/kube"
	"github.com/evsync/evsync/workqueue"
)

// TestConfigQueueGivesWayToNew: Config.Queue's rate limiter serves when
// New is given none, and its metrics when the Config names no metrics.
// A limiter given to New, and a Name with a MetricsProvider, win.
func TestConfigQueueGivesWayToNew(t *testing.T) {
	mine, theirs := new(countingLimiter), new(countingLimiter)
	m, p := new(addCounter), new(provider)
	c := kube.Config[string]{Queue: workqueue.Config[string]{RateLimiter: theirs, Metrics: m}}
	q := kube.New(nil, c)
	q.Add("a")
	q.AddRateLimited("b")
	q.ShutDown()
	if theirs.whens.Load() != 1 || m.adds.Load() != 2 {
		t.Fatalf("Config.Queue's limiter asked %d times, its metrics told of %d adds; want 1 and 2",
			theirs.whens.Load(), m.adds.Load())
	}
	c.Name, c.MetricsProvider = "test", p
	q = kube.New(mine, c)
	q.Add("a")
	q.AddRateLimited("b")
	q.ShutDown()
	if mine.whens.Load() != 1 || theirs.whens.Load() != 1 {
		t.Fatalf("New's limiter asked %d times, Config.Queue's %d in all; want 1 and 1",
			mine.whens.Load(), theirs.whens.Load())
	}
	if p.adds.Load() != 2 || m.adds.Load() != 2 {
		t.Fatalf("the provider counted %d adds, Config.Queue's metrics %d in all; want 2 and 2",
			p.adds.Load(), m.adds.Load())
	}
}

// countingLimiter is a rate limiter that counts its Whens and never
// delays.
type countingLimiter struct{ whens atomic.Int64 }

func (l *countingLimiter) When(string) time.Duration { l.whens.Add(1); return 0 }
func (l *countingLimiter) Forget(string)             {}
func (l *countingLimiter) NumRequeues(string) int    { return int(l.whens.Load()) }

// addCounter is a workqueue.Metrics that counts the adds only.
type addCounter struct{ adds atomic.Int64 }

func (m *addCounter) Depth(int, int, int)  {}
func (m *addCounter) Added()               { m.adds.Add(1) }
func (m *addCounter) Waited(time.Duration) {}
func (m *addCounter) Worked(time.Duration) {}
func (m *addCounter) Retried()             {}
