package counter

// White-box access for the external tests: the word and its flags (see
// the package doc).

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
