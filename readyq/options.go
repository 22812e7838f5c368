package readyq

// An Option configures a Queue in New.
type Option interface{ apply(*config) }

// config is what the options set; New reads it.
type config struct {
	mode    Mode
	recheck any // a func(T) bool, checked against the queue's T by New
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// WithMode sets the mode of items marked with Add (the default is Edge);
// AddMode still chooses per item. It panics if m is not a Mode.
func WithMode(m Mode) Option {
	if !m.valid() {
		panic("readyq: WithMode of an unknown mode")
	}
	return optionFunc(func(c *config) { c.mode = m })
}

// WithRecheck gives the queue a readiness test for level items, like the
// poll that epoll repeats on a level-triggered file after reporting it:
// at Done, a level item is queued again only if ready(item) reports true
// (or it was marked while in flight), and is forgotten otherwise. ready is
// called by Done, for each item given to it, outside the queue's lock, so
// it may use the queue; it must not block for long. If it panics, that
// Done changes nothing and the panic goes on to Done's caller. WithRecheck
// panics if ready is nil; New panics if T is not the queue's item type.
func WithRecheck[T comparable](ready func(T) bool) Option {
	if ready == nil {
		panic("readyq: WithRecheck(nil)")
	}
	return optionFunc(func(c *config) { c.recheck = ready })
}
