package poll_test

import (
	"context"
	"fmt"
	"time"

	"github.com/evsync/evsync/internal/testsupport/fakeclock"
	"github.com/evsync/evsync/poll"
	"github.com/evsync/evsync/signal"
)

// A server dispatches the requests of 10,000 connections from one
// goroutine. Each connection's reader, a goroutine blocked in its own
// read, adds to the connection's signal per request. The Set replaces the
// fan-in, not the reads: one Wait reports the connections that have
// requests, whatever their number.
func Example() {
	conns := make([]*signal.Signal, 10_000)
	set := poll.New[int]()
	defer set.Close()
	for i := range conns {
		conns[i] = signal.New(0)
		set.Add(conns[i], i, poll.In, poll.Edge)
	}
	conns[42].Add(1) // a request on connection 42, then two on 7
	conns[7].Add(2)

	events, _ := set.Wait(context.Background(), nil, 64)
	for _, e := range events {
		fmt.Println("connection", e.Key, "has", conns[e.Key].Take(), "requests")
	}
	// Output:
	// connection 42 has 1 requests
	// connection 7 has 2 requests
}

// Level-triggered sources that stay ready are reported round-robin under
// max, as epoll reports level-triggered files.
func ExampleSet_Wait_level() {
	var set poll.Set[string]
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		s := signal.New(1) // readable, and stays so: nobody takes
		set.Add(s, name, poll.In, poll.Level)
	}
	for range 5 {
		events := set.TryWait(nil, 2)
		fmt.Print(events[0].Key, events[1].Key, " ")
	}
	fmt.Println()
	// Output:
	// ab cd ea bc de
}

// A Set on a fake clock, as a test would make it: Deadlines are due when
// the test moves the clock past them. fakeclock has the shape of
// k8s.io/utils/clock/testing's FakeClock, which a program's tests pass
// as it is.
func ExampleNewDeadline() {
	clk := fakeclock.New(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	set := poll.New[string](poll.WithClock(clk))
	defer set.Close()
	set.Add(poll.NewDeadline(clk.Now().Add(time.Second)), "retry", poll.In, poll.OneShot)
	set.Add(poll.NewDeadline(clk.Now().Add(time.Minute)), "give up", poll.In, poll.OneShot)

	fmt.Println(set.TryWait(nil, 8))
	clk.Step(time.Second)
	fmt.Println(set.TryWait(nil, 8))
	clk.Step(time.Minute)
	fmt.Println(set.TryWait(nil, 8))
	// Output:
	// []
	// [{retry in}]
	// [{give up in}]
}

// A worker waits for its jobs and for the end of its context in one
// Wait.
func ExampleOnDone() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	jobs := signal.New(0)
	set := poll.New[string]()
	defer set.Close()
	set.Add(jobs, "jobs", poll.In, poll.Edge)
	set.Add(poll.OnDone(ctx), "stop", poll.In, poll.Edge)

	jobs.Add(2)
	for {
		events, _ := set.Wait(context.Background(), nil, 8)
		for _, e := range events {
			switch e.Key {
			case "jobs":
				fmt.Println("run", jobs.Take(), "jobs")
				cancel() // the last of them: stop
			case "stop":
				fmt.Println("stop:", e.Events)
				return
			}
		}
	}
	// Output:
	// run 2 jobs
	// stop: in|hup
}

// WaitTimeout bounds a wait by a duration, as epoll_wait's timeout does,
// with no context or timer per call.
func ExampleSet_WaitTimeout() {
	sig := signal.New(0)
	set := poll.New[string]()
	defer set.Close()
	set.Add(sig, "sig", poll.In, poll.Edge)

	events, err := set.WaitTimeout(nil, 8, 10*time.Millisecond)
	fmt.Println(events, err) // nothing within 10ms
	sig.Add(1)
	events, err = set.WaitTimeout(nil, 8, time.Hour)
	fmt.Println(events, err) // at once
	// Output:
	// [] <nil>
	// [{sig in}] <nil>
}

// Under WithBurst(3, d) a waiter wakes once 3 sources are queued, or d
// after the first: once per burst, not once per event.
func ExampleWithBurst() {
	set := poll.New[int](poll.WithBurst(3, time.Hour))
	defer set.Close()
	sigs := []*signal.Signal{signal.New(0), signal.New(0), signal.New(0)}
	for i, s := range sigs {
		set.Add(s, i, poll.In, poll.Edge)
	}
	ready := set.Ready()

	sigs[0].Add(1)
	sigs[1].Add(1)
	select {
	case <-ready:
		fmt.Println("ready")
	default:
		fmt.Println("2 queued: not ready yet")
	}
	sigs[2].Add(1)
	<-ready
	events, _ := set.Wait(context.Background(), nil, 8)
	fmt.Println(events)
	// Output:
	// 2 queued: not ready yet
	// [{0 in} {1 in} {2 in}]
}
