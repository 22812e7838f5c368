//go:build evsynchooks

package clk

import "github.com/evsync/evsync/internal/hooks"

// hooked holds the function a test registered (internal/hooks).
var hooked hooks.Site[hooks.One]

// hookFired calls the registered function on the run's goroutine. It has
// received the timer's fire and not yet claimed it.
func hookFired() { hooked.Run(0) }

// SetHook registers f to run in the window hookFired marks, or none if f
// is nil. It exists only in builds with the evsynchooks tag.
func SetHook(f func()) { hooked.SetFunc(f) }
