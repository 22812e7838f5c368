package main

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestMeasureRunsAgainAfterNoOperation: a run that completes no operation
// (its first batch outlasted the run) is run again, longer, and the run
// that completed operations is the one reported.
func TestMeasureRunsAgainAfterNoOperation(t *testing.T) {
	calls := 0
	c := bench{impl: "test", run: func(*atomic.Bool) (tally, error) {
		calls++
		if calls == 1 {
			return tally{}, nil
		}
		return tally{ops: 5}, nil
	}}
	s, err := measure(c, time.Millisecond)
	if err != nil || s.n.ops != 5 || calls != 2 {
		t.Fatalf("measure = %d ops, %v after %d runs; want 5 ops, nil after 2", s.n.ops, err, calls)
	}
}

// TestMeasureGivesUp: a case that completes no operation even in a run of
// maxRun is an error, not a loop.
func TestMeasureGivesUp(t *testing.T) {
	calls := 0
	c := bench{impl: "test", run: func(*atomic.Bool) (tally, error) {
		calls++
		return tally{}, nil
	}}
	if _, err := measure(c, maxRun); err == nil || calls != 1 {
		t.Fatalf("measure = %v after %d runs; want an error after 1", err, calls)
	}
}
