//go:build evsynchooks

package semaphore

// SetGroupHook registers f to run in every group goroutine after its
// function ended and before its unit goes back, or none if f is nil.
var SetGroupHook = setGroupHook
