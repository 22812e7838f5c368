package coalesce_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/coalesce"
	"github.com/evsync/evsync/internal/testsupport/testkit"
)

// res is what a Wait returned.
type res struct {
	n   uint64
	err error
}

func waitFor(w *coalesce.Waker) func() res {
	return func() res {
		n, err := w.Wait(context.Background())
		return res{n, err}
	}
}

// TestZeroValueWakerWorks: the zero value is a Waker with a delay of 0
// and the default policy: every Wake is a wakeup at once, and every call,
// Close included, works on it.
func TestZeroValueWakerWorks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var w coalesce.Waker
		if st := w.Stats(); st != (coalesce.Stats{}) {
			t.Fatalf("zero value: %v", st)
		}
		// If Wait blocks, the fake clock's hour passes at once.
		ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
		defer cancel()
		w.Wake()
		if n, err := w.Wait(ctx); n != 1 || err != nil {
			t.Fatalf("Wait after Wake = %d, %v, want 1 at once", n, err)
		}
		if w.C() != w.Ready() {
			t.Fatal("C and Ready return different channels")
		}
		w.Wake()
		w.Wake() // merges into the unconsumed wakeup
		want(t, &w, 1, 2)
		w.Flush() // nothing pending
		testkit.WantString(t, &w, "coalesce{pending=0 delivered=0 wakeups=3 armed=false closed=false}")
		w.Wake()
		w.Close()
		if n, err := w.Wait(ctx); n != 1 || err != nil {
			t.Fatalf("first Wait after Close = %d, %v, want the event noted before", n, err)
		}
		if _, err := w.Wait(ctx); err != coalesce.ErrClosed {
			t.Fatalf("second Wait after Close = %v, want ErrClosed", err)
		}
		w.Close()
	})
}

// TestZeroValueFirstUseIsRaceFree: the first calls on a zero value, made
// from several goroutines at once, agree on one channel, lose no event and
// race on nothing (run under -race).
func TestZeroValueFirstUseIsRaceFree(t *testing.T) {
	for round := range 50 {
		var w coalesce.Waker
		var reported atomic.Uint64
		chans := make([]<-chan struct{}, 8)
		ctx, cancel := context.WithCancel(context.Background())
		start := make(chan struct{})
		var others, waiters sync.WaitGroup
		for g := range chans {
			wg := &others
			if g%4 == 3 {
				wg = &waiters
			}
			wg.Go(func() {
				<-start
				switch g % 4 {
				case 0:
					chans[g] = w.C()
				case 1:
					chans[g] = w.Ready()
					_ = w.String()
				case 2:
					w.Wake()
					w.Flush()
					reported.Add(w.Events())
					chans[g] = w.C()
				case 3:
					n, _ := w.Wait(ctx) // an event, or ctx.Err() with nothing taken
					reported.Add(n)
					_ = w.Stats()
					chans[g] = w.Ready()
				}
			})
		}
		close(start)
		others.Wait() // both Wake calls are made
		cancel()      // a Wait that has not had an event gives up
		waiters.Wait()
		w.Close()
		for _, c := range chans {
			if c == nil || c != chans[0] {
				t.Fatalf("round %d: C and Ready returned different channels", round)
			}
		}
		for n, err := w.Wait(context.Background()); err == nil; n, err = w.Wait(context.Background()) {
			reported.Add(n)
		}
		if got := reported.Load(); got != 2 {
			t.Fatalf("round %d: %d events reported for 2 Wake calls", round, got)
		}
	}
}

// TestNoTokenLeftAfterClose: a token on C at Close (here a second
// wakeup's, after the first one's was received) does not outlive the
// report of its events: once Events has returned them all, a receive from
// C finds C closed and empty, and Wait returns ErrClosed, not (0, nil).
func TestNoTokenLeftAfterClose(t *testing.T) {
	w := coalesce.New(0)
	w.Wake()
	<-w.C()
	w.Wake() // a second wakeup: a token on C again
	w.Close()
	if n := w.Events(); n != 2 {
		t.Fatalf("Events after Close = %d, want both events", n)
	}
	if _, open := <-w.C(); open {
		t.Fatal("a token on C after Close, with every event reported")
	}
	if n, err := w.Wait(context.Background()); n != 0 || err != coalesce.ErrClosed {
		t.Fatalf("Wait after every event was reported = %d, %v, want ErrClosed", n, err)
	}
}

