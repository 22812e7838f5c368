//go:build !rq_mapindex

package rq

import (
	"math"
	"strconv"
	"testing"
	"unsafe"

	"pgregory.net/rapid"
)

// indexed is an index with the slab its slots are in, driven as the
// queue drives them: find, then add with find's hash, and del before the
// entry is released.
type indexed[T comparable] struct {
	ix Index[T]
	s  Slab[T]
}

func (x *indexed[T]) add(item T) int32 {
	e, h := x.ix.Find(&x.s, item)
	if e != nil {
		panic("add of an item the index holds")
	}
	e = x.s.Alloc()
	e.Item = item
	x.ix.Add(e, h)
	return e.ID
}

// findOrAdd is add through FindOrAdd, Mark's path: one probe.
func (x *indexed[T]) findOrAdd(item T) int32 {
	e, added := x.ix.FindOrAdd(&x.s, item)
	if !added {
		panic("FindOrAdd found an item the index does not hold")
	}
	return e.ID
}

// twin gives y x's seed, so that both hash alike. Both must be empty.
func (x *indexed[T]) twin(y *indexed[T]) {
	x.ix.init()
	y.ix.init()
	y.ix.seed, y.ix.k0, y.ix.k1 = x.ix.seed, x.ix.k0, x.ix.k1
}

// sameCells fails t unless x and y, driven alike, have the same tables
// cell for cell, with the same counts.
func (x *indexed[T]) sameCells(t fataler, y *indexed[T]) {
	t.Helper()
	if len(x.ix.dir) != len(y.ix.dir) {
		t.Fatalf("directories of %d and %d entries", len(x.ix.dir), len(y.ix.dir))
	}
	for i, a := range x.ix.dir {
		b := y.ix.dir[i]
		if a.n != b.n || a.dead != b.dead || a.depth != b.depth || len(a.cells) != len(b.cells) {
			t.Fatalf("entry %d: tables of %d/%d cells, %d/%d live, %d/%d dead", i, len(a.cells), len(b.cells), a.n, b.n, a.dead, b.dead)
		}
		for j, c := range a.cells {
			if b.cells[j] != c {
				t.Fatalf("entry %d, place %d: cell %#x after Find and Add, %#x after FindOrAdd", i, j, c, b.cells[j])
			}
		}
	}
}

func (x *indexed[T]) find(item T) (int32, bool) {
	e, _ := x.ix.Find(&x.s, item)
	if e == nil {
		return 0, false
	}
	return e.ID, true
}

func (x *indexed[T]) del(slot int32) {
	e := x.s.Entry(slot)
	x.ix.Del(e)
	x.s.Release(e)
}

// fataler is what check needs of a *testing.T or a *rapid.T.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

// check fails t unless the index holds exactly the items of want, each
// with its slot, and its tables are consistent: the directory's depth
// bounds theirs, each table fills a run of 2^(depth-d) entries aligned to
// it, holds only live cells with its prefix, live and dead together at
// most 3/4 of it (plus the one an add may put past a lopsided split), and
// the counts add up.
func (x *indexed[T]) check(t fataler, want map[T]int32) {
	t.Helper()
	if n := x.ix.cells(); n != len(want) {
		t.Fatalf("index holds %d cells, want %d", n, len(want))
	}
	for item, slot := range want {
		if got, ok := x.find(item); !ok || got != slot {
			t.Fatalf("find(%v) = %d, %v, want %d, true", item, got, ok, slot)
		}
	}
	if x.ix.dir == nil {
		return
	}
	if len(x.ix.dir) != 1<<x.ix.depth {
		t.Fatalf("directory of %d entries at depth %d", len(x.ix.dir), x.ix.depth)
	}
	total := 0
	for i := 0; i < len(x.ix.dir); {
		tb := x.ix.dir[i]
		if tb.depth > x.ix.depth {
			t.Fatalf("table of depth %d in a directory of depth %d", tb.depth, x.ix.depth)
		}
		span := 1 << (x.ix.depth - tb.depth)
		if i%span != 0 {
			t.Fatalf("table of depth %d starts at entry %d", tb.depth, i)
		}
		for j := i; j < i+span; j++ {
			if x.ix.dir[j] != tb {
				t.Fatalf("entries %d..%d: entry %d is another table", i, i+span-1, j)
			}
		}
		used, dead := 0, 0
		for _, c := range tb.cells {
			switch c {
			case 0:
				continue
			case tomb:
				dead++
				continue
			}
			used++
			if got := x.ix.table(uint32(c >> 32)); got != tb {
				t.Fatalf("cell %#x is in a table its prefix does not name", c)
			}
		}
		if used != tb.n || dead != tb.dead || 4*(used+dead) > 3*len(tb.cells)+4 {
			t.Fatalf("table of %d cells: %d live (n = %d), %d dead (dead = %d)", len(tb.cells), used, tb.n, dead, tb.dead)
		}
		total += used
		i += span
	}
	if total != len(want) {
		t.Fatalf("tables hold %d cells, want %d", total, len(want))
	}
}

