//go:build evsynchooks

package workqueue

import "sync/atomic"

// hooked is the function a test registered, or nil (see SetHook).
var hooked atomic.Pointer[func()]

// hookLoaded calls the registered function on the caller's goroutine. It
// has loaded the delayed count and not yet the queued count.
func hookLoaded() {
	if f := hooked.Load(); f != nil {
		(*f)()
	}
}

// SetHook registers f to run in the window hookLoaded marks, or none if
// f is nil. It exists only in builds with the evsynchooks tag.
func SetHook(f func()) {
	if f == nil {
		hooked.Store(nil)
		return
	}
	hooked.Store(&f)
}
