package layout

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The limits on a type of the packages that TestTypeLimits covers.
const (
	maxMethods = 30
	maxFields  = 16
)

// A limitKey names one count of one type: "readyq.Queue" and methods or
// fields. A struct literal that defines no type is named by its place.
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
	{"readyq.Queue", methods}:             101,
	{"model.ReadyQ", methods}:             57,
	{"internal/counter.Counter", methods}: 54,
	{"internal/window.Window", fields}:    18,
	{"model.Coalescer", fields}:           18,
}

// TestTypeLimits counts the methods and fields of every type of readyq,
// workqueue, model and the production internals, as the default build
// sees them. A type may have 30 methods, and a struct 16 fields, unless
// overLimit lists it.
//
// The methods of a type T are those of *T: the methods declared with
// receiver T or *T, and those promoted from its embedded fields, at any
// depth, as the language selects them. A name at a shallower depth hides
// the same name deeper, and a name twice at the shallowest depth it
// occurs (two embedded fields with a method Len) is promoted from neither.
// An unexported name of another package is a name of its own, as in the
// language. An embedded type outside the module (sync.Mutex) promotes
// nothing here: only the module's code makes a type big. The methods of
// an interface type are its own and those of the interfaces it embeds.
//
// The fields of a struct are those its literal lists: a, b int is two, and
// an embedded field or a blank one is one. Every struct literal counts, so
// a field of an anonymous struct type is checked too, and a type defined
// as another struct (type owner Queue) is checked once, as that struct.
func TestTypeLimits(t *testing.T) {
	checkRoot(t)
	src := newSource()
	counts := map[limitKey]int{}
	for _, rel := range scope(t, []string{"readyq", "model"}, []string{"readyq", "workqueue", "model"}) {
		p, err := src.load(rel)
		if err != nil {
			t.Fatal(err)
		}
		if p == nil {
			continue // no file of the default build
		}
		for name, ts := range p.types {
			if ts.Assign.IsValid() {
				continue // an alias, which defines no type
			}
			counts[limitKey{rel + "." + name, methods}] = len(src.methodSet(ref{p, name}))
		}
		for _, s := range p.structs {
			counts[limitKey{s.name, fields}] = fieldCount(s.st)
		}
	}
	for _, err := range src.errs {
		t.Error(err)
	}
	if n := counts[limitKey{"readyq.Queue", methods}]; n == 0 {
		t.Fatalf("readyq.Queue has no methods: the check reads the wrong files")
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

// A ref is a type that a package of the module declares, or the
// predeclared error, whose p is nil.
type ref struct {
	p    *pkg
	name string
}

// errorRef is the predeclared error, whose one method is Error.
var errorRef = ref{nil, "error"}

// id is the identity of a field or method name declared in p: an
// exported name is the same in every package, an unexported one is p's.
func id(p *pkg, name string) string {
	if token.IsExported(name) {
		return name
	}
	return p.rel + "." + name
}

// members are the names that a type declares at one depth: its methods,
// its fields, and its embedded types, whose own names are one deeper.
type members struct {
	methods, fields []string
	embedded        []ref
}

// methodSet returns the identities of the methods of *T, for the type r:
// the declared ones and the promoted ones, found as the language finds a
// selector x.f, depth by depth.
func (s *source) methodSet(r ref) map[string]bool {
	set := map[string]bool{}
	hidden := map[string]bool{} // names found at a shallower depth
	seen := map[ref]bool{}      // types found at a shallower depth
	level := []ref{r}
	for len(level) > 0 {
		// The same type twice at one depth is ambiguous, and so is every
		// name it promotes.
		times := map[ref]int{}
		var types []ref
		for _, t := range level {
			if times[t] == 0 {
				types = append(types, t)
			}
			times[t]++
		}
		found := map[string]int{}
		method := map[string]bool{}
		var next []ref
		for _, t := range types {
			if seen[t] {
				continue
			}
			seen[t] = true
			m := s.members(t, 0)
			for _, n := range m.methods {
				found[n] += times[t]
				method[n] = true
			}
			for _, n := range m.fields {
				found[n] += times[t]
			}
			for range times[t] {
				next = append(next, m.embedded...)
			}
		}
		for n, k := range found {
			if hidden[n] {
				continue
			}
			hidden[n] = true
			if k == 1 && method[n] {
				set[n] = true
			}
		}
		level = next
	}
	return set
}

// members returns what the type r declares: its own methods, and the
// fields, embedded types or interface methods of its underlying type.
// depth bounds the aliases and definitions followed.
func (s *source) members(r ref, depth int) members {
	if r == errorRef {
		return members{methods: []string{"Error"}}
	}
	if r.p == nil || depth > 100 {
		return members{}
	}
	ts := r.p.types[r.name]
	if ts == nil {
		return members{}
	}
	f := r.p.files[ts]
	if ts.Assign.IsValid() {
		// An alias is the type it names, or the type literal it is.
		if t, ok := s.resolve(r.p, f, ts.Type); ok {
			return s.members(t, depth+1)
		}
		return s.underlying(r.p, f, ts.Type, depth+1)
	}
	m := s.underlying(r.p, f, ts.Type, depth+1) // an interface's methods, or none
	for n := range r.p.methods[r.name] {
		m.methods = append(m.methods, id(r.p, n))
	}
	slices.Sort(m.methods)
	return m
}

// underlying returns the members of the type expression e, written in the
// file f of p, as an underlying type: the fields and embedded types of a
// struct, or the methods of an interface. A defined type gets the
// underlying type of the type it names, not that type's methods.
func (s *source) underlying(p *pkg, f *ast.File, e ast.Expr, depth int) members {
	var m members
	if depth > 100 {
		return m
	}
	switch x := unparen(e).(type) {
	case *ast.StructType:
		for _, fl := range x.Fields.List {
			if len(fl.Names) > 0 {
				for _, n := range fl.Names {
					m.fields = append(m.fields, id(p, n.Name))
				}
				continue
			}
			m.fields = append(m.fields, id(p, baseName(fl.Type)))
			if t, ok := s.resolve(p, f, fl.Type); ok {
				m.embedded = append(m.embedded, t)
			}
		}
	case *ast.InterfaceType:
		for _, fl := range x.Methods.List {
			if len(fl.Names) > 0 {
				for _, n := range fl.Names {
					m.methods = append(m.methods, id(p, n.Name))
				}
				continue
			}
			// An embedded interface adds its methods at this depth. A
			// union or ~T of a constraint adds none.
			if t, ok := s.resolve(p, f, fl.Type); ok {
				for _, n := range s.members(t, depth+1).methods {
					if !slices.Contains(m.methods, n) {
						m.methods = append(m.methods, n)
					}
				}
			}
		}
	default:
		t, ok := s.resolve(p, f, e)
		switch {
		case !ok:
		case t == errorRef:
			return s.members(t, depth+1)
		default:
			ts := t.p.types[t.name]
			return s.underlying(t.p, t.p.files[ts], ts.Type, depth+1)
		}
	}
	return m
}

// resolve finds the type that e names, in the file f of p: T, *T, T[P]
// or pkg.T, where pkg is a package of the module. It reports false for a
// type outside the module, a predeclared one other than error, a type
// parameter, or a type literal.
func (s *source) resolve(p *pkg, f *ast.File, e ast.Expr) (ref, bool) {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
			continue
		case *ast.ParenExpr:
			e = x.X
			continue
		case *ast.IndexExpr:
			e = x.X
			continue
		case *ast.IndexListExpr:
			e = x.X
			continue
		case *ast.Ident:
			if p.types[x.Name] != nil {
				return ref{p, x.Name}, true
			}
			if x.Name == "error" {
				return errorRef, true
			}
			return ref{}, false
		case *ast.SelectorExpr:
			pk, ok := x.X.(*ast.Ident)
			if !ok {
				return ref{}, false
			}
			q := s.imported(f, pk.Name)
			if q == nil || q.types[x.Sel.Name] == nil {
				return ref{}, false
			}
			return ref{q, x.Sel.Name}, true
		}
		return ref{}, false
	}
}

