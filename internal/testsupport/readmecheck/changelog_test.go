package readmecheck_test

import (
	"os"
	"strings"
	"testing"

	"github.com/evsync/evsync/internal/testsupport/readmecheck"
)

// The changelog, checked like the README: its fenced Go blocks and the Go
// snippets of its inline code.
const (
	changelog     = "../../../CHANGELOG.md"
	changelogName = "CHANGELOG.md"
)

func TestCHANGELOGGoSnippetsCompile(t *testing.T) {
	data, err := os.ReadFile(changelog)
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := readmecheck.Blocks(changelogName, string(data))
	if err != nil {
		t.Fatal(err)
	}
	spans, err := readmecheck.Spans(changelogName, string(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(spans) < 8 {
		t.Fatalf("found %d Go snippets in %s, want its calls and literals: is the extraction broken?", len(spans), changelog)
	}
	problems, err := readmecheck.Check(".", changelogName, append(blocks, spans...))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	if len(problems) > 0 {
		t.Log("what a snippet may assume, and which are skipped: go doc github.com/evsync/evsync/internal/testsupport/readmecheck.Spans")
	}
	for _, s := range spans {
		t.Logf("%s:%d: %s", changelogName, s.Line(), s.Code)
	}
	t.Logf("%d go blocks and %d inline snippets of %s checked", len(blocks), len(spans), changelogName)
}

// checkSpans runs the checker on the inline snippets of a Markdown text.
func checkSpans(t *testing.T, markdown string) ([]readmecheck.Block, []string) {
	t.Helper()
	spans, err := readmecheck.Spans("DOC.md", markdown)
	if err != nil {
		t.Fatal(err)
	}
	problems, err := readmecheck.Check(".", "DOC.md", spans)
	if err != nil {
		t.Fatal(err)
	}
	return spans, problems
}

// The 0.1.0 entry once showed kube.Config{Lossless: true}, which does not
// compile: Config is generic.
func TestBrokenChangelogSnippetIsReportedAtItsLine(t *testing.T) {
	const doc = "## [0.1.0]\n" +
		"\n" +
		"- `kube`: one worker could hold up every `Get`. `kube.Config{Lossless: true}`\n" +
		"  keeps the old shutdown.\n"
	_, problems := checkSpans(t, doc)
	oneProblem(t, problems, "DOC.md:3:50", "without instantiation")
	_, problems = checkSpans(t, strings.Replace(doc, "kube.Config{", "kube.Config[reconcile.Request]{", 1))
	if len(problems) != 0 {
		t.Errorf("with its type argument: problems = %q, want none", problems)
	}
}

func TestChangelogSnippetWithWrongArgumentsIsReported(t *testing.T) {
	_, problems := checkSpans(t, "- `coalesce.WithClock(c, d)` puts a Waker's windows on `c`.\n")
	oneProblem(t, problems, "DOC.md:1:26", "too many arguments")
}

func TestChangelogSnippetOfAMissingNameIsReported(t *testing.T) {
	_, problems := checkSpans(t, "Use `readyq.New[T](readyq.WithNothing(m))` now.\n")
	oneProblem(t, problems, "DOC.md:1:27", "undefined: readyq.WithNothing")
}

// What counts as a snippet, and what is skipped: placeholders are
// allowed, a span may run over two lines, prose shorthand is no snippet,
// and the before side of a migration and the Removed section show API
// that is gone.
func TestChangelogSpansSkipWhatIsGoneByDesign(t *testing.T) {
	const doc = "## [Unreleased]\n" +
		"\n" +
		"- `coalesce.WithClock(c)` and `signal.WithClock(c)`; a long one:\n" +
		"  `semaphore.New(n,\n" +
		"  semaphore.WithLimit(n))`.\n" +
		"- Prose: `readyq.Queue`, `semaphore.Semaphore.AcquireUpTo(ctx, max)`, `sem.Acquire(ctx, 1)`,\n" +
		"  `Options []readyq.Option`, `kube`.\n" +
		"- Migration: `readyq.WithGone(m)` → `readyq.NewWithConfig(readyq.Config[T]{Mode: m})`.\n" +
		"\n" +
		"  | before | now |\n" +
		"  |---|---|\n" +
		"  | `readyq.New[T](readyq.WithMode(m))` | `readyq.NewWithConfig(readyq.Config[T]{…})` |\n" +
		"\n" +
		"```go\n" +
		"x := `readyq.NotASpan()`\n" +
		"```\n" +
		"\n" +
		"### Removed\n" +
		"\n" +
		"- `coalesce.WithFunc(f)`.\n" +
		"\n" +
		"### Fixed\n" +
		"\n" +
		"- `kube.NewQueueFunc[reconcile.Request]`.\n"
	spans, problems := checkSpans(t, doc)
	var got []string
	for _, s := range spans {
		got = append(got, s.Code)
	}
	want := []string{
		"coalesce.WithClock(c)", "signal.WithClock(c)", "semaphore.New(n,\n  semaphore.WithLimit(n))",
		"readyq.NewWithConfig(readyq.Config[T]{Mode: m})", "readyq.NewWithConfig(readyq.Config[T]{})",
		"kube.NewQueueFunc[reconcile.Request]",
	}
	if strings.Join(got, " | ") != strings.Join(want, " | ") {
		t.Errorf("snippets\n%q\nwant\n%q", got, want)
	}
	if len(problems) != 0 {
		t.Errorf("problems = %q, want none", problems)
	}
}
