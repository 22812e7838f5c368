package workqueue

import (
	"context"

	"github.com/evsync/evsync/internal/rq"
	"github.com/evsync/evsync/internal/waitq"
)

// Wait is [readyq.Queue.Wait] in this package's order. It waits until at
// least one item is queued, then hands out up to max of them in one step:
// highest priority first, the tenants in turn under fair share, and
// oldest first within a tenant. A delayed item is not queued until its
// time comes. The items are in flight until Done. It returns what readyq's
// Wait returns, in the same cases: the items and nil, or nil and an error
// matching ErrInvalid ("workqueue: wait: max 0 is not above 0"),
// ctx.Err() or ErrClosed (see Close).
func (q *Queue[T]) Wait(ctx context.Context, max int) ([]T, error) {
	if err := errs.Check(ctx, max, errs.WaitNilCtx, "wait"); err != nil {
		return nil, err
	}
	return rq.Handed(q.WaitAppend(ctx, nil, max))
}

// WaitAppend is Wait appending the items to buf, as
// [readyq.Queue.WaitAppend] is readyq's: buf comes back unchanged on
// error, and a consumer that passes back its batch as buf[:0] allocates
// nothing once buf is large enough. Its errors name the call "wait
// append".
func (q *Queue[T]) WaitAppend(ctx context.Context, buf []T, max int) ([]T, error) {
	s := &q.s
	if err := errs.Check(ctx, max, errs.WaitAppendNilCtx, "wait append"); err != nil {
		return buf, err
	}
	if err := ctx.Err(); err != nil {
		return buf, err
	}
	s.mu.Lock()
	s.promote()
	return q.waitAndUnlock(ctx, buf, max)
}

// Next is the consumer loop's call, as in readyq ([readyq.Queue.Next]
// shows the loop). It is Done(done...) followed by WaitAppend(ctx,
// done[:0], max), in one lock round trip where it can, and as the two
// calls with a recheck function. Its outcomes are readyq's Next's. A bad
// argument changes nothing and returns done unchanged ("workqueue: next:
// nil context"). A done context still lets the Done take effect, then
// returns done[:0] and ctx.Err(). The Done may delay an item again (the
// package doc's row 3), not only queue it.
func (q *Queue[T]) Next(ctx context.Context, done []T, max int) ([]T, error) {
	s := &q.s
	if err := errs.Check(ctx, max, errs.NextNilCtx, "next"); err != nil {
		return done, err
	}
	if s.cfg.recheck != nil { // the recheck runs outside the lock
		q.Done(done...)
		return q.WaitAppend(ctx, done[:0], max)
	}
	s.cfg.keys.CheckAll(done)
	s.mu.Lock()
	s.promote()
	s.finish(done, nil)
	s.settle()
	if err := ctx.Err(); err != nil {
		s.unlock()
		return done[:0], err
	}
	return q.waitAndUnlock(ctx, done[:0], max)
}

// waitAndUnlock is WaitAppend with mu held. It releases mu.
func (q *Queue[T]) waitAndUnlock(ctx context.Context, buf []T, max int) ([]T, error) {
	s := &q.s
	if s.queued() > 0 {
		return q.takeAndUnlock(buf, max), nil
	}
	if s.exhausted() {
		s.unlock()
		return buf, ErrClosed
	}
	if err := ctx.Err(); err != nil {
		s.unlock()
		return buf, err
	}
	w := s.core.Waiters.Push(ctx.Done(), rq.Take[T]{Buf: buf, Max: max})
	s.unlock()
	p, err := s.core.Waiters.Await(ctx, (*owner[T])(s), w)
	if err != nil {
		return buf, err
	}
	return p.Buf, nil
}

// takeLocked hands out up to max queued items, highest priority first,
// appends them to buf and times them for the metrics. It copies under the
// lock. Only with mu held.
func (s *state[T]) takeLocked(buf []T, max int) []T {
	start := len(buf)
	buf = s.lanes.handOut(buf, max, &s.core.List, &s.core.Items, &s.core.Slab, &s.extras)
	s.core.Lent(len(buf) - start)
	if s.cfg.metrics != nil {
		s.started(buf[start:])
	}
	return buf
}

