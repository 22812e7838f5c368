package workqueue_test

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evsync/evsync/internal/testsupport/testkit"
	"github.com/evsync/evsync/workqueue"
)

// TestConfigOfAnotherItemTypeDoesNotCompile is issue 19's misuse: a
// recheck function for ints given to a queue of strings used to compile
// and panic in New. Now it is a type error, and so is every other field
// of another item type. The test type-checks a line of code for each
// case against workqueue's export data, which go list builds (once, then
// from the build cache). The first case, all of the right type, shows
// that the others fail for their field only.
func TestConfigOfAnotherItemTypeDoesNotCompile(t *testing.T) {
	check := typeChecker(t, "github.com/evsync/evsync/workqueue")
	for _, c := range []struct{ name, expr, want string }{
		{"right types", `workqueue.NewWithConfig[string](workqueue.Config[string]{
			Recheck: func(string) bool { return true },
			Fairness: func(string) string { return "" },
			RateLimiter: workqueue.DefaultRateLimiter[string](),
		})`, ""},
		{"Recheck", `workqueue.NewWithConfig[string](workqueue.Config[string]{Recheck: func(int) bool { return true }})`,
			"(value of type func(int) bool) as func(string) bool value"},
		{"Fairness", `workqueue.NewWithConfig[string](workqueue.Config[string]{Fairness: func(int) string { return "" }})`,
			"(value of type func(int) string) as func(string) string value"},
		{"RateLimiter", `workqueue.NewWithConfig[string](workqueue.Config[string]{RateLimiter: workqueue.DefaultRateLimiter[int]()})`,
			"as workqueue.RateLimiter[string] value"},
		{"Config", `workqueue.NewWithConfig[string](workqueue.Config[int]{})`,
			"as workqueue.Config[string] value"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := check("package p\n\nimport \"github.com/evsync/evsync/workqueue\"\n\nvar _ = " + c.expr + "\n")
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("%s: %v", c.expr, err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("%s: error %v, want one with %q", c.expr, err, c.want)
			case err != nil:
				t.Log(err) // go test -v shows what the compiler says
			}
		})
	}
}

// typeChecker returns a function that type-checks the source of a package
// that imports pkg, with pkg's export data from go list.
func typeChecker(t *testing.T, pkg string) func(src string) error {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the export data:", err)
	}
	out, err := exec.Command(goCmd, "list", "-export", "-f", "{{.Export}}", pkg).Output()
	if err != nil {
		t.Fatalf("go list -export %s: %v", pkg, err)
	}
	export := strings.TrimSpace(string(out))
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		if path != pkg {
			t.Fatalf("the checked code imports %s", path)
		}
		return os.Open(export)
	})
	return func(src string) error {
		f, err := parser.ParseFile(fset, "p.go", src, 0)
		if err != nil {
			t.Fatalf("parse: %v\n%s", err, src)
		}
		conf := types.Config{Importer: imp}
		_, err = conf.Check("p", fset, []*ast.File{f}, nil)
		return err
	}
}

// TestNewWithConfigPanicsForAnUnknownMode: the one setting the compiler
// cannot check.
func TestNewWithConfigPanicsForAnUnknownMode(t *testing.T) {
	testkit.WantPanic(t, "workqueue: Config.Mode is not a Mode", func() {
		workqueue.NewWithConfig(workqueue.Config[int]{Mode: workqueue.Mode(3)})
	})
}

// TestTheZeroConfigIsNew: a nil field is a field not set. NewWithConfig
// of the zero Config is the default queue, whose limiter is
// DefaultRateLimiter's (5 ms first).
func TestTheZeroConfigIsNew(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for name, q := range map[string]*workqueue.Queue[int]{
			"New":           workqueue.New[int](),
			"NewWithConfig": workqueue.NewWithConfig(workqueue.Config[int]{}),
		} {
			q.Add(1)
			q.Add(2)
			q.Done(q.TryTake(2)...) // edge: forgotten, no recheck asked for
			q.AddRateLimited(3)
			sleep(5*time.Millisecond - 1)
			if q.Len() != 0 {
				t.Fatalf("%s: %v before the default limiter's first delay", name, q)
			}
			sleep(1)
			wantItems(t, name, q.TryTake(8), 3)
			if n := q.NumRequeues(3); n != 1 {
				t.Fatalf("%s: NumRequeues = %d, want 1", name, n)
			}
			if u, l := q.Running(); u != 0 || l != 0 {
				t.Fatalf("%s: Running = %v, %v without metrics", name, u, l)
			}
		}
	})
}
