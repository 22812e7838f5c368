package poll_test

// Tests of Source (source.go): a program's own type as a source.

import (
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/evsync/evsync/poll"
)

// A box is a user's source: a buffer of messages with a limit, its own
// lock, and the Source that tells the Sets of its changes, as the Source
// doc asks: Notify after the change, with the lock released.
type box struct {
	mu     sync.Mutex
	msgs   []string
	limit  int
	closed bool
	src    *poll.Source
	polls  atomic.Int64 // calls of the poll function
}

func newBox(limit int) *box {
	b := &box{limit: limit}
	b.src = poll.NewSource(b.events)
	return b
}

// events is the poll function: In while a message is buffered, Out while
// there is room, Hup once closed.
func (b *box) events() poll.Events {
	b.polls.Add(1)
	b.mu.Lock()
	defer b.mu.Unlock()
	var ev poll.Events
	if len(b.msgs) > 0 || b.closed {
		ev |= poll.In
	}
	if len(b.msgs) < b.limit {
		ev |= poll.Out
	}
	if b.closed {
		ev |= poll.Hup
	}
	return ev
}

func (b *box) put(msg string) {
	b.mu.Lock()
	b.msgs = append(b.msgs, msg)
	b.mu.Unlock()
	b.src.Notify(poll.In)
}

func (b *box) take() []string {
	b.mu.Lock()
	msgs := b.msgs
	b.msgs = nil
	b.mu.Unlock()
	b.src.Notify(poll.Out)
	return msgs
}

func (b *box) close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.src.Notify(poll.Hup)
}

// TestSourceReportsWhatItsPollFunctionSays: a Source is reported with the
// events its poll function returns, of those the registration asks for,
// once per Notify for an edge registration. A registration that is
// reported again polls the function again: a take reports Out, a close
// In|Hup.
func TestSourceReportsWhatItsPollFunctionSays(t *testing.T) {
	b := newBox(2)
	var set poll.Set[string]
	defer set.Close()
	if err := set.Add(b.src, "box", poll.In, poll.Edge); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, "TryWait of an empty box", set.TryWait(nil, 4))
	b.put("a")
	wantEvents(t, "TryWait after put", set.TryWait(nil, 4), poll.Event[string]{Key: "box", Events: poll.In})
	wantEvents(t, "TryWait again", set.TryWait(nil, 4))
	b.put("b") // an edge: reported again, though the box was readable before
	wantEvents(t, "TryWait after a second put", set.TryWait(nil, 4), poll.Event[string]{Key: "box", Events: poll.In})
	if err := set.Modify(b.src, "box", poll.Out, poll.Edge); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, "TryWait for Out of a full box", set.TryWait(nil, 4))
	if got := b.take(); len(got) != 2 {
		t.Fatalf("take = %v", got)
	}
	wantEvents(t, "TryWait for Out after take", set.TryWait(nil, 4), poll.Event[string]{Key: "box", Events: poll.Out})
	if err := set.Modify(b.src, "box", poll.In, poll.Edge); err != nil {
		t.Fatal(err)
	}
	b.close()
	wantEvents(t, "TryWait after close", set.TryWait(nil, 4), poll.Event[string]{Key: "box", Events: poll.In | poll.Hup})
}

