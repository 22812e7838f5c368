//go:build evsynchooks

package poll_test

// The windows of a Set's time and of its own sources (points.go): a
// Done's end, a Source's Notify, the timer's run before it takes the
// Set's lock, and the burst window's end. Each test stops a goroutine at
// one point, makes the other side's call exactly then, lets it go on,
// and checks the outcome. Run with
//
//	go test -race -tags evsynchooks ./poll/

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/internal/testsupport/fakeclock"
	"github.com/evsync/evsync/poll"
	"github.com/evsync/evsync/signal"
)

// TestHookDoneStoresBeforeItLoadsArmed stops a Done's end after it stored
// that the context is done and before it loads how many registrations
// are armed. An Add of the Done runs to the end meanwhile: it arms, then
// polls, and sees the end. The Done is reported once. Had the end loaded
// the armed count first, it would find 0 and wake nobody, the Add would
// poll before the store and find nothing, and the end would be lost.
func TestHookDoneStoresBeforeItLoadsArmed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		d := poll.OnDone(ctx)
		var set poll.Set[int]
		defer set.Close()
		end := gates(t, poll.PointEnd)[poll.PointEnd]
		end.arm()
		cancel()      // the end runs in the AfterFunc's goroutine
		<-end.stopped // and stops in the window
		if err := set.Add(d, 1, poll.In, poll.Edge); err != nil {
			t.Fatal(err)
		}
		close(end.release)
		synctest.Wait() // the end has returned
		wantEvents(t, "TryWait", set.TryWait(nil, 4), poll.Event[int]{Key: 1, Events: inHup})
		wantEvents(t, "TryWait again", set.TryWait(nil, 4))
	})
}

// TestHookSourceNotifiedWhileAddArms stops an Add of a user's Source after
// it armed the registration and before it polled the Source, which is not
// ready. The Source changes and calls Notify in the window: Notify finds
// the registration armed, and its wakeup waits for the Set's lock. Add's
// poll sees the change and queues the Source; the wakeup then finds it
// queued and is absorbed. The Source is reported once, and the absorbed
// wakeup is not counted in Stats().Wakeups.
func TestHookSourceNotifiedWhileAddArms(t *testing.T) {
	var ready atomic.Bool
	src := poll.NewSource(func() poll.Events {
		if ready.Load() {
			return poll.In
		}
		return 0
	})
	var set poll.Set[int]
	defer set.Close()
	stopped, release, woke := stopAt(t, poll.PointAdd, poll.PointWake)
	added := make(chan error)
	go func() { added <- set.Add(src, 1, poll.In, poll.Edge) }()
	<-stopped // armed, not yet polled
	notified := make(chan struct{})
	go func() {
		ready.Store(true)
		src.Notify(poll.In)
		close(notified)
	}()
	select { // the Notify reached its wakeup, or returned without one
	case <-woke:
	case <-notified:
	}
	close(release)
	if err := <-added; err != nil {
		t.Fatal(err)
	}
	<-notified
	wantEvents(t, "TryWait", set.TryWait(nil, 4), poll.Event[int]{Key: 1, Events: poll.In})
	if st := set.Stats(); st.Wakeups != 0 {
		t.Fatalf("Stats().Wakeups = %d, want 0: Add queued the Source, and its wakeup was absorbed", st.Wakeups)
	}
	src.Notify(poll.In) // armed again by the edge harvest
	wantEvents(t, "TryWait after a second Notify", set.TryWait(nil, 4), poll.Event[int]{Key: 1, Events: poll.In})
}

