//go:build evsynchooks

package semaphore_test

// The window of a group's goroutine between its function's end and the
// release of its unit. Built with -tags evsynchooks.

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/semaphore"
)

// TestHookGroupWaitReturnsOnlyAfterTheUnitIsBack stops a group's goroutine
// after its function ended, before its unit goes back. Wait must not
// return then, whether the function returned nil, an error or panicked.
// Once the unit is back, Wait returns (or panics), with every unit free.
func TestHookGroupWaitReturnsOnlyAfterTheUnitIsBack(t *testing.T) {
	boom := errors.New("boom")
	cases := []struct {
		name string
		fn   func() error
	}{
		{"nil", func() error { return nil }},
		{"error", func() error { return boom }},
		{"panic", func() error { panic("boom") }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				stopped, resume := make(chan struct{}), make(chan struct{})
				semaphore.SetGroupHook(func() { close(stopped); <-resume })
				defer semaphore.SetGroupHook(nil)
				g := newGroup(2)
				testkit.MustNil(t, g.Go(context.Background(), tc.fn))
				<-stopped
				waited := testkit.Park(func() (v any) {
					defer func() {
						if p := recover(); p != nil {
							v = p
						}
					}()
					return g.Wait()
				})
				synctest.Wait()
				testkit.Pending(t, waited)
				if st := g.Stats(); st.InUse != 1 {
					t.Fatalf("stopped before the release: %v, want 1 unit in use", st)
				}
				close(resume)
				v := <-waited
				if st := g.Stats(); st.InUse != 0 || st.Free != 2 {
					t.Fatalf("after Wait: %v, want every unit back", st)
				}
				switch tc.name {
				case "nil":
					if v != error(nil) {
						t.Fatalf("Wait = %v, want nil", v)
					}
				case "error":
					if v != error(boom) {
						t.Fatalf("Wait = %v, want %v", v, boom)
					}
				case "panic":
					if _, ok := v.(*semaphore.PanicError); !ok {
						t.Fatalf("Wait ended with %#v, want a *PanicError panic", v)
					}
				}
			})
		})
	}
}
