package semaphore_test

import (
	"context"
	"fmt"

	"github.com/evsync/evsync/poll"
	"github.com/evsync/evsync/semaphore"
)

// A dispatcher waits on a Limiter with a poll.Set. At each In it takes
// the free units in one call, at most one per queued job, and starts that
// many jobs. Here the jobs that end are played by Releases.
func ExampleLimiter_TryAcquireUpTo() {
	ctx := context.Background()
	lim := semaphore.NewLimiter(4)
	_ = lim.Acquire(ctx, 4) // four jobs running
	set := poll.New[string]()
	defer set.Close()
	_ = set.Add(lim, "slots", poll.In, poll.Edge)
	queue := []string{"a", "b", "c", "d", "e", "f"}
	var events []poll.Event[string]
	for _, ended := range []int{2, 3, 4} {
		_ = lim.Release(ended) // jobs end and give their units back
		events, _ = set.Wait(ctx, events[:0], 1)
		n := lim.TryAcquireUpTo(len(queue))
		fmt.Printf("%v %v: start %v\n", events[0].Key, events[0].Events, queue[:n])
		queue = queue[n:]
	}
	fmt.Println(lim)
	// Output:
	// slots in: start [a b]
	// slots in: start [c d e]
	// slots in: start [f]
	// limiter{limit=4 in-use=1 free=3 waiting=0}
}

// A job holds its unit through a permit. TryAcquirePermitUpTo takes the
// free units as one permit, and Split hands them on one by one.
func ExampleLimiter_TryAcquirePermitUpTo() {
	lim := semaphore.NewLimiter(3)
	p := lim.TryAcquirePermitUpTo(5)
	done := make(chan bool)
	for p.N() > 0 {
		job, _ := p.Split(1)
		go func() {
			// ... the job's work ...
			done <- job.Release()
		}()
	}
	fmt.Println(<-done, <-done, <-done, lim.Stats().Free)
	// Output: true true true 3
}
