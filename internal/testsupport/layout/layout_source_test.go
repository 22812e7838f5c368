package layout

import (
	"bufio"
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// root is the module's root, seen from this package's directory, where
// go test runs the tests (TestInternalHoldsProduction reads "../.." the
// same way).
var root = filepath.Join("..", "..", "..")

// checkRoot fails the test unless root holds the module's go.mod.
func checkRoot(t *testing.T) {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatalf("the module root: %v", err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if strings.TrimSpace(s.Text()) == "module "+module {
			return
		}
	}
	t.Fatalf("%s is not the go.mod of %s", f.Name(), module)
}

// scope lists the packages that the source checks cover, as paths
// relative to the module root: the top-level ones in top that exist, and
// every package under internal/ except internal/testsupport and its
// subtree. It fails if one of required is missing.
func scope(t *testing.T, required, top []string) []string {
	t.Helper()
	var dirs []string
	for _, d := range top {
		_, err := os.Stat(filepath.Join(root, d))
		switch {
		case err == nil:
			dirs = append(dirs, d)
		case !errors.Is(err, fs.ErrNotExist):
			t.Fatal(err)
		}
	}
	for _, d := range required {
		if !slices.Contains(dirs, d) {
			t.Fatalf("package %s is missing", d)
		}
	}
	err := filepath.WalkDir(filepath.Join(root, "internal"), func(p string, e fs.DirEntry, err error) error {
		if err != nil || !e.IsDir() {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel == "internal/testsupport" || e.Name() == "testdata" || strings.HasPrefix(e.Name(), ".") || strings.HasPrefix(e.Name(), "_") {
			return filepath.SkipDir
		}
		if hasGo(t, p) {
			dirs = append(dirs, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// hasGo reports whether the directory dir holds a .go file.
func hasGo(t *testing.T, dir string) bool {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".go") {
			return true
		}
	}
	return false
}

// A pkg is one package of the module as the default build sees it: the
// non-test files that go/build's default context selects, so that of two
// build-tagged twins only the default one is read.
type pkg struct {
	rel     string                      // the path relative to the module root
	name    string                      // the package name
	types   map[string]*ast.TypeSpec    // the package-level types, by name
	files   map[*ast.TypeSpec]*ast.File // the file that declares each type
	methods map[string]map[string]bool  // the declared methods, by receiver type name
	structs []namedStruct               // every struct type literal in the package
}

// A namedStruct is a struct type literal and what it is called in messages.
type namedStruct struct {
	name string
	st   *ast.StructType
}

// A source is the module's packages, parsed when first asked for.
type source struct {
	fset *token.FileSet
	pkgs map[string]*pkg // by relative path, nil for a directory without a package
	errs []error         // what loading an imported package met
}

func newSource() *source {
	return &source{fset: token.NewFileSet(), pkgs: map[string]*pkg{}}
}

// load parses the package in the directory rel of the module. It returns
// nil if the default build has no package there.
func (s *source) load(rel string) (*pkg, error) {
	if p, ok := s.pkgs[rel]; ok {
		return p, nil
	}
	dir := filepath.Join(root, filepath.FromSlash(rel))
	bp, err := build.Default.ImportDir(dir, 0)
	if err != nil {
		var none *build.NoGoError
		if errors.As(err, &none) || errors.Is(err, fs.ErrNotExist) {
			s.pkgs[rel] = nil
			return nil, nil
		}
		return nil, err
	}
	p := &pkg{
		rel:     rel,
		name:    bp.Name,
		types:   map[string]*ast.TypeSpec{},
		files:   map[*ast.TypeSpec]*ast.File{},
		methods: map[string]map[string]bool{},
	}
	s.pkgs[rel] = p
	for _, name := range append(append([]string(nil), bp.GoFiles...), bp.CgoFiles...) {
		f, err := parser.ParseFile(s.fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		if err := p.add(s.fset, name, f); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// add records the file f, named name, of p.
func (p *pkg) add(fset *token.FileSet, name string, f *ast.File) error {
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil || len(d.Recv.List) == 0 {
				continue
			}
			recv := baseName(d.Recv.List[0].Type)
			if p.methods[recv] == nil {
				p.methods[recv] = map[string]bool{}
			}
			if p.methods[recv][d.Name.Name] {
				return fmt.Errorf("%s: %s.%s is declared twice: were two build-tagged twins both read?", fset.Position(d.Pos()), recv, d.Name.Name)
			}
			p.methods[recv][d.Name.Name] = true
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				if ts, ok := sp.(*ast.TypeSpec); ok {
					if p.types[ts.Name.Name] != nil {
						return fmt.Errorf("%s: type %s is declared twice: were two build-tagged twins both read?", fset.Position(ts.Pos()), ts.Name.Name)
					}
					p.types[ts.Name.Name] = ts
					p.files[ts] = f
				}
			}
		}
	}
	// Every struct literal, named after the type it defines or its place.
	for _, d := range f.Decls {
		ast.Inspect(d, func(n ast.Node) bool {
			st, ok := n.(*ast.StructType)
			if !ok {
				return true
			}
			p.structs = append(p.structs, namedStruct{p.structName(d, st, fset, name), st})
			return true
		})
	}
	return nil
}

// structName names the struct literal st in the declaration d: the type
// it defines, or the declaration and the line it is on.
func (p *pkg) structName(d ast.Decl, st *ast.StructType, fset *token.FileSet, file string) string {
	if g, ok := d.(*ast.GenDecl); ok {
		for _, sp := range g.Specs {
			if ts, ok := sp.(*ast.TypeSpec); ok && ts.Type == st && !ts.Assign.IsValid() {
				return p.rel + "." + ts.Name.Name
			}
		}
	}
	return fmt.Sprintf("a struct literal in %s/%s:%d", p.rel, file, fset.Position(st.Pos()).Line)
}

// baseName is the name of the type in a receiver or an embedded field:
// T of T, *T, T[P] or pkg.T.
func baseName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.SelectorExpr:
			return x.Sel.Name
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// fieldCount is the number of fields of st. A name list a, b T is two
// fields, an embedded field is one, and so is a blank field _ T.
func fieldCount(st *ast.StructType) int {
	n := 0
	for _, f := range st.Fields.List {
		if len(f.Names) == 0 {
			n++
		}
		n += len(f.Names)
	}
	return n
}
