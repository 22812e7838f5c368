//go:build rq_mapindex

package rq

// index maps items to slots with a Go map: the simpler twin of the hash
// index (index.go), built with -tags rq_mapindex. The zero index is
// empty. Only with mu held. Its hash bits are always 0.
type Index[T comparable] struct {
	m map[T]int32
}

// find returns item's entry, or nil if the index does not hold it. s is
// the slab the slots are in.
func (ix *Index[T]) Find(s *Slab[T], item T) (*Entry[T], uint32) {
	if i, ok := ix.m[item]; ok {
		return s.Entry(i), 0
	}
	return nil, 0
}

// FindOrAdd returns item's entry and false if the index holds it. Else
// it takes a new entry from s, stores item in it and in the map, and
// returns it and true, as index.go does.
func (ix *Index[T]) FindOrAdd(s *Slab[T], item T) (*Entry[T], bool) {
	if i, ok := ix.m[item]; ok {
		return s.Entry(i), false
	}
	e := s.Alloc()
	e.Item = item
	ix.Add(e, 0)
	return e, true
}

// add stores e, whose item the index does not hold, and keeps find's
// hash bits h (0) in e, as index.go does.
func (ix *Index[T]) Add(e *Entry[T], h uint32) {
	if ix.m == nil {
		ix.m = make(map[T]int32)
	}
	ix.m[e.Item] = e.ID
	e.Hash = h
}

// del removes e's item. A NaN's is never removed, as in any map, and its
// key stays in the map.
func (ix *Index[T]) Del(e *Entry[T]) { delete(ix.m, e.Item) }
