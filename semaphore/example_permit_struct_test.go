package semaphore_test

import (
	"context"
	"fmt"

	"github.com/evsync/evsync/semaphore"
)

// A job holds one unit of a limiter while it runs.
type job struct {
	name string
	p    semaphore.Permit // the job's unit, given back by done
}

// startJob waits for a unit, then returns a job that holds it. Move hands
// the permit to the job: &job{p: p} would be a copy, which go vet reports.
func startJob(ctx context.Context, lim *semaphore.Limiter, name string) (*job, error) {
	p, err := lim.AcquirePermit(ctx, 1)
	if err != nil {
		return nil, err
	}
	defer p.Release() // a no-op after Move; it would give the unit back on an early return
	return &job{name: name, p: p.Move()}, nil
}

// startJobInPlace is startJob with the permit assigned to the field at
// once, which needs no Move.
func startJobInPlace(ctx context.Context, lim *semaphore.Limiter, name string) (*job, error) {
	j := &job{name: name}
	var err error
	if j.p, err = lim.AcquirePermit(ctx, 1); err != nil {
		return nil, err
	}
	return j, nil
}

// done gives the job's unit back. It has a pointer receiver, so the
// permit is never copied, and a second call does nothing.
func (j *job) done() {
	if j.p.Release() {
		fmt.Println(j.name, "done")
	}
}

// A permit kept in a struct: each job holds its unit until it is done.
func ExamplePermit() {
	ctx := context.Background()
	lim := semaphore.NewLimiter(2)
	a, err := startJob(ctx, lim, "a")
	if err != nil {
		panic(err)
	}
	b, err := startJobInPlace(ctx, lim, "b")
	if err != nil {
		panic(err)
	}
	fmt.Println(lim)
	fmt.Println("a third job starts:", lim.TryAcquire(1))
	a.done()
	a.done() // a repeat gives nothing back
	b.done()
	fmt.Println(lim)
	// Output:
	// limiter{limit=2 in-use=2 free=0 waiting=0}
	// a third job starts: false
	// a done
	// b done
	// limiter{limit=2 in-use=0 free=2 waiting=0}
}
