package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/cortex-tui/cortex-tui/engine"
)

// progressBar is a progress bar for long work on a terminal, redrawn in place on one line:
// "bench ████████░░░░░░░░ 144/630 runs · 12s, about 40s left". Its update is called with
// the work done and the total (under the caller's lock: it is not safe for concurrent use);
// the line is cleared when the work is done.
type progressBar struct {
	w          io.Writer
	name, unit string
	clock      engine.Clock
	start      time.Time
	last       time.Time // the last redraw: at most 10 a second, the first and the last always
	// extra, when set, is said after the time taken instead of the time left at the pace so
	// far (tune's line: its best score and its own estimate).
	extra string
	// width, when > 0, is the terminal's width in cells: a longer line is cut to fit, as a
	// line that wraps cannot be redrawn in place.
	width int
}

// progressWidth is the bar's width in cells.
const progressWidth = 24

// newProgress returns a bar named name counting units, timed on clock, drawn on w.
func newProgress(w io.Writer, name, unit string, clock engine.Clock) *progressBar {
	return &progressBar{w: w, name: name, unit: unit, clock: clock, start: clock.Now()}
}

// update redraws the bar for done of total; at done == total it clears the line.
func (p *progressBar) update(done, total int) {
	t := p.clock.Now()
	if done >= total {
		fmt.Fprint(p.w, "\r\033[K")
		return
	}
	if done > 0 && t.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = t
	line := p.line(done, total, t.Sub(p.start))
	if p.width > 1 {
		line = ansi.Truncate(line, p.width-1, "…")
	}
	fmt.Fprint(p.w, "\r\033[K"+line)
}

// line is the bar's text after elapsed: the bar, the count, the time taken and, once some work
// is done, the time left at the pace so far.
func (p *progressBar) line(done, total int, elapsed time.Duration) string {
	full := 0
	if total > 0 {
		full = min(done*progressWidth/total, progressWidth)
	}
	s := fmt.Sprintf("%s %s%s %d/%d %s · %s", p.name, strings.Repeat("█", full), strings.Repeat("░", progressWidth-full),
		done, total, p.unit, elapsed.Round(time.Second))
	if p.extra != "" {
		return s + " · " + p.extra
	}
	if done > 0 && total > done {
		left := time.Duration(float64(elapsed) * float64(total-done) / float64(done))
		s += fmt.Sprintf(", about %s left", left.Round(time.Second))
	}
	return s
}
