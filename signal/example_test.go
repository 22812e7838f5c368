package signal_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/evsync/evsync/signal"
)

// Many writers add; one reader takes the whole sum at each wakeup.
func Example() {
	sig := signal.New(0)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 25 {
				sig.Add(1)
			}
		}()
	}
	wg.Wait()
	sig.Close() // what was added stays readable
	total := uint64(0)
	for {
		n, err := sig.Wait(context.Background())
		if err != nil {
			break
		}
		total += n
	}
	fmt.Println("events:", total)
	// Output: events: 100
}

// Ready makes the signal usable in a select next to other channels.
func ExampleSignal_Ready() {
	sig := signal.New(0)
	quit := make(chan struct{})
	sig.Add(3)
	select {
	case <-sig.Ready():
		fmt.Println("took", sig.Take())
	case <-quit:
	}
	// Output: took 3
}

// Add refuses a write that would pass Max, like a non-blocking eventfd
// write returning EAGAIN.
func ExampleSignal_Add() {
	sig := signal.New(signal.Max)
	fmt.Println(sig.Add(1), sig.Add(1<<64-1))
	// Output: evsync: operation would block evsync: invalid argument
}

// WithWakeDelay coalesces a burst of adds into one wakeup of a blocked
// reader, while the count itself is visible at once.
func ExampleWithWakeDelay() {
	sig := signal.New(0, signal.WithWakeDelay(2*time.Millisecond), signal.WithWakeBatch(100))
	defer sig.Close()
	go func() {
		for range 100 {
			sig.Add(1) // the hundredth reaches the batch threshold: wake now
		}
	}()
	total := uint64(0)
	for total < 100 {
		n, _ := sig.Wait(context.Background())
		total += n
	}
	fmt.Println("events:", total)
	// Output: events: 100
}

// Writable is poll's POLLOUT on a signal: it is ready once an Add(1) would
// not block for want of room, here when the reader takes a full count.
func ExampleSignal_Writable() {
	s := signal.New(signal.Max) // full
	out := s.Writable()
	fmt.Println(s.Add(1), s.Take() == signal.Max)
	<-out
	fmt.Println("writable")
	// Output:
	// evsync: operation would block true
	// writable
}
