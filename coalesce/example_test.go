package coalesce_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/evsync/evsync/coalesce"
)

// Many events make one wakeup, and the consumer learns how many it covers.
func Example() {
	w := coalesce.New(time.Millisecond)
	defer w.Close()
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() { defer wg.Done(); w.Wake() }()
	}
	wg.Wait()
	w.Flush() // report what is pending now, without waiting for the window
	n, _ := w.Wait(context.Background())
	fmt.Println("events:", n)
	// Output: events: 10
}

// WithMaxBatch wakes at once when enough events are pending.
func ExampleWithMaxBatch() {
	w := coalesce.New(time.Second, coalesce.WithMaxBatch(3))
	defer w.Close()
	w.Wake()
	w.Wake()
	w.Wake()
	<-w.C()
	fmt.Println("batch of", w.Events())
	// Output: batch of 3
}

// WithAdaptive wakes at once while events are rare, after the first
// window, and coalesces only a sustained stream.
func ExampleWithAdaptive() {
	w := coalesce.New(5*time.Millisecond, coalesce.WithAdaptive())
	defer w.Close()
	for range 3 {
		// One event at a time. The first waits for a window, which catches
		// too few events to go on coalescing. So the next wake at once.
		w.Wake()
		n, _ := w.Wait(context.Background())
		fmt.Println("events:", n)
	}
	// Output:
	// events: 1
	// events: 1
	// events: 1
}

// WithMaxWait debounces. The wakeup waits for a quiet period, but a steady
// stream is still served every maxWait.
func ExampleWithMaxWait() {
	w := coalesce.New(time.Millisecond, coalesce.WithMaxWait(10*time.Millisecond))
	defer w.Close()
	w.Wake()
	n, err := w.Wait(context.Background())
	fmt.Println(n, err)
	// Output: 1 <nil>
}
