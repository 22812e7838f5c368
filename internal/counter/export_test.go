package counter

// The word's flags and its count field, for the external tests' white-box
// checks (see the package doc).
const (
	ClosedBit = closedBit
	BigBit    = bigBit
	SlowBit   = slowBit
	LoneBit   = loneBit
	BusyBit   = busyBit
	NotifyBit = notifyBit
	CountMask = countMask
)

// Word returns c's word.
func Word(c *Counter) uint64 { return c.word.Load() }
