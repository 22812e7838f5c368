//go:build !rq_mapindex

package rq

import (
	"hash/maphash"
	"math/bits"
	"reflect"
	"unsafe"
)

// An Index maps items to slots: the queue's own hash index, where a simpler
// queue would use a map[T]int32. The zero index is empty. Only with mu
// held.
//
// A Go map stores each key beside its value. So a new key among a million
// others costs a cache miss on the group's control word and another on the
// slot it writes. A map that grows also splits its tables by hashing every
// key again. The index stores no key. Its cell is 8 bytes, 32 bits of the
// item's hash beside the slot plus 1, so that 0 is an empty cell. The cells
// are in open-addressed tables with linear probing:
//
//   - a lookup reads the cells from the hash's home on, one cache line in
//     almost every case;
//   - it compares the item itself only where the stored bits match, in the
//     entry the caller wants anyway;
//   - a deletion leaves a dead cell (a tombstone), unless the next place is
//     empty;
//   - a table whose dead and live cells reach 3/4 of it is cleaned in place,
//     or grows if the live ones alone fill half of it;
//   - every move works from the stored bits alone.
//
// Extendible hashing keeps growth incremental. A directory of 2^depth
// tables is indexed by the top bits of the stored hash. A table of local
// depth d holds the cells whose top d bits are its own. Its home places
// come from the bits after those. A table grows by doubling up to maxCells
// cells. A full one of that size splits in two by its next bit, and the
// directory doubles first if the table's depth is the directory's. So no
// insertion moves more than one table's cells, some microseconds at most.
// A single table would stop the queue for milliseconds at a million items.
// Tables never shrink, like a Go map's.
//
// An entry keeps its item's hash bits, so that a deletion (and so every
// move) never hashes again. The hash is keyed by a seed of the queue's
// own, drawn at its first add. So items cannot be chosen in advance to
// collide in every queue, as with a map's seed. By the item's type, the
// hash is
//
//   - for an integer kind: the item read as a word, mixed by two rounds of a
//     keyed 128-bit multiply (the mix of wyhash, and of Go's maps where AES
//     is missing);
//   - for a string: hash/maphash.String;
//   - for any other type: hash/maphash.Comparable, the hash Go's maps use,
//     so that an item that cannot be hashed panics the same way (keys.go).
//
// An item not equal to itself (a NaN, or a struct holding one) is never
// found again, as in a map. Its cell goes with its entry all the same.
//
// With a map[T]int32 in its place, an AddAfter of a new key into 10^3 to
// 10^6 delayed items takes 26–54 % longer. A steady state of 1,000 hot
// keys takes 22 % longer. Build with -tags rq_mapindex for the map, to
// compare (index_map.go).
type Index[T comparable] struct {
	dir     []*table // 2^depth tables; a table of local depth d appears 2^(depth-d) times in a row
	depth   uint     // the directory's depth: at most 32
	kind    hashKind
	k0, k1  uint64 // the integer mix's keys, drawn from seed
	seed    maphash.Seed
	scratch []uint64 // clean's
}

// A table starts at minCells cells (a queue's first), and maxCells is
// the size at which it splits instead of doubling: 32 KiB of cells. A
// table holds at most 3/4 as many.
const (
	minCells = 8
	maxCells = 4096
)

// A hashKind says how an index hashes its items.
type hashKind uint8

const (
	hashComparable hashKind = iota
	hashString
	hashWord8 // an integer kind, read as a word of its size
	hashWord4
	hashWord2
	hashWord1
)

// A table is an open-addressed array of cells, a power of two long.
type table struct {
	cells []uint64
	shift uint // 32 − log2(len(cells)): home takes the bits after depth
	depth uint // its local depth
	n     int  // the live cells
	dead  int  // the dead ones (tomb): deleted, kept so that searches go on past them
}

// tomb is a dead cell. Its slot bits (2³²−2) are no slot's.
const tomb = uint64(1<<32 - 1)

// cell returns the cell for hash bits h and slot s.
func cell(h uint32, s int32) uint64 { return uint64(h)<<32 | uint64(uint32(s)+1) }

// cellSlot returns the slot in c.
func cellSlot(c uint64) int32 { return int32(uint32(c)) - 1 }

// home returns the first place in t of a cell with the hash bits h.
func (t *table) home(h uint32) int { return int(h << t.depth >> t.shift) }

