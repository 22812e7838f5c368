package readyq_test

import (
	"context"
	"fmt"

	"github.com/evsync/evsync/readyq"
)

// Edge-triggered (the default): an item is queued once however often it
// is marked, and a mark made while a consumer holds it comes back at Done.
func Example() {
	q := readyq.New[string]()
	q.Add("conn-1")
	q.Add("conn-2")
	q.Add("conn-1") // already queued: absorbed

	items, _ := q.Wait(context.Background(), 10)
	fmt.Println("handed out:", items)

	q.Add("conn-2") // more input while conn-2 is being served: kept aside
	q.Done(items...)
	fmt.Println("queued again:", q.TryTake(10))
	// Output:
	// handed out: [conn-1 conn-2]
	// queued again: [conn-2]
}

// Level-triggered items go back to the tail at every Done, so with
// max = 2 five ready items are served round-robin, as epoll does under
// maxevents; the recheck function drops an item that is no longer ready.
func Example_level() {
	drained := map[string]bool{}
	q := readyq.NewWithConfig(readyq.Config[string]{
		Mode:    readyq.Level,
		Recheck: func(s string) bool { return !drained[s] },
	})
	for _, s := range []string{"a", "b", "c", "d", "e"} {
		q.Add(s)
	}
	for range 4 {
		batch := q.TryTake(2)
		fmt.Print(batch)
		q.Done(batch...)
	}
	drained["a"] = true // a's input is used up: the re-poll says so
	fmt.Println()
	for range 4 {
		batch := q.TryTake(2)
		fmt.Print(batch)
		q.Done(batch...)
	}
	fmt.Println()
	// Output:
	// [a b][c d][e a][b c]
	// [d e][a b][c d][e b]
}

// One-shot items are disarmed when handed out: marks wait for Rearm, so
// exactly one consumer deals with an item until it says it is ready for
// more.
func Example_oneShot() {
	q := readyq.NewWithConfig(readyq.Config[int]{Mode: readyq.OneShot})
	q.Add(7)
	fmt.Println(q.TryTake(1))
	q.Done(7)
	q.Add(7) // disarmed: kept until Rearm
	fmt.Println(q.TryTake(1), q.Stats().Disarmed)
	q.Rearm(7)
	fmt.Println(q.TryTake(1))
	// Output:
	// [7]
	// [] 1
	// [7]
}

// The usual consumer loop: wait for a batch, work, Done, until Close and
// the queue is exhausted. WaitAppend reuses the batch's buffer.
func ExampleQueue_WaitAppend() {
	q := readyq.New[int]()
	for i := range 5 {
		q.Add(i)
	}
	q.Close() // what is queued is still handed out
	var batch []int
	for {
		var err error
		batch, err = q.WaitAppend(context.Background(), batch[:0], 2)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(batch)
		q.Done(batch...)
	}
	// Output:
	// [0 1]
	// [2 3]
	// [4]
	// evsync: closed
}

// With Keep, an item Done keeps its entry for its next Add, which then
// makes none. The queue still counts and reports it as forgotten.
func ExampleConfig_keep() {
	q := readyq.NewWithConfig(readyq.Config[int]{Keep: true})
	for range 3 {
		q.Add(7)
		q.Done(q.TryTake(1)...)
	}
	fmt.Println(q.Stats())
	fmt.Println("removed:", q.Remove(7)) // frees the entry; 7 was not known
	// Output:
	// readyq{queued=0 inflight=0 aside=0 disarmed=0 waiting=0 draining=0}
	// removed: false
}
