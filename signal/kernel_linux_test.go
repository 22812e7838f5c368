//go:build linux

package signal_test

import (
	"testing"

	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/model"
	"github.com/evsync/evsync/signal"
)

// TestKernelDifferential applies random operation sequences both to a real
// eventfd opened with EFD_NONBLOCK and to a Signal (and to the model):
// every write, read and poll must give the same values and the same errors
// (EAGAIN ↔ ErrWouldBlock, EINVAL ↔ ErrInvalid; a read at 0 is EAGAIN,
// where Take returns 0). Set EVSYNC_KERNEL_SEED to replay a logged seed.
func TestKernelDifferential(t *testing.T) {
	testkit.KernelDifferential(t, 0 /* not EFD_SEMAPHORE */, func(initial uint64) (testkit.KernelSubject, *model.Counter) {
		return kernelSignal{signal.New(initial)}, model.NewSignal(initial)
	})
}

// kernelSignal maps the eventfd calls onto a Signal.
type kernelSignal struct{ *signal.Signal }

func (s kernelSignal) Write(k *testkit.KernelRun, v uint64) {
	k.Write("Add", s.Add, v)
}

func (s kernelSignal) WriteWait(k *testkit.KernelRun, v uint64) {
	k.WriteWait("AddWait", s.AddWait, v)
}

// Read is a plain read: the whole count, which is reset to 0, or EAGAIN
// at 0, where Take returns 0.
func (s kernelSignal) Read(k *testkit.KernelRun) {
	kv, kerr := k.Read("Take")
	if got := s.Take(); got != kv || (kerr == nil) != (got != 0) {
		k.Fail("Take() = %d, kernel read = %d, %v", got, kv, kerr)
	}
}

// ReadWait is a blocking read, with a live context where the kernel's
// read succeeds and a cancelled one where it would wait: EAGAIN is
// context.Canceled.
func (s kernelSignal) ReadWait(k *testkit.KernelRun) {
	kv, kerr := k.KernelRead("Wait")
	got, err := s.Wait(k.Ctx(kerr))
	k.SameErr("Wait", err, testkit.CancelledErr(kerr))
	if got != kv {
		k.Fail("Wait = %d, kernel read = %d", got, kv)
	}
	mv, merr := k.Model.Wait(model.Live)
	k.SameErr("model Wait", merr, kerr)
	if mv != kv {
		k.Fail("model Wait() = %d, kernel read = %d", mv, kv)
	}
}