// init draws the seed and picks the hash for T.
func (ix *Index[T]) init() {
	ix.seed = maphash.MakeSeed()
	ix.k0 = maphash.Comparable(ix.seed, uint64(1))
	ix.k1 = maphash.Comparable(ix.seed, uint64(2)) | 1
	switch t := reflect.TypeFor[T](); t.Kind() {
	case reflect.String:
		ix.kind = hashString
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		switch t.Size() {
		case 8:
			ix.kind = hashWord8
		case 4:
			ix.kind = hashWord4
		case 2:
			ix.kind = hashWord2
		case 1:
			ix.kind = hashWord1
		}
	}
	ix.dir = []*table{newTable(minCells, 0)}
}

// hash returns item's hash bits: the top 32 bits of its hash.
func (ix *Index[T]) hash(item T) uint32 {
	p := unsafe.Pointer(&item)
	switch ix.kind {
	case hashWord8:
		return ix.mix(*(*uint64)(p))
	case hashWord4:
		return ix.mix(uint64(*(*uint32)(p)))
	case hashString:
		return uint32(maphash.String(ix.seed, *(*string)(p)) >> 32)
	case hashWord2:
		return ix.mix(uint64(*(*uint16)(p)))
	case hashWord1:
		return ix.mix(uint64(*(*uint8)(p)))
	}
	return uint32(maphash.Comparable(ix.seed, item) >> 32)
}

// mix hashes a word: two rounds of a 128-bit multiply, folded.
func (ix *Index[T]) mix(x uint64) uint32 {
	hi, lo := bits.Mul64(x^ix.k0, ix.k1)
	hi, lo = bits.Mul64(hi^lo^ix.k1, ix.k0^0xe7037ed1a0b428db)
	return uint32((hi ^ lo) >> 32)
}

// table returns the table for hash bits h.
func (ix *Index[T]) table(h uint32) *table {
	return ix.dir[uint64(h)>>(32-ix.depth)]
}

// Find returns item's entry, or nil and item's hash bits (for add) if the
// index does not hold it. s is the slab the slots are in.
func (ix *Index[T]) Find(s *Slab[T], item T) (*Entry[T], uint32) {
	if ix.dir == nil {
		return nil, 0 // nothing yet: add hashes once it has a seed
	}
	h := ix.hash(item)
	t := ix.table(h)
	mask := len(t.cells) - 1
	for i := t.home(h); ; i = (i + 1) & mask {
		c := t.cells[i]
		if c == 0 {
			return nil, h
		}
		if uint32(c>>32) == h && c != tomb {
			if e := s.Entry(cellSlot(c)); e.Item == item {
				return e, h
			}
		}
	}
}

// FindOrAdd returns item's entry and false if the index holds it. Else
// it takes a new entry from s (Alloc), stores item in it and in the index,
// and returns it and true. The new entry holds item, its hash bits and its
// slot, and is otherwise zero.
//
// It is Find and Add in one probe, which is Mark's path:
//   - it hashes item once, with an integer word mixed in line;
//   - it remembers the first dead place the search passes, and else the
//     empty place that ends it, which is where Add's put would store the
//     cell;
//   - it grows a table exactly when Add would, and then puts the cell
//     as Add does.
//
// So the cells end up where Find then Add would leave them.
func (ix *Index[T]) FindOrAdd(s *Slab[T], item T) (*Entry[T], bool) {
	if ix.dir == nil {
		return ix.addFirst(s, item), true
	}
	var h uint32
	if ix.kind == hashWord8 {
		h = ix.mix(*(*uint64)(unsafe.Pointer(&item)))
	} else {
		h = ix.hash(item)
	}
	t := ix.table(h)
	mask := len(t.cells) - 1
	at := -1 // the first dead place passed
	i := t.home(h)
	for ; ; i = (i + 1) & mask {
		c := t.cells[i]
		if c == 0 {
			break
		}
		if c == tomb {
			if at < 0 {
				at = i
			}
			continue
		}
		if uint32(c>>32) == h {
			if e := s.Entry(cellSlot(c)); e.Item == item {
				return e, false
			}
		}
	}
	e := s.Pop()
	if e == nil {
		e = s.alloc()
	}
	e.Item, e.Hash = item, h
	if 4*(t.n+t.dead+1) > 3*len(t.cells) {
		ix.grow(t, h)
		ix.table(h).put(cell(h, e.ID))
		return e, true
	}
	if at >= 0 {
		i = at
		t.dead--
	}
	t.cells[i] = cell(h, e.ID)
	t.n++
	return e, true
}

// addFirst is FindOrAdd into an index that has no tables yet.
func (ix *Index[T]) addFirst(s *Slab[T], item T) *Entry[T] {
	ix.init()
	e := s.Alloc()
	e.Item = item
	ix.Add(e, ix.hash(item))
	return e
}