// imported returns the package of the module that the file f imports as
// name, or nil.
func (s *source) imported(f *ast.File, name string) *pkg {
	for _, is := range f.Imports {
		ip, err := strconv.Unquote(is.Path.Value)
		if err != nil {
			continue
		}
		rel, ok := strings.CutPrefix(ip, module+"/")
		if !ok {
			continue
		}
		if is.Name != nil && is.Name.Name != name {
			continue
		}
		q, err := s.load(rel)
		if err != nil {
			s.errs = append(s.errs, err)
			continue
		}
		if q != nil && (is.Name != nil || q.name == name) {
			return q
		}
	}
	return nil
}

func unparen(e ast.Expr) ast.Expr {
	for {
		p, ok := e.(*ast.ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}

// TestMethodSetPromotion pins how methodSet counts promoted methods, on
// two small packages. The counts are those of go/types' method set of *T
// (of T for an interface), less the methods of sync.Mutex.
func TestMethodSetPromotion(t *testing.T) {
	src := newSource()
	files := map[string]string{
		"x/a": `package a
type Base struct{}
func (Base) Len() int { return 0 }
func (*Base) reset()  {}
type Other struct{}
func (Other) Len() int { return 0 }
func (Other) Cap() int { return 0 }
type Both struct { Base; Other }     // Len is ambiguous
type Shadow struct { Base; Len int } // the field hides Base.Len
type Deep struct { Both; Base }      // Base's Len wins over Other's, deeper
type Twice struct { Both; Shadow }   // Base twice at depth 2: only Cap
type I interface { error; Get() int }
type WithI struct{ I }
type Def Both // no methods of Both, the promoted ones of its struct
type Al = Base
type UsesAl struct{ Al }
type Gen[T any] struct{ x T }
func (g *Gen[T]) Put(T) {}
type UsesGen struct{ *Gen[int] }
`,
		"x/b": `package b
import (
	"sync"
	"` + module + `/x/a"
)
type FromA struct{ a.Base } // a's reset and b's are two names
func (FromA) reset() {}
type Locked struct { sync.Mutex; a.Base }
type J interface { a.I; Put() }
`,
	}
	for rel, text := range files {
		f, err := parser.ParseFile(src.fset, rel+".go", text, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		p := &pkg{rel: rel, name: f.Name.Name, types: map[string]*ast.TypeSpec{}, files: map[*ast.TypeSpec]*ast.File{}, methods: map[string]map[string]bool{}}
		if err := p.add(src.fset, rel+".go", f); err != nil {
			t.Fatal(err)
		}
		src.pkgs[rel] = p
	}
	want := map[string]int{
		"x/a.Base": 2, "x/a.Other": 2, "x/a.Both": 2, "x/a.Shadow": 1, "x/a.Deep": 3,
		"x/a.Twice": 1, "x/a.I": 2, "x/a.WithI": 2, "x/a.Def": 2, "x/a.UsesAl": 2,
		"x/a.Gen": 1, "x/a.UsesGen": 1,
		"x/b.FromA": 3, "x/b.Locked": 2, "x/b.J": 3,
	}
	for typ, n := range want {
		rel, name, _ := strings.Cut(typ, ".")
		set := src.methodSet(ref{src.pkgs[rel], name})
		if len(set) != n {
			t.Errorf("%s has %d methods %v, want %d", typ, len(set), slices.Sorted(maps.Keys(set)), n)
		}
	}
	if len(src.errs) > 0 {
		t.Error(src.errs)
	}
}
