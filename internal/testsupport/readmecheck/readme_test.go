package readmecheck_test

import (
	"os"
	"strings"
	"testing"

	"github.com/evsync/evsync/internal/testsupport/readmecheck"
)

// The file checked, and the name problems give it: the path from the
// repository's root, where a reader runs go test and opens the file.
const (
	readme     = "../../../README.md"
	readmeName = "README.md"
)

func TestREADMEGoBlocksCompile(t *testing.T) {
	data, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := readmecheck.Blocks(readmeName, string(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) < 5 {
		t.Fatalf("found %d go blocks in %s, want the README's examples: is the extraction broken?", len(blocks), readme)
	}
	problems, err := readmecheck.Check(".", readmeName, blocks)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	if len(problems) > 0 {
		t.Log("what a block may assume: go doc github.com/evsync/evsync/internal/testsupport/readmecheck")
	}
	t.Logf("%d go blocks of %s checked", len(blocks), readmeName)
}

// check runs the checker on a Markdown text and returns its problems.
func check(t *testing.T, markdown string) []string {
	t.Helper()
	blocks, err := readmecheck.Blocks("DOC.md", markdown)
	if err != nil {
		t.Fatal(err)
	}
	problems, err := readmecheck.Check(".", "DOC.md", blocks)
	if err != nil {
		t.Fatal(err)
	}
	return problems
}

// oneProblem asserts that problems is one problem at pos that says what.
func oneProblem(t *testing.T, problems []string, pos, what string) {
	t.Helper()
	if len(problems) != 1 || !strings.HasPrefix(problems[0], pos+": ") || !strings.Contains(problems[0], what) {
		t.Errorf("problems = %q, want one at %s saying %q", problems, pos, what)
	}
}

// The README once showed kube.NewQueueFunc(kube.Config{...}), which does
// not compile: kube.Config is generic now, and the block must name its
// item type.
const newQueueFunc = "# Example\n" +
	"\n" +
	"With metrics:\n" +
	"\n" +
	"<!-- go: var r reconcile.Reconciler; var p clientgo.MetricsProvider -->\n" +
	"```go\n" +
	"c, err := controller.NewUnmanaged(\"pods\", controller.Options{\n" +
	"\tReconciler: r,\n" +
	"\tNewQueue:   kube.NewQueueFunc(kube.Config%s{MetricsProvider: p}),\n" +
	"})\n" +
	"```\n"

func TestUninstantiatedConfigIsReportedAtItsLine(t *testing.T) {
	oneProblem(t, check(t, strings.Replace(newQueueFunc, "%s", "", 1)), "DOC.md:9:32", "without instantiation")
}

func TestTypeArgumentFixesNewQueueFunc(t *testing.T) {
	if problems := check(t, strings.Replace(newQueueFunc, "%s", "[reconcile.Request]", 1)); len(problems) != 0 {
		t.Errorf("problems = %q, want none", problems)
	}
}

func TestUndeclaredNameIsReportedAtItsLine(t *testing.T) {
	const doc = "```go\n" +
		"sem := semaphore.New(1)\n" +
		"if err := sem.Acquire(ctx, 1); err != nil {\n" +
		"\treturn err\n" +
		"}\n" +
		"work()\n" +
		"```\n"
	oneProblem(t, check(t, doc), "DOC.md:6:1", "undefined: work (declare it in a <!-- go: --> comment above the block")
}

func TestWrongCallIsReported(t *testing.T) {
	const doc = "Text.\n" +
		"```go\n" +
		"sig := signal.New(0)\n" +
		"n := sig.Take(ctx)\n" +
		"```\n"
	oneProblem(t, check(t, doc), "DOC.md:4:15", "too many arguments")
}

// What a block may assume: ctx, the names of its hidden comment (on one
// line or several), imports from the packages it names, variables it
// never uses; and the three forms of a block.
func TestConventions(t *testing.T) {
	const doc = "<!-- go: var work func() -->\n" +
		"```go\n" +
		"lim := semaphore.NewLimiter(2)\n" +
		"p, err := lim.AcquirePermit(ctx, 1)\n" +
		"if err != nil {\n" +
		"\treturn err\n" +
		"}\n" +
		"defer p.Release()\n" +
		"work()\n" +
		"unused := time.Second\n" +
		"```\n" +
		"\n" +
		"<!-- go:\n" +
		"var q *readyq.Queue[string]\n" +
		"var reconcile func(string) error\n" +
		"-->\n" +
		"\n" +
		"```go\n" +
		"for batch, err := q.Wait(ctx, 1); err == nil; batch, err = q.Next(ctx, batch, 1) {\n" +
		"\t_ = reconcile(batch[0])\n" +
		"}\n" +
		"```\n" +
		"\n" +
		"```go\n" +
		"type server struct{ sig *signal.Signal }\n" +
		"\n" +
		"func (s *server) poke() { s.sig.Add(1) }\n" +
		"```\n" +
		"\n" +
		"```go\n" +
		"package main\n" +
		"\n" +
		"import \"github.com/evsync/evsync/coalesce\"\n" +
		"\n" +
		"func main() { coalesce.New(0).Wake() }\n" +
		"```\n" +
		"\n" +
		"```sh\n" +
		"not go at all\n" +
		"```\n"
	if problems := check(t, doc); len(problems) != 0 {
		t.Errorf("problems = %q, want none", problems)
	}
}

func TestMalformedMarkdown(t *testing.T) {
	for _, tc := range []struct{ doc, err string }{
		{"a\n```go\nx := 1\n", "DOC.md:2: code block not closed"},
		{"<!-- go: var x int -->\ntext\n```go\n_ = x\n```\n", "DOC.md:1: a <!-- go: comment must stand just above"},
		{"<!-- go: var x int -->\n", "DOC.md:1: a <!-- go: comment must stand just above"},
		{"<!-- go: var x int\n```go\n```\n", "DOC.md:1: <!-- go: comment without -->"},
	} {
		_, err := readmecheck.Blocks("DOC.md", tc.doc)
		if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
			t.Errorf("Blocks(%q): error %v, want one starting %q", tc.doc, err, tc.err)
		}
	}
}

func TestWholeFileTakesNoComment(t *testing.T) {
	blocks, err := readmecheck.Blocks("DOC.md", "<!-- go: var x int -->\n```go\npackage p\n```\n")
	if err != nil {
		t.Fatal(err)
	}
	problems, err := readmecheck.Check(".", "DOC.md", blocks)
	if err != nil {
		t.Fatal(err)
	}
	oneProblem(t, problems, "DOC.md:1", "takes no <!-- go: comment")
}

// A table name that is not its package's name is imported under the
// table's name. testingclock is k8s.io/utils/clock/testing, whose package
// is testing, so imported as it is it would clash with package testing.
func TestTableNamesAreTheImportNames(t *testing.T) {
	md := "```go\n" +
		"func TestFake(t *testing.T) {\n" +
		"\tfake := testingclock.NewFakeClock(time.Now())\n" +
		"\tfake.Step(time.Second)\n" +
		"}\n" +
		"```\n"
	if problems := check(t, md); len(problems) != 0 {
		t.Errorf("problems = %q, want none", problems)
	}
}
