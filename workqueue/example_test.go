package workqueue_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/evsync/evsync/workqueue"
)

// Edge-triggered (the default): an item is queued once however often it
// is marked, and a mark made while a consumer holds it comes back at Done.
func Example() {
	q := workqueue.New[string]()
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
	q := workqueue.NewWithConfig(workqueue.Config[string]{
		Mode:    workqueue.Level,
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
	q := workqueue.NewWithConfig(workqueue.Config[int]{Mode: workqueue.OneShot})
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
	q := workqueue.New[int]()
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

// A controller's retry loop: a key that fails is retried after the rate
// limiter's backoff, and a success forgets its failures. A delayed and an
// immediate mark of one key never run it twice: the earliest wins.
func ExampleQueue_AddRateLimited() {
	q := workqueue.NewWithConfig(workqueue.Config[string]{
		RateLimiter: workqueue.ExponentialRateLimiter[string](time.Millisecond, time.Second),
	})
	q.Add("ns/a")
	fails := 2
	for q.NumRequeues("ns/a") < 3 {
		keys, _ := q.Wait(context.Background(), 1)
		key := keys[0]
		if fails > 0 {
			fails--
			q.AddRateLimited(key) // kept aside until Done, then delayed 1 ms, 2 ms, ...
			fmt.Println(key, "failed, retries:", q.NumRequeues(key))
			q.Done(key)
			continue
		}
		fmt.Println(key, "reconciled")
		q.Forget(key)
		q.Done(key)
		break
	}
	// Output:
	// ns/a failed, retries: 1
	// ns/a failed, retries: 2
	// ns/a reconciled
}

// AddAfter delays a mark; Add of the same key makes it ready at once, and
// the delay is gone with it.
func ExampleQueue_AddAfter() {
	q := workqueue.New[string]()
	q.AddAfter("resync", time.Hour)
	fmt.Println(q.Stats().Delayed, "delayed,", q.Len(), "queued")
	q.Add("resync")
	fmt.Println(q.Stats().Delayed, "delayed,", q.Len(), "queued")
	// Output:
	// 1 delayed, 0 queued
	// 0 delayed, 1 queued
}

// With fair share, a tenant with many queued keys does not hold up
// another tenant's key: hand-outs go round-robin across tenants, and
// priorities come first.
func ExampleConfig_fairness() {
	namespace := func(key string) string { return strings.Split(key, "/")[0] }
	q := workqueue.NewWithConfig(workqueue.Config[string]{Fairness: namespace})
	for _, k := range []string{"big/1", "big/2", "big/3", "big/4"} {
		q.Add(k)
	}
	q.Add("small/1")
	q.AddWith("big/urgent", workqueue.AddOpts{Priority: 10})
	fmt.Println(q.TryTake(10))
	// Output:
	// [big/urgent big/1 small/1 big/2 big/3 big/4]
}
