package poll

// A point is a window that hook marks (hook.go, and hook_on.go in builds
// with the evsynchooks tag).
type point uint8

const (
	pointWake    point = iota // wake, called by a source, before the Set's lock
	pointHarvest              // harvest, an edge registration armed and its source not yet polled, with the lock held
)
