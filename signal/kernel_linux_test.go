//go:build linux

package signal_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/evsync/evsync/internal/model"
	"github.com/evsync/evsync/signal"
	"golang.org/x/sys/unix"
)

// TestKernelDifferential applies random operation sequences both to a real
// eventfd opened with EFD_NONBLOCK and to a Signal (and to the model):
// every write, read and poll must give the same values and the same errors
// (EAGAIN ↔ ErrWouldBlock, EINVAL ↔ ErrInvalid; a read at 0 is EAGAIN,
// where Take returns 0). Set EVSYNC_KERNEL_SEED to replay a logged seed.
func TestKernelDifferential(t *testing.T) {
	seed := kernelSeed(t)
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	runs, steps := 1000, 200
	if testing.Short() {
		runs = 100
	}
	ops := 0
	for run := range runs {
		ops += kernelRun(t, rng, seed, run, steps)
	}
	t.Logf("kernel differential: %d operations in %d runs (seed %d)", ops, runs, seed)
}

func kernelSeed(t *testing.T) uint64 {
	s, ok := os.LookupEnv("EVSYNC_KERNEL_SEED")
	if !ok {
		return rand.Uint64()
	}
	seed, err := strconv.ParseUint(s, 0, 64)
	if err != nil {
		t.Fatalf("EVSYNC_KERNEL_SEED: %v", err)
	}
	return seed
}

// kernelOp is one step of a run, kept for the failure report: a write's
// value, or the initial count for "eventfd".
type kernelOp struct {
	kind   string
	v      uint64
	hasArg bool
}

func (op kernelOp) String() string {
	if op.hasArg {
		return fmt.Sprintf("%s(%d)", op.kind, op.v)
	}
	return op.kind
}

type kernelDiff struct {
	t         *testing.T
	fd        int
	s         *signal.Signal
	m         *model.Counter
	cancelled context.Context
	seed      uint64
	run       int
	history   []kernelOp
}

// kernelRun runs one sequence of steps against a fresh eventfd and
// Signal, and returns how many operations it executed.
func kernelRun(t *testing.T, rng *rand.Rand, seed uint64, run, steps int) int {
	initial := kernelInitial(rng)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	k := &kernelDiff{
		t:         t,
		fd:        openEventfd(t, initial, 0),
		s:         signal.New(uint64(initial)),
		m:         model.NewSignal(uint64(initial)),
		cancelled: ctx,
		seed:      seed,
		run:       run,
	}
	k.recordArg("eventfd", uint64(initial))
	for range steps {
		k.step(rng)
	}
	if got, want := fdinfoCount(t, k.fd), k.s.Count(); got != want {
		k.fail("fdinfo eventfd-count = %d, Count() = %d", got, want)
	}
	return steps
}

// kernelInitial draws eventfd's initval, which the kernel takes as 32 bits.
func kernelInitial(rng *rand.Rand) uint32 {
	switch rng.IntN(6) {
	case 0:
		return 0
	case 1:
		return 1
	case 2:
		return 1<<32 - 1
	case 3:
		return rng.Uint32()
	}
	return rng.Uint32N(8)
}

// kernelValue draws a write, concentrated at the edges: 0, 1, the counter
// max, 1<<64-1 (EINVAL) and the values that bring the count to exactly Max
// or just past it.
func kernelValue(rng *rand.Rand, count uint64) uint64 {
	switch rng.IntN(24) {
	case 0, 1:
		return 0
	case 2, 3:
		return 1
	case 4:
		return signal.Max
	case 5:
		return 1<<64 - 1
	case 6:
		return 1<<64 - 3
	case 7, 8:
		return signal.Max - count // to exactly Max
	case 9:
		return signal.Max - count + 1
	case 10:
		return signal.Max - count - 1
	case 11:
		return count
	case 12:
		return rng.Uint64()
	case 13:
		return uint64(rng.Uint32())
	}
	return rng.Uint64N(16)
}

func (k *kernelDiff) step(rng *rand.Rand) {
	switch r := rng.IntN(20); {
	case r < 6:
		k.write(kernelValue(rng, k.m.Count()))
	case r < 8:
		k.writeWait(kernelValue(rng, k.m.Count()))
	case r < 13:
		k.read()
	case r < 15:
		k.wait()
	default:
		k.poll()
	}
	if got, want := k.s.Count(), k.m.Count(); got != want {
		k.fail("Count() = %d, model %d", got, want)
	}
}

func (k *kernelDiff) write(v uint64) {
	k.recordArg("write/Add", v)
	kerr := kernelWrite(k.fd, v)
	k.sameErr("Add", k.s.Add(v), kerr)
	k.sameErr("model Write", k.m.Write(v), kerr)
}

// writeWait is a blocking write with a cancelled context: EAGAIN is
// context.Canceled.
func (k *kernelDiff) writeWait(v uint64) {
	k.recordArg("write/AddWait", v)
	kerr := kernelWrite(k.fd, v)
	want := kerr
	if kerr == signal.ErrWouldBlock {
		want = context.Canceled
	}
	k.sameErr("AddWait", k.s.AddWait(k.cancelled, v), want)
	k.sameErr("model WriteWait", k.m.WriteWait(v), kerr)
}

