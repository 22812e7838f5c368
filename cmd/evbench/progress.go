package main

import (
	"fmt"
	"io"
)

// progress draws one line on a terminal saying which run is under way,
// redrawn in place. When stderr is not a terminal it writes nothing, so
// that piped or redirected output holds the rows only.
type progress struct {
	on    bool
	w     io.Writer
	total int
	done  int
	drawn bool
}

func newProgress(on bool, w io.Writer, total int) *progress {
	return &progress{on: on, w: w, total: total}
}

// show counts a run and draws its label.
func (p *progress) show(label string) {
	p.done++
	if !p.on {
		return
	}
	// \r and "erase to the end of the line" redraw in place.
	fmt.Fprintf(p.w, "\r\x1b[K[%d/%d] %s", p.done, p.total, label)
	p.drawn = true
}

// clear erases the line, before rows are printed on the same terminal.
func (p *progress) clear() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
	}
}
