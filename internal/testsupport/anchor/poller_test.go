package anchor_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/internal/testsupport/anchor"
)

// eachPoller runs f on a fresh Poller of every kind over n sources, and
// frees it when f returns. It skips the kinds the system lacks.
func eachPoller(t *testing.T, n int, f func(t *testing.T, p anchor.Poller)) {
	kinds := []struct {
		name string
		new  func(int) (anchor.Poller, error)
	}{
		{"set", anchor.NewSetPoller},
		{"chan", func(n int) (anchor.Poller, error) { return anchor.NewChanPoller(n), nil }},
		{"fanin", anchor.NewFanInPoller},
		{"epoll", anchor.NewEpollPoller},
	}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			p, err := k.new(n)
			if errors.Is(err, errors.ErrUnsupported) {
				t.Skip(err)
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.N != n {
				t.Errorf("N = %d, want %d", p.N, n)
			}
			defer p.Free()
			defer p.End() // before Free, also where f failed before Stop
			f(t, p)
		})
	}
}

// TestPingPongRoundTrips runs two rounds over each source of every
// Poller: each round's answer is the key written, each wake is timed
// once, and Stop ends the waiting goroutine without an error.
func TestPingPongRoundTrips(t *testing.T) {
	const n = 3
	eachPoller(t, n, func(t *testing.T, p anchor.Poller) {
		var wakes []time.Duration
		pp := anchor.StartPingPong(p, func(d time.Duration) { wakes = append(wakes, d) })
		for r := range 2 * n {
			if err := pp.Round(r % n); err != nil {
				t.Errorf("round %d: %v", r, err)
				break
			}
		}
		if err := pp.Stop(); err != nil {
			t.Fatalf("Stop: %v", err)
		}
		if len(wakes) != 2*n {
			t.Fatalf("woke was called %d times over %d rounds", len(wakes), 2*n)
		}
		for i, d := range wakes {
			if d < 0 {
				t.Errorf("wake %d took %v", i, d)
			}
		}
	})
}

// TestPollerEndEndsWait checks that End, called twice, makes Wait return
// ErrEnded on the waiter's goroutine of every Poller.
func TestPollerEndEndsWait(t *testing.T) {
	eachPoller(t, 2, func(t *testing.T, p anchor.Poller) {
		p.End()
		p.End()
		if k, err := p.Wait(); !errors.Is(err, anchor.ErrEnded) {
			t.Fatalf("Wait after End = %d, %v; want ErrEnded", k, err)
		}
	})
}

// TestSetPollerReadWantsOne checks that the Set poller's Read fails when
// its signal held more than the one write a round makes.
func TestSetPollerReadWantsOne(t *testing.T) {
	p, err := anchor.NewSetPoller(2)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Free()
	defer p.End()
	for range 2 {
		if err := p.Write(1); err != nil {
			t.Fatal(err)
		}
	}
	if k, err := p.Wait(); k != 1 || err != nil {
		t.Fatalf("Wait = %d, %v; want 1, nil", k, err)
	}
	if err := p.Read(1); err == nil {
		t.Fatal("Read of a signal holding 2 returned nil")
	}
}

// lying is a Poller over one key that answers want+1, and whose Read
// returns readErr; End makes Wait return ErrEnded.
func lying(readErr error) anchor.Poller {
	ping, end := make(chan int, 1), make(chan struct{})
	return anchor.Poller{N: 1,
		Write: func(i int) error { ping <- i; return nil },
		Wait: func() (int, error) {
			select {
			case k := <-ping:
				return k + 1, nil
			case <-end:
				return 0, anchor.ErrEnded
			}
		},
		Read: func(int) error { return readErr },
		End:  func() { close(end) },
		Free: func() {},
	}
}

// TestPingPongReportsAWrongAnswer checks that Round fails when the waiter
// answers another key than the one written, and that Stop then ends the
// waiter cleanly.
func TestPingPongReportsAWrongAnswer(t *testing.T) {
	pp := anchor.StartPingPong(lying(nil), func(time.Duration) {})
	if err := pp.Round(0); err == nil {
		t.Error("Round = nil; the waiter answered 1 to a write to 0")
	}
	if err := pp.Stop(); err != nil {
		t.Fatalf("Stop = %v, want nil", err)
	}
}

// TestPingPongStopReturnsTheWaitersError checks that a failed Read ends
// the waiting goroutine: Round sees no answer, and Stop returns the
// Read's error.
func TestPingPongStopReturnsTheWaitersError(t *testing.T) {
	bad := errors.New("read failed")
	pp := anchor.StartPingPong(lying(bad), func(time.Duration) {})
	if err := pp.Round(0); err == nil {
		t.Error("Round = nil; the waiter returned without an answer")
	}
	if err := pp.Stop(); !errors.Is(err, bad) {
		t.Fatalf("Stop = %v, want %v", err, bad)
	}
}

// TestPingPongTimesWriteToWake: on synctest's clock, a write that takes
// 2µs and a Wait that returns 3µs after it receive give a latency of
// exactly 5µs. The Read after the wake, 50µs, is not in it.
func TestPingPongTimesWriteToWake(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ping := make(chan int)
		p := anchor.Poller{N: 2,
			Write: func(i int) error { time.Sleep(2 * time.Microsecond); ping <- i; return nil },
			Wait: func() (int, error) {
				k, ok := <-ping
				if !ok {
					return 0, anchor.ErrEnded
				}
				time.Sleep(3 * time.Microsecond)
				return k, nil
			},
			Read: func(int) error { time.Sleep(50 * time.Microsecond); return nil },
			End:  func() { close(ping) },
			Free: func() {},
		}
		var wakes []time.Duration
		pp := anchor.StartPingPong(p, func(d time.Duration) { wakes = append(wakes, d) })
		for i := range 4 {
			if err := pp.Round(i % 2); err != nil {
				t.Fatal(err)
			}
		}
		if err := pp.Stop(); err != nil {
			t.Fatal(err)
		}
		for i, d := range wakes {
			if d != 5*time.Microsecond {
				t.Errorf("wake %d took %v, want 5µs", i, d)
			}
		}
		if len(wakes) != 4 {
			t.Errorf("%d wakes timed over 4 rounds", len(wakes))
		}
	})
}

// TestFanInEndsWithAKeyUnsent checks that a fan-in goroutine blocked in
// its send to out, the key never received, ends with the context, so
// join returns.
func TestFanInEndsWithAKeyUnsent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sigs := anchor.NewSignals(2)
		ctx, cancel := context.WithCancel(context.Background())
		_, join := anchor.FanIn(ctx, sigs)
		if err := sigs[1].Add(1); err != nil {
			t.Fatal(err)
		}
		synctest.Wait() // its goroutine has read it and blocks sending 1
		if v := sigs[1].Take(); v != 0 {
			t.Fatalf("signal 1 holds %d: its goroutine did not read it", v)
		}
		cancel()
		join()
	})
}
