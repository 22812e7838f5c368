//go:build linux

package fuzz_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/evsync/evsync/internal/testsupport/eventfd"
	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/model"
	"github.com/evsync/evsync/semaphore"
	"github.com/evsync/evsync/signal"
)

// FuzzKernel makes the decoded operations on a real, non-blocking kernel
// eventfd, on the evsync primitive with the same semantics and on its
// model, and fails unless all three agree on every value and error
// (EAGAIN is ErrWouldBlock, EINVAL is ErrInvalid). The kernel is the
// reference here: it checks the model as much as the primitive.
//
// Input: a mode byte ('0' EFD_SEMAPHORE against a Semaphore with the
// default limit, '1' plain against a Signal), an amount for the initial
// count (capped at Max; eventfd.Open writes what eventfd(2) cannot
// take), then operations, each a letter of kernelCodes with its operands:
//
//	W n       write(n): Release(n) or Add(n)
//	B ctx n   write(n): ReleaseWait(ctx, n) or AddWait(ctx, n); where the
//	          kernel says EAGAIN the call gets a cancelled context and must
//	          return context.Canceled, a nil one must return ErrInvalid, and
//	          an already cancelled one must return context.Canceled (or
//	          ErrInvalid for 1<<64-1) without the kernel's write being made
//	R         read(): TryAcquire(1) (1, or EAGAIN) or Take() (0 for EAGAIN)
//	S ctx     read(): Acquire(ctx, 1) or Wait(ctx), as for B
//	P         poll(): POLLIN and POLLOUT against Count, Ready and the model
//	F         the count in /proc/self/fdinfo against Count()
func FuzzKernel(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) { runKernel(t, data, nil) })
}

const kernelCodes = "WBRSPF"

// A kernelSubject is the evsync side of a kernel run.
type kernelSubject interface {
	write(n uint64) error
	writeWait(ctx context.Context, n uint64) error
	// read is the non-blocking read, as the kernel gives it: the value
	// read, or ErrWouldBlock.
	read() (uint64, error)
	readWait(ctx context.Context) (uint64, error)
	Count() uint64
	Ready() <-chan struct{}
	Close()
}

type kernelSem struct{ *semaphore.Semaphore }

func (s kernelSem) write(n uint64) error { return s.Release(n) }

func (s kernelSem) writeWait(ctx context.Context, n uint64) error { return s.ReleaseWait(ctx, n) }

func (s kernelSem) read() (uint64, error) {
	if s.TryAcquire(1) {
		return 1, nil
	}
	return 0, semaphore.ErrWouldBlock
}

func (s kernelSem) readWait(ctx context.Context) (uint64, error) {
	if err := s.Acquire(ctx, 1); err != nil {
		return 0, err
	}
	return 1, nil
}

type kernelSig struct{ *signal.Signal }

func (s kernelSig) write(n uint64) error { return s.Add(n) }

func (s kernelSig) writeWait(ctx context.Context, n uint64) error { return s.AddWait(ctx, n) }

func (s kernelSig) read() (uint64, error) {
	if v := s.Take(); v != 0 {
		return v, nil
	}
	return 0, signal.ErrWouldBlock
}

func (s kernelSig) readWait(ctx context.Context) (uint64, error) { return s.Wait(ctx) }

type kernelRun struct {
	trail
	tl   tally
	fd   *eventfd.FD
	s    kernelSubject
	m    *model.Counter
	mode string
}

func runKernel(t *testing.T, data []byte, tl tally) {
	d := &decoder{data: data}
	r := &kernelRun{trail: trail{t: t}, tl: tl}
	sem := d.choice(2) == 0
	initial := min(d.amount(0, eventfd.Max, 1), eventfd.Max)
	flags := eventfd.NonBlock
	if sem {
		flags |= eventfd.Semaphore
		r.s, r.m, r.mode = kernelSem{semaphore.New(initial)}, model.NewSemaphore(initial, semaphore.Max), "semaphore"
	} else {
		r.s, r.m, r.mode = kernelSig{signal.New(initial)}, model.NewSignal(initial), "plain"
	}
	defer r.s.Close()
	fd, err := eventfd.Open(initial, flags)
	if err != nil {
		t.Fatalf("eventfd.Open(%d): %v", initial, err)
	}
	defer fd.Close()
	r.fd = fd
	r.tl.hit("Open", r.mode)
	for d.more() {
		desc := r.step(d)
		r.check(desc)
		r.add(desc)
	}
	r.fdinfo("end")
}