// TestHookNotifyWithNothingArmedWakesNobody: a Notify of a Source whose
// only registration is queued, or removed, goes no further than its load
// of the armed count: it never reaches a Set's wakeup.
func TestHookNotifyWithNothingArmedWakesNobody(t *testing.T) {
	var wakes atomic.Int64
	poll.SetHook(func(p poll.Point) {
		if p == poll.PointWake {
			wakes.Add(1)
		}
	})
	t.Cleanup(func() { poll.SetHook(nil) })
	src := poll.NewSource(func() poll.Events { return poll.In })
	var set poll.Set[int]
	defer set.Close()
	if err := set.Add(src, 1, poll.In, poll.Level); err != nil { // ready: queued at once
		t.Fatal(err)
	}
	src.Notify(poll.In | poll.Out | poll.Hup)
	if err := set.Remove(src); err != nil {
		t.Fatal(err)
	}
	src.Notify(poll.In)
	if n := wakes.Load(); n != 0 {
		t.Fatalf("%d wakeups reached a Set, want 0", n)
	}
}

// TestHookFireAfterRemoveOfItsDeadline: the Set's timer fires for a
// Deadline, and its run stops before it takes the lock. Remove of the
// Deadline runs meanwhile. Nothing is reported after Remove returned, and
// the late run leaves nothing armed. Had Remove left a due Deadline in
// the heap for the run to take out, the run would queue a source the Set
// no longer holds.
func TestHookFireAfterRemoveOfItsDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var set poll.Set[int]
		defer set.Close()
		d := poll.NewDeadline(time.Now().Add(time.Second))
		if err := set.Add(d, 1, poll.In, poll.Edge); err != nil {
			t.Fatal(err)
		}
		fire := gates(t, poll.PointFire)[poll.PointFire]
		fire.arm()
		<-fire.stopped // 1s has passed: the timer's run waits before the lock
		if err := set.Remove(d); err != nil {
			t.Fatal(err)
		}
		close(fire.release)
		synctest.Wait() // the run has returned
		wantEvents(t, "TryWait after Remove", set.TryWait(nil, 4))
		if st := set.Stats(); st != (poll.Stats{}) {
			t.Fatalf("Stats after Remove and the late run = %+v, want zero", st)
		}
	})
}

// TestHookFireAfterClose: a WaitTimeout's time is up on a fake clock, and
// the timer's run stops before it takes the lock. Close runs meanwhile.
// The call was still blocked at Close, so it returns ErrClosed, and the
// late run arms no timer. Had Close first done what is due, as the calls
// that read the ready list do, the call would have timed out instead.
func TestHookFireAfterClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := fakeclock.New(epoch)
		set := poll.New[int](poll.WithClock(clk))
		c := goWaitTimeout(set, nil, 4, time.Second)
		synctest.Wait()
		fire := gates(t, poll.PointFire)[poll.PointFire]
		fire.arm()
		clk.Step(time.Second) // the timer fires: its goroutine runs fire
		<-fire.stopped
		set.Close()
		if r := <-c; r.err != poll.ErrClosed || len(r.evs) != 0 {
			t.Fatalf("WaitTimeout = %v, %v; want ErrClosed: it was blocked at Close", r.evs, r.err)
		}
		close(fire.release)
		synctest.Wait()
		if st := set.Stats(); st.Timer || st.Waiters != 0 || clk.Waiters() != 0 {
			t.Fatalf("Stats after the late run = %+v with %d fake timers, want no timer", st, clk.Waiters())
		}
	})
}

// TestHookFireAfterAGrant: a WaitTimeout's time is up on a fake clock, and
// the timer's run stops before it takes the lock. A write wakes the
// call's source meanwhile. The call gets the event, not a timeout: the
// write's section grants it, and the late run finds it gone. Had the
// wakeup first done what is due, it would end the call empty and leave
// the event queued.
func TestHookFireAfterAGrant(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := fakeclock.New(epoch)
		set := poll.New[int](poll.WithClock(clk))
		defer set.Close()
		sig := signal.New(0)
		if err := set.Add(sig, 1, poll.In, poll.Edge); err != nil {
			t.Fatal(err)
		}
		c := goWaitTimeout(set, nil, 4, time.Second)
		synctest.Wait()
		fire := gates(t, poll.PointFire)[poll.PointFire]
		fire.arm()
		clk.Step(time.Second)
		<-fire.stopped // the call's time is up; its end waits before the lock
		if err := sig.Add(1); err != nil {
			t.Fatal(err)
		}
		r := <-c
		if r.err != nil {
			t.Fatal(r.err)
		}
		wantEvents(t, "WaitTimeout", r.evs, poll.Event[int]{Key: 1, Events: poll.In})
		close(fire.release)
		synctest.Wait()
		if st := set.Stats(); st.Timer || st.Waiters != 0 || st.Queued != 0 || clk.Waiters() != 0 {
			t.Fatalf("Stats after the late run = %+v with %d fake timers, want nothing left", st, clk.Waiters())
		}
	})
}

