package workqueue

// A step is one dimension of an item's tenant: its key there and the
// key's weight, at least 1.
type step struct {
	key    string
	weight int
}

// A path is an item's tenant as Config names it at a mark, outermost
// dimension first. Its n is 0 without fair share.
type path struct {
	n int
	s [MaxDims]step
}

// noPath is the tenant of every item without fair share. Nothing writes
// it: fresh reads its n, 0, and stops.
var noPath path

// pathOf sets p to item's tenant. It runs the user's functions, so
// callers call it before the lock and before any change.
func (c *settings[T]) pathOf(item T, p *path) {
	switch f := &c.share; {
	case c.tenant != nil:
		p.s[0], p.n = step{c.tenant(item), 1}, 1
	case f.Key != nil:
		for d := range f.Dims {
			k := f.Key(item, d)
			p.s[d] = step{k, f.weightOf(d, k)}
		}
		p.n = f.Dims
	}
}

// weightOf returns the weight of key in dimension dim: Weight's answer,
// or 1 if Weight is nil or answers ≤ 0.
func (f *FairShare[T]) weightOf(dim int, key string) int {
	if f.Weight == nil {
		return 1
	}
	return max(1, f.Weight(dim, key))
}

// dims returns the number of dimensions of c's fair share, 0 without. It
// panics, as NewWithConfig documents, if c sets both fair shares, or a
// FairShare out of range or without Key.
func (c *Config[T]) dims() int {
	f := &c.FairShare
	switch {
	case c.Fairness != nil && f.Key != nil:
		panic("workqueue: Config.Fairness and Config.FairShare are both set")
	case f.Dims < 0 || f.Dims > MaxDims:
		panic("workqueue: Config.FairShare.Dims is outside [0, MaxDims]")
	case f.Key == nil && (f.Dims != 0 || f.Weight != nil):
		panic("workqueue: Config.FairShare has Dims or Weight but no Key")
	case c.Fairness != nil:
		return 1
	case f.Key != nil:
		return max(1, f.Dims)
	}
	return 0
}
