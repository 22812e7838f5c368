package main

import (
	"fmt"
	"math"
	"strings"
	"sync/atomic"

	"github.com/evsync/evsync/internal/anchor"
)

// readyqWorkloads are the ready-queue workloads: producers mark 1,000 keys
// round-robin as fast as they can while consumers take batches and finish
// each batch as they ask for the next (see anchor.ReadyQueueLoad). One op
// is one key handed out, so ops/s is items handed out per second. Each
// shape (producers, consumers) and batch size is a workload of its own,
// run with evsync's readyq, the mutex+slice+map queue and, for batch 1, a
// buffered channel (which does not deduplicate: every Add is a hand-out).
// client-go's workqueue is compared in the nested bench module only.
func readyqWorkloads() []workload {
	var ws []workload
	for _, shape := range [][2]int{{1, 1}, {4, 2}} {
		for _, batch := range []int{1, 64} {
			load := anchor.ReadyQueueLoad{Producers: shape[0], Consumers: shape[1], Batch: batch, Keys: 1000}
			w := workload{name: fmt.Sprintf("readyq p=%d c=%d keys=1000 batch=%d", shape[0], shape[1], batch)}
			for _, impl := range anchor.ReadyQueues() {
				if impl.Batch != batch {
					continue
				}
				name, _, _ := strings.Cut(impl.Name, "-b") // the workload names the batch
				w.cases = append(w.cases, bench{name, readyqCase(load, impl.New)})
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
