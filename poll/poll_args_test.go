package poll_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/evsync/evsync/coalesce"
	"github.com/evsync/evsync/poll"
	"github.com/evsync/evsync/readyq"
	"github.com/evsync/evsync/semaphore"
	"github.com/evsync/evsync/signal"
)

// Types of a user's that embed sources. None of them is a source.
type (
	queueBesideASlice struct {
		*readyq.Queue[int]
		Tags []string
	}
	queueByValue struct {
		readyq.Queue[int]
	}
	inner    struct{ *readyq.Queue[int] }
	outer    struct{ *inner } // a nil *inner: a promoted call would panic
	setOwner struct {
		*poll.Set[int]
		Name string
	}
	signalOwner struct{ *signal.Signal }
)

// TestUnhashableValuesAreInvalidNotAPanic: a value that cannot be a map
// key is not a source. Add, Modify and Remove say so with ErrInvalid;
// none of them panics.
func TestUnhashableValuesAreInvalidNotAPanic(t *testing.T) {
	var set poll.Set[int]
	defer set.Close()
	for name, v := range map[string]any{
		"a slice":                  []int{1},
		"a map":                    map[string]int{},
		"a func":                   func() {},
		"a struct holding a slice": struct{ s []int }{},
		"a queue beside a slice":   queueBesideASlice{Queue: readyq.New[int]()},
	} {
		for call, err := range map[string]error{
			"Add":    set.Add(v, 1, poll.In, poll.Level),
			"Modify": set.Modify(v, 0, poll.In, poll.Level),
			"Remove": set.Remove(v),
		} {
			if !errors.Is(err, poll.ErrInvalid) {
				t.Errorf("%s of %s = %v, want ErrInvalid", call, name, err)
			}
		}
	}
	if n := set.Len(); n != 0 {
		t.Fatalf("Len = %d after calls that failed", n)
	}
}

// TestAnEmbeddingTypeIsNotASource: a source is known by its exact type. A
// type that embeds one, and so has its methods, is refused with
// ErrInvalid, by pointer and by value, and through a nil pointer it
// embeds. So one queue cannot sit in a Set twice.
func TestAnEmbeddingTypeIsNotASource(t *testing.T) {
	q := readyq.New[int]()
	var set poll.Set[string]
	defer set.Close()
	if err := set.Add(q, "q", poll.In, poll.Level); err != nil {
		t.Fatal(err)
	}
	own := new(poll.Set[int])
	defer own.Close()
	for name, v := range map[string]any{
		"a struct embedding the queue":             queueBesideASlice{Queue: q},
		"a pointer to it":                          &queueBesideASlice{Queue: q},
		"a pointer to a struct embedding by value": &queueByValue{},
		"a nil embedded pointer, two deep":         outer{},
		"a nil pointer to an embedding struct":     (*queueBesideASlice)(nil),
		"a struct embedding a Set":                 setOwner{Set: own},
		"a struct embedding a Signal":              signalOwner{signal.New(1)},
	} {
		if err := set.Add(v, name, poll.In, poll.Level); !errors.Is(err, poll.ErrInvalid) {
			t.Errorf("Add of %s = %v, want ErrInvalid", name, err)
		}
	}
	q.Add(1)
	if got := set.TryWait(nil, 8); len(got) != 1 || got[0].Key != "q" {
		t.Fatalf("TryWait = %v, want the queue once", got)
	}
	if n := set.Len(); n != 1 {
		t.Fatalf("Len = %d, want 1", n)
	}
}

// TestAStructEmbeddingASetIsNoWayToLoop: a struct that embeds a Set
// cannot be added to that Set (which deadlocked, locking the Set twice),
// nor close a loop of two Sets.
func TestAStructEmbeddingASetIsNoWayToLoop(t *testing.T) {
	var a, b poll.Set[int]
	defer a.Close()
	defer b.Close()
	if err := a.Add(setOwner{Set: &a}, 1, poll.In, poll.Level); !errors.Is(err, poll.ErrInvalid) {
		t.Fatalf("a.Add(a struct embedding a) = %v, want ErrInvalid", err)
	}
	if err := a.Add(&b, 1, poll.In, poll.Level); err != nil {
		t.Fatal(err)
	}
	if err := b.Add(setOwner{Set: &a}, 2, poll.In, poll.Level); !errors.Is(err, poll.ErrInvalid) {
		t.Fatalf("b.Add(a struct embedding a) = %v, want ErrInvalid", err)
	}
	if err := b.Add(&a, 2, poll.In, poll.Level); !errors.Is(err, poll.ErrInvalid) {
		t.Fatalf("b.Add(a) with a holding b = %v, want ErrInvalid: a loop", err)
	}
}

