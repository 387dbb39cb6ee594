package tui

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui/export"
)

// record writes the scenario the run played so far (the left run's in compare), with every
// control applied at its time, as a scenario file: to Options.Record when set (replaced), or
// beside the exports as cortex-<scenario>-<strategy>-seed<seed>.toml (never replacing a file).
func (m *Model) record() tea.Cmd {
	if len(m.fr.runs) == 0 {
		return nil
	}
	if m.opts.NoExport {
		m.setStatus("recording is off here: this dashboard is served to your terminal and writes no file", false)
		return nil
	}
	played, ok := m.played()
	if !ok {
		m.setStatus("this run cannot be recorded: its source keeps no record of its controls", true)
		return nil
	}
	return export.Recording(played, m.opts.Record, m.opts.ExportDir)
}

// played is the scenario the first run played so far (source.Recording), false when its
// source keeps no record.
func (m *Model) played() (scenarios.Scenario, bool) {
	if len(m.fr.runs) == 0 {
		return scenarios.Scenario{}, false
	}
	rec, ok := m.fr.runs[0].src.(source.Recording)
	if !ok {
		return scenarios.Scenario{}, false
	}
	return rec.Played(), true
}

// onRecorded says where the recording went and how to replay it.
func (m *Model) onRecorded(msg export.RecordedMsg) {
	if msg.Err != nil {
		m.setStatus(msg.Err.Error(), true)
		return
	}
	text := fmt.Sprintf("recorded %s to %s: replay with cortex-tui run --scenario-file %s", scenarios.CountControls(msg.Controls), msg.Path, msg.Path)
	m.setStatus(text, false)
	m.logControl(text)
}

// recordOnQuit writes the run as played to Options.Record (run --record), once the dashboard
// has ended; nothing without the option or a run to record.
func (m *Model) recordOnQuit() error {
	played, ok := m.played()
	if m.opts.Record == "" || !ok {
		return nil
	}
	_, err := export.WriteRecording(played, m.opts.Record, "")
	return err
}
