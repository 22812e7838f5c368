//go:build !evsynchooks

package semaphore

// groupHook marks the window of a group's goroutine between its
// function's end and the release of its unit. Without the evsynchooks tag
// it is empty and inlined away, so a normal build pays nothing for it.
func groupHook() {}
