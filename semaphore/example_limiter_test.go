package semaphore_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/evsync/evsync/semaphore"
)

// A pool of workers runs at most two jobs at once. Closed after ten jobs,
// it refuses the eleventh even though units are free. The jobs still
// running give theirs back, and Drain waits for them.
func ExampleLimiter() {
	lim := semaphore.NewLimiter(2)
	ctx := context.Background()
	var wg sync.WaitGroup
	for job := 1; job <= 11; job++ {
		if job == 11 {
			lim.Close()
		}
		p, err := lim.AcquirePermit(ctx, 1)
		if err != nil {
			fmt.Printf("job %d: %v\n", job, err)
			continue
		}
		wg.Go(func() {
			defer p.Release()
			// ... the job's work ...
		})
	}
	fmt.Println("drained:", lim.Drain(ctx))
	wg.Wait()
	// Output:
	// job 11: evsync: closed
	// drained: <nil>
}

// A Release of more than was acquired is an error that names the mistake,
// and changes nothing.
func ExampleNewLimiter() {
	lim := semaphore.NewLimiter(3)
	ctx := context.Background()
	_ = lim.Acquire(ctx, 2)
	fmt.Println(lim)
	fmt.Println(lim.Release(3)) // one more than is held
	fmt.Println(lim.Release(2), lim)
	// Output:
	// limiter{limit=3 in-use=2 free=1 waiting=0}
	// evsync: released more units than are held
	// <nil> limiter{limit=3 in-use=0 free=3 waiting=0}
}

// SetLimit resizes a running limiter. A cut below what is in use takes
// nothing from the jobs. No new job starts until the in-use count is
// below the new limit.
func ExampleLimiter_SetLimit() {
	lim := semaphore.NewLimiter(4)
	_ = lim.Acquire(context.Background(), 3) // three jobs running
	_ = lim.SetLimit(2)
	fmt.Println(lim)
	fmt.Println("a new job starts:", lim.TryAcquire(1))
	_ = lim.Release(2) // two jobs finish
	fmt.Println(lim)
	fmt.Println("a new job starts:", lim.TryAcquire(1))
	// Output:
	// limiter{limit=2 in-use=3 free=0 waiting=0}
	// a new job starts: false
	// limiter{limit=2 in-use=1 free=1 waiting=0}
	// a new job starts: true
}

// A permit gives back exactly what it took, once. The deferred Release
// after an explicit one is a no-op instead of a second give-back.
func ExampleLimiter_AcquirePermit() {
	lim := semaphore.NewLimiter(4)
	p, err := lim.AcquirePermit(context.Background(), 3)
	if err != nil {
		return
	}
	defer p.Release() // a no-op, since it is released below
	half, _ := p.Split(1)
	fmt.Println(half.Release(), p.Release(), p.Release(), lim.Stats().Free)
	// Output: true true false 4
}

// TryAcquirePermit takes a permit only if the units are free now. On
// failure the zero Permit it returns holds nothing, so releasing it is a
// harmless no-op.
func ExampleLimiter_TryAcquirePermit() {
	lim := semaphore.NewLimiter(1)
	first, ok1 := lim.TryAcquirePermit(1)
	second, ok2 := lim.TryAcquirePermit(1) // nothing free
	fmt.Println(ok1, ok2, second.Release(), first.Release(), lim.Stats().Free)
	// Output: true false false true 1
}

// Split hands part of a permit to another job. Each part is released on
// its own, and together they give back exactly what was taken.
func ExamplePermit_Split() {
	lim := semaphore.NewLimiter(4)
	p, _ := lim.AcquirePermit(context.Background(), 4)
	q, _ := p.Split(1) // one unit for a helper job
	done := make(chan bool)
	go func() { done <- q.Release() }()
	fmt.Println(<-done, p.N(), lim.Stats().Free)
	p.Release()
	fmt.Println(lim.Stats().Free)
	// Output:
	// true 3 1
	// 4
}

// Merge gathers permits so that one Release gives all their units back.
func ExamplePermit_Merge() {
	lim := semaphore.NewLimiter(5)
	var all semaphore.Permit // the zero Permit takes on the limiter of the first it gets
	for range 3 {
		p, _ := lim.TryAcquirePermit(1)
		_ = all.Merge(&p)
	}
	fmt.Println(all.N(), lim.Stats().Free, all.Release(), lim.Stats().Free)
	// Output: 3 2 true 5
}

// Forget keeps a permit's units out of circulation for good, here to
// retire one slot of a pool. The capacity shrinks by what was forgotten.
func ExamplePermit_Forget() {
	lim := semaphore.NewLimiter(3)
	p, _ := lim.AcquirePermit(context.Background(), 1)
	fmt.Println(p.Forget(), p.Release(), lim.Stats().Free)
	// Output: 1 false 2
}

// A Group runs at most two downloads at a time and returns the first
// error.
func ExampleGroup() {
	g := semaphore.NewGroup(2)
	var peak, running atomic.Int32
	for i := range 6 {
		_ = g.Go(context.Background(), func() error {
			n := running.Add(1)
			defer running.Add(-1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			if i == 4 {
				return errors.New("download 4 failed")
			}
			return nil
		})
	}
	fmt.Println(g.Wait())
	fmt.Println("never more than 2 at once:", peak.Load() <= 2)
	// Output:
	// download 4 failed
	// never more than 2 at once: true
}

// SetLimit changes a Group's limit while its goroutines run. Here a
// group of one widens to three once the first job has started.
func ExampleGroup_SetLimit() {
	g := semaphore.NewGroup(1)
	started := make(chan struct{})
	release := make(chan struct{})
	_ = g.Go(context.Background(), func() error {
		close(started)
		<-release
		return nil
	})
	<-started
	fmt.Println("free slots:", g.TryGo(func() error { return nil }))
	_ = g.SetLimit(3)
	fmt.Println("after SetLimit(3):", g.Stats())
	close(release)
	fmt.Println(g.Wait())
	// Output:
	// free slots: false
	// after SetLimit(3): limiter{limit=3 in-use=1 free=2 waiting=0}
	// <nil>
}
