package coalesce_test

import (
	"context"
	"fmt"

	"github.com/evsync/evsync/coalesce"
	"github.com/evsync/evsync/poll"
	"github.com/evsync/evsync/signal"
)

// A poll loop waits on a Waker and a signal at once. When the Set reports
// the Waker, Events consumes the wakeup: it returns the events and takes
// the token off C. So the next Wait does not report the Waker again, even
// in level mode, until its next wakeup.
func Example_poll() {
	w := coalesce.New(0) // a delay of 0: every Wake is a wakeup at once
	defer w.Close()
	sig := signal.New(0)
	defer sig.Close()
	var set poll.Set[string]
	defer set.Close()
	if err := set.Add(w, "waker", poll.In, poll.Level); err != nil {
		panic(err)
	}
	if err := set.Add(sig, "signal", poll.In, poll.Level); err != nil {
		panic(err)
	}

	w.Wake()
	w.Wake() // merges into the first wakeup's token
	sig.Add(3)
	evs, err := set.Wait(context.Background(), nil, 8)
	if err != nil {
		panic(err)
	}
	for _, e := range evs {
		switch e.Key {
		case "waker":
			fmt.Println("waker:", w.Events(), "events") // consumes the wakeup
		case "signal":
			fmt.Println("signal:", sig.Take())
		}
	}
	fmt.Println("reported again:", len(set.TryWait(nil, 8)))
	select {
	case <-w.C():
		fmt.Println("a token is left on C")
	default:
		fmt.Println("no token is left on C")
	}
	// Output:
	// waker: 2 events
	// signal: 3
	// reported again: 0
	// no token is left on C
}
