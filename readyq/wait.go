package readyq

import (
	"context"

	"github.com/evsync/evsync/internal/rq"
	"github.com/evsync/evsync/internal/waitq"
)

// Wait waits until at least one item is queued, then hands out up to max
// of them, oldest first, in one step. The items are in flight until Done.
// It returns:
//
//   - the items and nil
//   - nil and an error matching ErrInvalid at once if ctx is nil or
//     max ≤ 0, which says which ("readyq: wait: max 0 is not above 0")
//   - nil and ctx.Err() at once if ctx is already done, even if items are
//     queued (TryTake takes them regardless), or when ctx ends while it
//     waits
//   - nil and ErrClosed once the queue is closed and nothing is left to
//     hand out (see Close)
func (q *Queue[T]) Wait(ctx context.Context, max int) ([]T, error) {
	if err := errs.Check(ctx, max, errs.WaitNilCtx, "wait"); err != nil {
		return nil, err
	}
	return rq.Handed(q.WaitAppend(ctx, nil, max))
}

// WaitAppend is Wait appending the items to buf. A consumer that passes
// back its previous batch, as buf[:0], allocates nothing once buf is
// large enough. On error it returns buf unchanged. Its errors for a nil
// ctx and max ≤ 0 name the call "wait append".
func (q *Queue[T]) WaitAppend(ctx context.Context, buf []T, max int) ([]T, error) {
	if err := errs.Check(ctx, max, errs.WaitAppendNilCtx, "wait append"); err != nil {
		return buf, err
	}
	if err := ctx.Err(); err != nil {
		return buf, err
	}
	return q.waitAndUnlock(q.lock(), ctx, buf, max)
}

// Next is the consumer loop's call. It is Done(done...) followed by
// WaitAppend(ctx, done[:0], max), in one step where it can. One step
// takes one lock round trip instead of two. With a recheck function, Next
// makes the two calls. Items Done go to blocked Wait callers first, as
// they would with the two calls.
//
// It returns done unchanged and an error matching ErrInvalid, having done
// nothing, for a nil ctx or max ≤ 0 ("readyq: next: nil context"). Its
// items are then still in flight, held by the caller, as WaitAppend
// returns buf unchanged on error. A done context does not stop the Done.
// Finishing held items is not a wait, and skipping it would strand them.
// So Next finishes them, then returns done[:0] and ctx.Err() without
// taking anything. On any other error too, the Done has taken effect and
// Next returns done[:0]. So the loop below ends once ctx is done, even
// while items keep being queued.
//
//	var batch []T
//	for {
//		batch, err = q.Next(ctx, batch, 64)
//		if err != nil {
//			return err
//		}
//		... work on batch ...
//	}
func (q *Queue[T]) Next(ctx context.Context, done []T, max int) ([]T, error) {
	if err := errs.Check(ctx, max, errs.NextNilCtx, "next"); err != nil {
		return done, err
	}
	if q.recheck != nil { // the recheck runs outside the lock
		q.Done(done...)
		return q.WaitAppend(ctx, done[:0], max)
	}
	q.keys.CheckAll(done)
	l := q.lock()
	if len(done) > 0 {
		l.Finish(done, nil)
		l.Settle()
	}
	if err := ctx.Err(); err != nil {
		q.unlock(l)
		return done[:0], err
	}
	return q.waitAndUnlock(l, ctx, done[:0], max)
}

// waitAndUnlock is WaitAppend with the lock held. It releases the lock.
func (q *Queue[T]) waitAndUnlock(l *rq.Locked[T], ctx context.Context, buf []T, max int) ([]T, error) {
	if l.Queued() > 0 {
		return q.takeAndUnlock(l, buf, max), nil
	}
	if l.Exhausted() {
		q.unlock(l)
		return buf, ErrClosed
	}
	if err := ctx.Err(); err != nil {
		q.unlock(l)
		return buf, err
	}
	w := l.Waiters.Push(ctx.Done(), rq.Take[T]{Buf: buf, Max: max})
	q.unlock(l)
	p, err := l.Waiters.Await(ctx, (*owner[T])(q), w)
	if err != nil {
		return buf, err
	}
	return p.Buf, nil
}

// TryTake hands out up to max queued items, oldest first, without
// waiting. It returns nil if nothing is queued or max ≤ 0. The items are
// in flight until Done. On a closed queue it hands out what is left.
func (q *Queue[T]) TryTake(max int) []T {
	if items := q.TryTakeAppend(nil, max); len(items) > 0 {
		return items
	}
	return nil
}

// TryTakeAppend is TryTake appending the items to buf (see WaitAppend).
// An empty queue answers without the lock.
func (q *Queue[T]) TryTakeAppend(buf []T, max int) []T {
	if max <= 0 {
		return buf
	}
	q.watch()
	if q.pub.Queued.Load() == 0 {
		return buf
	}
	l := q.lock()
	if l.Queued() == 0 {
		q.unlock(l)
		return buf
	}
	return q.takeAndUnlock(l, buf, max)
}

// takeAndUnlock hands out up to max queued items, one at least being
// queued, appends them to buf and releases the lock. The splice itself
// is O(1) under the lock (internal/rq's Fifo). A large batch is copied
// out after the lock is released, so producers never wait behind the
// copy.
func (q *Queue[T]) takeAndUnlock(l *rq.Locked[T], buf []T, max int) []T {
	arr, lo, hi := l.Splice(max)
	if !copyOutside || hi-lo <= bigBatch {
		buf = arr.CopyOut(buf, lo, hi)
		q.unlock(l)
		return buf
	}
	arr.Scans.Add(1) // before the unlock: a push that needs room sees it
	q.unlock(l)
	if copyHook != nil {
		copyHook()
	}
	return arr.CopyOutside(buf, lo, hi)
}

// copyHook, if set (tests only, see export_test.go), runs while a large
// batch is copied out after the unlock.
var copyHook func()

// Drain waits until nothing is queued or in flight, on an open or a
// closed queue. It returns:
//
//   - nil then
//   - an error matching ErrInvalid at once for a nil ctx ("readyq:
//     drain: nil context")
//   - ctx.Err() at once if ctx is already done, even on an idle queue, or
//     when ctx ends first
//
// Items keep flowing meanwhile, since Drain only watches. On an open
// queue it returns at the first moment the queue is idle, which producers
// may end at once. A queue with level items and no recheck function, or
// with queued items and no consumer, does not drain by itself.
func (q *Queue[T]) Drain(ctx context.Context) error {
	if ctx == nil {
		return errs.DrainNilCtx
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	l := q.lock()
	if l.Idle() {
		q.mu.Unlock()
		return nil
	}
	w := l.Drainers.Push(ctx.Done(), struct{}{})
	q.mu.Unlock()
	woke := w.Sleep()
	if _, r := l.Drainers.Finish((*owner[T])(q), w, woke); r == waitq.Cancelled {
		return ctx.Err()
	}
	return nil // drainers are only ever granted
}

// Ready returns a channel that is closed once a Wait would not block
// (epoll_wait's readiness). That is when an item is queued, or when the
// queue is closed and nothing is left to hand out. Each call returns a
// channel for the next such moment. A goroutine woken by it may find the
// items taken by another consumer, and TryTake then returns nothing. Such
// a goroutine calls Ready again. On a closed queue, Wait tells the two
// cases apart.
func (q *Queue[T]) Ready() <-chan struct{} {
	q.watch()
	if q.pub.Queued.Load() != 0 {
		return waitq.ClosedChan()
	}
	l := q.lock()
	c := l.Ready.Arm(l.ReadyNow())
	q.mu.Unlock()
	return c
}
