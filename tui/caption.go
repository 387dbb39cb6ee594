package tui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/cortex-tui/cortex-tui/tui/common"
)

// captionPanel shows the scenario's current note, so the screen explains itself.
type captionPanel struct{ common.Base }

// newCaption returns an empty caption.
func newCaption(st common.Styles) *captionPanel { return &captionPanel{common.Base{St: st}} }

// Update redraws the caption on a full redraw.
func (p *captionPanel) Update(msg tea.Msg) (*captionPanel, tea.Cmd) {
	if f, ok := msg.(frameMsg); ok && f.full() {
		note := ""
		if len(f.f.runs) > 0 {
			r := f.f.runs[0]
			note = r.hist.last.Note
			if note == "" && !r.hist.seen {
				note = r.meta.Summary
			}
		}
		text := ""
		if note != "" && p.W > 0 && p.H > 0 {
			lines := strings.Split(ansi.Wordwrap("» "+note, max(p.W-1, 1), " "), "\n")
			if len(lines) > p.H { // too long for the room: say so rather than cut silently
				lines = lines[:p.H]
				lines[p.H-1] = ansi.Truncate(lines[p.H-1], max(p.W-2, 1), "") + "…"
			}
			text = p.St.Caption.Render(strings.Join(lines, "\n"))
		}
		p.Rendered = common.Fit(text, p.W, p.H)
	}
	return p, nil
}
