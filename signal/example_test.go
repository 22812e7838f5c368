package signal_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/evsync/evsync/signal"
)

// Many writers add, and one reader takes the whole sum at each wakeup.
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
// write returning EAGAIN. A write that could never fit is a bad argument:
// its error says what was wrong and matches ErrInvalid.
func ExampleSignal_Add() {
	sig := signal.New(signal.Max)
	fmt.Println(sig.Add(1))
	err := sig.Add(1<<64 - 1)
	fmt.Println(errors.Is(err, signal.ErrInvalid))
	fmt.Println(err)
	// Output:
	// evsync: operation would block
	// true
	// signal: add 18446744073709551615: above Max 18446744073709551614: evsync: invalid argument
}

// WithWakeDelay coalesces a burst of adds into one wakeup of a blocked
// reader, while the count itself is visible at once.
func ExampleWithWakeDelay() {
	sig := signal.New(0, signal.WithWakeDelay(time.Millisecond))
	defer sig.Close()
	go func() {
		for range 3 {
			sig.Add(1) // the reader is woken a millisecond after the first
		}
	}()
	total := uint64(0)
	for total < 3 {
		n, _ := sig.Wait(context.Background())
		total += n
	}
	fmt.Println("events:", total)
	// Output: events: 3
}

// WithMaxBatch wakes a blocked reader without waiting for the delay once
// the count reaches the batch. The batch counts units, so one Add(64)
// reaches it.
func ExampleWithMaxBatch() {
	sig := signal.New(0, signal.WithWakeDelay(time.Hour, signal.WithMaxBatch(64)))
	defer sig.Close()
	go sig.Add(64) // the reader is woken now, not in an hour
	n, _ := sig.Wait(context.Background())
	fmt.Println("read", n)
	// Output: read 64
}

// WithAdaptive serves a trickle of adds at once, after the first window,
// and coalesces only a sustained stream.
func ExampleWithAdaptive() {
	sig := signal.New(0, signal.WithWakeDelay(5*time.Millisecond, signal.WithAdaptive()))
	defer sig.Close()
	for range 3 {
		// One add at a time. The first waits for a window, which catches
		// too few adds to go on coalescing. So the next are served at once.
		go sig.Add(1)
		n, _ := sig.Wait(context.Background())
		fmt.Println("read", n)
	}
	// Output:
	// read 1
	// read 1
	// read 1
}

// WithMaxWait debounces. The reader is woken once the adds pause for a
// delay, but a steady stream still wakes it every maxWait.
func ExampleWithMaxWait() {
	sig := signal.New(0, signal.WithWakeDelay(time.Millisecond, signal.WithMaxWait(10*time.Millisecond)))
	defer sig.Close()
	go func() {
		for range 5 {
			sig.Add(1) // a burst, coalesced into one wakeup of a blocked reader
		}
	}()
	total := uint64(0)
	for total < 5 {
		n, _ := sig.Wait(context.Background())
		total += n
	}
	fmt.Println("events:", total)
	// Output: events: 5
}

// Writable is poll's POLLOUT on a signal. It is ready once an Add(1) would
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