// TestHookFireOnAClockSetBack: the timer fires for a Deadline on a fake
// clock, its run stops before it takes the lock, and the clock is set
// back meanwhile. The run then finds the Deadline not yet due. It must
// arm the timer again, since its own firing spent it: the Deadline then
// wakes a blocked Wait when the clock reaches it again. Had the run kept
// the time the timer was armed for, it would take the timer for armed
// still, and the Wait would never wake.
func TestHookFireOnAClockSetBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := fakeclock.New(epoch)
		set := poll.New[int](poll.WithClock(clk))
		defer set.Close() // ends the Wait, if it never woke
		if err := set.Add(poll.NewDeadline(epoch.Add(time.Second)), 1, poll.In, poll.Edge); err != nil {
			t.Fatal(err)
		}
		c := goWait(set, 4)
		synctest.Wait()
		fire := gates(t, poll.PointFire)[poll.PointFire]
		fire.arm()
		clk.Step(time.Second)
		<-fire.stopped
		clk.Step(-time.Second)
		close(fire.release)
		synctest.Wait()
		if len(c) != 0 {
			t.Fatal("the Wait returned before the Deadline's time")
		}
		if n := clk.Waiters(); n != 1 {
			t.Fatalf("%d fake timers armed after the run, want 1, for the Deadline", n)
		}
		clk.Step(time.Second)
		synctest.Wait()
		if len(c) == 0 {
			t.Fatal("the Wait did not wake at the Deadline's time")
		}
		if r := <-c; r.err != nil || len(r.evs) != 1 {
			t.Fatalf("Wait = %v, %v", r.evs, r.err)
		}
	})
}

// TestHookBurstWindowEndsAgainstANewEvent: the burst window's timer fires
// at its end, and its run stops before it takes the lock. Meanwhile a
// TryWait takes the burst, a new event opens a new window, from now for
// d, and a Wait blocks for it. The late run must not end the new window:
// the Wait returns d after the new event, not at once. Had the run taken
// the timer's time for the end of whatever window is open, it would end
// the new one.
func TestHookBurstWindowEndsAgainstANewEvent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := fakeclock.New(epoch)
		set := poll.New[int](poll.WithBurst(8, time.Second), poll.WithClock(clk))
		defer set.Close()
		a, b := signal.New(0), signal.New(0)
		for i, s := range []*signal.Signal{a, b} {
			if err := set.Add(s, i, poll.In, poll.Edge); err != nil {
				t.Fatal(err)
			}
		}
		a.Add(1) // opens a window, to 1s
		fire := gates(t, poll.PointFire)[poll.PointFire]
		fire.arm()
		clk.Step(time.Second)
		<-fire.stopped // the window's end: the run waits before the lock
		wantEvents(t, "TryWait", set.TryWait(nil, 8), poll.Event[int]{Key: 0, Events: poll.In})
		b.Add(1) // a new window, from 1s to 2s
		c := goWait(set, 8)
		synctest.Wait()
		close(fire.release)
		synctest.Wait()
		if len(c) != 0 {
			r := <-c
			t.Fatalf("Wait = %v, %v at 1s: the late run ended the new window", r.evs, r.err)
		}
		clk.Step(time.Second)
		synctest.Wait()
		if len(c) == 0 {
			t.Fatal("the Wait did not wake at the new window's end")
		}
		r := <-c
		if r.err != nil {
			t.Fatal(r.err)
		}
		wantEvents(t, "Wait", r.evs, poll.Event[int]{Key: 1, Events: poll.In})
	})
}
