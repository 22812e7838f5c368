//go:build !evsynchooks

package readyq

// hook marks a window for the tests built with the evsynchooks tag (see
// hook_on.go). Without the tag it is empty and inlined away.
func hook(point) {}

// A point is a place hook marks.
type point uint8

const (
	pointLock  point = iota // lock, before the mutex is taken
	pointWatch              // watch, the counters published and watched not yet set
)