// TestSourceModes: Level reports the Source at every Wait while its
// function says so, Edge once per Notify, OneShot once until Modify.
func TestSourceModes(t *testing.T) {
	boxes := map[string]*box{"edge": newBox(8), "level": newBox(8), "oneshot": newBox(8)}
	var set poll.Set[string]
	defer set.Close()
	for key, m := range map[string]poll.Mode{"edge": poll.Edge, "level": poll.Level, "oneshot": poll.OneShot} {
		if err := set.Add(boxes[key].src, key, poll.In, m); err != nil {
			t.Fatal(err)
		}
	}
	for _, key := range []string{"edge", "level", "oneshot"} {
		boxes[key].put("m")
	}
	in := func(key string) poll.Event[string] { return poll.Event[string]{Key: key, Events: poll.In} }
	wantEvents(t, "TryWait 1", set.TryWait(nil, 8), in("edge"), in("level"), in("oneshot"))
	wantEvents(t, "TryWait 2", set.TryWait(nil, 8), in("level"))
	for _, b := range boxes {
		b.put("n")
	}
	wantEvents(t, "TryWait after more puts", set.TryWait(nil, 8), in("level"), in("edge"))
	if err := set.Modify(boxes["oneshot"].src, "oneshot", poll.In, poll.OneShot); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, "TryWait after Modify", set.TryWait(nil, 8), in("level"), in("oneshot"))
	boxes["level"].take()
	wantEvents(t, "TryWait after the level box was emptied", set.TryWait(nil, 8))
}

// TestSourceNotifyWithNothingArmedIsHarmless: a Notify of a Source in no
// Set, of one whose registration is queued, and of one removed or in a
// closed Set queues nothing, allocates nothing and never calls the poll
// function. A Notify that no armed registration waits for is one atomic
// load.
func TestSourceNotifyWithNothingArmedIsHarmless(t *testing.T) {
	b := newBox(8)
	if n := testing.AllocsPerRun(100, func() { b.src.Notify(poll.In) }); n != 0 {
		t.Fatalf("Notify of a Source in no Set allocates %v times", n)
	}
	var set poll.Set[int]
	defer set.Close()
	if err := set.Add(b.src, 1, poll.In, poll.Edge); err != nil {
		t.Fatal(err)
	}
	b.put("a") // queued: the registration absorbs every wakeup now
	polls := b.polls.Load()
	if n := testing.AllocsPerRun(100, func() { b.src.Notify(poll.In | poll.Out | poll.Hup) }); n != 0 {
		t.Fatalf("Notify of a queued Source allocates %v times", n)
	}
	if st := set.Stats(); st.Wakeups != 1 || st.Queued != 1 {
		t.Fatalf("Stats after Notifies of a queued Source = %+v, want the one wakeup, queued once", st)
	}
	if got := b.polls.Load(); got != polls {
		t.Fatalf("Notifies of a queued Source polled it %d times", got-polls)
	}
	if err := set.Remove(b.src); err != nil {
		t.Fatal(err)
	}
	b.src.Notify(poll.In)
	wantEvents(t, "TryWait after Remove", set.TryWait(nil, 4))
	if err := set.Add(b.src, 2, poll.In, poll.Edge); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, "TryWait after a new Add", set.TryWait(nil, 4), poll.Event[int]{Key: 2, Events: poll.In}) // the box still holds "a"
	set.Close()
	polls = b.polls.Load()
	b.put("b")
	if got := b.polls.Load(); got != polls {
		t.Fatalf("a Notify after Close polled the Source %d times", got-polls)
	}
	if evs, err := set.Wait(bg, nil, 4); err != poll.ErrClosed || len(evs) != 0 {
		t.Fatalf("Wait after Close = %v, %v, want ErrClosed", evs, err)
	}
}

// TestSourceNotifyIgnoresOtherBits: bits other than In, Out and Hup in a
// Notify are ignored: a Notify of those alone wakes nobody, even if the
// poll function would report In. With In among them, it wakes.
func TestSourceNotifyIgnoresOtherBits(t *testing.T) {
	b := newBox(8)
	var set poll.Set[int]
	defer set.Close()
	if err := set.Add(b.src, 1, poll.In, poll.Edge); err != nil {
		t.Fatal(err)
	}
	b.mu.Lock()
	b.msgs = append(b.msgs, "told to nobody") // readable, with no Notify of In yet
	b.mu.Unlock()
	b.src.Notify(0x08 | 0x80)
	wantEvents(t, "TryWait after a Notify of no event", set.TryWait(nil, 4))
	if st := set.Stats(); st.Wakeups != 0 || st.Armed != 1 {
		t.Fatalf("Stats = %+v, want no wakeup, still armed", st)
	}
	b.src.Notify(poll.In | 0x40)
	wantEvents(t, "TryWait after a Notify of In", set.TryWait(nil, 4), poll.Event[int]{Key: 1, Events: poll.In})
}

