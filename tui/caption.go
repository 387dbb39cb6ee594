package tui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// captionPanel shows the scenario's current note, so the screen explains itself.
type captionPanel struct{ base }

// newCaption returns an empty caption.
func newCaption(st Styles) *captionPanel { return &captionPanel{base{st: st}} }

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
		if note != "" && p.w > 0 && p.h > 0 {
			lines := strings.Split(ansi.Wordwrap("» "+note, max(p.w-1, 1), " "), "\n")
			if len(lines) > p.h { // too long for the room: say so rather than cut silently
				lines = lines[:p.h]
				lines[p.h-1] = ansi.Truncate(lines[p.h-1], max(p.w-2, 1), "") + "…"
			}
			text = p.st.Caption.Render(strings.Join(lines, "\n"))
		}
		p.view = fit(text, p.w, p.h)
	}
	return p, nil
}
