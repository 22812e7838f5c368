package semaphore

// An Option configures a Semaphore in New.
type Option interface{ apply(*options) }

// options holds what the options set. New reads it.
type options struct{ limit uint64 }

type optionFunc func(*options)

func (f optionFunc) apply(o *options) { f(o) }

// WithLimit lowers the largest count from Max to limit. Requests above the
// limit fail with ErrInvalid. Release fails with ErrWouldBlock if the
// count would pass it. It panics unless 1 ≤ limit ≤ Max.
func WithLimit(limit uint64) Option {
	if limit == 0 || limit > Max {
		panic("semaphore: limit must be between 1 and Max")
	}
	return optionFunc(func(o *options) { o.limit = limit })
}
