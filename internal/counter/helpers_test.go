package counter_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/evsync/evsync/internal/counter"
	"github.com/evsync/evsync/internal/testsupport/testkit"
)

const (
	sem   = counter.Semaphore
	plain = counter.Plain
)

// newCounter returns a counter with the given limit (0: Max), count and
// Delayer.
func newCounter(limit, initial uint64, d counter.Delayer) *counter.Counter {
	c := new(counter.Counter)
	c.Init(limit, initial, d)
	return c
}

// A got is what a Read returned.
type got struct {
	v   uint64
	err error
}

// parkRead calls Read in a goroutine and, inside a synctest bubble,
// returns once it is parked or done; its result arrives on the channel.
func parkRead(c *counter.Counter, ctx context.Context, m counter.Mode, n uint64) <-chan got {
	return testkit.Park(func() got {
		v, err := c.Read(ctx, m, n)
		return got{v, err}
	})
}

// parkCancellable is parkRead with a context of its own.
func parkCancellable(c *counter.Counter, m counter.Mode, n uint64) (<-chan got, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	return parkRead(c, ctx, m, n), cancel
}

// settled waits, in a synctest bubble, until every other goroutine is
// blocked, and returns the result on ch; it fails t if there is none: the
// call is still waiting.
func settled(t *testing.T, what string, ch <-chan got) got {
	t.Helper()
	synctest.Wait()
	select {
	case g := <-ch:
		return g
	default:
		t.Fatalf("%s is still waiting", what)
		return got{}
	}
}

// wantGot fails t unless the result on ch (after synctest.Wait) is v, err.
func wantGot(t *testing.T, what string, ch <-chan got, v uint64, err error) {
	t.Helper()
	if g := settled(t, what, ch); g.v != v || g.err != err {
		t.Fatalf("%s = (%d, %v), want (%d, %v)", what, g.v, g.err, v, err)
	}
}

// pending fails t if the call behind ch has returned (after
// synctest.Wait).
func pending(t *testing.T, ch <-chan got) {
	t.Helper()
	synctest.Wait()
	testkit.Pending(t, ch)
}

// wantWord fails t unless c's word is w.
func wantWord(t *testing.T, c *counter.Counter, w uint64) {
	t.Helper()
	if got := counter.Word(c); got != w {
		t.Fatalf("word = %#x, want %#x", got, w)
	}
}

// wantCount fails t unless c's count is n.
func wantCount(t *testing.T, c *counter.Counter, n uint64) {
	t.Helper()
	if got := c.Count(); got != n {
		t.Fatalf("Count() = %d, want %d", got, n)
	}
}

// mustWrite fails t unless Write(m, n) succeeds.
func mustWrite(t *testing.T, c *counter.Counter, m counter.Mode, n uint64) {
	t.Helper()
	if err := c.Write(m, n); err != nil {
		t.Fatalf("Write(%d) = %v", n, err)
	}
}

// A notes is a Delayer that records each Note; serve, if set, is called
// from Note (which runs without the counter's lock).
type notes struct {
	mu    sync.Mutex
	got   []uint64
	serve func()
}

func (d *notes) Note(count uint64) {
	d.mu.Lock()
	d.got = append(d.got, count)
	d.mu.Unlock()
	if d.serve != nil {
		d.serve()
	}
}

// take returns the counts noted since the last call.
func (d *notes) take() []uint64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	g := d.got
	d.got = nil
	return g
}
