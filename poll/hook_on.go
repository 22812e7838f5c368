//go:build evsynchooks

package poll

import "github.com/evsync/evsync/internal/hooks"

// hooked holds the function a window test registered (internal/hooks).
var hooked hooks.Site[point]

// hook calls the registered function on the caller's goroutine.
func hook(p point) { hooked.Run(p) }

// SetHook registers f to run at every point hook marks, or none if f is
// nil. It exists only in builds with the evsynchooks tag.
func SetHook(f func(point)) { hooked.Set(f) }
