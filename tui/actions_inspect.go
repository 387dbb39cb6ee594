package tui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui/common"
)

// The keys of the decision inspector and of the event log's scrolling and filter.

// inspect pauses the run and opens the decision inspector on the first run's latest decisions,
// read from its source once no advance is in flight; a source that keeps none (live mode) says
// so in the footer.
func (m *Model) inspect() tea.Cmd {
	if len(m.fr.runs) == 0 {
		return nil
	}
	var cmd tea.Cmd
	if !m.fr.paused && !m.done() {
		cmd = m.togglePause()
	}
	src := m.fr.runs[0].src
	m.whenIdle(func() {
		in, ok := src.(source.Inspector)
		if !ok {
			m.setStatus("this source keeps no decisions to inspect", true)
			return
		}
		ds := in.RecentDecisions()
		common.CleanDecisions(ds)
		m.fr.kept, m.fr.decisionAct = ds, 0
		m.filterDecisions()
		m.inspecting = true
		m.redraw()
	})
	return cmd
}

// onInspectKey handles a key while the inspector shows: up and down select a decision (the log
// keys by ten), the log filter key shows one action at a time, back or the inspect key close
// it; the other keys do nothing there.
func (m *Model) onInspectKey(msg tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Back, m.keys.Inspect):
		m.inspecting = false
		m.fr.decisions, m.fr.kept = nil, nil
		m.redraw()
	case key.Matches(msg, m.keys.LogFilter):
		m.fr.decisionAct = (m.fr.decisionAct + 1) % (len(engine.Actions) + 1)
		m.filterDecisions()
		m.redrawFor(changedInspect)
	case key.Matches(msg, m.keys.ClassUp):
		m.selectDecision(m.fr.selDecision - 1)
	case key.Matches(msg, m.keys.ClassDown):
		m.selectDecision(m.fr.selDecision + 1)
	case key.Matches(msg, m.keys.LogUp):
		m.selectDecision(m.fr.selDecision - 10)
	case key.Matches(msg, m.keys.LogDown):
		m.selectDecision(m.fr.selDecision + 10)
	}
	return nil
}

// filterDecisions shows the kept decisions of the filter's action (all for 0), the newest
// selected.
func (m *Model) filterDecisions() {
	m.fr.decisions = m.fr.kept
	if a := m.fr.decisionAct - 1; a >= 0 {
		m.fr.decisions = nil
		for _, d := range m.fr.kept {
			if int(d.Action) == a {
				m.fr.decisions = append(m.fr.decisions, d)
			}
		}
	}
	m.fr.selDecision = len(m.fr.decisions) - 1
}

// selectDecision selects decision i of the inspector, clamped to the list.
func (m *Model) selectDecision(i int) {
	m.fr.selDecision = min(max(i, 0), max(len(m.fr.decisions)-1, 0))
	m.redrawFor(changedInspect)
}

// logScroll scrolls the event logs by d lines (positive: back in time); 0 is the newest line.
func (m *Model) logScroll(d int) func() tea.Cmd {
	return func() tea.Cmd {
		m.fr.logOffset = max(m.fr.logOffset+d, 0) // the panel clamps it to what it holds
		m.redrawFor(changedLog)
		return nil
	}
}

// cycleLogFilter shows one kind of event at a time in the event logs, then all again.
func (m *Model) cycleLogFilter() tea.Cmd {
	m.fr.logKind = (m.fr.logKind + 1) % (numEventKinds + 1)
	m.fr.logOffset = 0
	m.redrawFor(changedLog)
	return nil
}
