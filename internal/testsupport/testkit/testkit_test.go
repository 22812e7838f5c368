package testkit_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/evsync/evsync/internal/testsupport/testkit"
	"pgregory.net/rapid"
)

// recorder is a Fataler that records a failure instead of stopping.
type recorder struct{ msg string }

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) { r.msg = fmt.Sprintf(format, args...) }

func TestWantPanic(t *testing.T) {
	for _, c := range []struct {
		name string
		f    func()
		fail bool
	}{
		{"matching message", func() { panic("pkg: bad") }, false},
		{"other message", func() { panic("other: bad") }, true},
		{"not a string", func() { panic(fmt.Errorf("pkg: bad")) }, true},
		{"no panic", func() {}, true},
	} {
		var r recorder
		testkit.WantPanic(&r, "pkg: ", c.f)
		if failed := r.msg != ""; failed != c.fail {
			t.Errorf("%s: failed = %v (%q), want %v", c.name, failed, r.msg, c.fail)
		}
	}
}

func TestPendingAndIsClosed(t *testing.T) {
	ch := make(chan int, 1)
	var r recorder
	testkit.Pending(&r, ch)
	if r.msg != "" {
		t.Fatalf("Pending failed on an empty channel: %s", r.msg)
	}
	ch <- 1
	testkit.Pending(&r, ch)
	if r.msg == "" {
		t.Fatal("Pending passed with a value waiting")
	}
	done := make(chan struct{})
	if testkit.IsClosed(done) {
		t.Fatal("IsClosed on an open channel")
	}
	close(done)
	if !testkit.IsClosed(done) {
		t.Fatal("IsClosed on a closed channel = false")
	}
}

func TestParkReturnsOnceBlocked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan int)
		res := testkit.Park(func() int { return <-release })
		testkit.Pending(t, res)
		release <- 7
		if v := <-res; v != 7 {
			t.Fatalf("result %d, want 7", v)
		}
	})
}

func TestCancelSoonStopWaits(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	never := 0
	for range 300 {
		ctx, stop := testkit.CancelSoonOrNever(r)
		if ctx.Done() == nil {
			never++
		}
		stop()
		if ctx.Done() != nil && ctx.Err() != context.Canceled {
			t.Fatalf("after stop: ctx.Err() = %v", ctx.Err())
		}
	}
	if never == 0 || never == 300 {
		t.Fatalf("%d of 300 contexts never end, want about a third", never)
	}
}

func TestNearAndEdges(t *testing.T) {
	near := testkit.Near(5, 10, 7)
	want := []uint64{5, 4, 6, 5, 6, 4, 10, 2, 3, 1, 7}
	if !slices.Equal(near, want) {
		t.Fatalf("Near(5, 10, 7) = %v, want %v", near, want)
	}
	edges := testkit.Edges(10)
	want = []uint64{0, 1, 2, 9, 10, 11, 1<<64 - 3, 1<<64 - 2, 1<<64 - 1}
	if !slices.Equal(edges, want) {
		t.Fatalf("Edges(10) = %v, want %v", edges, want)
	}
}

// TestInitialWithinLimit: an initial count never exceeds the limit, even
// the edge 2 for a limit of 1.
func TestInitialWithinLimit(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		limit := rapid.OneOf(rapid.Uint64Range(1, 3), rapid.Uint64Range(1, 1<<64-2)).Draw(t, "limit")
		if v := testkit.Initial(limit).Draw(t, "initial"); v > limit {
			t.Fatalf("Initial(%d) drew %d", limit, v)
		}
	})
}

func TestHistoryLast(t *testing.T) {
	var h testkit.History
	h.AddArg("eventfd", 3)
	for i := range 25 {
		h.Add(fmt.Sprint("op", i))
	}
	if h.Len() != 26 {
		t.Fatalf("Len = %d, want 26", h.Len())
	}
	last := h.Last(20)
	if n := strings.Count(last, "\n\t"); n != 20 || !strings.HasPrefix(last, "\n\top5\n") || !strings.HasSuffix(last, "\top24") {
		t.Fatalf("Last(20) = %q", last)
	}
	var short testkit.History
	short.AddArg("write", 9)
	if got := short.Last(20); got != "\n\twrite(9)" {
		t.Fatalf("Last(20) of one step = %q", got)
	}
}

// closer counts Close calls and the steps made before the first one.
type closer struct {
	steps           atomic.Int64
	closes          atomic.Int64
	stepsAtFirstOne atomic.Int64
}

func (c *closer) Close() {
	if c.closes.Add(1) == 1 {
		c.stepsAtFirstOne.Store(c.steps.Load())
	}
}

func (c *closer) String() string { return "closer" }

// TestHammerClosesBeforeTheDrawnStep: with one worker the order is fixed,
// so the mid-run Close comes exactly before step closeAt.
func TestHammerClosesBeforeTheDrawnStep(t *testing.T) {
	for seed := range uint64(8) {
		h := testkit.Hammer{Workers: 1, Rounds: 50, Seed: seed, Stream: 3}
		closeAt := int64(rand.New(rand.NewPCG(seed, 3)).IntN(50))
		var c closer
		h.Run(t, &c, func(int, *rand.Rand) { c.steps.Add(1) })
		wantCloses := int64(2) // mid-run and at the end
		if closeAt == 0 {
			wantCloses = 1
		}
		if c.steps.Load() != 50 || c.closes.Load() != wantCloses {
			t.Fatalf("seed %d: %d steps, %d closes; want 50, %d", seed, c.steps.Load(), c.closes.Load(), wantCloses)
		}
		if closeAt != 0 && c.stepsAtFirstOne.Load() != closeAt-1 {
			t.Fatalf("seed %d: closed after %d steps, want %d", seed, c.stepsAtFirstOne.Load(), closeAt-1)
		}
	}
}

// TestHammerWorkersAndStreams: every worker makes its rounds, each with
// the generator the doc promises.
func TestHammerWorkersAndStreams(t *testing.T) {
	const workers, rounds = 4, 100
	h := testkit.Hammer{Workers: workers, Rounds: rounds, Seed: 5, Stream: 99}
	var mu sync.Mutex
	draws := make([][]uint64, workers)
	h.Run(t, new(closer), func(w int, r *rand.Rand) {
		v := r.Uint64()
		mu.Lock()
		draws[w] = append(draws[w], v)
		mu.Unlock()
	})
	for w, got := range draws {
		r := rand.New(rand.NewPCG(5, 99+1+uint64(w)))
		for i, v := range got {
			if want := r.Uint64(); v != want {
				t.Fatalf("worker %d draw %d = %d, want %d", w, i, v, want)
			}
		}
		if len(got) != rounds {
			t.Fatalf("worker %d made %d steps, want %d", w, len(got), rounds)
		}
	}
}
