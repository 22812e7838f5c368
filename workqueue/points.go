package workqueue

// A point is a window that hook marks (hook.go, and hook_on.go in builds
// with the evsynchooks tag).
type point uint8

const (
	pointLoaded point = iota // empty, on a user's clock: the delayed count loaded, the queued count not yet
	pointArmed               // publish: the counters stored, the poll sets' armed count not yet loaded
)