// TryTake is [readyq.Queue.TryTake] in Wait's order. It hands out up to
// max queued items without waiting, nil if nothing is queued or max ≤ 0.
// The items are in flight until Done. On a closed queue it hands out what
// is left.
func (q *Queue[T]) TryTake(max int) []T {
	if items := q.TryTakeAppend(nil, max); len(items) > 0 {
		return items
	}
	return nil
}

// TryTakeAppend is TryTake appending the items to buf (see WaitAppend).
func (q *Queue[T]) TryTakeAppend(buf []T, max int) []T {
	s := &q.s
	if max <= 0 {
		return buf
	}
	if s.pub.empty(s.cfg.clock.user) {
		return buf
	}
	s.mu.Lock()
	s.promote()
	return q.takeAndUnlock(buf, max)
}

// takeAndUnlock hands out up to max queued items, appends them to buf and
// unlocks mu. The splice itself is O(1) under the lock (see internal/rq/fifo.go). A
// large batch is copied out after the lock is released, so producers
// never wait behind the copy.
func (q *Queue[T]) takeAndUnlock(buf []T, max int) []T {
	s := &q.s
	if s.lanes.live > 0 || s.cfg.metrics != nil {
		buf = s.takeLocked(buf, max)
		s.publish()
		s.unlock()
		return buf
	}
	if s.core.List.Live == 0 {
		s.unlock()
		return buf
	}
	arr, lo, hi := s.core.Splice(max)
	big := copyOutside && hi-lo > bigBatch
	if !big {
		buf = arr.CopyOut(buf, lo, hi)
	} else {
		arr.Scans.Add(1) // before the unlock: a push that needs room sees it
	}
	s.publish()
	s.unlock()
	if big {
		if copyHook != nil {
			copyHook()
		}
		buf = arr.CopyOutside(buf, lo, hi)
	}
	return buf
}

// copyHook, if set (tests only, see export_test.go), runs while a large
// batch is copied out after the unlock.
var copyHook func()

// Drain is [readyq.Queue.Drain] with delays: it waits until nothing is
// queued, delayed or in flight, on an open or a closed queue. Its returns
// are readyq's: nil then, an error matching ErrInvalid for a nil ctx
// ("workqueue: drain: nil context"), or ctx.Err(). A delayed item keeps
// an open queue from draining until its time comes and a consumer is done
// with it. Close ends every delay (see Close).
func (q *Queue[T]) Drain(ctx context.Context) error {
	s := &q.s
	if ctx == nil {
		return errs.DrainNilCtx
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	s.promote()
	idle := s.idle()
	var w *waitq.Waiter[struct{}]
	if !idle {
		w = s.core.Drainers.Push(ctx.Done(), struct{}{})
	}
	if s.cfg.clock.user {
		s.unlock() // wakes the callers that promote served
	} else {
		s.mu.Unlock()
	}
	if idle {
		return nil
	}
	woke := w.Sleep()
	if _, r := s.core.Drainers.Finish((*owner[T])(s), w, woke); r == waitq.Cancelled {
		return ctx.Err()
	}
	return nil // drainers are only ever granted
}

// Ready is [readyq.Queue.Ready]: it returns a channel that is closed once
// a Wait would not block, for the next such moment. A delayed item counts
// once the queue has queued it: at its time, or on a user's clock when
// the clock fires the queue's timer or a call comes (see WithClock).
func (q *Queue[T]) Ready() <-chan struct{} {
	s := &q.s
	if s.pub.Queued.Load() != 0 {
		return waitq.ClosedChan()
	}
	s.mu.Lock()
	s.promote()
	c := s.core.Ready.Arm(s.readyNow())
	if s.cfg.clock.user {
		s.unlock() // wakes the callers that promote served
	} else {
		s.mu.Unlock()
	}
	return c
}
