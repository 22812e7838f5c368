package semaphore

// An Option configures a Semaphore in New.
type Option interface{ apply(*Semaphore) }

type optionFunc func(*Semaphore)

func (f optionFunc) apply(s *Semaphore) { f(s) }

// WithLimit lowers the largest count from Max to limit. Requests above the
// limit fail with ErrInvalid; Release fails with ErrWouldBlock if the count
// would pass it. It panics unless 1 ≤ limit ≤ Max.
func WithLimit(limit uint64) Option {
	if limit == 0 || limit > Max {
		panic("semaphore: limit must be between 1 and Max")
	}
	return optionFunc(func(s *Semaphore) { s.lim = limit })
}
