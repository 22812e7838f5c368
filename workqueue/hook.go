//go:build !evsynchooks

package workqueue

// hookLoaded marks the window in empty between the load of the delayed
// count and the load of the queued count. Without the evsynchooks tag it
// is empty and inlined away.
func hookLoaded() {}
