package poll_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evsync/evsync/poll"
	"github.com/evsync/evsync/signal"
)

// The shape of BenchmarkWaiterShare: shareWorkers goroutines Wait on one
// Set of shareSources signals.
const (
	shareWorkers = 4
	shareSources = 1_000
)

// shareLoads are BenchmarkWaiterShare's loads: what the producer does
// between two writes (sleeps or stays busy for gap), and how long each
// worker stays busy after each event.
var shareLoads = []struct {
	name      string
	sleep     bool
	gap, work time.Duration
}{
	// The producer sleeps between writes: every worker is parked in Wait
	// when an event comes, as in a server whose workers are mostly idle,
	// and the order in which they are served alone decides who gets it.
	{"idle", true, 20 * time.Microsecond, 500 * time.Nanosecond},
	// The producer stays busy between writes, on one of the cores: one
	// worker could keep up, but the woken one must find a processor.
	{"paced", false, 2 * time.Microsecond, 500 * time.Nanosecond},
	// The producer writes as fast as it can: the ready list is rarely
	// empty, and most Waits find an event without parking.
	{"flood", false, 0, 500 * time.Nanosecond},
}

// BenchmarkWaiterShare measures how a Set shares events among the
// goroutines blocked in its Wait. shareWorkers workers loop on Wait with
// max 1, Take the signal reported and stay busy for the load's work. The
// benchmark's goroutine writes 1 to the shareSources signals round-robin,
// one write per op, and pauses after each as the load says. It reports, once
// every unit written has been taken (the load's pause follows each write):
//   - events/s: events reported (Waits that returned one) per second, the
//     drain after the last write included; under flood a worker's Take
//     often gets several writes of its signal, so there are fewer events
//     than writes
//   - max-share-%, min-share-%: the shares of the events of the busiest
//     and the idlest worker (25 % each is an even split)
//   - cv-%: the coefficient of variation of the workers' events (0: even)
//
// Blocked Waits are served FIFO, so the worker that has waited longest
// gets the next event. A LIFO order (the kernel's EPOLLEXCLUSIVE wakes
// the most recent sleeper) hands it to the worker that came back last.
func BenchmarkWaiterShare(b *testing.B) {
	for _, load := range shareLoads {
		pause := func() { busy(load.gap) }
		if load.sleep {
			pause = func() { time.Sleep(load.gap) }
		}
		b.Run("load="+load.name, func(b *testing.B) { benchShare(b, pause, load.work) })
	}
}

func benchShare(b *testing.B, pause func(), work time.Duration) {
	sigs := signals(shareSources)
	set := poll.New[int]()
	for i, s := range sigs {
		if err := set.Add(s, i, poll.In, poll.Edge); err != nil {
			b.Fatal(err)
		}
	}
	sh := &shares{done: make(chan struct{})}
	var wg sync.WaitGroup
	errs := make([]error, shareWorkers)
	for w := range shareWorkers {
		wg.Go(func() { errs[w] = sh.worker(set, sigs, w, work) })
	}
	b.ReportAllocs()
	start := time.Now()
	written, i := 0, 0
	for b.Loop() {
		if err := sigs[i].Add(1); err != nil {
			b.Fatal(err)
		}
		written++
		if i++; i == shareSources {
			i = 0
		}
		pause()
	}
	sh.drain(written)
	elapsed := time.Since(start)
	set.Close()
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		b.Fatal(err)
	}
	maxShare, minShare, cv := sh.spread()
	b.ReportMetric(float64(sh.reports())/elapsed.Seconds(), "events/s")
	b.ReportMetric(100*maxShare, "max-share-%")
	b.ReportMetric(100*minShare, "min-share-%")
	b.ReportMetric(100*cv, "cv-%")
}

// shares counts the events each worker was handed, and the units they
// took, and tells the producer when those add up to what it wrote.
type shares struct {
	events [shareWorkers]atomic.Int64
	taken  atomic.Int64
	target atomic.Int64 // what was written, once the producer is done; 0 before
	once   sync.Once
	done   chan struct{} // closed once taken reaches target
}

// worker is worker w: Wait for one event, count it, Take its signal,
// count the units, stay busy for work; until the Set is closed.
func (sh *shares) worker(set *poll.Set[int], sigs []*signal.Signal, w int, work time.Duration) error {
	ctx := context.Background()
	buf := make([]poll.Event[int], 0, 1)
	for {
		var err error
		if buf, err = set.Wait(ctx, buf[:0], 1); errors.Is(err, poll.ErrClosed) {
			return nil
		} else if err != nil || len(buf) != 1 {
			return fmt.Errorf("worker %d: Wait = %v, %v", w, buf, err)
		}
		sh.events[w].Add(1)
		n := int64(sigs[buf[0].Key].Take())
		if t := sh.taken.Add(n); t == sh.target.Load() {
			sh.finish()
		}
		busy(work)
	}
}

// drain waits until the workers have taken the written units. A worker
// that takes the last unit after target is set closes done; if they
// were all taken before, drain does.
func (sh *shares) drain(written int) {
	sh.target.Store(int64(written))
	if sh.taken.Load() == int64(written) {
		sh.finish()
	}
	<-sh.done
}

func (sh *shares) finish() { sh.once.Do(func() { close(sh.done) }) }

// reports is how many events the workers were handed.
func (sh *shares) reports() int64 {
	var n int64
	for i := range sh.events {
		n += sh.events[i].Load()
	}
	return n
}

// spread returns the busiest and the idlest worker's shares of the events
// and their coefficient of variation (standard deviation over mean).
func (sh *shares) spread() (maxShare, minShare, cv float64) {
	var sum, sq float64
	minShare = 1
	total := float64(sh.reports())
	for i := range sh.events {
		u := float64(sh.events[i].Load())
		sum += u
		sq += u * u
		maxShare, minShare = max(maxShare, u/total), min(minShare, u/total)
	}
	mean := sum / shareWorkers
	return maxShare, minShare, math.Sqrt(sq/shareWorkers-mean*mean) / mean
}

// busy keeps the goroutine on its processor for d, as work does.
func busy(d time.Duration) {
	for start := time.Now(); time.Since(start) < d; {
	}
}
