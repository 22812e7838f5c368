package coalesce

// A point is a window that hook marks (hook.go, and hook_on.go in builds
// with the evsynchooks tag).
type point uint8

const (
	pointDelivered point = iota // Deliver, the events stored, the poll sets' armed count not yet loaded
)
