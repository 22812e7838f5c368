//go:build !evsynchooks

package workqueue

// hook marks a window for the tests built with the evsynchooks tag (see
// hook_on.go). Without the tag it is empty and inlined away.
func hook(point) {}
