//go:build workqueue_mapindex

package workqueue

// index maps items to slots with a Go map: the simpler twin of the hash
// index (index.go), built with -tags workqueue_mapindex. The zero index is
// empty. Only with mu held. Its hash bits are always 0.
type index[T comparable] struct {
	m map[T]int32
}

// find returns item's entry, or nil if the index does not hold it. s is
// the slab the slots are in.
func (ix *index[T]) find(s *slab[T], item T) (*entry[T], uint32) {
	if i, ok := ix.m[item]; ok {
		return s.entry(i), 0
	}
	return nil, 0
}

// add stores e, whose item the index does not hold, and keeps find's
// hash bits h (0) in e, as index.go does.
func (ix *index[T]) add(e *entry[T], h uint32) {
	if ix.m == nil {
		ix.m = make(map[T]int32)
	}
	ix.m[e.item] = e.id
	e.hash = h
}

// del removes e's item. A NaN's is never removed, as in any map, and its
// key stays in the map.
func (ix *index[T]) del(e *entry[T]) { delete(ix.m, e.item) }
