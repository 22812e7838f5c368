package poll

// Stats are a Set's figures at one moment, for metrics and tests.
type Stats struct {
	// Registered is the number of sources in the Set (Len).
	Registered int
	// Queued is the number of registrations on the ready list. A Wait may
	// find some of them no longer ready, and drop them.
	Queued int
	// Armed is the number of registrations that wait for their source's
	// next wakeup: neither queued, nor one-shot and reported. Armed
	// Deadlines not yet due wait in the Set's timer heap.
	Armed int
	// Waiters is the number of blocked Wait and WaitTimeout callers.
	Waiters int
	// Timer reports whether the Set's one timer is armed, for its
	// Deadlines, its WaitTimeout callers or WithBurst's window.
	Timer bool
	// Wakeups counts the wakeups that queued a registration, a Deadline's
	// time included, since the Set was made. Wakeups that found the
	// registration queued already, or not asking for their events, are
	// absorbed and not counted.
	Wakeups uint64
	// Drops counts the queued registrations that a Wait or TryWait found
	// with none of their events left, and dropped unreported.
	Drops uint64
}

// Stats returns the Set's figures. It takes the Set's lock.
func (s *Set[K]) Stats() Stats {
	s.mu.Lock()
	defer s.unlock()
	s.catchUp()
	return Stats{
		Registered: len(s.regs),
		Queued:     s.n.queued,
		Armed:      s.n.armed,
		Waiters:    s.waiters.Len(),
		Timer:      !s.t.at.IsZero(),
		Wakeups:    s.n.wakeups,
		Drops:      s.n.drops,
	}
}
