package workqueue_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/evsync/evsync/workqueue"
)

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

// A progress-deadline check, postponed. The check is delayed ten minutes.
// Each time the object makes progress, Replace sets its ready time to ten
// minutes from now, in one step, where AddAfter would keep the earlier
// time. Replace with no delay queues it now.
func ExampleAddOpts_replace() {
	q := workqueue.New[string]()
	defer q.Close()
	q.AddAfter("deploy/web", 10*time.Minute)
	// progress: postpone the check
	fmt.Println(q.AddWith("deploy/web", workqueue.AddOpts{After: 10 * time.Minute, Replace: true}), q.Stats().Delayed, "delayed")
	// a queued item can be postponed too
	q.Add("deploy/api")
	fmt.Println(q.AddWith("deploy/api", workqueue.AddOpts{After: time.Minute, Replace: true}), q.Len(), "queued")
	// no delay: the check is due now
	fmt.Println(q.AddWith("deploy/web", workqueue.AddOpts{Replace: true}), q.TryTake(8))
	// Output:
	// false 1 delayed
	// false 0 queued
	// true [deploy/web]
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

// Jitter cuts up to a fraction of each delay, drawn from a source that a
// test can fix. Here the source returns 0, 0.5 and 1 in turn, with a
// jitter of 0.2: the doubling's 100, 200 and 400 ms become 100, 180 and
// 320 ms. Use a seeded math/rand/v2 source, such as
// rand.New(rand.NewPCG(1, 2)).Float64, for delays that vary but repeat.
func ExampleExponentialRateLimiterWith() {
	us := []float64{0, 0.5, 1}
	l, err := workqueue.ExponentialRateLimiterWith[string](workqueue.Backoff{
		Base: 100 * time.Millisecond, Max: time.Second, Jitter: 0.2,
		Rand: func() float64 { u := us[0]; us = us[1:]; return u },
	})
	if err != nil {
		panic(err)
	}
	for range 3 {
		fmt.Println(l.When("ns/a"))
	}
	// Output:
	// 100ms
	// 180ms
	// 320ms
}

// A controller's keys come back again and again, so Keep suits its queue:
// each key's entry is made once, not at every Add. A kept key is still
// forgotten as seen from outside. Remove frees a key that goes for good.
func ExampleConfig_keep() {
	q := workqueue.NewWithConfig(workqueue.Config[string]{Keep: true})
	for range 3 { // three reconciles of one key: one entry
		q.Add("ns/a")
		keys, _ := q.Wait(context.Background(), 1)
		q.Done(keys...)
	}
	_, known := q.Priority("ns/a")
	fmt.Println(q.Len(), "queued, known:", known)
	fmt.Println("removed:", q.Remove("ns/a")) // freed; it was not known
	// Output:
	// 0 queued, known: false
	// removed: false
}
