package poll_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/evsync/evsync/coalesce"
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