// Add stores e, whose item the index does not hold, with the hash bits h
// from find. It keeps them in e.
func (ix *Index[T]) Add(e *Entry[T], h uint32) {
	if ix.dir == nil {
		ix.init()
		h = ix.hash(e.Item)
	}
	e.Hash = h
	t := ix.table(h)
	if 4*(t.n+t.dead+1) > 3*len(t.cells) {
		ix.grow(t, h)
		t = ix.table(h)
	}
	t.put(cell(h, e.ID))
}

// newTable returns an empty table of size cells (a power of two) and
// local depth depth.
func newTable(size int, depth uint) *table {
	return &table{
		cells: make([]uint64, size),
		shift: 32 - uint(bits.TrailingZeros(uint(size))),
		depth: depth,
	}
}

// put stores c at the first empty or dead place from its home; t has an
// empty one.
func (t *table) put(c uint64) {
	mask := len(t.cells) - 1
	i := t.home(uint32(c >> 32))
	for t.cells[i] != 0 && t.cells[i] != tomb {
		i = (i + 1) & mask
	}
	if t.cells[i] == tomb {
		t.dead--
	}
	t.cells[i] = c
	t.n++
}

// grow makes room in t, the table of the hash bits h:
//
//   - a table whose live cells fill at most half of it is cleaned of its
//     dead ones in place;
//   - else a table below maxCells doubles;
//   - else it splits, or doubles after all once its depth uses every
//     stored bit.
func (ix *Index[T]) grow(t *table, h uint32) {
	if 2*(t.n+1) <= len(t.cells) {
		ix.clean(t)
		return
	}
	if len(t.cells) < maxCells || t.depth == 32 {
		bigger := newTable(2*len(t.cells), t.depth)
		for _, c := range t.cells {
			if c != 0 && c != tomb {
				bigger.put(c)
			}
		}
		ix.replace(t, h, bigger, bigger)
		return
	}
	if t.depth == ix.depth {
		dir := make([]*table, 2*len(ix.dir))
		for i, u := range ix.dir {
			dir[2*i], dir[2*i+1] = u, u
		}
		ix.dir, ix.depth = dir, ix.depth+1
	}
	// The low half takes over t's array: only the high half is new.
	live := ix.takeLive(t)
	lo := &table{cells: t.cells, shift: t.shift, depth: t.depth + 1}
	hi := newTable(maxCells, t.depth+1)
	bit := uint32(1) << (31 - t.depth)
	for _, c := range live {
		if uint32(c>>32)&bit == 0 {
			lo.put(c)
		} else {
			hi.put(c)
		}
	}
	ix.replace(t, h, lo, hi)
}

// replace points the directory's entries for t, the table of the hash
// bits h, at lo (the first half of them) and hi (the second).
func (ix *Index[T]) replace(t *table, h uint32, lo, hi *table) {
	span := 1 << (ix.depth - t.depth)
	first := int(uint64(h)>>(32-t.depth)) * span
	for i := range span {
		if i < span/2 {
			ix.dir[first+i] = lo
		} else {
			ix.dir[first+i] = hi
		}
	}
}

// clean puts t's live cells back without its dead ones.
func (ix *Index[T]) clean(t *table) {
	live := ix.takeLive(t)
	t.n, t.dead = 0, 0
	for _, c := range live {
		t.put(c)
	}
}

// takeLive copies t's live cells to the index's scratch array and empties
// t's cells, not its counts. It returns the copy, valid until the next
// call. Clean and split go through it, so that a steady state allocates
// nothing.
func (ix *Index[T]) takeLive(t *table) []uint64 {
	live := ix.scratch[:0]
	for _, c := range t.cells {
		if c != 0 && c != tomb {
			live = append(live, c)
		}
	}
	clear(t.cells)
	ix.scratch = live[:0]
	return live
}

// Del removes e's cell. Its place becomes empty if the next place is
// empty, and so do the dead places right before it, which no search needs
// to pass any more. Otherwise it becomes dead, so that the cells after it
// are still found.
func (ix *Index[T]) Del(e *Entry[T]) {
	t := ix.table(e.Hash)
	mask := len(t.cells) - 1
	want := cell(e.Hash, e.ID)
	i := t.home(e.Hash)
	for t.cells[i] != want {
		if t.cells[i] == 0 {
			panic("evsync: a queue entry missing from its index")
		}
		i = (i + 1) & mask
	}
	t.n--
	if t.cells[(i+1)&mask] != 0 {
		t.cells[i] = tomb
		t.dead++
		return
	}
	t.cells[i] = 0
	for j := (i - 1) & mask; t.cells[j] == tomb; j = (j - 1) & mask {
		t.cells[j] = 0
		t.dead--
	}
}