// TestIndexModel drives the index and a map with the same adds and
// deletes, over key ranges small enough to repeat keys and large enough
// to make tables double and split, for each way of hashing.
func TestIndexModel(t *testing.T) {
	t.Run("T=int", func(t *testing.T) { testIndexModel(t, func(k int) int { return k }) })
	t.Run("T=uint16", func(t *testing.T) { testIndexModel(t, func(k int) uint16 { return uint16(k) }) })
	t.Run("T=int8", func(t *testing.T) { testIndexModel(t, func(k int) int8 { return int8(k) }) })
	t.Run("T=string", func(t *testing.T) { testIndexModel(t, strconv.Itoa) })
	t.Run("T=struct", func(t *testing.T) {
		type key struct {
			a int32
			b string
		}
		testIndexModel(t, func(k int) key { return key{int32(k % 7), strconv.Itoa(k / 7)} })
	})
}

// testIndexModel is TestIndexModel for items conv(k), which must differ
// for different k below 20,000 (or below 256: conv's type is that small).
func testIndexModel[T comparable](t *testing.T, conv func(int) T) {
	rapid.Check(t, func(t *rapid.T) {
		var x, y indexed[T] // y adds with FindOrAdd, and must end up as x
		x.twin(&y)
		want := map[T]int32{}
		keys := rapid.SampledFrom([]int{16, 1000, 20000}).Draw(t, "keys")
		if unsafe.Sizeof(conv(0)) == 1 {
			keys = 128
		}
		for range rapid.IntRange(1, 40).Draw(t, "rounds") {
			if rapid.Bool().Draw(t, "bulk") {
				// Many adds or deletes at once: growth, splits, long
				// backward shifts.
				add := rapid.Bool().Draw(t, "add")
				from := rapid.IntRange(0, keys-1).Draw(t, "from")
				n := rapid.SampledFrom([]int{1, 100, 5000}).Draw(t, "n")
				for k := from; k < min(keys, from+n); k++ {
					slot, ok := want[conv(k)]
					switch {
					case add && !ok:
						want[conv(k)] = x.add(conv(k))
						if got := y.findOrAdd(conv(k)); got != want[conv(k)] {
							t.Fatalf("FindOrAdd(%v) took slot %d, Alloc %d", conv(k), got, want[conv(k)])
						}
					case !add && ok:
						x.del(slot)
						y.del(slot)
						delete(want, conv(k))
					}
				}
			} else {
				k := conv(rapid.IntRange(0, keys-1).Draw(t, "key"))
				if slot, ok := want[k]; ok {
					if e, added := y.ix.FindOrAdd(&y.s, k); added || e.ID != slot {
						t.Fatalf("FindOrAdd(%v) of a held item = slot %d, %v, want %d, false", k, e.ID, added, slot)
					}
					x.del(slot)
					y.del(slot)
					delete(want, k)
				} else {
					want[k] = x.add(k)
					y.findOrAdd(k)
				}
			}
			x.check(t, want)
			y.check(t, want)
			x.sameCells(t, &y)
			for k := range min(16, 128-keys+128) {
				if _, ok := want[conv(keys+k)]; !ok {
					if slot, found := x.find(conv(keys + k)); found {
						t.Fatalf("find(%v) of an item never added = %d, true", conv(keys+k), slot)
					}
				}
			}
		}
	})
}

// TestIndexGrowsTableByTable adds a quarter of a million items: the
// directory deepens, and no add moves more than one table's cells.
func TestIndexGrowsTableByTable(t *testing.T) {
	var x indexed[int]
	want := map[int]int32{}
	for k := range 250_000 {
		tables := x.ix.tables()
		want[k] = x.add(k)
		if after := x.ix.tables(); after > tables+1 {
			t.Fatalf("add %d: %d tables became %d", k, tables, after)
		}
	}
	// 250,000 cells fill 82 to 163 tables, so depth 7 or 8 if the hash
	// spreads them; a hash that clusters them splits tables further.
	if x.ix.depth < 7 || x.ix.depth > 10 {
		t.Fatalf("a quarter of a million items in a directory of depth %d", x.ix.depth)
	}
	for _, tb := range x.ix.dir {
		if len(tb.cells) > maxCells {
			t.Fatalf("a table of %d cells", len(tb.cells))
		}
	}
	x.check(t, want)
	for k := 0; k < 250_000; k += 2 {
		x.del(want[k])
		delete(want, k)
	}
	x.check(t, want)
}

// TestIndexChurn deletes and adds items again and again, as a steady
// state of Done and Add does: dead cells are cleaned in place, the index
// does not grow, and nothing is allocated.
func TestIndexChurn(t *testing.T) {
	var x indexed[int]
	want := map[int]int32{}
	for k := range 2000 {
		want[k] = x.add(k)
	}
	cells := 0
	for _, tb := range x.ix.dir {
		cells += len(tb.cells)
	}
	next := 2000
	churn := func() {
		for k := next - 2000; k < next-1000; k++ { // the oldest thousand go, a new thousand come
			x.del(want[k])
			delete(want, k)
		}
		for k := next; k < next+1000; k++ {
			want[k] = x.add(k)
		}
		next += 1000
	}
	for range 20 {
		churn() // the scratch array reaches its size
	}
	if allocs := testing.AllocsPerRun(20, churn); allocs != 0 {
		t.Errorf("a round of 1,000 deletes and adds allocated %v times", allocs)
	}
	x.check(t, want)
	after := 0
	for _, tb := range x.ix.dir {
		after += len(tb.cells)
	}
	if after != cells {
		t.Fatalf("2,000 items churned: %d cells became %d", cells, after)
	}
}

