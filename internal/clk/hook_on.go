//go:build evsynchooks

package clk

import "sync/atomic"

// hooked is the function a test registered, or nil (see SetHook).
var hooked atomic.Pointer[func()]

// hookFired calls the registered function on the run's goroutine. It has
// received the timer's fire and not yet claimed it.
func hookFired() {
	if f := hooked.Load(); f != nil {
		(*f)()
	}
}

// SetHook registers f to run in the window hookFired marks, or none if f
// is nil. It exists only in builds with the evsynchooks tag.
func SetHook(f func()) {
	if f == nil {
		hooked.Store(nil)
		return
	}
	hooked.Store(&f)
}
