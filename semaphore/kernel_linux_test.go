//go:build linux

package semaphore_test

import (
	"testing"

	"github.com/evsync/evsync/internal/testsupport/eventfd"
	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/model"
	"github.com/evsync/evsync/semaphore"
)

// TestKernelDifferential applies random operation sequences both to a real
// eventfd opened with EFD_SEMAPHORE|EFD_NONBLOCK and to a Semaphore with
// the default limit (and to the model): every write, read and poll must
// give the same values and the same errors (EAGAIN ↔ ErrWouldBlock,
// EINVAL ↔ ErrInvalid). Set EVSYNC_KERNEL_SEED to replay a logged seed.
func TestKernelDifferential(t *testing.T) {
	testkit.KernelDifferential(t, eventfd.Semaphore, func(initial uint64) (testkit.KernelSubject, *model.Counter) {
		return kernelSemaphore{newSemaphore(initial)}, model.NewSemaphore(initial, semaphore.Max)
	})
}

// kernelSemaphore maps the eventfd calls onto a Semaphore.
type kernelSemaphore struct{ *semaphore.Semaphore }

func (s kernelSemaphore) Write(k *testkit.KernelRun, v uint64) {
	k.Write("Release", s.Release, v)
}

func (s kernelSemaphore) WriteWait(k *testkit.KernelRun, v uint64) {
	k.WriteWait("ReleaseWait", s.ReleaseWait, v)
}

// Read is a semaphore read: 1 and a decrement, or EAGAIN at 0.
func (s kernelSemaphore) Read(k *testkit.KernelRun) {
	kv, kerr := k.Read("TryAcquire")
	if got := s.TryAcquire(1); got != (kerr == nil) || (kerr == nil && kv != 1) {
		k.Fail("TryAcquire(1) = %v, kernel read = %d, %v", got, kv, kerr)
	}
}

// ReadWait is a blocking read, with a live context where the kernel's
// read succeeds and a cancelled one where it would wait: EAGAIN is
// context.Canceled.
func (s kernelSemaphore) ReadWait(k *testkit.KernelRun) {
	_, kerr := k.KernelRead("Acquire")
	k.SameErr("Acquire(ctx, 1)", s.Acquire(k.Ctx(kerr), 1), testkit.CancelledErr(kerr))
	k.SameErr("model Acquire", k.Model.Acquire(model.Live, 1), kerr)
}
