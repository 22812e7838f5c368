//go:build evsynchooks

package semaphore

import "sync/atomic"

// groupHooked is the function a test registered to run in the window of
// groupHook, or nil if none is.
var groupHooked atomic.Pointer[func()]

// groupHook calls the registered function, if any, on the group's
// goroutine, after its function ended and before its unit goes back. So in
// a build with the evsynchooks tag, a test can stop the goroutine there.
func groupHook() {
	if f := groupHooked.Load(); f != nil {
		(*f)()
	}
}

// setGroupHook registers f to run at groupHook, or none if f is nil. The
// tests reach it through export_hooks_test.go.
func setGroupHook(f func()) {
	if f == nil {
		groupHooked.Store(nil)
		return
	}
	groupHooked.Store(&f)
}
