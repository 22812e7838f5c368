package model_test

import (
	"testing"

	"github.com/evsync/evsync/coalesce"
	"github.com/evsync/evsync/model"
	"github.com/evsync/evsync/readyq"
	"github.com/evsync/evsync/semaphore"
	"github.com/evsync/evsync/signal"
	"github.com/evsync/evsync/workqueue"
)

// TestModesAreReadyqs pins the promise of Mode's doc: model.Mode(m)
// converts a readyq.Mode m.
func TestModesAreReadyqs(t *testing.T) {
	for _, c := range []struct {
		real readyq.Mode
		want model.Mode
	}{{readyq.Edge, model.Edge}, {readyq.Level, model.Level}, {readyq.OneShot, model.OneShot}} {
		if got := model.Mode(c.real); got != c.want {
			t.Errorf("model.Mode(readyq.%v) = %d, want %d", c.real, got, c.want)
		}
	}
}

// TestAddOptsConvert pins the promise of AddOpts's doc: a workqueue.AddOpts
// converts to it, field by field.
func TestAddOptsConvert(t *testing.T) {
	o := workqueue.AddOpts{After: 3, RateLimited: true, Priority: -2}
	if got, want := model.AddOpts(o), (model.AddOpts{After: 3, RateLimited: true, Priority: -2}); got != want {
		t.Errorf("model.AddOpts(%+v) = %+v, want %+v", o, got, want)
	}
}

// TestQueueStatsConvert pins the promise of QueueStats's doc: a
// workqueue.Stats converts to it, field by field, and back.
func TestQueueStatsConvert(t *testing.T) {
	s := workqueue.Stats{Queued: 1, Delayed: 2, InFlight: 3, Aside: 4, Disarmed: 5, Waiting: 6, Draining: 7, Closed: true}
	want := model.QueueStats{Queued: 1, Delayed: 2, InFlight: 3, Aside: 4, Disarmed: 5, Waiting: 6, Draining: 7, Closed: true}
	if got := model.QueueStats(s); got != want {
		t.Errorf("model.QueueStats(%+v) = %+v, want %+v", s, got, want)
	}
	if back := workqueue.Stats(want); back != s {
		t.Errorf("workqueue.Stats(%+v) = %+v, want %+v", want, back, s)
	}
}

// TestErrorsAreTheRealOnes pins the promise of the errors' doc: each is
// the value the real packages return.
func TestErrorsAreTheRealOnes(t *testing.T) {
	for _, c := range []struct {
		name        string
		model, real error
	}{
		{"semaphore.ErrWouldBlock", model.ErrWouldBlock, semaphore.ErrWouldBlock},
		{"signal.ErrWouldBlock", model.ErrWouldBlock, signal.ErrWouldBlock},
		{"semaphore.ErrInvalid", model.ErrInvalid, semaphore.ErrInvalid},
		{"signal.ErrInvalid", model.ErrInvalid, signal.ErrInvalid},
		{"coalesce.ErrInvalid", model.ErrInvalid, coalesce.ErrInvalid},
		{"readyq.ErrInvalid", model.ErrInvalid, readyq.ErrInvalid},
		{"semaphore.ErrClosed", model.ErrClosed, semaphore.ErrClosed},
		{"signal.ErrClosed", model.ErrClosed, signal.ErrClosed},
		{"coalesce.ErrClosed", model.ErrClosed, coalesce.ErrClosed},
		{"readyq.ErrClosed", model.ErrClosed, readyq.ErrClosed},
		{"semaphore.ErrOverRelease", model.ErrOverRelease, semaphore.ErrOverRelease},
	} {
		if c.model != c.real {
			t.Errorf("the model's error is not %s", c.name)
		}
	}
}

// TestMaxIsTheRealOne pins Max's doc: it is semaphore.Max and signal.Max.
func TestMaxIsTheRealOne(t *testing.T) {
	for name, max := range map[string]uint64{"semaphore.Max": semaphore.Max, "signal.Max": signal.Max} {
		if model.Max != max {
			t.Errorf("model.Max = %d, %s = %d", model.Max, name, max)
		}
	}
}
