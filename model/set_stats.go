package model

import "time"

// SetStats are a Set's figures, as poll.Stats: the fields are the same,
// in the same order, so model.SetStats(set.Stats()) converts a real
// Set's.
type SetStats struct {
	// Registered is the number of sources in the Set (Len).
	Registered int
	// Queued is the number of registrations on the ready list (Queued).
	Queued int
	// Armed is the number of registrations that wait for their source's
	// next wakeup: neither queued, nor one-shot and reported. It is 0
	// after Close.
	Armed int
	// Waiters is the number of blocked Wait and WaitTimeout callers: 0
	// between the model's calls, which never leave a caller waiting.
	Waiters int
	// Timer reports whether the real Set's timer is armed between calls:
	// whether an armed registration of a Deadline waits for a time still
	// to come, whatever events it asks for.
	Timer bool
	// Wakeups counts the wakeups that queued a registration, a
	// Deadline's time included. Add and Modify queue without one.
	Wakeups uint64
	// Drops counts the registrations a harvest found with no event left,
	// and dropped unreported.
	Drops uint64
}

// Stats models poll.Set.Stats. In the sequential model, every figure is
// the real Set's between two calls.
func (s *Set) Stats() SetStats {
	st := SetStats{Registered: len(s.regs), Queued: len(s.ready), Wakeups: s.wakeups, Drops: s.drops}
	if s.closed {
		return st
	}
	for _, r := range s.regs {
		if r.armed() {
			st.Armed++
		}
	}
	st.Timer = len(s.timed(func(time.Duration) bool { return true })) != 0
	return st
}
