package model_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/evsync/evsync/model"
	"github.com/evsync/evsync/semaphore"
	"pgregory.net/rapid"
)

// Pool is a user's worker pool built on semaphore.Limiter. Each job has a
// cost in slots. Go waits until the slots are free, runs the job on its
// own goroutine and gives the slots back when the job returns.
type Pool struct {
	slots *semaphore.Limiter
}

// NewPool returns a pool of size slots, all free.
func NewPool(size int) *Pool { return &Pool{slots: semaphore.NewLimiter(size)} }

// Go waits for cost free slots and starts job. The channel it returns is
// closed once the job has returned and its slots are back. Go returns the
// limiter's error if it starts nothing.
func (p *Pool) Go(ctx context.Context, cost int, job func()) (<-chan struct{}, error) {
	if err := p.slots.Acquire(ctx, cost); err != nil {
		return nil, err
	}
	return p.start(cost, job), nil
}

// TryGo starts job if cost slots are free now, and reports whether it did.
func (p *Pool) TryGo(cost int, job func()) (<-chan struct{}, bool) {
	if !p.slots.TryAcquire(cost) {
		return nil, false
	}
	return p.start(cost, job), true
}

func (p *Pool) start(cost int, job func()) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if err := p.slots.Release(cost); err != nil {
				panic(err) // the pool gave back slots it did not hold: a bug
			}
		}()
		job()
	}()
	return done
}

// Resize changes the number of slots. Running jobs keep theirs.
func (p *Pool) Resize(size int) error { return p.slots.SetLimit(size) }

// Close stops new jobs. Running jobs go on.
func (p *Pool) Close() { p.slots.Close() }

// Wait waits until no job is running.
func (p *Pool) Wait(ctx context.Context) error { return p.slots.Drain(ctx) }

// Busy is the number of slots the running jobs hold.
func (p *Pool) Busy() int { return p.slots.Stats().InUse }

// poolMachine steps a Pool and a model.Limiter side by side. The model
// says what each call of the pool's limiter must return. A call the
// model says would wait is not made: a sequential test cannot wait. A
// pool that waits where the model says it must not hangs the test, and
// go test's -timeout reports where.
type poolMachine struct {
	pool    *Pool
	model   *model.Limiter
	running []*poolJob
}

// poolJob is a job that runs until the test finishes it.
type poolJob struct {
	cost   int
	finish chan struct{}
	done   <-chan struct{}
}

func (j *poolJob) run() { <-j.finish }

// checkPool is the property: any sequence of pool calls gives the results
// model.Limiter gives.
func checkPool(t *rapid.T) {
	size := rapid.IntRange(1, 4).Draw(t, "size")
	m := &poolMachine{pool: NewPool(size), model: model.NewLimiter(size)}
	t.Cleanup(m.finishAll) // no job goroutine outlives the check
	t.Repeat(rapid.StateMachineActions(m))
}

func (m *poolMachine) newJob(t *rapid.T) *poolJob {
	return &poolJob{cost: rapid.IntRange(0, 3).Draw(t, "cost"), finish: make(chan struct{})}
}

func (m *poolMachine) TryGo(t *rapid.T) {
	j := m.newJob(t)
	done, ok := m.pool.TryGo(j.cost, j.run)
	if want := m.model.TryAcquire(j.cost); ok != want {
		t.Fatalf("TryGo(%d) = %v, the model says %v", j.cost, ok, want)
	}
	if ok {
		j.done = done
		m.running = append(m.running, j)
	}
}

func (m *poolMachine) Go(t *rapid.T) {
	j := m.newJob(t)
	want := m.model.Acquire(model.Live, j.cost)
	if errors.Is(want, model.ErrWouldBlock) {
		t.Skip("Go would wait") // the model changed nothing
	}
	done, err := m.pool.Go(context.Background(), j.cost, j.run)
	if !errors.Is(err, want) || (err == nil) != (want == nil) {
		t.Fatalf("Go(%d) = %v, the model says %v", j.cost, err, want)
	}
	if err == nil {
		j.done = done
		m.running = append(m.running, j)
	}
}

