package layout

import (
	"go/importer"
	"go/token"
	"go/types"
	"maps"
	"slices"
	"strings"
	"testing"
)

// The limits on a type of the packages that TestTypeLimits covers.
const (
	maxMethods = 30
	maxFields  = 16
)

// A limitKey names one count of one type: "readyq.Queue" and methods or
// fields.
type limitKey struct{ typ, what string }

const (
	methods = "methods"
	fields  = "fields"
)

func byName(a, b limitKey) int {
	return strings.Compare(a.typ+" "+a.what, b.typ+" "+b.what)
}

// overLimit is a ratchet: the types over a limit today, each with its
// count as a ceiling. The count may only go down, and each time it does
// the ceiling here goes down with it. A type within the limit leaves the
// list. No type joins it.
var overLimit = map[limitKey]int{
	{"internal/counter.Counter", methods}: 54,
	{"internal/window.Window", fields}:    18,
	{"model.Coalescer", fields}:           18,
}

// TestTypeLimits counts the methods and fields of every type of readyq,
// workqueue, poll, model and the production internals, as the default build
// sees them (go/types over the source, so of two build-tagged twins only
// the default one is read). A type may have 30 methods, and a struct 16
// fields, unless overLimit lists it.
//
// The methods of a type T are its method set as *T (as T for an
// interface): declared and promoted, as go/types selects them. Methods
// declared outside the module (an embedded sync.Mutex's) do not count:
// only the module's code makes a type big. The fields of a struct are
// those of its type's own literal; an embedded field is one.
func TestTypeLimits(t *testing.T) {
	checkRoot(t)
	imp := importer.ForCompiler(token.NewFileSet(), "source", nil)
	counts := map[limitKey]int{}
	for _, rel := range scope(t, []string{"workqueue", "model"}, []string{"readyq", "workqueue", "poll", "model"}) {
		p, err := imp.Import(module + "/" + rel)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range p.Scope().Names() {
			tn, ok := p.Scope().Lookup(name).(*types.TypeName)
			if !ok || tn.IsAlias() {
				continue
			}
			key := rel + "." + name
			counts[limitKey{key, methods}] = methodCount(tn.Type())
			if st, ok := tn.Type().Underlying().(*types.Struct); ok {
				counts[limitKey{key, fields}] = st.NumFields()
			}
		}
	}
	if n := counts[limitKey{"workqueue.Queue", methods}]; n == 0 {
		t.Fatalf("workqueue.Queue has no methods: the check reads the wrong package")
	}
	limit := map[string]int{methods: maxMethods, fields: maxFields}
	for _, k := range slices.SortedFunc(maps.Keys(counts), byName) {
		n, lim := counts[k], limit[k.what]
		ceiling, listed := overLimit[k]
		switch {
		case !listed && n > lim:
			t.Errorf("%s has %d %s, more than %d: split it", k.typ, n, k.what, lim)
		case listed && n > ceiling:
			t.Errorf("%s has %d %s, more than its ceiling %d in overLimit: it may only shrink", k.typ, n, k.what, ceiling)
		case listed && n <= lim:
			t.Errorf("%s has %d %s, within the limit %d: remove it from overLimit", k.typ, n, k.what, lim)
		case listed && n < ceiling:
			t.Errorf("%s has %d %s, fewer than its ceiling %d: lower the ceiling in overLimit to %d", k.typ, n, k.what, ceiling, n)
		}
	}
	for _, k := range slices.SortedFunc(maps.Keys(overLimit), byName) {
		if _, ok := counts[k]; !ok {
			t.Errorf("%s (%s) no longer exists: remove it from overLimit", k.typ, k.what)
		}
	}
}

// methodCount is the size of T's method set as *T (T for an interface),
// less the methods declared outside the module.
func methodCount(T types.Type) int {
	if !types.IsInterface(T) {
		T = types.NewPointer(T)
	}
	set := types.NewMethodSet(T)
	n := 0
	for i := range set.Len() {
		if p := set.At(i).Obj().Pkg(); p == nil || p.Path() == module || strings.HasPrefix(p.Path(), module+"/") {
			n++
		}
	}
	return n
}
