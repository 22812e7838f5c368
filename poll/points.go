package poll

// A point is a window that hook marks (hook.go, and hook_on.go in builds
// with the evsynchooks tag).
type point uint8

const (
	pointWake     point = iota // wake, called by a source, before the Set's lock
	pointHarvest               // harvest, an edge registration armed and its source not yet polled, with the lock held
	pointAdd                   // Add, the registration armed and its source not yet polled, with the lock held
	pointModify                // Modify, a one-shot registration armed again and its source not yet polled, with the lock held
	pointUnlocked              // unlock, the lock released and the Sets this one is in not yet told
	pointNest                  // Add of a Set, the loop check passed and the registration not yet made, with nestMu held
	pointEnd                   // Done.end, done stored and the armed count not yet loaded
	pointFire                  // fire, the Set's timer fired and its function not yet holding the lock
)