func (m *poolMachine) GoCancelled(t *rapid.T) {
	j := m.newJob(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := m.pool.Go(ctx, j.cost, j.run)
	if want := m.model.Acquire(model.Done, j.cost); !errors.Is(err, want) {
		t.Fatalf("Go(cancelled, %d) = %v, the model says %v", j.cost, err, want)
	}
}

func (m *poolMachine) Finish(t *rapid.T) {
	if len(m.running) == 0 {
		t.Skip("no job running")
	}
	i := rapid.IntRange(0, len(m.running)-1).Draw(t, "job")
	j := m.running[i]
	m.running = append(m.running[:i], m.running[i+1:]...)
	close(j.finish)
	<-j.done // the slots are back
	if err := m.model.Release(j.cost); err != nil {
		t.Fatalf("the model refuses the release of %d slots: %v", j.cost, err)
	}
}

func (m *poolMachine) Resize(t *rapid.T) {
	size := rapid.IntRange(1, 4).Draw(t, "size")
	err, want := m.pool.Resize(size), m.model.SetLimit(size)
	if !errors.Is(err, want) || (err == nil) != (want == nil) {
		t.Fatalf("Resize(%d) = %v, the model says %v", size, err, want)
	}
}

func (m *poolMachine) Close(t *rapid.T) {
	m.pool.Close()
	m.model.Close()
}

func (m *poolMachine) Wait(t *rapid.T) {
	want := m.model.Drain(model.Live)
	if errors.Is(want, model.ErrWouldBlock) {
		t.Skip("Wait would wait")
	}
	if err := m.pool.Wait(context.Background()); err != want {
		t.Fatalf("Wait = %v, the model says %v", err, want)
	}
}

// Check runs after every action: the slots the pool says are busy are
// the model's, and those the running jobs took.
func (m *poolMachine) Check(t *rapid.T) {
	held := 0
	for _, j := range m.running {
		held += j.cost
	}
	if busy, want := m.pool.Busy(), m.model.InUse(); busy != want || held != want {
		t.Fatalf("Busy() = %d and the running jobs hold %d, the model says %d", busy, held, want)
	}
}

func (m *poolMachine) finishAll() {
	for _, j := range m.running {
		close(j.finish)
		<-j.done
	}
	m.running = nil
}

// TestPool checks the pool against model.Limiter under go test.
func TestPool(t *testing.T) { rapid.Check(t, checkPool) }

// exampleTB is the little of testing.TB that rapid.Check needs, for a
// check run outside a test. It records whether the check failed and what
// it reported.
type exampleTB struct {
	failed bool
	report []string
}

// stop is what FailNow and SkipNow panic with, to end the check.
type stop struct{}

func (tb *exampleTB) Helper()                           {}
func (tb *exampleTB) Name() string                      { return "ExampleLimiter_pool" }
func (tb *exampleTB) Logf(string, ...any)               {}
func (tb *exampleTB) Log(...any)                        {}
func (tb *exampleTB) Skipf(string, ...any)              { tb.SkipNow() }
func (tb *exampleTB) Skip(...any)                       { tb.SkipNow() }
func (tb *exampleTB) SkipNow()                          { panic(stop{}) }
func (tb *exampleTB) Errorf(format string, args ...any) { tb.Error(fmt.Sprintf(format, args...)) }
func (tb *exampleTB) Error(args ...any) {
	tb.report = append(tb.report, fmt.Sprint(args...))
	tb.Fail()
}
func (tb *exampleTB) Fatalf(format string, args ...any) { tb.Errorf(format, args...); tb.FailNow() }
func (tb *exampleTB) Fatal(args ...any)                 { tb.Error(args...); tb.FailNow() }
func (tb *exampleTB) FailNow()                          { tb.Fail(); panic(stop{}) }
func (tb *exampleTB) Fail()                             { tb.failed = true }
func (tb *exampleTB) Failed() bool                      { return tb.failed }

// run runs the property prop with rapid and reports whether it held.
func (tb *exampleTB) run(prop func(*rapid.T)) (ok bool) {
	defer func() {
		if r := recover(); r != nil && r != (stop{}) {
			panic(r)
		}
		ok = !tb.failed
	}()
	rapid.Check(tb, prop)
	return
}

// A rapid state machine checks a user's worker pool, built on
// semaphore.Limiter, against model.Limiter. Each action calls the pool
// and the model and compares the results. Check compares the state after
// every action. TestPool runs the same property under go test.
func ExampleLimiter_pool() {
	tb := new(exampleTB)
	if tb.run(checkPool) {
		fmt.Println("the pool agrees with model.Limiter")
	} else {
		fmt.Println("the pool disagrees with model.Limiter:", tb.report)
	}
	// Output:
	// the pool agrees with model.Limiter
}
