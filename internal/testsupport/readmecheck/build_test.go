package readmecheck_test

import (
	"go/parser"
	"go/token"
	"os/exec"
	"strings"
	"testing"

	"github.com/evsync/evsync/internal/testsupport/readmecheck"
)

// TestEveryPackageOfTheTableIsLinked: a row added to packages.go must be
// imported in linked_test.go too, or Check compiles its package again.
func TestEveryPackageOfTheTableIsLinked(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "linked_test.go", nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	linked := map[string]bool{}
	for _, spec := range f.Imports {
		linked[strings.Trim(spec.Path.Value, `"`)] = true
	}
	for name, path := range readmecheck.Packages {
		if !linked[path] {
			t.Errorf("packages.go's %s (%s) is not imported in linked_test.go", name, path)
		}
		delete(linked, path)
	}
	for path := range linked {
		t.Errorf("linked_test.go imports %s, which is not in packages.go", path)
	}
}

// TestCheckCompilesNothing: with the flags this test was built with, the
// go command finds every package a block may import, and their
// dependencies, in the build cache, where go test put them for this test.
// So Check's go list -export compiles nothing, and a first run compiles
// client-go once.
func TestCheckCompilesNothing(t *testing.T) {
	flags := readmecheck.BuildFlags()
	args := append([]string{"list", "-deps", "-f", "{{if .Stale}}{{.ImportPath}}: {{.StaleReason}}{{end}}"}, flags...)
	for _, path := range readmecheck.Packages {
		args = append(args, path)
	}
	out, err := exec.Command("go", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	if len(strings.TrimSpace(string(out))) > 0 {
		t.Errorf("with flags %q, go list would compile:\n%s", flags, out)
	}
	t.Logf("with flags %q, go list finds every package built", flags)
}
