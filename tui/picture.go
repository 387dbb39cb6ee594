package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/tui/export"
	"github.com/cortex-tui/cortex-tui/tui/internal/shot"
)

// picture writes the screen as it is now, without the footer, as an SVG (every glyph pinned to
// its cell, the colours of the terminal's profile: none under NO_COLOR) and as plain text,
// beside the exports as cortex-<scenario>-<strategy>-seed<seed>-at<seconds>s.svg and .txt,
// never replacing a file.
func (m *Model) picture() tea.Cmd {
	if len(m.fr.runs) == 0 {
		return nil
	}
	if m.opts.NoExport {
		m.setStatus("pictures are off here: this dashboard is served to your terminal and writes no file", false)
		return nil
	}
	r := m.fr.runs[0]
	meta := r.meta
	if len(m.fr.runs) > 1 {
		names := make([]string, len(m.fr.runs))
		for i, r := range m.fr.runs {
			names[i] = r.meta.Strategy
		}
		meta.Strategy = strings.Join(names, "-vs-")
	}
	base := fmt.Sprintf("%s-at%ds", report.ExportName(meta), int(r.hist.Last.T.Seconds()))
	frame, rows := m.body, max(m.height-1, 0)
	return export.Picture(shot.SVG(frame, m.width, rows), []byte(shot.Text(frame)), base, m.opts.ExportDir)
}

// onPictured says where the picture went.
func (m *Model) onPictured(msg export.PicturedMsg) {
	if msg.Err != nil {
		m.setStatus(msg.Err.Error(), true)
		return
	}
	text := strings.Replace(export.Summary(msg.Paths), "exported to", "screen written to", 1)
	m.setStatus(text, false)
}
