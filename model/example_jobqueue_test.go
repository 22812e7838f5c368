package model_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/evsync/evsync/model"
	"github.com/evsync/evsync/readyq"
)

// JobQueue is a user's queue of named jobs built on readyq.Queue. A job
// is queued at most once. A job submitted again while a worker runs it
// is queued once more when the worker finishes it.
type JobQueue struct {
	q *readyq.Queue[string]
}

// NewJobQueue returns an empty, open queue.
func NewJobQueue() *JobQueue { return &JobQueue{q: readyq.New[string]()} }

// Submit queues job and reports whether it is new, false if it is
// already queued or the queue is closed.
func (j *JobQueue) Submit(job string) bool { return j.q.Add(job) }

// Claim hands out up to max queued jobs, oldest first, without waiting.
func (j *JobQueue) Claim(max int) []string { return j.q.TryTake(max) }

// Finish ends the jobs a worker claimed and reports how many were
// claimed.
func (j *JobQueue) Finish(jobs ...string) int { return j.q.Done(jobs...) }

// Cancel forgets job, queued or running, and reports whether it was known.
func (j *JobQueue) Cancel(job string) bool { return j.q.Remove(job) }

// Close refuses new jobs. Queued ones can still be claimed.
func (j *JobQueue) Close() { j.q.Close() }

// Pending is the number of queued jobs, Running the number claimed and
// not finished.
func (j *JobQueue) Pending() int { return j.q.Len() }
func (j *JobQueue) Running() int { return j.q.InFlight() }

// jobs names the model's int items: item i is jobs[i]. A user whose keys
// are not ints maps a fixed set of them to their indexes like this.
var jobs = []string{"build", "test", "lint", "deploy"}

func names(items []int) []string {
	out := make([]string, len(items))
	for i, k := range items {
		out[i] = jobs[k]
	}
	return out
}

// jobStats is what one run of checkJobQueue did: the calls it made and
// the jobs claimed, in order.
type jobStats struct {
	ops     int
	claimed []string
}

// checkJobQueue decodes ops into calls, one byte a call, and makes each
// on a JobQueue and on a model.ReadyQ. It returns the first result on
// which they differ. Every byte decodes to a call, so a fuzzer can feed
// it anything.
func checkJobQueue(ops []byte) (jobStats, error) {
	q, m := NewJobQueue(), model.NewReadyQ(model.Edge, nil)
	var st jobStats
	for _, b := range ops {
		st.ops++
		k := int(b>>3) % len(jobs)
		job := jobs[k]
		switch b % 8 {
		case 0, 1, 2:
			got, want := q.Submit(job), m.Add(k)
			if got != want {
				return st, fmt.Errorf("Submit(%q) = %v, the model says %v", job, got, want)
			}
		case 3, 4:
			max := 1 + int(b>>3)%2
			got, want := q.Claim(max), names(m.TryTake(max))
			if !slices.Equal(got, want) {
				return st, fmt.Errorf("Claim(%d) = %q, the model says %q", max, got, want)
			}
			st.claimed = append(st.claimed, got...)
		case 5:
			if got, want := q.Finish(job), m.Done(k); got != want {
				return st, fmt.Errorf("Finish(%q) = %d, the model says %d", job, got, want)
			}
		case 6:
			if got, want := q.Cancel(job), m.Remove(k); got != want {
				return st, fmt.Errorf("Cancel(%q) = %v, the model says %v", job, got, want)
			}
		case 7:
			q.Close()
			m.Close()
		}
		if q.Pending() != m.Len() || q.Running() != m.InFlight() {
			return st, fmt.Errorf("after byte %d: %d pending and %d running, the model says %d and %d",
				st.ops-1, q.Pending(), q.Running(), m.Len(), m.InFlight())
		}
	}
	return st, nil
}

// jobInputs are the fixed inputs of the example and the fuzz target's
// seed corpus. A byte b is the call b%8 on the job jobs[b>>3%4]:
// 0-2 Submit, 3-4 Claim (b>>3%2+1 jobs), 5 Finish, 6 Cancel, 7 Close.
var jobInputs = [][]byte{
	{0, 8, 3, 5, 11, 13},       // build and test submitted, each claimed and finished
	{0, 3, 0, 0, 5, 3, 5},      // build submitted twice while it runs: it runs once more
	{0, 8, 16, 6, 12, 14, 11},  // build cancelled while queued, test cancelled while running
	{0, 3, 8, 7, 16, 11, 5, 3}, // closed: lint refused, test still claimed, build finished
}

// FuzzJobQueue checks JobQueue against model.ReadyQ on any input. Plain
// go test runs the seeds; go test -fuzz=FuzzJobQueue looks for more.
func FuzzJobQueue(f *testing.F) {
	for _, in := range jobInputs {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, ops []byte) {
		if _, err := checkJobQueue(ops); err != nil {
			t.Fatal(err)
		}
	})
}

// A fuzz target checks a user's job queue, built on readyq.Queue, against
// model.ReadyQ. The model's items are ints, so the check names the jobs
// by their index in a table. Here the check runs over the fixed inputs
// that seed FuzzJobQueue.
func ExampleReadyQ_jobQueue() {
	for _, in := range jobInputs {
		st, err := checkJobQueue(in)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%d calls as the model says, claimed %v\n", st.ops, st.claimed)
	}
	// Output:
	// 6 calls as the model says, claimed [build test]
	// 7 calls as the model says, claimed [build build]
	// 7 calls as the model says, claimed [test lint]
	// 8 calls as the model says, claimed [build test]
}
