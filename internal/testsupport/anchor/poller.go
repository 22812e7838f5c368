package anchor

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/evsync/evsync/poll"
	"github.com/evsync/evsync/signal"
)

// A Poller is one way to wait on n sources at once: evsync's poll.Set
// (NewSetPoller), the goroutine-per-source fan-in (NewFanInPoller), the
// kernel's epoll (NewEpollPoller) and a bare channel, the floor
// (NewChanPoller). Source i has key i. poll's BenchmarkCrossWake and
// cmd/evbench's poll workloads drive the same Pollers.
//
// Its functions are fields, made by the constructor over its state:
//   - Write(i) makes source i ready, on the writer's goroutine;
//   - Wait, on the waiter's goroutine, blocks until a source is ready and
//     returns its key, or ErrEnded once End was called;
//   - Read(i), on the waiter's goroutine, reads source i, as a consumer
//     does once it is told (it does nothing where Wait read it);
//   - End makes a blocked Wait return ErrEnded; it may be called more
//     than once;
//   - Free frees the state, once End was called and Wait is not running.
type Poller struct {
	N     int
	Write func(i int) error
	Wait  func() (int, error)
	Read  func(i int) error
	End   func()
	Free  func()
}

// ErrEnded is what a Poller's Wait returns once its End was called.
var ErrEnded = errors.New("anchor: the poller's wait was ended")

// NewSignals returns n evsync signals, each with a count of 0.
func NewSignals(n int) []*signal.Signal {
	sigs := make([]*signal.Signal, n)
	for i := range sigs {
		sigs[i] = signal.New(0)
	}
	return sigs
}

// NewSetPoller waits with a poll.Set over n edge-triggered signals, one
// event at a time. Read takes the signal and fails unless it held 1.
// End closes the Set.
func NewSetPoller(n int) (Poller, error) {
	sigs := NewSignals(n)
	set := poll.New[int]()
	for i, s := range sigs {
		if err := set.Add(s, i, poll.In, poll.Edge); err != nil {
			set.Close()
			return Poller{}, err
		}
	}
	ctx := context.Background()
	buf := make([]poll.Event[int], 0, 1)
	wait := func() (int, error) {
		var err error
		switch buf, err = set.Wait(ctx, buf[:0], 1); {
		case errors.Is(err, poll.ErrClosed):
			return 0, ErrEnded
		case err != nil || len(buf) != 1:
			return 0, fmt.Errorf("anchor: poll.Set's Wait = %v, %v", buf, err)
		}
		return buf[0].Key, nil
	}
	read := func(i int) error {
		if v := sigs[i].Take(); v != 1 {
			return fmt.Errorf("anchor: took %d from signal %d, want 1", v, i)
		}
		return nil
	}
	return Poller{N: n, Write: func(i int) error { return sigs[i].Add(1) },
		Wait: wait, Read: read, End: set.Close, Free: func() {}}, nil
}

// NewChanPoller is the floor: key i goes over one unbuffered channel,
// which is both the source and the wait. Write blocks until Wait takes
// the key. End closes the channel.
func NewChanPoller(n int) Poller {
	ping := make(chan int)
	var once sync.Once
	wait := func() (int, error) {
		k, ok := <-ping
		if !ok {
			return 0, ErrEnded
		}
		return k, nil
	}
	return Poller{N: n, Write: func(i int) error { ping <- i; return nil }, Wait: wait,
		Read: func(int) error { return nil }, End: func() { once.Do(func() { close(ping) }) },
		Free: func() {}}
}

// FanIn starts one goroutine per signal of sigs. Each blocks in its
// signal's Wait, which reads the signal, then sends the signal's index
// in sigs to out. They end when ctx does; join waits until all have.
func FanIn(ctx context.Context, sigs []*signal.Signal) (out <-chan int, join func()) {
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

// NewFanInPoller waits on the channel that FanIn's goroutines send to,
// one per signal of n. Read does nothing: the goroutine's Wait read the
// signal. End cancels their context, and Free waits until all are gone.
func NewFanInPoller(n int) (Poller, error) {
	sigs := NewSignals(n)
	ctx, cancel := context.WithCancel(context.Background())
	out, join := FanIn(ctx, sigs)
	wait := func() (int, error) {
		select {
		case k := <-out:
			return k, nil
		case <-ctx.Done():
			return 0, ErrEnded
		}
	}
	return Poller{N: n, Write: func(i int) error { return sigs[i].Add(1) }, Wait: wait,
		Read: func(int) error { return nil }, End: cancel, Free: join}, nil
}

// A PingPong is a round trip over a Poller, between two goroutines. The
// caller's goroutine writes to a source and waits for the answer. A
// goroutine of the PingPong's own waits on all the sources, reads the one
// its Wait returns and answers with its key on an unbuffered channel.
type PingPong struct {
	p      Poller
	base   time.Time
	stamp  atomic.Int64 // atomic: epoll's write-to-wake is no edge the race detector sees
	answer chan int
	waited chan error
}

// StartPingPong starts the waiting goroutine over p. It calls woke, on
// that goroutine, with each wake's latency: the time from just before
// Round's write to the return of the Wait that reports it, before Read.
// Whatever woke writes may be read once Stop has returned.
func StartPingPong(p Poller, woke func(time.Duration)) *PingPong {
	pp := &PingPong{p: p, base: time.Now(), answer: make(chan int), waited: make(chan error, 1)}
	go pp.serve(woke)
	return pp
}

// serve is the waiting goroutine. It returns, closing answer, at its
// first error: ErrEnded once the Poller's End was called.
func (pp *PingPong) serve(woke func(time.Duration)) {
	defer close(pp.answer)
	for {
		k, err := pp.p.Wait()
		if err == nil {
			woke(time.Since(pp.base) - time.Duration(pp.stamp.Load()))
			err = pp.p.Read(k)
		}
		if err != nil {
			pp.waited <- err
			return
		}
		pp.answer <- k
	}
}

// Round writes source i and waits for the answer. It returns an error if
// the write fails, or if the answer is not i or never comes (the waiting
// goroutine returned: Stop says why).
func (pp *PingPong) Round(i int) error {
	pp.stamp.Store(int64(time.Since(pp.base)))
	if err := pp.p.Write(i); err != nil {
		return err
	}
	if k, ok := <-pp.answer; !ok || k != i {
		return fmt.Errorf("anchor: the waiter answered %d (open %v) after a write to %d", k, ok, i)
	}
	return nil
}

// Stop calls the Poller's End and waits until the waiting goroutine has
// returned. It returns that goroutine's error, nil if it was ErrEnded.
// Call it once, after the last Round; the caller frees the Poller.
func (pp *PingPong) Stop() error {
	pp.p.End()
	for range pp.answer { // an answer to a write that failed, then the close
	}
	if err := <-pp.waited; !errors.Is(err, ErrEnded) {
		return err
	}
	return nil
}
