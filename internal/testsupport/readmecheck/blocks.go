// Package readmecheck type-checks the Go code blocks of evsync's
// README.md, so that an example a reader copies compiles, and the Go
// snippets of CHANGELOG.md's inline code (see Spans).
//
// Every block fenced with ```go is checked. A block may be written three
// ways, and none needs anything a reader would not want to see:
//
//   - A whole file: a block whose first line starts with "package" is
//     checked as it is, with its own imports.
//   - Declarations: a block that parses as top-level declarations (funcs,
//     types, vars) is checked as the body of a file.
//   - Statements, the usual case: any other block is the body of a
//     function that returns an error, so it may "return err".
//
// The last two get their imports from the packages they name. A name
// such as semaphore, kube, reconcile or time before a dot is imported
// from the table in packages.go, which takes a new row when needed. They
// may declare variables they never use, as fragments often do. And ctx,
// a context.Context, is always declared.
//
// Any other name a fragment uses but does not declare goes in a hidden
// comment on the line above its fence, as Go declarations:
//
//	<!-- go: var sem *semaphore.Semaphore; var work func() -->
//	```go
//	if err := sem.Acquire(ctx, 1); err == nil { work() }
//	```
//
// The comment may span lines. GitHub does not show it, so the README
// reads as before. A problem is reported at its line in README.md.
//
// The check loads the packages with the go command, in evsync's
// workspace (go.work), which holds every module a block may use. So this
// module requires nothing: the workspace provides kube and its graph.
package readmecheck

import (
	"fmt"
	"strings"
)

// A Block is one ```go block of a Markdown file, or one Go snippet of
// its inline code spans (see Spans).
type Block struct {
	Fence int    // the line of the opening fence, counting from 1
	Code  string // the lines between the fences; a span's expression
	Given string // the declarations of the <!-- go: --> comment above, if any
	// GivenLine is the line of the comment's first declaration.
	GivenLine int
	// SpanLine and SpanCol are where a span's code starts, counting
	// from 1; both are 0 for a fenced block.
	SpanLine, SpanCol int
}

// Line returns the line of the block's first line of code.
func (b Block) Line() int {
	if b.isSpan() {
		return b.SpanLine
	}
	return b.Fence + 1
}

// isSpan reports whether b is an inline span rather than a fenced block.
func (b Block) isSpan() bool { return b.SpanLine != 0 }

const (
	fence      = "```"
	goFence    = "```go"
	givenStart = "<!-- go:"
	givenEnd   = "-->"
)

// Blocks returns the ```go blocks of a Markdown text, with the comment
// that stands above each. Errors name the file and line.
func Blocks(name, markdown string) ([]Block, error) {
	lines := strings.Split(markdown, "\n")
	var (
		blocks []Block
		given  *Block // a comment not yet followed by its block
	)
	for i := 0; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], " \t\r")
		switch {
		case strings.HasPrefix(line, givenStart):
			if given != nil {
				return nil, fmt.Errorf("%s:%d: two %s comments with no ```go block between them", name, given.GivenLine, givenStart)
			}
			g, end, err := comment(name, lines, i)
			if err != nil {
				return nil, err
			}
			given, i = &g, end
		case line == goFence:
			b, end, err := block(name, lines, i)
			if err != nil {
				return nil, err
			}
			if given != nil {
				b.Given, b.GivenLine = given.Given, given.GivenLine
				given = nil
			}
			blocks = append(blocks, b)
			i = end
		case strings.HasPrefix(line, fence):
			end, err := skip(name, lines, i)
			if err != nil {
				return nil, err
			}
			i = end
		case line != "" && given != nil:
			return nil, fmt.Errorf("%s:%d: a %s comment must stand just above a ```go block", name, given.GivenLine, givenStart)
		}
	}
	if given != nil {
		return nil, fmt.Errorf("%s:%d: a %s comment must stand just above a ```go block", name, given.GivenLine, givenStart)
	}
	return blocks, nil
}

// comment reads the <!-- go: ... --> comment that starts at lines[i] and
// returns it with the index of its last line.
func comment(name string, lines []string, i int) (Block, int, error) {
	text := strings.TrimPrefix(lines[i], givenStart)
	for j := i; j < len(lines); j++ {
		if j > i {
			text += "\n" + lines[j]
		}
		if before, ok := strings.CutSuffix(strings.TrimRight(text, " \t\r"), givenEnd); ok {
			return Block{Given: before, GivenLine: i + 1}, j, nil
		}
	}
	return Block{}, 0, fmt.Errorf("%s:%d: %s comment without %s", name, i+1, givenStart, givenEnd)
}

// block reads the ```go block whose fence is lines[i] and returns it with
// the index of its closing fence.
func block(name string, lines []string, i int) (Block, int, error) {
	end, err := skip(name, lines, i)
	if err != nil {
		return Block{}, 0, err
	}
	return Block{Fence: i + 1, Code: strings.Join(lines[i+1:end], "\n") + "\n"}, end, nil
}

// skip returns the index of the fence that closes the one at lines[i].
func skip(name string, lines []string, i int) (int, error) {
	for j := i + 1; j < len(lines); j++ {
		if strings.TrimRight(lines[j], " \t\r") == fence {
			return j, nil
		}
	}
	return 0, fmt.Errorf("%s:%d: code block not closed", name, i+1)
}
