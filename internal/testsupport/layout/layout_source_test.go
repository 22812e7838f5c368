package layout

import (
	"bufio"
	"errors"
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
