package main

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"
	"time"

	"github.com/evsync/evsync/internal/testsupport/anchor"
	"github.com/evsync/evsync/poll"
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
		sigs := anchor.NewSignals(n)
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
		sigs := anchor.NewSignals(n)
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
		sigs := anchor.NewSignals(n)
		ctx, cancel := context.WithCancel(context.Background())
		out, join := anchor.FanIn(ctx, sigs)
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

// pollEpollCase waits with the kernel's epoll over n non-blocking,
// edge-triggered eventfds (anchor.NewEpollPoller): write(2),
// epoll_wait(2) with maxevents 1 and read(2) per op.
func pollEpollCase(n int) prep {
	return func() (func(*atomic.Bool) (tally, error), func(), error) {
		p, err := anchor.NewEpollPoller(n)
		if err != nil {
			return nil, nil, err
		}
		run := func(stop *atomic.Bool) (tally, error) {
			return roundRobin(n, stop, func(i int) error {
				if err := p.Write(i); err != nil {
					return err
				}
				if k, err := p.Wait(); err != nil || k != i {
					return fmt.Errorf("epoll: Wait = %d, %v after a write to %d", k, err, i)
				}
				return p.Read(i)
			})
		}
		return run, p.Free, nil
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
		{impl: "evsync", prep: crossCase(n, anchor.NewSetPoller)},
		{impl: crossFloor, note: "one channel, no sources: the floor, not an alternative", ceiling: true,
			prep: crossCase(n, func(n int) (anchor.Poller, error) { return anchor.NewChanPoller(n), nil })},
		{impl: crossFanIn, prep: crossCase(n, anchor.NewFanInPoller)},
		{impl: "epoll", note: "the kernel's, over eventfds", prep: crossCase(n, anchor.NewEpollPoller)},
	}
	return w
}

// crossCase runs the round trips (anchor.PingPong) over n sources of the
// Poller that newPoller makes off the clock: the calling goroutine writes
// and a goroutine of the PingPong's waits.
func crossCase(n int, newPoller func(n int) (anchor.Poller, error)) prep {
	return func() (func(*atomic.Bool) (tally, error), func(), error) {
		p, err := newPoller(n)
		if err != nil {
			return nil, nil, err
		}
		run := func(stop *atomic.Bool) (tally, error) { return crossRounds(p, stop) }
		return run, func() { p.End(); p.Free() }, nil
	}
}

// crossRounds writes source i, round-robin, and waits for the waiting
// goroutine to answer i, until stop. It records each wake's latency, from
// just before the write to the return of the wait (anchor.StartPingPong).
// It ends the Poller's wait and returns once that goroutine has.
func crossRounds(p anchor.Poller, stop *atomic.Bool) (tally, error) {
	n := tally{lat: newLatencies()}
	// Only the waiting goroutine records; the histogram is read after
	// Stop, which waits for that goroutine.
	pp := anchor.StartPingPong(p, func(lat time.Duration) {
		_ = n.lat.RecordValue(min(max(int64(lat), latLowest), latHighest))
	})
	t, err := roundRobin(p.N, stop, pp.Round)
	n.ops = t.ops
	return n, errors.Join(err, pp.Stop())
}
