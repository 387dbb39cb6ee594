package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/cortex-tui/cortex-tui/tui/summary"
)

// startBaselines returns the command that runs the baselines of the summary now shown, once per
// run: on a single simulated run's summary only (compare mode has its two columns; a live run
// cannot be replayed; a class's students share the class run, not sixty baselines), leaving
// out the run's own strategy.
func (m *Model) startBaselines() tea.Cmd {
	if m.screen != screenSummary || len(m.fr.runs) != 1 || m.scn == nil || m.fr.runs[0].meta.Live || m.following() {
		return nil
	}
	if m.fr.baseline != nil && m.fr.baseline.Gen == m.ctl.gen {
		return nil
	}
	meta := m.fr.runs[0].meta
	m.fr.baseline = &summary.Baselines{Gen: m.ctl.gen}
	return summary.RunBaselines(m.opts.Factory, *m.scn, meta.Seed, summary.BaselinesFor(meta.Strategy), m.ctl.gen)
}

// onBaselines keeps the baselines of the current run and redraws the summary.
func (m *Model) onBaselines(msg summary.BaselinesMsg) {
	if m.fr.baseline == nil || msg.Gen != m.fr.baseline.Gen || msg.Gen != m.ctl.gen {
		return // the run was restarted or replaced since
	}
	m.fr.baseline.Sums, m.fr.baseline.Err = msg.Sums, msg.Err
	if msg.Err != nil {
		m.setStatus("baseline: "+msg.Err.Error(), true)
	}
	m.redraw()
}
