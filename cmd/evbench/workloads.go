package main

import (
	"errors"
	"fmt"
	"sync"
)

// writersN is how many goroutines add in the writers workloads.
const writersN = 4

// workloads is the table of everything evbench runs, in order. Another
// primitive (coalesce, readyq) adds its workloads here, each built from a
// driver and the list of implementations it runs against.
func workloads() []workload {
	ws := []workload{
		semWorkload("semaphore acquire+release", 1, false, acquireRelease),
		semWorkload("semaphore tryacquire+release", 1, false, tryAcquireRelease),
	}
	for _, limit := range []uint64{1, 4} {
		for _, g := range []int{2, 8, 64} {
			name := fmt.Sprintf("semaphore contended limit=%d g=%d", limit, g)
			ws = append(ws, semWorkload(name, limit, true, contended(g)))
		}
	}
	ws = append(ws, readyqWorkloads()...)
	pp := sigWorkload("signal ping-pong", false, pingPong)
	pp.cases = append(pp.cases, bench{"chan", chanPingPong})
	return append(ws,
		sigWorkload("signal add+take", false, addTake),
		pp,
		sigWorkload(fmt.Sprintf("signal writers w=%d", writersN), true, writers(writersN)),
		observedWorkload(writersN),
	)
}

// batch is how many operations the single-goroutine drivers run between
// looks at the stop flag.
const batch = 64

// fanOut runs f on g goroutines and adds up what they counted.
func fanOut(g int, f func() (tally, error)) (tally, error) {
	var (
		mu    sync.Mutex
		total tally
		errs  []error
		wg    sync.WaitGroup
	)
	for range g {
		wg.Go(func() {
			n, err := f()
			mu.Lock()
			defer mu.Unlock()
			total.add(n)
			errs = append(errs, err)
		})
	}
	wg.Wait()
	return total, errors.Join(errs...)
}
