//go:build evsynchooks

package semaphore

import "github.com/evsync/evsync/internal/hooks"

// groupHooked holds the function a test registered to run in the window
// of groupHook (internal/hooks).
var groupHooked hooks.Site[hooks.One]

// groupHook calls the registered function, if any, on the group's
// goroutine, after its function ended and before its unit goes back. So in
// a build with the evsynchooks tag, a test can stop the goroutine there.
func groupHook() { groupHooked.Run(0) }

// setGroupHook registers f to run at groupHook, or none if f is nil. The
// tests reach it through export_hooks_test.go.
func setGroupHook(f func()) { groupHooked.SetFunc(f) }
