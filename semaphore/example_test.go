package semaphore_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/evsync/evsync/semaphore"
)

// A semaphore bounds how many workers run at once.
func Example() {
	sem := semaphore.New(2) // two workers at a time
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := sem.Acquire(context.Background(), 1); err != nil {
				return
			}
			defer sem.Release(1)
			mu.Lock()
			done++
			mu.Unlock()
		}()
	}
	wg.Wait()
	fmt.Println("jobs done:", done, "units back:", sem.Count())
	// Output: jobs done: 5 units back: 2
}

// Reserve is the select-able acquire. It keeps its place in line, and
// Cancel gives back units that arrived just as the caller gave up.
func ExampleSemaphore_Reserve() {
	sem := semaphore.New(0)
	r, _ := sem.Reserve(1)
	select {
	case <-r.Done():
		fmt.Println("got the unit")
		sem.Release(1)
	case <-time.After(10 * time.Millisecond):
		r.Cancel()
		fmt.Println("gave up; count is still", sem.Count())
	}
	// Output: gave up; count is still 0
}

// TryAcquire never waits, and never takes units someone queued for first.
func ExampleSemaphore_TryAcquire() {
	sem := semaphore.New(1)
	fmt.Println(sem.TryAcquire(1), sem.TryAcquire(1))
	// Output: true false
}

// ReleaseWait applies back-pressure at the limit, like a blocking eventfd
// write. Release refuses instead.
func ExampleSemaphore_ReleaseWait() {
	sem := semaphore.New(2, semaphore.WithLimit(2))
	fmt.Println(sem.Release(1))
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	fmt.Println(sem.ReleaseWait(ctx, 1))
	// Output:
	// evsync: operation would block
	// context deadline exceeded
}

// Close keeps what was released readable, then refuses.
// After Close, what is left is still handed out, and holders may still
// give their units back. Drain waits until they all have.
func ExampleSemaphore_Close() {
	sem := semaphore.New(2, semaphore.WithLimit(2))
	ctx := context.Background()
	_ = sem.Acquire(ctx, 1) // a job holds one unit
	sem.Close()
	fmt.Println(sem.Acquire(ctx, 1), sem.Acquire(ctx, 1)) // the one left, then nothing
	_ = sem.Release(1)                                    // the jobs finish and give back
	_ = sem.Release(1)
	fmt.Println(sem.Drain(ctx), sem.Count())
	// Output:
	// <nil> evsync: closed
	// <nil> 2
}

// AcquireUpTo takes a batch of slots when several are free. A worker that
// can run up to four jobs at once takes what there is, at least one.
func ExampleSemaphore_AcquireUpTo() {
	slots := semaphore.New(6, semaphore.WithLimit(6))
	ctx := context.Background()
	_ = slots.Acquire(ctx, 3) // busy elsewhere
	n, _ := slots.AcquireUpTo(ctx, 4)
	fmt.Println("took", n, "left", slots.Count())
	// Output: took 3 left 0
}

// TakeAll takes every free unit at once (x/sync's missing "take
// everything", Java's drainPermits), here to pause a pool.
func ExampleSemaphore_TakeAll() {
	pool := semaphore.New(5, semaphore.WithLimit(5))
	_ = pool.Acquire(context.Background(), 2)
	paused := pool.TakeAll()
	fmt.Println("held back", paused, "free", pool.Count())
	_ = pool.Release(paused) // resume
	fmt.Println("free", pool.Count())
	// Output:
	// held back 3 free 0
	// free 3
}

// Writable is poll's POLLOUT. It is ready once a Release(1) would not
// block for want of room, here when a full semaphore's holder gives back.
func ExampleSemaphore_Writable() {
	lim := semaphore.New(1, semaphore.WithLimit(1)) // full, count 1 = limit 1
	out := lim.Writable()
	_ = lim.Acquire(context.Background(), 1) // the count drops below the limit
	<-out
	fmt.Println("writable, count", lim.Count())
	// Output: writable, count 0
}

// Drain waits until every unit is back. After Close, holders still give
// their units back, and Drain returns once all of them have.
func ExampleSemaphore_Drain() {
	sem := semaphore.New(2, semaphore.WithLimit(2))
	_ = sem.Acquire(context.Background(), 2)
	sem.Close()
	go sem.Release(2) // the last holder gives back
	fmt.Println(sem.Drain(context.Background()), sem.Count())
	// Output: <nil> 2
}

// SetLimit resizes a running semaphore. Cutting it below what is held
// takes nothing from the holders. Their releases pay the difference first.
func ExampleSemaphore_SetLimit() {
	lim := semaphore.New(4, semaphore.WithLimit(4))
	_ = lim.Acquire(context.Background(), 3) // three jobs running
	_ = lim.SetLimit(2)                      // 1 free unit goes, 1 is owed
	fmt.Println(lim)
	_ = lim.Release(3) // the jobs finish, 1 pays the debt and 2 are free
	fmt.Println(lim)
	// Output:
	// semaphore{count=0 limit=2 waiting=0 writers=0 debt=1}
	// semaphore{count=2 limit=2 waiting=0 writers=0}
}
