package waitq_test

import (
	"testing"

	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/internal/waitq"
)

func TestNotifier(t *testing.T) {
	var n waitq.Notifier
	if n.Armed() {
		t.Fatal("zero value armed")
	}
	if ch := n.Arm(true); ch != waitq.ClosedChan() || !testkit.IsClosed(ch) || n.Armed() {
		t.Fatal("Arm(true): want the closed channel, nothing armed")
	}
	ch := n.Arm(false)
	if testkit.IsClosed(ch) || !n.Armed() || n.Arm(false) != ch {
		t.Fatal("Arm(false): want one open channel, armed")
	}
	n.Fire(false)
	if testkit.IsClosed(ch) || !n.Armed() {
		t.Fatal("Fire(false) fired")
	}
	n.Fire(true)
	if !testkit.IsClosed(ch) || n.Armed() {
		t.Fatal("Fire(true) did not fire")
	}
	n.Fire(true) // nothing armed: nothing to close twice
	if next := n.Arm(false); next == ch || testkit.IsClosed(next) {
		t.Fatal("a fired channel was armed again")
	}
	testkit.NoAllocs(t, "Arm(true)", func() { n.Arm(true) })
}
