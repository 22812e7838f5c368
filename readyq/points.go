package readyq

// A point is a window that hook marks (hook.go, and hook_on.go in builds
// with the evsynchooks tag).
type point uint8

const (
	pointLock  point = iota // lock, before the mutex is taken
	pointWatch              // watch, the counters published and watched not yet set
	pointArmed              // unlock, observed: the counters published, the poll sets' armed count not yet loaded
)