// TestNilSourcesAreInvalidInEveryCall: a nil pointer of a source type is
// ErrInvalid in Add, Modify and Remove alike, on an open Set and on a
// closed one, as model.Set says.
func TestNilSourcesAreInvalidInEveryCall(t *testing.T) {
	nils := map[string]any{
		"nil":                        nil,
		"a nil *signal.Signal":       (*signal.Signal)(nil),
		"a nil *semaphore.Semaphore": (*semaphore.Semaphore)(nil),
		"a nil *semaphore.Limiter":   (*semaphore.Limiter)(nil),
		"a nil *coalesce.Waker":      (*coalesce.Waker)(nil),
		"a nil *readyq.Queue":        (*readyq.Queue[int])(nil),
		"a nil *poll.Set":            (*poll.Set[string])(nil),
	}
	var set poll.Set[int]
	for _, closed := range []bool{false, true} {
		if closed {
			set.Close()
		}
		for name, v := range nils {
			for call, err := range map[string]error{
				"Add":    set.Add(v, 1, poll.In, poll.Level),
				"Modify": set.Modify(v, 0, poll.In, poll.Level),
				"Remove": set.Remove(v),
			} {
				if !errors.Is(err, poll.ErrInvalid) {
					t.Errorf("%s of %s (closed %v) = %v, want ErrInvalid", call, name, closed, err)
				}
			}
		}
	}
}

// TestErrorsSayWhatWasWrong: each ErrInvalid of a Set names the call and
// the argument.
func TestErrorsSayWhatWasWrong(t *testing.T) {
	var set poll.Set[int]
	defer set.Close()
	sig := signal.New(0)
	for _, c := range []struct {
		err  error
		want string
	}{
		{set.Add(make(chan int), 1, poll.In, poll.Level), "poll: add: chan int is not a source"},
		{set.Add(nil, 1, poll.In, poll.Level), "poll: add: nil source"},
		{set.Add((*signal.Signal)(nil), 1, poll.In, poll.Level), "poll: add: nil *signal.Signal"},
		{set.Add(sig, 1, 0, poll.Level), "poll: add: events none: ask for In, Out or both"},
		{set.Add(sig, 1, poll.In|poll.Hup, poll.Level), "poll: add: events in|hup: only In and Out"},
		{set.Add(sig, 1, poll.In, poll.Mode(7)), "poll: add: Mode(7) is not Edge, Level or OneShot"},
		{set.Add(&set, 1, poll.In, poll.Level), "poll: add: a Set cannot be added to itself"},
		{set.Add(queueBesideASlice{}, 1, poll.In, poll.Level), "poll: add: poll_test.queueBesideASlice is not a source, though it embeds *readyq.Queue[int]: pass that instead"},
		{set.Modify([]int{1}, 0, poll.In, poll.Level), "poll: modify: []int is not a source"},
		{set.Remove((*semaphore.Limiter)(nil)), "poll: remove: nil *semaphore.Limiter"},
	} {
		if !errors.Is(c.err, poll.ErrInvalid) || !strings.HasPrefix(c.err.Error(), c.want) {
			t.Errorf("error %q, want one that starts %q and matches ErrInvalid", c.err, c.want)
		}
	}
	//lint:ignore SA1012 the nil context is the bad argument under test
	if _, err := set.Wait(nil, nil, 1); err == nil || err.Error() != "poll: wait: nil context: evsync: invalid argument" { //nolint:staticcheck
		t.Errorf("Wait(nil ctx) = %v", err)
	}
	if _, err := set.Wait(bg, nil, 0); err == nil || err.Error() != "poll: wait: max 0 is below 1: evsync: invalid argument" {
		t.Errorf("Wait(max 0) = %v", err)
	}
	var other poll.Set[string]
	defer other.Close()
	if err := other.Add(&set, "s", poll.In, poll.Level); err != nil {
		t.Fatal(err)
	}
	if err := set.Add(&other, 1, poll.In, poll.Level); err == nil || !strings.HasPrefix(err.Error(), "poll: add: *poll.Set[string] holds this Set") {
		t.Errorf("the Add that makes a loop = %v", err)
	}
}
