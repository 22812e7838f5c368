package poll_test

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/evsync/evsync/coalesce"
	"github.com/evsync/evsync/internal/watch"
	"github.com/evsync/evsync/poll"
	"github.com/evsync/evsync/readyq"
	"github.com/evsync/evsync/signal"
)

// TestReadyOfAClosedSetIsClosedAtOnce: a Wait on a closed Set does not
// block, even with nothing queued, so Ready's channel is closed at once.
func TestReadyOfAClosedSetIsClosedAtOnce(t *testing.T) {
	var set poll.Set[int]
	if err := set.Add(signal.New(0), 1, poll.In, poll.Edge); err != nil {
		t.Fatal(err)
	}
	set.Close()
	select {
	case <-set.Ready():
	default:
		t.Fatal("Ready of a closed Set with nothing queued is not closed")
	}
	if _, err := set.Wait(bg, nil, 4); !errors.Is(err, poll.ErrClosed) {
		t.Fatalf("Wait = %v, want ErrClosed", err)
	}
}

// TestAClosedReadyqWithMarksAsideIsNotYetReadable: a closed readyq whose
// in-flight item was marked again has a mark kept aside. Its Wait would
// block until the Done queues the mark, so a Set reports Hup alone, not
// In. The Done makes it readable.
func TestAClosedReadyqWithMarksAsideIsNotYetReadable(t *testing.T) {
	q := readyq.New[int]()
	var set poll.Set[string]
	defer set.Close()
	if err := set.Add(q, "q", poll.In, poll.Level); err != nil {
		t.Fatal(err)
	}
	q.Add(1)
	if items := q.TryTake(4); len(items) != 1 {
		t.Fatalf("TryTake = %v", items)
	}
	q.Add(1) // in flight: kept aside until Done
	q.Close()
	want := func(ev poll.Events) { t.Helper(); wantOne(t, &set, "q", ev) }
	want(poll.Hup)
	q.Done(1) // the mark is queued: a Wait would return it
	want(poll.In | poll.Hup)
}

// TestAWakerCloseEndsAWaitOnIt: a Wait blocked on a Set that holds a
// Waker returns when the Waker is closed, with In|Hup.
func TestAWakerCloseEndsAWaitOnIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := coalesce.New(0)
		var set poll.Set[string]
		defer set.Close()
		if err := set.Add(w, "w", poll.In, poll.Edge); err != nil {
			t.Fatal(err)
		}
		got := make(chan []poll.Event[string])
		go func() {
			evs, err := set.Wait(context.Background(), nil, 4)
			if err != nil {
				t.Error(err)
			}
			got <- evs
		}()
		synctest.Wait() // the Wait is blocked
		w.Close()
		if evs := <-got; !slices.Equal(evs, []poll.Event[string]{{Key: "w", Events: poll.In | poll.Hup}}) {
			t.Fatalf("Wait = %v, want [{w in|hup}]", evs)
		}
	})
}

// TestWaitWithADoneContextTakesNothing: a Wait whose context is done when
// it starts returns ctx.Err() and changes nothing, though a source is
// ready (SPEC rule 1). The one-shot source stays armed and queued: the
// next Wait reports it.
func TestWaitWithADoneContextTakesNothing(t *testing.T) {
	var set poll.Set[int]
	defer set.Close()
	sig := signal.New(1)
	if err := set.Add(sig, 1, poll.In, poll.OneShot); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(bg)
	cancel()
	buf := []poll.Event[int]{{Key: 9}}
	got, err := set.Wait(ctx, buf, 4)
	if !errors.Is(err, context.Canceled) || !slices.Equal(got, buf) {
		t.Fatalf("Wait(done ctx) = %v, %v, want buf unchanged and context.Canceled", got, err)
	}
	if evs := set.TryWait(nil, 4); !slices.Equal(evs, []poll.Event[int]{{Key: 1, Events: poll.In}}) {
		t.Fatalf("TryWait after it = %v, want the one shot still there", evs)
	}
}

// TestAClosedSetReportsALevelSourceOnceMore: after Close, a Wait reports
// a queued level source that is still ready once more, and then returns
// ErrClosed: a closed Set queues nothing again.
func TestAClosedSetReportsALevelSourceOnceMore(t *testing.T) {
	var set poll.Set[int]
	if err := set.Add(signal.New(1), 1, poll.In, poll.Level); err != nil {
		t.Fatal(err)
	}
	set.Close()
	if evs, err := set.Wait(bg, nil, 4); err != nil || len(evs) != 1 {
		t.Fatalf("Wait after Close = %v, %v, want the level source once more", evs, err)
	}
	if evs, err := set.Wait(bg, nil, 4); !errors.Is(err, poll.ErrClosed) || len(evs) != 0 {
		t.Fatalf("the next Wait = %v, %v, want ErrClosed", evs, err)
	}
}

// An armCount is a source of the tests' own that counts its armed
// registrations: what a counter or a queue keeps, and pays for while it
// is above 0. It is never ready.
type armCount struct {
	l     watch.List
	armed atomic.Int64
}

func (a *armCount) Watchers() *watch.List { return &a.l }
func (a *armCount) Arm(d int)             { a.armed.Add(int64(d)) }
func (a *armCount) Poll() watch.Events    { return 0 }

func init() {
	watch.Register(func(v any) (watch.Source, bool) {
		a, ok := v.(*armCount)
		if !ok || a == nil {
			return nil, ok
		}
		return a, true
	})
}

// TestCloseAndRemoveReleaseEverySource: a registration arms its source
// while it waits for the next wakeup. Remove and Close disarm it, so a
// source pays nothing for a Set that no longer holds it or is closed.
func TestCloseAndRemoveReleaseEverySource(t *testing.T) {
	var set poll.Set[int]
	a, b := new(armCount), new(armCount)
	for i, src := range []*armCount{a, b} {
		if err := set.Add(src, i, poll.In, poll.Edge); err != nil {
			t.Fatal(err)
		}
		if n := src.armed.Load(); n != 1 {
			t.Fatalf("armed = %d after Add of a source that is not ready, want 1", n)
		}
	}
	if err := set.Remove(a); err != nil {
		t.Fatal(err)
	}
	set.Close()
	for name, src := range map[string]*armCount{"removed": a, "left at Close": b} {
		if n := src.armed.Load(); n != 0 {
			t.Errorf("the source %s is armed %d times, want 0", name, n)
		}
		if n := src.l.Len(); n != 0 {
			t.Errorf("the source %s has %d watchers, want 0", name, n)
		}
	}
}
