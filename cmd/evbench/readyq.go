package main

import (
	"fmt"
	"math"
	"strings"
	"sync/atomic"

	"github.com/evsync/evsync/internal/testsupport/anchor"
)

// readyqWorkloads is the readyq group: producers mark 1,000 keys
// round-robin as fast as they can while consumers take batches and finish
// each batch as they ask for the next (see anchor.ReadyQueueLoad). One op
// is one key handed out. Each shape (producers, consumers) and batch size
// is a workload of its own, run with evsync's readyq, evsync's workqueue
// (a variant, "evsync/workqueue"), the mutex+slice+map queue and, for
// batch 1, a buffered channel. The channel does not de-duplicate (every
// Add is a hand-out), so it is the ceiling of a queue, not an
// alternative to one. client-go's workqueue is compared in the nested
// bench module, whose dependencies evbench keeps out.
func readyqWorkloads() []workload {
	var ws []workload
	for _, shape := range [][2]int{{1, 1}, {4, 2}} {
		for _, batch := range []int{1, 64} {
			load := anchor.ReadyQueueLoad{Producers: shape[0], Consumers: shape[1], Batch: batch, Keys: 1000}
			w := workload{group: "readyq", title: "readyq", bench: "ReadyQueue",
				params: []param{intParam("p", shape[0]), intParam("c", shape[1]), intParam("keys", 1000), intParam("batch", batch)},
				about: fmt.Sprintf("%s %s 1,000 keys round-robin, %s %s %s and %s; one op is one key handed out",
					count(shape[0], "producer"), plural(shape[0], "Adds", "Add"), count(shape[1], "consumer"),
					plural(shape[1], "takes", "take"), upTo(batch), plural(shape[1], "finishes them as it asks for more", "finish them as they ask for more")),
				anchor: "mutex", why: whyMutex, use: "a de-duplicating work queue, " + upTo(batch)}
			for _, impl := range anchor.ReadyQueues() {
				if impl.Batch != batch {
					continue
				}
				name, _, _ := strings.Cut(impl.Name, "-b") // the workload names the batch
				if name == "wq" {
					name = "evsync/workqueue" // a variant: the controller queue on the same calls
				}
				c := bench{impl: name, run: readyqCase(load, impl.New)}
				if name == "chan" {
					c.note, c.ceiling = "no de-duplication: a ceiling, not an alternative", true
				}
				w.cases = append(w.cases, c)
			}
			ws = append(ws, w)
		}
	}
	return ws
}

// readyqCase runs load on a fresh queue until stop is set.
func readyqCase(load anchor.ReadyQueueLoad, newQueue func() anchor.ReadyQueue) func(*atomic.Bool) (tally, error) {
	return func(stop *atomic.Bool) (tally, error) {
		items, _ := load.Run(newQueue(), math.MaxInt64, stop)
		return tally{ops: uint64(items)}, nil
	}
}

// upTo says how many keys a consumer takes at a time.
func upTo(batch int) string {
	if batch == 1 {
		return "one key at a time"
	}
	return fmt.Sprintf("up to %d keys at a time", batch)
}
