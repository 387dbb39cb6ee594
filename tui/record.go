package tui

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/cortex-tui/cortex-tui/internal/atomicfile"
	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
)

// recordedMsg says where the record key wrote the run as played, and how many controls it
// holds; err when it failed.
type recordedMsg struct {
	path     string
	controls int
	err      error
}

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
	path, dir := m.opts.Record, m.opts.ExportDir
	return func() tea.Msg {
		p, err := writeRecording(played, path, dir)
		return recordedMsg{path: p, controls: len(played.Controls), err: err}
	}
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

// writeRecording writes scn as a scenario file: to path when given (replacing it), otherwise
// into dir as cortex-<scenario>-<strategy>-seed<seed>.toml, -2, -3, ... when taken. It returns
// the path written.
func writeRecording(scn scenarios.Scenario, path, dir string) (string, error) {
	data, err := scn.MarshalTOML()
	if err != nil {
		return "", fmt.Errorf("record: %w", err)
	}
	if path == "" {
		paths, err := report.ExportFiles(dir, report.ExportName(source.Meta{Scenario: scn.Name, Strategy: scn.Strategy, Seed: scn.Seed}),
			[]string{".toml"}, [][]byte{data})
		if err != nil {
			return "", err
		}
		return paths[0], nil
	}
	if err := atomicfile.Write(path, data, 0o644); err != nil {
		return "", fmt.Errorf("record %s: %w", path, err)
	}
	return path, nil
}

// onRecorded says where the recording went and how to replay it.
func (m *Model) onRecorded(msg recordedMsg) {
	if msg.err != nil {
		m.setStatus(msg.err.Error(), true)
		return
	}
	text := fmt.Sprintf("recorded %s to %s: replay with cortex-tui run --scenario-file %s", scenarios.CountControls(msg.controls), msg.path, msg.path)
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
	_, err := writeRecording(played, m.opts.Record, "")
	return err
}
