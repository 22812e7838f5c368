package readyq_test

import (
	"testing"

	"github.com/evsync/evsync/internal/testsupport/rqtest"
	"github.com/evsync/evsync/readyq"
)

// impl is readyq as the suite's implementation.
var impl = rqtest.Impl{
	Name:          "readyq",
	New:           func() rqtest.Queue[int] { return readyq.New[int]() },
	NewWith:       func(c readyq.Config[int]) rqtest.Queue[int] { return readyq.NewWithConfig(c) },
	NewStringWith: func(c readyq.Config[string]) rqtest.Queue[string] { return readyq.NewWithConfig(c) },
	Zero:          func() rqtest.Queue[int] { return new(readyq.Queue[int]) },
	ZeroString:    func() rqtest.Queue[string] { return new(readyq.Queue[string]) },
	Slots:         func(q rqtest.Queue[int]) int { return readyq.Slots(q.(*readyq.Queue[int])) },
	SetBigBatch:   readyq.SetBigBatch,
	SetCopyHook:   readyq.SetCopyHook,
	CopiesOutside: readyq.CopiesOutside,
	Entries:       func(q rqtest.Queue[int]) int { return readyq.Entries(q.(*readyq.Queue[int])) },
}

// TestReadyList runs the ready list's behaviour suite (rqtest), which
// workqueue runs too.
func TestReadyList(t *testing.T) { rqtest.Run(t, impl) }

// TestQueueModel drives every call of a Queue next to model.ReadyQ, the
// sequential reference model, and compares every result and, after each
// step, the whole observable state (rqtest.CheckModel).
func TestQueueModel(t *testing.T) { rqtest.CheckModel(t, impl) }

// FuzzQueueModel is TestQueueModel as a native fuzz target.
func FuzzQueueModel(f *testing.F) { rqtest.FuzzModel(f, impl) }

// TestConfigModeMustBeAMode: NewWithConfig panics for a Mode that is not
// one, the one setting the compiler cannot check.
func TestConfigModeMustBeAMode(t *testing.T) {
	defer func() {
		if r := recover(); r != "readyq: Config.Mode is not a Mode" {
			t.Fatalf("recover() = %v, want the bad Mode's panic", r)
		}
	}()
	readyq.NewWithConfig(readyq.Config[int]{Mode: 3})
}
