package main

import (
	"context"
	"fmt"
	"reflect"
	"sync/atomic"

	"github.com/evsync/evsync/poll"
	"github.com/evsync/evsync/signal"
)

// pollSizes are the numbers of registered sources of the poll group.
var pollSizes = []int{10, 1_000, 10_000, 100_000}

// pollHeadline is the n of the poll wait workload the default run keeps:
// one ready among 10,000 is where waiting on a list of what is ready
// parts from looking at every source, in a few seconds of runs.
const pollHeadline = 10_000

// The largest n each alternative runs at: reflect.Select takes at most
// 65,536 cases, and 100,000 goroutines or eventfds are more than this
// demo asks of a machine.
const maxReflect, maxFanIn, maxEpoll = 10_000, 10_000, 10_000

const whyFanIn = "one goroutine per source, each blocked on its source, fanning in to one channel: the Go way to wait on many"

// pollWorkloads is the poll group: one ready source among n registered.
// An op writes 1 to one signal (round-robin over the n), waits for the
// one event that makes, and reads the signal.
func pollWorkloads() []workload {
	var ws []workload
	for _, n := range pollSizes {
		w := workload{group: "poll", title: "poll wait", bench: "PollWaitOneReady",
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
	return ws
}

func newSignals(n int) []*signal.Signal {
	sigs := make([]*signal.Signal, n)
	for i := range sigs {
		sigs[i] = signal.New(0)
	}
	return sigs
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
		out := make(chan int)
		done := make(chan struct{})
		for i, s := range sigs {
			go func() {
				defer func() { done <- struct{}{} }()
				for {
					if _, err := s.Wait(ctx); err != nil {
						return
					}
					select {
					case out <- i:
					case <-ctx.Done():
						return
					}
				}
			}()
		}
		free := func() {
			cancel()
			for range sigs {
				<-done
			}
		}
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
