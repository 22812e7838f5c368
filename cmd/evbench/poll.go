package main

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/evsync/evsync/poll"
	"github.com/evsync/evsync/signal"
)

// pollSizes are the numbers of registered sources of the poll group.
var pollSizes = []int{10, 1_000, 10_000, 100_000}

// pollWaitBench is the benchmark name of the one-ready workloads, which
// poll.svg draws.
const pollWaitBench = "PollWaitOneReady"

// pollHeadline is the n of the poll wait workload the default run keeps:
// one ready among 10,000 is where waiting on a list of what is ready
// parts from looking at every source, in a few seconds of runs.
const pollHeadline = 10_000

// The largest n each alternative runs at: reflect.Select takes at most
// 65,536 cases, and 100,000 goroutines or eventfds are more than this
// demo asks of a machine.
const maxReflect, maxFanIn, maxEpoll = 10_000, 10_000, 10_000

const whyFanIn = "one goroutine per source, each blocked on its source, fanning in to one channel: the Go way to wait on many"

// pollWorkloads is the poll group: one ready source among n registered,
// then the wakeup across goroutines (crossWorkload), then 100,000
// deadlines expiring (deadlineWorkload). In the first, an op
// writes 1 to one signal (round-robin over the n), waits for the one
// event that makes, and reads the signal, all on one goroutine.
func pollWorkloads() []workload {
	var ws []workload
	for _, n := range pollSizes {
		w := workload{group: "poll", title: "poll wait", bench: pollWaitBench,
			params: []param{intParam("n", n)},
			about: fmt.Sprintf("%s, one made ready at a time: write 1 to it, wait for its event, read it; one op is one ready event",
				count(n, "registered signal")),
			anchor: "fanin", why: whyFanIn, use: "waiting on many sources at once", headline: n == pollHeadline}
		w.cases = append(w.cases, bench{impl: "evsync", prep: pollSetCase(n)})
		if n <= maxReflect {
			w.cases = append(w.cases, bench{impl: "reflect", note: "reflect.Select over the Ready channels", prep: pollReflectCase(n)})
		}
		if n <= maxFanIn {
			w.cases = append(w.cases, bench{impl: "fanin", prep: pollFanInCase(n)})
		}
		if n <= maxEpoll {
			w.cases = append(w.cases, bench{impl: "epoll", note: "the kernel's, over eventfds", prep: pollEpollCase(n)})
		}
		ws = append(ws, w)
	}
	return append(ws, crossWorkload(crossN), deadlineWorkload(deadlineN))
}

func newSignals(n int) []*signal.Signal {
	sigs := make([]*signal.Signal, n)
	for i := range sigs {
		sigs[i] = signal.New(0)
	}
	return sigs
}

