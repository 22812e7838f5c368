package layout

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const module = "github.com/evsync/evsync"

// public are the packages a user imports.
var public = []string{"semaphore", "signal", "coalesce", "readyq", "workqueue", "poll", "clock", "model"}

// production are the internal packages the public ones run on.
var production = []string{"internal/clk", "internal/counter", "internal/evserr", "internal/hooks", "internal/rq", "internal/waitq", "internal/watch", "internal/window"}

// allowed reports whether a public package may depend on path.
func allowed(path string) bool {
	if strings.HasPrefix(path, "golang.org/x/time/") {
		return true
	}
	rel, ok := strings.CutPrefix(path, module+"/")
	return ok && (slices.Contains(public, rel) || slices.Contains(production, rel))
}

// TestPublicDependencies lists every package the public packages build
// on, test files excluded. Each must be standard, golang.org/x/time or a
// production internal.
func TestPublicDependencies(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list dependencies: %v", err)
	}
	args := []string{"list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}"}
	for _, p := range public {
		args = append(args, module+"/"+p)
	}
	out, err := exec.Command(goCmd, args...).Output()
	if err != nil {
		t.Fatalf("go %s: %v", strings.Join(args, " "), err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < len(public) {
		t.Fatalf("go list gave %d packages, fewer than the %d public ones: %q", len(deps), len(public), deps)
	}
	for _, d := range deps {
		if !allowed(d) {
			t.Errorf("a public package depends on %s", d)
		}
	}
}

// TestInternalHoldsProduction checks the folder itself: internal holds
// the production packages and testsupport, nothing else.
func TestInternalHoldsProduction(t *testing.T) {
	entries, err := os.ReadDir("../..")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		if e.IsDir() {
			got = append(got, "internal/"+e.Name())
		}
	}
	want := append(slices.Clone(production), "internal/testsupport")
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("internal holds %q, want %q", got, want)
	}
}
