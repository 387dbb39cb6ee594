// Package export is what the dashboard writes to files, off the Update loop: the runs'
// timelines (the export key), the run as played as a scenario file (the record key) and the
// screen as SVG and text (the picture key), each a command whose message says where it went
// or why it failed; and the one short line (Summary) that says where. It never replaces a file
// it was not asked to: the names beside the exports take -2, -3, ... when taken.
package export

import (
	"fmt"
	"path/filepath"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/cortex-tui/cortex-tui/internal/atomicfile"
	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
)

// TimelinesMsg says where Timelines wrote the runs' timelines, or why it stopped (Paths then
// holds what was written before).
type TimelinesMsg struct {
	Paths []string
	Err   error
}

// RecordedMsg says where Recording wrote the run as played, and how many controls it holds;
// Err when it failed.
type RecordedMsg struct {
	Path     string
	Controls int
	Err      error
}

// PicturedMsg says where Picture wrote the screen; Err when it failed.
type PicturedMsg struct {
	Paths []string
	Err   error
}

// Timelines returns the command that writes each of jobs' timelines (CSV and JSON) into dir,
// once bound has filled in the oracle's bounds (nil: none), and a panic as an error.
func Timelines(jobs []report.Result, bound func([]report.Result), dir string) tea.Cmd {
	return func() (msg tea.Msg) {
		defer func() {
			if r := recover(); r != nil {
				msg = TimelinesMsg{Err: fmt.Errorf("export panicked: %v", r)}
			}
		}()
		if bound != nil {
			bound(jobs)
		}
		var paths []string
		for _, j := range jobs {
			p, err := report.Export(j, dir)
			if err != nil {
				return TimelinesMsg{Paths: paths, Err: err}
			}
			paths = append(paths, p...)
		}
		return TimelinesMsg{Paths: paths}
	}
}

// Recording returns the command that writes played, a run as played with its controls, as a
// scenario file (WriteRecording).
func Recording(played scenarios.Scenario, path, dir string) tea.Cmd {
	return func() tea.Msg {
		p, err := WriteRecording(played, path, dir)
		return RecordedMsg{Path: p, Controls: len(played.Controls), Err: err}
	}
}

// WriteRecording writes scn as a scenario file: to path when given (replacing it), otherwise
// into dir as cortex-<scenario>-<strategy>-seed<seed>.toml, -2, -3, ... when taken. It returns
// the path written.
func WriteRecording(scn scenarios.Scenario, path, dir string) (string, error) {
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

// Picture returns the command that writes a screen drawn as svg and as text into dir as
// base.svg and base.txt (-2, -3, ... when taken).
func Picture(svg, text []byte, base, dir string) tea.Cmd {
	return func() tea.Msg {
		paths, err := report.ExportFiles(dir, base, []string{".svg", ".txt"}, [][]byte{svg, text})
		return PicturedMsg{Paths: paths, Err: err}
	}
}

// Summary says where files went in one short line: the directory once, then each run's file
// name with every extension, e.g. "exported to /tmp: cortex-x-cortex-1.csv + .json".
func Summary(paths []string) string {
	if len(paths) == 0 {
		return "nothing exported"
	}
	dir := filepath.Dir(paths[0])
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	var names, stems []string // each run's files, and their name without extension
	for _, p := range paths {
		base := filepath.Base(p)
		ext := filepath.Ext(base)
		if stem := strings.TrimSuffix(base, ext); len(stems) > 0 && stems[len(stems)-1] == stem {
			names[len(names)-1] += " + " + ext
			continue
		}
		names, stems = append(names, base), append(stems, strings.TrimSuffix(base, ext))
	}
	return fmt.Sprintf("exported to %s: %s", dir, strings.Join(names, ", "))
}