// fanIn starts one goroutine per signal of sigs, blocked in its Wait
// (which reads it), that sends the signal's key to out. They end when
// ctx does; join waits until all have.
func fanIn(ctx context.Context, sigs []*signal.Signal) (out <-chan int, join func()) {
	keys := make(chan int)
	done := make(chan struct{})
	for i, s := range sigs {
		go func() {
			defer func() { done <- struct{}{} }()
			for {
				if _, err := s.Wait(ctx); err != nil {
					return
				}
				select {
				case keys <- i:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	return keys, func() {
		for range sigs {
			<-done
		}
	}
}

// A prep makes a case's state off the clock (see bench).
type prep = func() (func(*atomic.Bool) (tally, error), func(), error)

// roundRobin calls op(i) for i = 0, 1, ..., n-1, 0, ..., in batches, until
// stop is set after at least one batch. It counts the ops.
func roundRobin(n int, stop *atomic.Bool, op func(i int) error) (tally, error) {
	var t tally
	for i := 0; t.ops == 0 || !stop.Load(); t.ops += batch {
		for range batch {
			if err := op(i); err != nil {
				return t, err
			}
			if i++; i == n {
				i = 0
			}
		}
	}
	return t, nil
}

// pollSetCase waits with a poll.Set over n edge-triggered signals.
func pollSetCase(n int) prep {
	return func() (func(*atomic.Bool) (tally, error), func(), error) {
		sigs := newSignals(n)
		set := poll.New[int]()
		for i, s := range sigs {
			if err := set.Add(s, i, poll.In, poll.Edge); err != nil {
				set.Close()
				return nil, nil, err
			}
		}
		ctx := context.Background()
		buf := make([]poll.Event[int], 0, 1)
		run := func(stop *atomic.Bool) (tally, error) {
			return roundRobin(n, stop, func(i int) error {
				sigs[i].Add(1)
				var err error
				if buf, err = set.Wait(ctx, buf[:0], 1); err != nil || len(buf) != 1 || buf[0].Key != i || sigs[i].Take() != 1 {
					return fmt.Errorf("poll: Wait = %v, %v after a write to %d", buf, err, i)
				}
				return nil
			})
		}
		return run, set.Close, nil
	}
}

// pollReflectCase waits with reflect.Select over the n signals' Ready
// channels, renewing the one that fired.
func pollReflectCase(n int) prep {
	return func() (func(*atomic.Bool) (tally, error), func(), error) {
		sigs := newSignals(n)
		cases := make([]reflect.SelectCase, n)
		for i, s := range sigs {
			cases[i] = reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(s.Ready())}
		}
		run := func(stop *atomic.Bool) (tally, error) {
			return roundRobin(n, stop, func(i int) error {
				sigs[i].Add(1)
				if chosen, _, _ := reflect.Select(cases); chosen != i || sigs[i].Take() != 1 {
					return fmt.Errorf("reflect: Select chose %d after a write to %d", chosen, i)
				}
				cases[i].Chan = reflect.ValueOf(sigs[i].Ready())
				return nil
			})
		}
		return run, func() {}, nil
	}
}

// pollFanInCase has one goroutine per signal, blocked in its Wait, send
// the signal's key to one channel.
func pollFanInCase(n int) prep {
	return func() (func(*atomic.Bool) (tally, error), func(), error) {
		sigs := newSignals(n)
		ctx, cancel := context.WithCancel(context.Background())
		out, join := fanIn(ctx, sigs)
		free := func() { cancel(); join() }
		run := func(stop *atomic.Bool) (tally, error) {
			return roundRobin(n, stop, func(i int) error {
				sigs[i].Add(1)
				if k := <-out; k != i {
					return fmt.Errorf("fanin: got %d after a write to %d", k, i)
				}
				return nil
			})
		}
		return run, free, nil
	}
}

// crossN is how many sources the cross workload registers.
const crossN = 1_000

// The cross workload's rows besides evsync: the floor and the main
// alternative.
const (
	crossFloor = "chan-pingpong"
	crossFanIn = "fanin"
)

// crossWorkload is the poll group's wakeup across goroutines: one
// goroutine writes to a source and waits for the answer, another waits
// on all n sources, reads the one it is told of and answers on a channel.
// A round trip is one op; the waiter records the wake latency, from the
// write to its wait's return, before it reads and answers.
func crossWorkload(n int) workload {
	w := workload{group: "poll", title: "poll wake across goroutines", bench: "PollCrossWake",
		params: []param{intParam("n", n)},
		about: fmt.Sprintf("%s; one goroutine writes 1 to one (round-robin) and waits for the answer, another waits on all of them, reads it and answers on a channel; one op is a round trip",
			count(n, "registered signal")),
		anchor: crossFanIn, why: whyFanIn, use: "waking a goroutine that waits on many sources, from another goroutine",
		floorRow: crossFloor, floorOf: "a hand-shake over two channels with no source to find (the least a round trip between two goroutines costs)",
		latency: true}
	w.cases = []bench{
		{impl: "evsync", prep: crossCase(pollSetWaiter(n))},
		{impl: crossFloor, note: "one channel, no sources: the floor, not an alternative", ceiling: true, prep: crossCase(chanWaiter(n))},
		{impl: crossFanIn, prep: crossCase(fanInWaiter(n))},
		{impl: "epoll", note: "the kernel's, over eventfds", prep: crossCase(epollWaiter(n))},
	}
	return w
}

// A crossWaiter is the state of one way of waiting in the cross
// workload, over n sources, made off the clock:
//   - write(i) makes source i ready, on the writer's goroutine;
//   - wait, on the waiter's, blocks until a source is ready and returns
//     its key, or errEnded once end was called;
//   - read(i), on the waiter's, reads source i, as a consumer does once
//     it is told (nil if the wait read it);
//   - end makes a blocked wait return errEnded;
//   - free frees the state once the waiter is gone.
type crossWaiter struct {
	n     int
	write func(i int) error
	wait  func() (int, error)
	read  func(i int) error
	end   func()
	free  func()
}

// errEnded is what a crossWaiter's wait returns once end was called.
var errEnded = errors.New("ended")

// crossCase runs the round trips over the waiter newWaiter makes: the
// calling goroutine writes and a goroutine of its own waits.
func crossCase(newWaiter func() (crossWaiter, error)) prep {
	return func() (func(*atomic.Bool) (tally, error), func(), error) {
		cw, err := newWaiter()
		if err != nil {
			return nil, nil, err
		}
		var once sync.Once
		end := func() { once.Do(cw.end) }
		run := func(stop *atomic.Bool) (tally, error) { return crossRounds(cw, end, stop) }
		return run, func() { end(); cw.free() }, nil
	}
}

// crossRounds writes source i, round-robin, and waits for the waiter to
// answer i, until stop. The writer stamps the time just before it writes;
// the waiter records the time from the stamp to its wait's return, then
// reads the source and answers. crossRounds calls end and returns once
// the waiter's goroutine has.
func crossRounds(cw crossWaiter, end func(), stop *atomic.Bool) (tally, error) {
	n := tally{lat: newLatencies()}
	base := time.Now()
	var stamp atomic.Int64 // atomic: epoll's write-to-wake is no edge the race detector sees
	answer := make(chan int)
	waited := make(chan error, 1)
	go func() {
		defer close(answer)
		for {
			k, err := cw.wait()
			if err == nil {
				lat := time.Since(base) - time.Duration(stamp.Load())
				// Only this goroutine records; the writer reads the
				// histogram after this goroutine is done.
				_ = n.lat.RecordValue(min(max(int64(lat), latLowest), latHighest))
				err = cw.read(k)
			}
			if err != nil {
				waited <- err
				return
			}
			answer <- k
		}
	}()
	t, err := roundRobin(cw.n, stop, func(i int) error {
		stamp.Store(int64(time.Since(base)))
		if err := cw.write(i); err != nil {
			return err
		}
		if k, ok := <-answer; !ok || k != i {
			return fmt.Errorf("the waiter answered %d (open %v) after a write to %d", k, ok, i)
		}
		return nil
	})
	end()
	for range answer { // an answer to a write that failed, then the close
	}
	if werr := <-waited; !errors.Is(werr, errEnded) {
		err = errors.Join(err, werr)
	}
	n.ops = t.ops
	return n, err
}

// pollSetWaiter waits with a poll.Set over n edge-triggered signals, one
// event at a time, and takes the signal it reports.
func pollSetWaiter(n int) func() (crossWaiter, error) {
	return func() (crossWaiter, error) {
		sigs := newSignals(n)
		set := poll.New[int]()
		for i, s := range sigs {
			if err := set.Add(s, i, poll.In, poll.Edge); err != nil {
				set.Close()
				return crossWaiter{}, err
			}
		}
		ctx := context.Background()
		buf := make([]poll.Event[int], 0, 1)
		wait := func() (int, error) {
			var err error
			switch buf, err = set.Wait(ctx, buf[:0], 1); {
			case errors.Is(err, poll.ErrClosed):
				return 0, errEnded
			case err != nil || len(buf) != 1:
				return 0, fmt.Errorf("poll: Wait = %v, %v", buf, err)
			}
			return buf[0].Key, nil
		}
		read := func(i int) error {
			if v := sigs[i].Take(); v != 1 {
				return fmt.Errorf("poll: took %d from signal %d, want 1", v, i)
			}
			return nil
		}
		return crossWaiter{n: n, write: func(i int) error { return sigs[i].Add(1) },
			wait: wait, read: read, end: set.Close, free: func() {}}, nil
	}
}

// chanWaiter is the floor: the key goes over one unbuffered channel, which
// is both the source and the wait.
func chanWaiter(n int) func() (crossWaiter, error) {
	return func() (crossWaiter, error) {
		ping := make(chan int)
		wait := func() (int, error) {
			k, ok := <-ping
			if !ok {
				return 0, errEnded
			}
			return k, nil
		}
		return crossWaiter{n: n, write: func(i int) error { ping <- i; return nil }, wait: wait,
			read: func(int) error { return nil }, end: func() { close(ping) }, free: func() {}}, nil
	}
}

// fanInWaiter has one goroutine per signal, blocked in its Wait (which
// reads it), send the signal's key to one channel, on which the waiter
// waits.
func fanInWaiter(n int) func() (crossWaiter, error) {
	return func() (crossWaiter, error) {
		sigs := newSignals(n)
		ctx, cancel := context.WithCancel(context.Background())
		out, join := fanIn(ctx, sigs)
		wait := func() (int, error) {
			select {
			case k := <-out:
				return k, nil
			case <-ctx.Done():
				return 0, errEnded
			}
		}
		return crossWaiter{n: n, write: func(i int) error { return sigs[i].Add(1) }, wait: wait,
			read: func(int) error { return nil }, end: cancel, free: join}, nil
	}
}