// TestSourceNotifyWakesOnlyWhatIsAskedFor: a registration that asks for
// Out absorbs a Notify of In, and is not counted as woken. A Notify of
// Hup wakes every registration.
func TestSourceNotifyWakesOnlyWhatIsAskedFor(t *testing.T) {
	b := newBox(1)
	var set poll.Set[int]
	defer set.Close()
	b.put("full")
	if err := set.Add(b.src, 1, poll.Out, poll.Edge); err != nil {
		t.Fatal(err)
	}
	b.src.Notify(poll.In)
	if st := set.Stats(); st.Wakeups != 0 || st.Queued != 0 {
		t.Fatalf("Stats after a Notify of In = %+v, want it absorbed", st)
	}
	b.close()
	wantEvents(t, "TryWait after close", set.TryWait(nil, 4), poll.Event[int]{Key: 1, Events: poll.Hup})
}

// TestSourcePollReportingMoreThanAsked: a poll function may return any
// bits. A registration reports those it asks for, plus Hup, and never a
// bit that is no event.
func TestSourcePollReportingMoreThanAsked(t *testing.T) {
	var ev atomic.Uint32
	ev.Store(uint32(poll.In | poll.Out | 0xf8))
	src := poll.NewSource(func() poll.Events { return poll.Events(ev.Load()) })
	var forIn, forOut poll.Set[string]
	defer forIn.Close()
	defer forOut.Close()
	if err := forIn.Add(src, "in", poll.In, poll.Level); err != nil {
		t.Fatal(err)
	}
	if err := forOut.Add(src, "out", poll.Out, poll.Level); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, "TryWait for In", forIn.TryWait(nil, 4), poll.Event[string]{Key: "in", Events: poll.In})
	wantEvents(t, "TryWait for Out", forOut.TryWait(nil, 4), poll.Event[string]{Key: "out", Events: poll.Out})
	ev.Store(uint32(poll.In | poll.Out | poll.Hup | 0xf8))
	wantEvents(t, "TryWait for In with Hup", forIn.TryWait(nil, 4), poll.Event[string]{Key: "in", Events: poll.In | poll.Hup})
	wantEvents(t, "TryWait for Out with Hup", forOut.TryWait(nil, 4), poll.Event[string]{Key: "out", Events: poll.Out | poll.Hup})
}

// TestSourceInTwoSets: one Notify wakes the registration of each Set that
// waits for the change; a Set whose registration is queued absorbs it.
func TestSourceInTwoSets(t *testing.T) {
	b := newBox(8)
	var a, c poll.Set[string]
	defer a.Close()
	defer c.Close()
	for _, s := range []*poll.Set[string]{&a, &c} {
		if err := s.Add(b.src, "box", poll.In, poll.Edge); err != nil {
			t.Fatal(err)
		}
	}
	b.put("x")
	wantEvents(t, "a.TryWait", a.TryWait(nil, 4), poll.Event[string]{Key: "box", Events: poll.In})
	b.put("y") // a's registration is armed again, c's is still queued
	wantEvents(t, "a.TryWait after the second put", a.TryWait(nil, 4), poll.Event[string]{Key: "box", Events: poll.In})
	wantEvents(t, "c.TryWait", c.TryWait(nil, 4), poll.Event[string]{Key: "box", Events: poll.In})
	if sa, sc := a.Stats().Wakeups, c.Stats().Wakeups; sa != 2 || sc != 1 {
		t.Fatalf("Wakeups = %d and %d, want 2 and 1", sa, sc)
	}
}

// Types of a user's that embed a Source. Neither is a source.
type (
	boxByPointer struct{ *poll.Source }
	boxByValue   struct{ poll.Source }
)

