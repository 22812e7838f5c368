package readmecheck

import (
	"go/ast"
	"go/parser"
	"strings"
)

// Spans returns the Go snippets among the inline code spans of a
// Markdown text, as blocks that Check type-checks as expressions. A
// changelog shows its API this way: `kube.Config[T]{Lossless: true}`.
//
// A span is a Go snippet when it parses as a Go expression that calls,
// builds or instantiates a member of a package of the table in
// packages.go: semaphore.New(1), kube.Config[T]{…},
// kube.NewQueueFunc[R]. An ellipsis (…) stands for what is left out and
// is dropped. Prose shorthand is not a snippet: a bare name
// (readyq.Queue), a method written Type.Method(args), a call on a
// variable (sem.Acquire(ctx, 1)), a field list.
//
// In a snippet, an undefined name without a dot is a placeholder (c, m,
// T) and is not reported. What the snippet calls must exist and take
// what it is given.
//
// Some spans show an API that is gone, on purpose, and are skipped:
//   - the spans on a line before its arrow (→), the before of a
//     migration;
//   - the first column of a table whose header's first cell is
//     "before";
//   - every span of a "### Removed" section, up to the next heading.
//
// Fenced blocks are left to Blocks.
func Spans(name, markdown string) ([]Block, error) {
	lines := strings.Split(markdown, "\n")
	// skipFrom[i] is where line i's code counts, a byte offset: spans
	// that open before it show gone API. -1 marks a line no span may
	// touch (a fence or a fenced line).
	skipFrom := make([]int, len(lines))
	var fenced, removed, before bool // before: a table whose first column is "before"
	for i, line := range lines {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, fence):
			fenced = !fenced
			skipFrom[i] = -1
			continue
		case fenced:
			skipFrom[i] = -1
			continue
		case strings.HasPrefix(trimmed, "#"):
			removed = trimmed == "### Removed"
		}
		if removed {
			skipFrom[i] = len(line) + 1
			continue
		}
		if !strings.HasPrefix(trimmed, "|") {
			before = false
		} else if i == 0 || !strings.HasPrefix(strings.TrimSpace(lines[i-1]), "|") {
			cells := strings.Split(trimmed, "|")
			before = len(cells) > 1 && strings.TrimSpace(cells[1]) == "before"
		}
		if arrow := strings.LastIndex(line, "→"); arrow >= 0 {
			skipFrom[i] = arrow
		}
		if first := strings.Index(line, "|"); before && first >= 0 {
			if second := strings.Index(line[first+1:], "|"); second >= 0 {
				skipFrom[i] = max(skipFrom[i], first+1+second)
			}
		}
	}
	var spans []Block
	for _, s := range codeSpans(lines, skipFrom) {
		if s.col < skipFrom[s.line] {
			continue
		}
		code := strings.ReplaceAll(s.code, "…", "")
		if snippet(code) {
			spans = append(spans, Block{Code: code, SpanLine: s.line + 1, SpanCol: s.col + 1})
		}
	}
	return spans, nil
}

// A codeSpan is the code of one inline span and where it starts: a line
// index and a byte offset in it.
type codeSpan struct {
	line, col int
	code      string
}

// codeSpans returns the inline code spans of lines: the text between two
// runs of as many backticks, on one line or several of a paragraph. A
// run that finds no partner before a blank or fenced line is text.
func codeSpans(lines []string, skipFrom []int) []codeSpan {
	var out []codeSpan
	for i := 0; i < len(lines); i++ {
		if skipFrom[i] < 0 {
			continue
		}
		for c := 0; c < len(lines[i]); {
			if lines[i][c] != '`' {
				c++
				continue
			}
			n := run(lines[i], c)
			endLine, endCol, ok := closing(lines, skipFrom, i, c+n, n)
			if !ok {
				c += n
				continue
			}
			code := lines[i][c+n:]
			if endLine == i {
				code = lines[i][c+n : endCol]
			} else {
				for j := i + 1; j < endLine; j++ {
					code += "\n" + lines[j]
				}
				code += "\n" + lines[endLine][:endCol]
			}
			out = append(out, codeSpan{line: i, col: c + n, code: code})
			if endLine != i {
				// Go on after the span, on its closing line.
				i, c = endLine, endCol+n
				continue
			}
			c = endCol + n
		}
	}
	return out
}

// closing finds the run of n backticks that closes a span opened before
// lines[i][c], on that line or a later one of its paragraph.
func closing(lines []string, skipFrom []int, i, c, n int) (line, col int, ok bool) {
	for j := i; j < len(lines); j++ {
		if j > i {
			if strings.TrimSpace(lines[j]) == "" || skipFrom[j] < 0 {
				return 0, 0, false
			}
			c = 0
		}
		for c < len(lines[j]) {
			if lines[j][c] != '`' {
				c++
				continue
			}
			m := run(lines[j], c)
			if m == n {
				return j, c, true
			}
			c += m
		}
	}
	return 0, 0, false
}

// run is the length of the run of backticks at line[i].
func run(line string, i int) int {
	n := 0
	for i+n < len(line) && line[i+n] == '`' {
		n++
	}
	return n
}

// snippet reports whether code is a Go expression that calls, builds or
// instantiates a member of a package of the table.
func snippet(code string) bool {
	e, err := parser.ParseExpr(code)
	if err != nil {
		return false
	}
	switch x := e.(type) {
	case *ast.CallExpr:
		e = x.Fun
	case *ast.CompositeLit:
		e = x.Type
	case *ast.IndexExpr, *ast.IndexListExpr:
	default:
		return false
	}
	switch x := e.(type) { // an instantiation: its generic name
	case *ast.IndexExpr:
		e = x.X
	case *ast.IndexListExpr:
		e = x.X
	}
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && packages[pkg.Name] != ""
}
