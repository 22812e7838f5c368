package poll_test

import (
	"context"
	"fmt"

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
