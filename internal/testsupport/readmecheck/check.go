package readmecheck

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"io"
	"maps"
	"os"
	"os/exec"
	"runtime/debug"
	"slices"
	"strings"
)

// goVersion is the language version of the checked code: evsync's.
const goVersion = "go1.26"

// Check type-checks the blocks of the file name and returns each problem
// as "name:line:col: message". It loads the packages they import with the
// go command, run in dir; evsync's workspace sees all of them.
func Check(dir, name string, blocks []Block) ([]string, error) {
	fset := token.NewFileSet()
	var (
		problems []string
		files    = make([]*ast.File, len(blocks))
		paths    = map[string]bool{}
	)
	for i, b := range blocks {
		f, err := parse(fset, name, b)
		if err != nil {
			problems = append(problems, parseProblems(err)...)
			continue
		}
		files[i] = f
		for _, spec := range f.Imports {
			paths[strings.Trim(spec.Path.Value, `"`)] = true
		}
	}
	exports, err := exportData(dir, slices.Sorted(maps.Keys(paths)))
	if err != nil {
		return nil, err
	}
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("the go command listed no export data for %s", path)
		}
		return os.Open(file)
	})
	for i, f := range files {
		if f != nil {
			problems = append(problems, typeCheck(fset, imp, f, blocks[i].isSpan())...)
		}
	}
	return problems, nil
}

// parse returns the block as a Go file whose positions are the block's
// lines in the Markdown file: a whole file as it is, declarations after
// the imports they need, statements in a function body.
func parse(fset *token.FileSet, name string, b Block) (*ast.File, error) {
	if wholeFile(b.Code) {
		if b.Given != "" {
			return nil, fmt.Errorf("%s:%d: a whole file takes no %s comment: declare what it needs in it", name, b.GivenLine, givenStart)
		}
		return parser.ParseFile(fset, name, lineDirective(name, b.Line(), 1)+b.Code, parser.SkipObjectResolution)
	}
	decls := !b.isSpan() && isDecls(b.Code)
	src := fragment(name, b, decls, nil)
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	src = fragment(name, b, decls, importsOf(f))
	return parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
}

// wholeFile reports whether code starts with a package clause.
func wholeFile(code string) bool {
	return strings.HasPrefix(strings.TrimSpace(code), "package ")
}

// isDecls reports whether code is a list of top-level declarations.
func isDecls(code string) bool {
	_, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+code, parser.SkipObjectResolution)
	return err == nil
}

// fragment returns the source of a file that holds the block's given
// declarations and its code, either as declarations or as the body of
// func _() error, with the imports and with line directives that place
// each line at its line in the Markdown file.
func fragment(name string, b Block, decls bool, imports []string) string {
	var src strings.Builder
	src.WriteString("package readme\n\nimport (\n")
	for _, name := range imports {
		fmt.Fprintf(&src, "\t%s %q\n", name, packages[name])
	}
	src.WriteString(")\n\n")
	if !declares(b.Given, "ctx") {
		src.WriteString("var ctx context.Context\n\n")
	}
	if b.Given != "" {
		src.WriteString(lineDirective(name, b.GivenLine, len(givenStart)+1) + b.Given + "\n")
	}
	if decls {
		src.WriteString(lineDirective(name, b.Line(), 1) + b.Code)
		return src.String()
	}
	if b.isSpan() {
		src.WriteString("func _() error {\n\t_ =" + lineDirective(name, b.Line(), b.SpanCol) + b.Code + "\n\treturn nil\n}\n")
		return src.String()
	}
	src.WriteString("func _() error {\n" + lineDirective(name, b.Line(), 1) + b.Code + "\treturn nil\n}\n")
	return src.String()
}

// lineDirective makes the next line line:col of the file name.
func lineDirective(name string, line, col int) string {
	return fmt.Sprintf("\n//line %s:%d:%d\n", name, line, col)
}

// declares reports whether the declarations src declare name.
func declares(src, name string) bool {
	f, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+src, parser.SkipObjectResolution)
	if err != nil {
		return false
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Name.Name == name {
				return true
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				if v, ok := s.(*ast.ValueSpec); ok && slices.ContainsFunc(v.Names, func(id *ast.Ident) bool { return id.Name == name }) {
					return true
				}
				if t, ok := s.(*ast.TypeSpec); ok && t.Name.Name == name {
					return true
				}
			}
		}
	}
	return false
}

