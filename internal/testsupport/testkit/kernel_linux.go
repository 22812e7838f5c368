//go:build linux

package testkit

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/evsync/evsync/internal/evserr"
	"github.com/evsync/evsync/internal/testsupport/eventfd"
	"github.com/evsync/evsync/model"
)

// KernelSeed returns the seed of a kernel differential test: the value of
// EVSYNC_KERNEL_SEED, to replay a logged run, or else a random one.
func KernelSeed(t testing.TB) uint64 {
	t.Helper()
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

// A KernelSubject is an evsync counter under a kernel differential test.
// Count and Ready are compared with the kernel's poll and fdinfo and with
// the model. Each of the four calls makes the counter's call of that kind
// next to the kernel's and the model's, through k, and compares them.
type KernelSubject interface {
	Count() uint64
	Ready() <-chan struct{}
	Write(k *KernelRun, v uint64)     // a non-blocking write (Release, Add)
	WriteWait(k *KernelRun, v uint64) // a blocking write, with k.Ctx
	Read(k *KernelRun)                // a non-blocking read (TryAcquire, Take)
	ReadWait(k *KernelRun)            // a blocking read, with k.Ctx
}

// A NewSubject builds a fresh counter holding initial and its model.
type NewSubject func(initial uint64) (KernelSubject, *model.Counter)

// KernelDifferential applies random operation sequences both to a real
// eventfd, opened with flags|eventfd.NonBlock, and to the counters and
// models newSubject builds: after every step the counts must agree, and at
// the end of each run the kernel's fdinfo count too. It makes 1000 runs
// of 200 steps (100 runs with -short) and logs how many operations it made
// and the seed.
func KernelDifferential(t *testing.T, flags eventfd.Flag, newSubject NewSubject) {
	t.Helper()
	seed := KernelSeed(t)
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	runs, steps := 1000, 200
	if testing.Short() {
		runs = 100
	}
	ops := 0
	for run := range runs {
		k := &KernelRun{t: t, Cancelled: Cancelled(), seed: seed, index: run}
		ops += k.run(rng, steps, flags|eventfd.NonBlock, newSubject)
	}
	t.Logf("kernel differential: %d operations in %d runs (seed %d)", ops, runs, seed)
}

// A KernelRun is one sequence of steps against a fresh eventfd, counter
// and model. A KernelSubject's calls use it to reach the kernel and the
// model, and to report a difference.
type KernelRun struct {
	// Model is the counter's reference model.
	Model *model.Counter
	// Cancelled is the context of the blocking calls that would wait:
	// already cancelled, so that they return context.Canceled (see Ctx).
	Cancelled context.Context

	t       *testing.T
	fd      *eventfd.FD
	seed    uint64
	index   int // which run of the test
	history History
}

// run makes steps steps and returns how many operations it made.
func (k *KernelRun) run(rng *rand.Rand, steps int, flags eventfd.Flag, newSubject NewSubject) int {
	initial := uint64(kernelInitial(rng))
	fd, err := eventfd.Open(initial, flags)
	if err != nil {
		k.t.Fatalf("eventfd: %v", err)
	}
	defer fd.Close()
	k.fd = fd
	s, m := newSubject(initial)
	k.Model = m
	k.history.AddArg("eventfd", initial)
	for range steps {
		k.step(rng, s)
	}
	got, err := fd.Count()
	if err != nil {
		k.t.Fatal(err)
	}
	if want := s.Count(); got != want {
		k.Fail("fdinfo eventfd-count = %d, Count() = %d", got, want)
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
		return eventfd.Max
	case 5:
		return 1<<64 - 1
	case 6:
		return 1<<64 - 3
	case 7, 8:
		return eventfd.Max - count // to exactly Max
	case 9:
		return eventfd.Max - count + 1
	case 10:
		return eventfd.Max - count - 1
	case 11:
		return count
	case 12:
		return rng.Uint64()
	case 13:
		return uint64(rng.Uint32())
	}
	return rng.Uint64N(16)
}

func (k *KernelRun) step(rng *rand.Rand, s KernelSubject) {
	switch r := rng.IntN(20); {
	case r < 6:
		s.Write(k, kernelValue(rng, k.Model.Count()))
	case r < 8:
		s.WriteWait(k, kernelValue(rng, k.Model.Count()))
	case r < 13:
		s.Read(k)
	case r < 15:
		s.ReadWait(k)
	default:
		k.poll(s)
	}
	if got, want := s.Count(), k.Model.Count(); got != want {
		k.Fail("Count() = %d, model %d", got, want)
	}
}

// Write makes a write of v on the kernel, with the counter's call named
// name (Release, Add) and on the model, and fails unless all three
// return the same error.
func (k *KernelRun) Write(name string, call func(uint64) error, v uint64) {
	k.history.AddArg("write/"+name, v)
	kerr := k.fd.Write(v)
	k.SameErr(name, call(v), kerr)
	k.SameErr("model Write", k.Model.Write(v), kerr)
}

// WriteWait is Write for a blocking call. Where the kernel's write
// succeeds or fails at once, the call is made with a live context and must
// do the same; where the kernel returns EAGAIN (a blocking write would
// wait), it is made with k.Cancelled and must return context.Canceled.
func (k *KernelRun) WriteWait(name string, call func(context.Context, uint64) error, v uint64) {
	k.history.AddArg("write/"+name, v)
	kerr := k.fd.Write(v)
	k.SameErr(name, call(k.Ctx(kerr), v), CancelledErr(kerr))
	k.SameErr("model WriteWait", k.Model.WriteWait(model.Live, v), kerr)
}

// Ctx returns the context of a blocking call where the kernel's
// non-blocking call returned kerr: k.Cancelled where it would wait
// (EAGAIN), so that the call returns context.Canceled instead, and a live
// context where it completes at once.
func (k *KernelRun) Ctx(kerr error) context.Context {
	if kerr == evserr.ErrWouldBlock {
		return k.Cancelled
	}
	return context.Background()
}

// Read makes a non-blocking read, for the counter's call named name
// (TryAcquire, Take), on the kernel and on the model, fails unless they
// agree, and returns the kernel's result to compare the call with.
func (k *KernelRun) Read(name string) (uint64, error) {
	kv, kerr := k.KernelRead(name)
	if mv, merr := k.Model.Read(); mv != kv || merr != kerr {
		k.Fail("model Read() = %d, %v, kernel %d, %v", mv, merr, kv, kerr)
	}
	return kv, kerr
}

// KernelRead records a read by the counter's call named name and makes
// it on the kernel only, for a blocking call that compares itself with its
// own model call (Acquire, Wait).
func (k *KernelRun) KernelRead(name string) (uint64, error) {
	k.history.Add("read/" + name)
	return k.fd.Read()
}

// CancelledErr is the error a blocking call made with a cancelled context
// returns where the kernel's non-blocking call returns kerr: the same,
// except that EAGAIN (ErrWouldBlock) is context.Canceled.
func CancelledErr(kerr error) error {
	if kerr == evserr.ErrWouldBlock {
		return context.Canceled
	}
	return kerr
}

// poll compares POLLIN and POLLOUT with Count, Ready and the model.
func (k *KernelRun) poll(s KernelSubject) {
	k.history.Add("poll")
	in, out, err := k.fd.Poll()
	if err != nil {
		k.t.Fatal(err)
	}
	c := s.Count()
	ready := IsClosed(s.Ready())
	mReady := k.Model.Fired(k.Model.Ready())
	mIn, mOut := k.Model.Poll()
	if in != (c > 0) || out != (c < eventfd.Max) || ready != in || mReady != in || mIn != in || mOut != out {
		k.Fail("poll in=%v out=%v; Count() = %d, Ready() closed = %v; model in=%v out=%v ready=%v",
			in, out, c, ready, mIn, mOut, mReady)
	}
}

// SameErr fails unless got is the very value want.
func (k *KernelRun) SameErr(what string, got, want error) {
	if got != want && !errors.Is(got, want) { // a bad argument's error wraps ErrInvalid
		k.t.Helper() // only here: Helper is costly, and this runs at every step
		k.Fail("%s = %v, want %v (from the kernel)", what, got, want)
	}
}

// Fail reports the run's last 20 steps, the last of which is the one that
// differed, with the seed to replay it, and stops the test.
func (k *KernelRun) Fail(format string, args ...any) {
	k.t.Helper()
	k.t.Fatalf("EVSYNC_KERNEL_SEED=%d, run %d, step %d: %s\nlast steps:%s",
		k.seed, k.index, k.history.Len()-1, fmt.Sprintf(format, args...), k.history.Last(20))
}