// read is a plain read: the whole count, which is reset to 0, or EAGAIN
// at 0, where Take returns 0.
func (k *kernelDiff) read() {
	k.record("read/Take")
	kv, kerr := kernelRead(k.fd)
	if got := k.s.Take(); got != kv || (kerr == nil) != (got != 0) {
		k.fail("Take() = %d, kernel read = %d, %v", got, kv, kerr)
	}
	mv, merr := k.m.Read()
	if mv != kv || merr != kerr {
		k.fail("model Read() = %d, %v, kernel %d, %v", mv, merr, kv, kerr)
	}
}

// wait is a blocking read with a cancelled context: EAGAIN is
// context.Canceled.
func (k *kernelDiff) wait() {
	k.record("read/Wait")
	kv, kerr := kernelRead(k.fd)
	want := kerr
	if kerr == signal.ErrWouldBlock {
		want = context.Canceled
	}
	got, err := k.s.Wait(k.cancelled)
	k.sameErr("Wait(cancelled)", err, want)
	if got != kv {
		k.fail("Wait(cancelled) = %d, kernel read = %d", got, kv)
	}
	mv, merr := k.m.Wait()
	k.sameErr("model Wait", merr, kerr)
	if mv != kv {
		k.fail("model Wait() = %d, kernel read = %d", mv, kv)
	}
}

// poll compares POLLIN and POLLOUT with Count, Ready and the model.
func (k *kernelDiff) poll() {
	k.record("poll")
	in, out := kernelPoll(k.t, k.fd)
	c := k.s.Count()
	ready := firedNow(k.s.Ready())
	mReady := k.m.Fired(k.m.Ready())
	mIn, mOut := k.m.Poll()
	if in != (c > 0) || out != (c < signal.Max) || ready != in || mReady != in || mIn != in || mOut != out {
		k.fail("poll in=%v out=%v; Count() = %d, Ready() closed = %v; model in=%v out=%v ready=%v",
			in, out, c, ready, mIn, mOut, mReady)
	}
}

func (k *kernelDiff) record(kind string) {
	k.history = append(k.history, kernelOp{kind: kind})
}

func (k *kernelDiff) recordArg(kind string, v uint64) {
	k.history = append(k.history, kernelOp{kind, v, true})
}

func (k *kernelDiff) sameErr(what string, got, want error) {
	if got != want {
		k.fail("%s = %v, want %v (from the kernel)", what, got, want)
	}
}

// fail reports the run's last steps; the last one is the one that differed.
func (k *kernelDiff) fail(format string, args ...any) {
	k.t.Helper()
	var b strings.Builder
	h := k.history[max(0, len(k.history)-20):]
	for _, op := range h {
		fmt.Fprintf(&b, "\n\t%v", op)
	}
	k.t.Fatalf("EVSYNC_KERNEL_SEED=%d, run %d, step %d: %s\nlast steps:%s",
		k.seed, k.run, len(k.history)-1, fmt.Sprintf(format, args...), b.String())
}

func openEventfd(t *testing.T, initval uint32, flags int) int {
	t.Helper()
	fd, err := unix.Eventfd(uint(initval), flags|unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		t.Fatalf("eventfd: %v", err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	return fd
}

// kernelErr maps an eventfd errno to the evsync error it corresponds to.
func kernelErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.EAGAIN):
		return signal.ErrWouldBlock
	case errors.Is(err, unix.EINVAL):
		return signal.ErrInvalid
	}
	return err
}

func kernelWrite(fd int, v uint64) error {
	var b [8]byte
	binary.NativeEndian.PutUint64(b[:], v)
	n, err := unix.Write(fd, b[:])
	if err == nil && n != len(b) {
		return fmt.Errorf("short eventfd write: %d bytes", n)
	}
	return kernelErr(err)
}

func kernelRead(fd int) (uint64, error) {
	var b [8]byte
	n, err := unix.Read(fd, b[:])
	if err != nil {
		return 0, kernelErr(err)
	}
	if n != len(b) {
		return 0, fmt.Errorf("short eventfd read: %d bytes", n)
	}
	return binary.NativeEndian.Uint64(b[:]), nil
}

func kernelPoll(t *testing.T, fd int) (in, out bool) {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN | unix.POLLOUT}}
	for {
		_, err := unix.Poll(fds, 0)
		if err == nil {
			break
		}
		if !errors.Is(err, unix.EINTR) {
			t.Fatalf("poll: %v", err)
		}
	}
	return fds[0].Revents&unix.POLLIN != 0, fds[0].Revents&unix.POLLOUT != 0
}

// fdinfoCount reads the kernel's count from /proc/self/fdinfo without
// changing it.
func fdinfoCount(t *testing.T, fd int) uint64 {
	t.Helper()
	info, err := os.ReadFile("/proc/self/fdinfo/" + strconv.Itoa(fd))
	if err != nil {
		t.Fatalf("fdinfo: %v", err)
	}
	for line := range strings.Lines(string(info)) {
		if v, ok := strings.CutPrefix(line, "eventfd-count:"); ok {
			n, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			if err != nil {
				t.Fatalf("fdinfo eventfd-count %q: %v", v, err)
			}
			return n
		}
	}
	t.Fatalf("no eventfd-count in fdinfo:\n%s", info)
	return 0
}