func (r *kernelRun) step(d *decoder) string {
	switch d.op(kernelCodes) {
	case 0:
		n := d.amount(r.m.Count(), eventfd.Max, 1)
		kerr := r.fd.Write(n)
		r.tl.err(r.mode+" write", kerr)
		r.sameErr(fmt.Sprintf("write(%d)", n), r.s.write(n), kerr)
		r.sameErr(fmt.Sprintf("model Write(%d)", n), r.m.Write(n), kerr)
		return fmt.Sprintf("write(%d)", n)
	case 1:
		k := d.ctx()
		n := d.amount(r.m.Count(), eventfd.Max, 1)
		return r.writeWait(k, n)
	case 2:
		kv, kerr := r.fd.Read()
		r.tl.err(r.mode+" read", kerr)
		v, err := r.s.read()
		r.sameRead("read", v, err, kv, kerr)
		mv, merr := r.m.Read()
		r.sameRead("model Read", mv, merr, kv, kerr)
		return "read()"
	case 3:
		return r.readWait(d.ctx())
	case 4:
		return r.poll()
	}
	r.fdinfo("fdinfo")
	return "fdinfo"
}

func (r *kernelRun) writeWait(k ctxKind, n uint64) string {
	desc := fmt.Sprintf("blocking write(%v, %d)", k, n)
	if k == ctxNil {
		r.tl.err(r.mode+" blocking write", semaphore.ErrInvalid)
		r.sameErr(desc, r.s.writeWait(nilCtx, n), semaphore.ErrInvalid)
		return desc
	}
	if k == ctxCancelled { // a done context stops the call: no write at all
		want := r.m.WriteWait(model.Done, n)
		r.tl.err(r.mode+" blocking write", want)
		r.sameErr(desc, r.s.writeWait(cancelled, n), want)
		return desc
	}
	kerr := r.fd.Write(n)
	if kerr == semaphore.ErrWouldBlock {
		k = ctxCancelled
	}
	want := cancelledErr(kerr)
	r.tl.err(r.mode+" blocking write", want)
	r.sameErr(desc, r.s.writeWait(k.context(), n), want)
	r.sameErr("model WriteWait", r.m.WriteWait(model.Live, n), kerr)
	return desc
}

func (r *kernelRun) readWait(k ctxKind) string {
	desc := fmt.Sprintf("blocking read(%v)", k)
	if k == ctxNil {
		v, err := r.s.readWait(nilCtx)
		r.tl.err(r.mode+" blocking read", semaphore.ErrInvalid)
		r.sameRead(desc, v, err, 0, semaphore.ErrInvalid)
		return desc
	}
	if k == ctxCancelled { // a done context stops the call: no read at all
		v, err := r.s.readWait(cancelled)
		r.tl.err(r.mode+" blocking read", context.Canceled)
		r.sameRead(desc, v, err, 0, context.Canceled)
		return desc
	}
	kv, kerr := r.fd.Read()
	if kerr == semaphore.ErrWouldBlock {
		k = ctxCancelled
	}
	want := cancelledErr(kerr)
	r.tl.err(r.mode+" blocking read", want)
	v, err := r.s.readWait(k.context())
	r.sameRead(desc, v, err, kv, want)
	mv, merr := r.m.Read()
	r.sameRead("model Read", mv, merr, kv, kerr)
	return desc
}

// poll compares POLLIN and POLLOUT with Count, Ready and the model's Poll
// and Ready.
func (r *kernelRun) poll() string {
	in, out, err := r.fd.Poll()
	if err != nil {
		r.fail("poll: %v", err)
	}
	r.tl.hit(r.mode+" poll", fmt.Sprintf("in=%v out=%v", in, out))
	c := r.s.Count()
	ready := testkit.IsClosed(r.s.Ready())
	mIn, mOut := r.m.Poll()
	mReady := r.m.Fired(r.m.Ready())
	if in != (c > 0) || out != (c < eventfd.Max) || ready != in || mIn != in || mOut != out || mReady != in {
		r.fail("poll in=%v out=%v; Count() = %d, Ready() closed = %v; model in=%v out=%v ready=%v",
			in, out, c, ready, mIn, mOut, mReady)
	}
	return "poll()"
}

func (r *kernelRun) fdinfo(desc string) {
	got, err := r.fd.Count()
	if err != nil {
		r.fail("fdinfo: %v", err)
	}
	r.tl.hit(r.mode+" fdinfo", "ok")
	if c := r.s.Count(); got != c {
		r.fail("%s: fdinfo eventfd-count = %d, Count() = %d", desc, got, c)
	}
}

func (r *kernelRun) check(desc string) {
	validate(&r.trail, r.m)
	if c, mc := r.s.Count(), r.m.Count(); c != mc {
		r.fail("after %s: Count() = %d, model %d", desc, c, mc)
	}
}

func (r *kernelRun) sameErr(what string, got, kerr error) {
	if !errMatches(got, kerr) {
		r.fail("%s (%s) = %v, kernel %v", what, r.mode, got, kerr)
	}
}

func (r *kernelRun) sameRead(what string, v uint64, err error, kv uint64, kerr error) {
	if v != kv || !errMatches(err, kerr) {
		r.fail("%s (%s) = %d, %v; kernel %d, %v", what, r.mode, v, err, kv, kerr)
	}
}
