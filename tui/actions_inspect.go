package tui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui/common"
)

// The keys that open and close the decision inspector.

// inspect pauses the run and opens the decision inspector on the first run's latest decisions,
// read from its source once no advance is in flight; a source that keeps none (live mode) says
// so in the footer.
func (m *Model) inspect() tea.Cmd {
	if len(m.fr.runs) == 0 {
		return nil
	}
	var cmd tea.Cmd
	if !m.fr.paused && !m.done() && !m.following() { // a student's view goes on following behind it
		cmd = m.togglePause()
	}
	src := m.fr.runs[0].src
	m.ctl.whenIdle(func() {
		in, ok := src.(source.Inspector)
		if !ok {
			m.setStatus("this source keeps no decisions to inspect", true)
			return
		}
		ds := in.RecentDecisions()
		common.CleanDecisions(ds)
		m.insp.Open(ds, m.fr.runs[0].meta.Strategy)
		m.inspecting = true
		m.redraw()
	})
	return cmd
}

// onInspectKey handles a key while the inspector shows: back or the inspect key close it, the
// inspector's own keys (selection, filter) go to it; the other keys do nothing there.
func (m *Model) onInspectKey(msg tea.KeyMsg) tea.Cmd {
	if key.Matches(msg, m.keys.Back, m.keys.Inspect) {
		m.inspecting = false
		m.insp.Close()
		m.redraw()
		return nil
	}
	m.insp, _ = m.insp.Update(msg)
	m.compose()
	return nil
}
