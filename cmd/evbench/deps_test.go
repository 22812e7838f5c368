package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestCommandLinksNoTestingPackage lists what the evbench binary is built
// from and fails if package testing (or one under testing/) is among
// them. A command that links testing carries its flags and its code; it
// comes in through a helper that takes a *testing.B, so such helpers live
// in internal/testsupport/anchor/anchortest, which only tests import.
func TestCommandLinksNoTestingPackage(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list dependencies: %v", err)
	}
	out, err := exec.Command(goCmd, "list", "-deps", "-f", "{{.ImportPath}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps .: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 || !strings.HasSuffix(deps[len(deps)-1], "/cmd/evbench") {
		t.Fatalf("go list -deps . gave %d packages ending in %q: not evbench's list", len(deps), deps[len(deps)-1:])
	}
	for _, d := range deps {
		if d == "testing" || strings.HasPrefix(d, "testing/") {
			t.Errorf("evbench links %s; go list -deps ./cmd/evbench must not show it (go mod why -m is no help here: try go list -deps -f '{{.ImportPath}}: {{.Imports}}' .)", d)
		}
	}
}