// TestSourceBadArguments: a Source not made by NewSource, one made with a
// nil function, a nil *Source, a Source by value and a type that embeds a
// Source are refused by Add, Modify and Remove with ErrInvalid and a
// message that says why; none panics, and the Set is unchanged. Notify of
// a Source made with a nil function does nothing.
func TestSourceBadArguments(t *testing.T) {
	var set poll.Set[int]
	defer set.Close()
	noFunc := poll.NewSource(nil)
	noFunc.Notify(poll.In)
	notMade := "a *poll.Source not made by NewSource, or made with a nil function"
	for _, c := range []struct {
		name string
		src  any
		want string
	}{
		{"NewSource(nil)", noFunc, notMade},
		{"a zero Source", &poll.Source{}, notMade},
		{"a nil *Source", (*poll.Source)(nil), "nil *poll.Source"},
		{"a Source by value", poll.Source{}, "poll.Source is not a source, *poll.Source is: pass a pointer"},
		{"a type embedding a *Source", boxByPointer{Source: newBox(1).src}, "poll_test.boxByPointer is not a source, though it embeds *poll.Source: pass that instead"},
		{"a pointer to a type embedding a *Source", &boxByPointer{}, "*poll_test.boxByPointer is not a source, though it embeds *poll.Source: pass that instead"},
		{"a type embedding a Source by value", &boxByValue{}, "*poll_test.boxByValue is not a source, though it embeds *poll.Source: pass that instead"},
	} {
		for op, err := range map[string]error{
			"add":    set.Add(c.src, 1, poll.In, poll.Level),
			"modify": set.Modify(c.src, 1, poll.In, poll.Level),
			"remove": set.Remove(c.src),
		} {
			want := "poll: " + op + ": " + c.want
			if !errors.Is(err, poll.ErrInvalid) || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("%s of %s = %v, want ErrInvalid saying %q", op, c.name, err, want)
			}
		}
	}
	if st := set.Stats(); st != (poll.Stats{}) {
		t.Fatalf("Stats after calls that failed = %+v, want zero", st)
	}
}

// TestSourceLosesNoWakeup: producers put messages into a box and Notify
// concurrently, while one consumer waits on a Set and takes them. Every
// message is taken. A lost wakeup would leave the consumer blocked for
// good, which synctest reports as a deadlock.
func TestSourceLosesNoWakeup(t *testing.T) {
	const producers, puts = 4, 500
	for _, m := range []poll.Mode{poll.Edge, poll.Level, poll.OneShot} {
		synctest.Test(t, func(t *testing.T) {
			b := newBox(producers * puts)
			var set poll.Set[int]
			defer set.Close()
			if err := set.Add(b.src, 1, poll.In, m); err != nil {
				t.Fatal(err)
			}
			for range producers {
				go func() {
					for range puts {
						b.put("m")
					}
				}()
			}
			taken := 0
			for taken < producers*puts {
				if _, err := set.Wait(bg, nil, 1); err != nil {
					t.Fatal(err)
				}
				taken += len(b.take())
				if m == poll.OneShot {
					if err := set.Modify(b.src, 1, poll.In, poll.OneShot); err != nil {
						t.Fatal(err)
					}
				}
			}
			if taken != producers*puts {
				t.Fatalf("took %d messages, want %d", taken, producers*puts)
			}
		})
	}
}

// TestNilPointersOfTheNewSourcesDoNotPanic: the methods of a nil
// *Source, *Deadline and *Done do nothing and report nothing.
func TestNilPointersOfTheNewSourcesDoNotPanic(t *testing.T) {
	var s *poll.Source
	s.Notify(poll.In)
	var d *poll.Deadline
	if !d.Time().IsZero() {
		t.Errorf("Time of a nil *Deadline = %v, want the zero time", d.Time())
	}
	var done *poll.Done
	if done.Stop() {
		t.Error("Stop of a nil *Done reported true")
	}
}
