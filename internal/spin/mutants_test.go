package spin_test

import (
	"runtime"
	"testing"

	"github.com/evsync/evsync/internal/spin"
)

// TestReadyRechecksAfterArming: a write that lands between Ready's
// lock-free look at the count (still 0) and its arming of the channel
// finds no channel armed, so it fires nothing (a writer only takes the
// lock when Armed reports true); Ready must then see the write when it
// re-checks the count after arming, and return a channel that is already
// closed. The test holds the owner's lock so that Ready stops between the
// two steps while the write lands; whether Ready had got that far is up to
// the scheduler, but the outcome must be a closed channel either way, and
// most rounds do stop it there.
func TestReadyRechecksAfterArming(t *testing.T) {
	for round := range 100 {
		var mu spin.Lock
		var c spin.Count
		var n spin.Notifier
		mu.Lock()
		ready := make(chan (<-chan struct{}))
		go func() { ready <- n.Ready(&mu, &c) }()
		for range 50 {
			runtime.Gosched() // let Ready read the count and block on the lock
		}
		if err := c.Add(1, limit); err != nil {
			t.Fatal(err)
		}
		if n.Armed() {
			t.Fatalf("round %d: armed while the owner's lock is held", round)
		}
		mu.Unlock()
		ch := <-ready
		select {
		case <-ch:
		default:
			t.Fatalf("round %d: Ready returned an open channel with the count at 1: the write before the arming was missed", round)
		}
	}
}
