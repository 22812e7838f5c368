package readyq

// An Option configures a Queue in New.
type Option interface{ apply(*config) }

// config is what the options set; New reads it.
type config struct {
	mode    Mode
	recheck any // a func(T) bool, checked against the queue's T by New
	tenant  any // a func(T) string, likewise
	limiter any // a RateLimiter[T], likewise
	metrics Metrics
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

// WithRateLimiter sets the limiter AddRateLimited asks for each retry's
// delay (the default is DefaultRateLimiter's); client-go's limiters fit.
// It panics if r is nil; New panics if T is not the queue's item type.
func WithRateLimiter[T comparable](r RateLimiter[T]) Option {
	if r == nil {
		panic("readyq: WithRateLimiter(nil)")
	}
	return optionFunc(func(c *config) { c.limiter = r })
}

// WithFairness shares the hand-outs fairly between tenants: tenant(item)
// names an item's tenant (a namespace, a customer), and the queued items
// of one priority are handed out round-robin across the tenants that have
// some, FIFO within a tenant. A tenant with no queued item joins the round
// last when it gets one, so its item waits for at most one hand-out per
// tenant ahead of it, however many items they have queued. tenant is
// called outside the lock at every mark and keeps its first answer while
// the queue knows the item; if it panics, the call panics with nothing
// changed and the queue stays usable. It panics if tenant is nil; New
// panics if T is not the queue's item type.
func WithFairness[T comparable](tenant func(T) string) Option {
	if tenant == nil {
		panic("readyq: WithFairness(nil)")
	}
	return optionFunc(func(c *config) { c.tenant = tenant })
}

// WithMetrics has the queue report to m (see Metrics and Running). It
// panics if m is nil.
func WithMetrics(m Metrics) Option {
	if m == nil {
		panic("readyq: WithMetrics(nil)")
	}
	return optionFunc(func(c *config) { c.metrics = m })
}