// TestFindOrAddReusesDeadPlace: FindOrAdd stores a new item's cell in
// the first dead place its search passed, not at the empty place that
// ended it, and counts one dead cell fewer.
func TestFindOrAddReusesDeadPlace(t *testing.T) {
	// The hash seed is random. A set-up whose last add grows or splits the
	// table has no dead place left to test, so it is tried again.
	for range 100 {
		if reusesDeadPlace(t) {
			return
		}
	}
	t.Fatal("every set-up grew the table")
}

// reusesDeadPlace sets up a dead place before a live cell, adds a new
// item whose home it is, and checks that FindOrAdd put it there. It
// reports false, having checked nothing, if that add grew or split the
// table.
func reusesDeadPlace(t *testing.T) bool {
	t.Helper()
	var x indexed[int]
	for k := 0; ; k++ { // find three items in a row from one home
		x.findOrAdd(k)
		tb := x.ix.dir[0]
		run := 0
		for _, c := range tb.cells {
			if c == 0 {
				run = 0
				continue
			}
			if run++; run == 3 {
				break
			}
		}
		if run == 3 {
			break
		}
	}
	tb := x.ix.dir[0]
	at := -1 // a cell with live cells after it: its deletion leaves it dead
	for i := range len(tb.cells) - 1 {
		if tb.cells[i] != 0 && tb.cells[i+1] != 0 {
			at = i
			break
		}
	}
	if at < 0 {
		t.Fatal("no two cells in a row")
	}
	x.del(cellSlot(tb.cells[at]))
	if tb.cells[at] != tomb || tb.dead != 1 {
		t.Fatalf("deletion before a live cell left %#x and %d dead", tb.cells[at], tb.dead)
	}
	// A new item whose home is the dead place, in the same table: Find
	// and Add would put it there, and not at the empty place after the
	// live cell.
	k := 1 << 20
	for x.ix.table(x.ix.hash(k)) != tb || tb.home(x.ix.hash(k)) != at {
		k++
	}
	slot := x.findOrAdd(k)
	if x.ix.table(x.ix.hash(k)) != tb {
		return false // grown or split: no dead place to look at
	}
	if tb.cells[at] != cell(x.ix.hash(k), slot) || tb.dead != 0 {
		t.Fatalf("FindOrAdd left %#x at the dead place and %d dead", tb.cells[at], tb.dead)
	}
	if got, ok := x.find(k); !ok || got != slot {
		t.Fatalf("find after FindOrAdd = %d, %v", got, ok)
	}
	return true
}

// cells returns the number of live cells in ix's tables, by their counts.
func (ix *Index[T]) cells() int {
	n := 0
	for i, t := range ix.dir {
		if i == 0 || ix.dir[i-1] != t {
			n += t.n
		}
	}
	return n
}

// tables returns the number of distinct tables.
func (ix *Index[T]) tables() int {
	n := 0
	for i, t := range ix.dir {
		if i == 0 || ix.dir[i-1] != t {
			n++
		}
	}
	return n
}

// TestIndexNaN: an item not equal to itself is never found, as in a map,
// and its cell is still deleted, wherever its changing hash put it.
func TestIndexNaN(t *testing.T) {
	var x indexed[float64]
	want := map[float64]int32{}
	for k := range 3000 {
		want[float64(k)] = x.add(float64(k))
	}
	nan := math.NaN()
	var slots []int32
	for range 50 {
		slots = append(slots, x.add(nan))
	}
	if _, ok := x.find(nan); ok {
		t.Fatal("find(NaN) found an item")
	}
	if n := x.ix.cells(); n != 3050 {
		t.Fatalf("index holds %d cells after 3,050 adds", n)
	}
	for _, s := range slots {
		x.del(s)
	}
	x.check(t, want)
}

// BenchmarkIndexAdd measures Mark's step on a warm index of 1,000 int
// items: the add of an item just deleted, through Find then Alloc and
// Add, or through FindOrAdd's one probe.
func BenchmarkIndexAdd(b *testing.B) {
	for _, path := range []string{"find,add", "findoradd"} {
		b.Run("path="+path, func(b *testing.B) {
			var x indexed[int]
			slots := make([]int32, 1000)
			for k := range slots {
				slots[k] = x.findOrAdd(k)
			}
			k := 0
			for b.Loop() {
				x.del(slots[k])
				if path == "findoradd" {
					slots[k] = x.findOrAdd(k)
				} else {
					slots[k] = x.add(k)
				}
				k = (k + 1) % len(slots)
			}
		})
	}
}