// importsOf returns the names in the table that f uses before a dot, and
// "context" for ctx. Each is imported under its name, so testingclock is
// k8s.io/utils/clock/testing. A name that is a variable rather than a
// package only adds an unused import, which is not reported.
func importsOf(f *ast.File) []string {
	names := map[string]bool{"context": true}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && packages[id.Name] != "" {
				names[id.Name] = true
			}
		}
		return true
	})
	return slices.Sorted(maps.Keys(names))
}

// typeCheck returns the type errors of f, but for variables and imports
// never used: a fragment declares what a reader would go on to use. In a
// span, an undefined name without a dot is a placeholder (c, m, T), and
// a type where a value would go is a span naming a type: neither is
// reported.
func typeCheck(fset *token.FileSet, imp types.Importer, f *ast.File, span bool) []string {
	var problems []string
	conf := types.Config{
		Importer:  imp,
		GoVersion: goVersion,
		Error: func(err error) {
			var te types.Error
			if errors.As(err, &te) && (strings.Contains(te.Msg, "declared and not used") || strings.Contains(te.Msg, "imported and not used")) {
				return
			}
			if span && errors.As(err, &te) && (placeholder(te.Msg) || strings.HasSuffix(te.Msg, "(type) is not an expression")) {
				return
			}
			problems = append(problems, err.Error()+hint(err.Error()))
		},
	}
	conf.Check("readme", fset, []*ast.File{f}, nil) // the errors went to conf.Error
	return problems
}

// placeholder reports whether msg is about an undefined name that names
// no package's member: "undefined: c", not "undefined: kube.Old".
func placeholder(msg string) bool {
	name, ok := strings.CutPrefix(msg, "undefined: ")
	return ok && !strings.Contains(name, ".")
}

// hint returns what to do about an undefined name, the usual problem of
// a fragment that its author has just changed.
func hint(msg string) string {
	_, name, ok := strings.Cut(msg, "undefined: ")
	if !ok || strings.Contains(name, ".") {
		return "" // a package's member that does not exist: the API changed
	}
	return " (declare it in a <!-- go: --> comment above the block, or add its package to internal/testsupport/readmecheck/packages.go)"
}

// parseProblems returns a parse error as one problem per line.
func parseProblems(err error) []string {
	var list scanner.ErrorList
	if errors.As(err, &list) {
		problems := make([]string, len(list))
		for i, e := range list {
			problems[i] = e.Error()
		}
		return problems
	}
	return []string{err.Error()}
}

// exportData returns the export data files of paths and their
// dependencies, as the go command run in dir builds them, with the build
// flags of this binary (see buildFlags).
func exportData(dir string, paths []string) (map[string]string, error) {
	exports := map[string]string{}
	if len(paths) == 0 {
		return exports, nil
	}
	args := append([]string{"list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}"}, buildFlags()...)
	cmd := exec.Command("go", append(args, paths...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -export %s: %v\n%s", strings.Join(paths, " "), err, stderr.String())
	}
	for line := range strings.Lines(string(out)) {
		path, file, _ := strings.Cut(strings.TrimSpace(line), "\t")
		exports[path] = file
	}
	return exports, nil
}

// buildFlags returns the flags this binary was built with that change
// how a package compiles: -race, -tags and the like. The go command given
// the same ones finds in its cache what go test has just compiled for
// this test, which links every package of the table. Under the README's
// go test -race, these are the -race builds of client-go and
// controller-runtime that kube's and bench's tests need too. With other
// flags, go list would compile them a second time: a first run spent 8
// of its 18 minutes on that.
func buildFlags() []string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return nil
	}
	var flags []string
	for _, s := range info.Settings {
		switch s.Key {
		case "-race", "-msan", "-asan", "-trimpath":
			if s.Value == "true" {
				flags = append(flags, s.Key)
			}
		case "-tags", "-gcflags":
			flags = append(flags, s.Key+"="+s.Value)
		}
	}
	return flags
}
