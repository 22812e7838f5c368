package layout

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// misnamed is a ratchet: the test files named otherwise than for the
// file they test today. A file leaves the list when it is renamed or
// split, and no file joins it.
var misnamed = []string{
	"workqueue/bench_test.go",
	"workqueue/ctrl_bad_test.go",
	"workqueue/ctrl_rapid_test.go",
	"workqueue/saturate_test.go",
	"workqueue/sched_test.go",
	"workqueue/synctest_test.go",
	"internal/clk/hooks_test.go",
	"internal/counter/helpers_test.go",
	"internal/counter/hooks_test.go",
	"internal/counter/invariants_test.go",
	"internal/counter/limit_hooks_test.go",
	"internal/counter/slow_hooks_test.go",
	"internal/window/clock_test.go",
}

// goFixed are the test files named by Go's conventions, not for a file.
var goFixed = []string{"main_test.go", "example_test.go", "export_test.go"}

// TestTestFileNames checks the scheme of readyq, workqueue, poll and the
// production internals: a test file is named for the file it tests. The
// tests of x.go are in x_test.go or x_<aspect>_test.go, whatever build
// tags either has. Tests through the whole API (model, fuzz,
// linearizability, benchmarks) test the file that defines the package's
// main type, named after the package: readyq_model_test.go for readyq.go.
// Go's main_test.go, example_test.go and export_test.go are allowed, and
// so are example_<x>_test.go and export_<x>_test.go.
func TestTestFileNames(t *testing.T) {
	checkRoot(t)
	var bad []string
	for _, rel := range scope(t, []string{"workqueue"}, []string{"readyq", "workqueue", "poll"}) {
		entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		var stems, tests []string
		for _, e := range entries {
			name := e.Name()
			switch {
			case e.IsDir() || !strings.HasSuffix(name, ".go"):
			case strings.HasSuffix(name, "_test.go"):
				tests = append(tests, name)
			default:
				stems = append(stems, strings.TrimSuffix(name, ".go"))
			}
		}
		for _, name := range tests {
			if !namedForFile(name, stems) {
				bad = append(bad, rel+"/"+name)
			}
		}
	}
	for _, f := range bad {
		if !slices.Contains(misnamed, f) {
			t.Errorf("%s is not named for a file of its package: name it x_test.go or x_<aspect>_test.go for the x.go it tests", f)
		}
	}
	for _, f := range misnamed {
		if !slices.Contains(bad, f) {
			t.Errorf("%s is gone or well named now: remove it from misnamed", f)
		}
	}
}

// namedForFile reports whether the test file name follows the scheme in
// a directory whose non-test files have the stems stems.
func namedForFile(name string, stems []string) bool {
	stem := strings.TrimSuffix(name, "_test.go")
	if slices.Contains(goFixed, name) || strings.HasPrefix(stem, "example_") || strings.HasPrefix(stem, "export_") {
		return true
	}
	for _, s := range stems {
		if stem == s || strings.HasPrefix(stem, s+"_") {
			return true
		}
	}
	return false
}

// TestNamedForFile pins the scheme on a few names.
func TestNamedForFile(t *testing.T) {
	stems := []string{"readyq", "index", "index_map", "hook"}
	for name, want := range map[string]bool{
		"readyq_test.go":        true,
		"readyq_model_test.go":  true,
		"index_map_test.go":     true,
		"index_growth_test.go":  true,
		"main_test.go":          true,
		"export_twins_test.go":  true,
		"example_level_test.go": true,
		"hooks_test.go":         false,
		"readyqx_test.go":       false,
		"bench_test.go":         false,
		"mainx_test.go":         false,
	} {
		if got := namedForFile(name, stems); got != want {
			t.Errorf("namedForFile(%q) = %v, want %v", name, got, want)
		}
	}
}
