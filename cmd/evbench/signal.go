package main

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/evsync/evsync/internal/testsupport/anchor"
	"github.com/evsync/evsync/signal"
)

// errLostUnits reports an Add+Take pair that did not return its unit.
var errLostUnits = errors.New("a take did not return the unit just added")

// A sigDriver runs a signal workload on one or two signals (b is for the
// drivers that need a second) until stop is set.
type sigDriver func(a, b anchor.Signal, stop *atomic.Bool) (tally, error)

// signalWorkloads is the signal group.
func signalWorkloads() []workload {
	addTakeW := sigWorkload("signal add+take", "SignalAddTake", nil,
		"one goroutine: Add(1), then Take()", false, addTake)
	addTakeW.use = "a counter one goroutine adds to and takes, no waiting"
	pp := sigWorkload("signal ping-pong", "SignalPingPong", nil,
		"two goroutines take turns: one Adds 1 and Waits for the answer, the other Waits and Adds 1 back; one op is a round trip",
		false, pingPong)
	pp.cases = append(pp.cases, bench{impl: "chan", run: chanPingPong})
	pp.anchor, pp.why = "chan", whyChan
	pp.use = "a hand-shake between two goroutines, one round trip at a time"
	wr := sigWorkload("signal writers", "SignalWriters", []param{intParam("w", writersN)},
		fmt.Sprintf("%s Add(1) in a loop, one reader Waits and takes the sum; one op is one Add; wakeups/op: the reader's Waits per Add (1 / mean batch)", count(writersN, "goroutine")),
		true, writers(writersN))
	wr.use = "writers in a tight loop waking one reader"
	return []workload{addTakeW, pp, wr, observedWorkload(writersN)}
}

// sigWorkload runs drive on two fresh signals of every implementation,
// compared with the atomic+token notifier.
func sigWorkload(title, benchName string, params []param, about string, wakeups bool, drive sigDriver) workload {
	w := workload{group: "signal", title: title, bench: benchName, params: params, about: about,
		anchor: "atomictoken", why: whyToken, wakeups: wakeups}
	for _, impl := range anchor.Signals() {
		w.cases = append(w.cases, bench{impl: impl.Name, run: func(stop *atomic.Bool) (tally, error) {
			return withSignals(impl, func(a, b anchor.Signal) (tally, error) {
				return drive(a, b, stop)
			})
		}})
	}
	return w
}

// withSignals calls f with two new signals of impl and closes them after.
func withSignals(impl anchor.SignalImpl, f func(a, b anchor.Signal) (tally, error)) (tally, error) {
	a, err := impl.New()
	if err != nil {
		return tally{}, err
	}
	defer a.Close()
	b, err := impl.New()
	if err != nil {
		return tally{}, err
	}
	defer b.Close()
	return f(a, b)
}

// addTake is one goroutine adding one unit and taking it back.
func addTake(s, _ anchor.Signal, stop *atomic.Bool) (tally, error) {
	var n tally
	for first := true; first || !stop.Load(); first = false { // one round even if a short run is stopped before it starts
		for range batch {
			s.Add(1)
			if s.Take() != 1 {
				return n, errLostUnits
			}
		}
		n.ops += batch
	}
	return n, nil
}

// pingPong sends 1 on ping and waits for the echo on pong, round after
// round; a 2 on ping tells the echo goroutine to quit.
func pingPong(ping, pong anchor.Signal, stop *atomic.Bool) (tally, error) {
	errc := make(chan error, 1)
	go func() { errc <- echo(ping, pong) }()
	ctx := context.Background()
	var n tally
	var err error
	for first := true; err == nil && (first || !stop.Load()); first = false { // one round even if a short run is stopped before it starts
		ping.Add(1)
		_, err = pong.Wait(ctx)
		n.ops++
	}
	ping.Add(2)
	return n, errors.Join(err, <-errc)
}

// echo answers each 1 on ping with a 1 on pong until it reads more.
func echo(ping, pong anchor.Signal) error {
	ctx := context.Background()
	for {
		v, err := ping.Wait(ctx)
		if err != nil || v != 1 {
			return err
		}
		pong.Add(1)
	}
}

// chanPingPong is pingPong over two unbuffered channels, for reference.
func chanPingPong(stop *atomic.Bool) (tally, error) {
	ping, pong := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(pong)
		for range ping {
			pong <- struct{}{}
		}
	}()
	var n tally
	for first := true; first || !stop.Load(); first = false { // one round even if a short run is stopped before it starts
		ping <- struct{}{}
		<-pong
		n.ops++
	}
	close(ping)
	<-pong // closed once the echo goroutine is done
	return n, nil
}

// writers has w goroutines Add(1) in a loop while one reader Waits.
func writers(w int) sigDriver {
	return func(s, _ anchor.Signal, stop *atomic.Bool) (tally, error) {
		return writeAndRead(s, w, stop)
	}
}

// writeAndRead runs w adding goroutines until stop and reads on the
// calling goroutine, counting its Waits as wakeups. Once the writers are
// done it raises finished, then adds one more unit so that a reader
// blocked in Wait wakes up and sees it.
func writeAndRead(s anchor.Signal, w int, stop *atomic.Bool) (tally, error) {
	var finished atomic.Bool
	added := make(chan tally, 1)
	go func() {
		n, _ := fanOut(w, func() (tally, error) { return addLoop(s, stop), nil })
		finished.Store(true)
		s.Add(1)
		added <- n
	}()
	waits, err := readLoop(s, &finished)
	n := <-added
	n.wakeups = waits
	return n, err
}

// addLoop adds 1 until stop, and at least once: on a loaded machine a
// writer may start only after a very short run has been stopped.
func addLoop(s anchor.Signal, stop *atomic.Bool) tally {
	var n tally
	for {
		s.Add(1)
		n.ops++
		if stop.Load() {
			return n
		}
	}
}

// readLoop Waits until finished is raised, then takes what is left.
func readLoop(s anchor.Signal, finished *atomic.Bool) (uint64, error) {
	ctx := context.Background()
	var waits uint64
	for !finished.Load() {
		if _, err := s.Wait(ctx); err != nil {
			return waits, err
		}
		waits++
	}
	s.Take()
	return waits, nil
}

// writersN is how many goroutines add in the writers workloads.
const writersN = 4

// observedWorkload is the writers workload on evsync with an observer
// (anchor.Observe) calling String in a loop (observer=on), none (off), or
// one formatting a constant Stats instead (control: the same CPU use,
// without touching the signal). It compares with observer=off.
func observedWorkload(w int) workload {
	wl := workload{group: "signal", title: "signal writers observed", bench: "SignalWritersObserved",
		params: []param{intParam("w", w)},
		about:  "the writers workload on evsync while a goroutine calls String() in a loop (on), formats a constant (control: the same CPU use, not touching the signal) or nothing runs (off)",
		ref:    "evsync/observer=off", anchor: "evsync/observer=off", why: whyQuiet, wakeups: true}
	for _, mode := range anchor.ObserverModes() {
		wl.cases = append(wl.cases, bench{impl: "evsync/observer=" + mode, run: func(stop *atomic.Bool) (tally, error) {
			s := signal.New(0)
			defer s.Close()
			unobserve := anchor.Observe(s, mode)
			defer unobserve()
			return writeAndRead(anchor.AdaptSignal(s), w, stop)
		}})
	}
	return wl
}