// TestCloseBetweenWaitsReceiveAndEvents: Close lands after a Wait has
// received its token and before it counts, with a later wakeup's token on
// C. That Wait reports both events, and what follows finds no wakeup: no
// token on C, and Wait returns ErrClosed.
func TestCloseBetweenWaitsReceiveAndEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := coalesce.New(0)
		w.Wake()
		_, open := <-w.C() // the Wait's receive
		w.Wake()           // a second token, on C
		w.Close()
		if n, err := coalesce.Received(w, open); n != 2 || err != nil {
			t.Fatalf("the Wait that Close interrupted = %d, %v, want both events", n, err)
		}
		if _, open := <-w.C(); open {
			t.Fatal("a token on C after Close, with every event reported")
		}
		if got := <-testkit.Park(waitFor(w)); got != (res{0, coalesce.ErrClosed}) {
			t.Fatalf("Wait after every event was reported = %+v, want ErrClosed", got)
		}
	})
}

// TestWaitSkipsATokenWhoseEventsAreTaken: two Waits each receive a token;
// the first to count takes both wakeups' events, and the other, finding
// none, waits on instead of returning (0, nil), until a wakeup of its own.
func TestWaitSkipsATokenWhoseEventsAreTaken(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := coalesce.New(0)
		defer w.Close()
		w.Wake()
		_, first := <-w.C() // one Wait's receive
		w.Wake()
		_, second := <-w.C() // the other's
		if n, err := coalesce.Received(w, first); n != 2 || err != nil {
			t.Fatalf("the first Wait to count = %d, %v, want both events", n, err)
		}
		if n, err := coalesce.Received(w, second); n != 0 || err != nil {
			t.Fatalf("the other Wait = %d, %v, want (0, nil): it waits on", n, err)
		}
		rest := testkit.Park(waitFor(w)) // waiting on, as that Wait does
		testkit.Pending(t, rest)
		w.Wake()
		if got := <-rest; got != (res{1, nil}) {
			t.Fatalf("the other Wait = %+v, want the third event", got)
		}
	})
}

// TestSeveralConsumersHammer has producers Wake (and sometimes Flush)
// while several consumers Wait, and one receives from C and calls Events.
// No Wait returns (0, nil), the events reported add up to the Wake calls
// made before Close, and every goroutine returns.
func TestSeveralConsumersHammer(t *testing.T) {
	const producers, waiters, wakes = 3, 4, 3000
	for _, cfg := range []struct {
		name string
		new  func() *coalesce.Waker
	}{
		{"zero value", func() *coalesce.Waker { return new(coalesce.Waker) }},
		{"audit", func() *coalesce.Waker { return coalesce.New(50 * time.Microsecond) }},
		{"batch", func() *coalesce.Waker { return coalesce.New(time.Millisecond, coalesce.WithMaxBatch(4)) }},
		{"debounce", func() *coalesce.Waker {
			return coalesce.New(20*time.Microsecond, coalesce.WithMaxWait(100*time.Microsecond))
		}},
		{"adaptive", func() *coalesce.Waker { return coalesce.New(50*time.Microsecond, coalesce.WithAdaptive()) }},
	} {
		t.Run(cfg.name, func(t *testing.T) {
			w := cfg.new()
			var reported atomic.Uint64
			var prod, cons sync.WaitGroup
			for p := range producers {
				prod.Go(func() { produce(w, uint64(p), wakes) })
			}
			errs := make(chan error, waiters)
			for range waiters {
				cons.Go(func() { errs <- waitAll(w, &reported) })
			}
			cons.Go(func() { receiveAll(w, &reported) })
			prod.Wait()
			w.Close()
			cons.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Error(err)
				}
			}
			if got := reported.Load(); got != producers*wakes {
				t.Fatalf("%d events reported, %d Wake calls made before Close (%v)", got, producers*wakes, w)
			}
		})
	}
}

// produce makes n Wake calls, with a Flush after about one in eight.
func produce(w *coalesce.Waker, seed uint64, n int) {
	r := rand.New(rand.NewPCG(seed, 1))
	for range n {
		w.Wake()
		if r.IntN(8) == 0 {
			w.Flush()
		}
	}
}

// waitAll calls Wait until ErrClosed, adding up the events reported.
func waitAll(w *coalesce.Waker, reported *atomic.Uint64) error {
	for {
		n, err := w.Wait(context.Background())
		switch {
		case errors.Is(err, coalesce.ErrClosed) && n == 0:
			return nil
		case err != nil || n == 0:
			return fmt.Errorf("Wait = %d, %v", n, err)
		}
		reported.Add(n)
	}
}

// receiveAll receives from C until it is closed, calling Events after
// each receive (which may count 0: another consumer may have taken the
// events) and once more at the end.
func receiveAll(w *coalesce.Waker, reported *atomic.Uint64) {
	for range w.C() {
		reported.Add(w.Events())
	}
	reported.Add(w.Events())
}
