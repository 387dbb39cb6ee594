package tui

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/report"
)

// exported is how the footer names the files of one run's export at stem: the first format's
// file, then every other extension of report.ExportFormats ("stem.csv + .json").
func exported(stem string) string {
	s := ""
	for i, f := range report.ExportFormats() {
		if i == 0 {
			s = stem + f.Ext
		} else {
			s += " + " + f.Ext
		}
	}
	return s
}

// exportFiles lists the files of one run's export at stem, one per format.
func exportFiles(stem string) []string {
	var out []string
	for _, f := range report.ExportFormats() {
		out = append(out, stem+f.Ext)
	}
	return out
}

// exportOnce presses e on m and delivers the export's result, returning the footer's status.
func exportOnce(t *testing.T, m *Model) string {
	t.Helper()
	_, cmd := m.Update(keyMsg("e"))
	require.NotNil(t, cmd)
	m.Update(cmd())
	return m.footer.Status()
}

// Asserts that `e` never replaces a file: a second and a third export of the same run go to
// -2 and -3 (the same suffix for the .csv and .json of a pair), the footer names the files
// written, and the earlier files keep their content.
func TestExportNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	ff := &fakeFactory{}
	scn := fakeScenario()
	m := New(Options{Keys: testKeys(), Factory: ff.build, Scenario: &scn, ExportDir: dir})
	m.Update(tea.WindowSizeMsg{Width: 140, Height: 40})
	advanceFrames(m, 10)

	assert.Equal(t, "exported to "+dir+": "+exported("cortex-fake-storm-cortex-seed7"), exportOnce(t, m))
	first, err := os.ReadFile(filepath.Join(dir, "cortex-fake-storm-cortex-seed7.csv"))
	require.NoError(t, err)
	advanceFrames(m, 10)
	assert.Equal(t, "exported to "+dir+": "+exported("cortex-fake-storm-cortex-seed7-2"), exportOnce(t, m))
	assert.Equal(t, "exported to "+dir+": "+exported("cortex-fake-storm-cortex-seed7-3"), exportOnce(t, m))

	again, err := os.ReadFile(filepath.Join(dir, "cortex-fake-storm-cortex-seed7.csv"))
	require.NoError(t, err)
	assert.Equal(t, string(first), string(again), "the first export is untouched")
	later, err := os.ReadFile(filepath.Join(dir, "cortex-fake-storm-cortex-seed7-2.csv"))
	require.NoError(t, err)
	assert.Greater(t, len(later), len(first), "the second export has the later rows")
	all := append(append(exportFiles("cortex-fake-storm-cortex-seed7"), exportFiles("cortex-fake-storm-cortex-seed7-2")...),
		exportFiles("cortex-fake-storm-cortex-seed7-3")...)
	assert.ElementsMatch(t, all, names(t, dir), "no temporary file is left behind")
}

// names lists the files of dir.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

// Asserts that the export writes every format of report.ExportFormats (each one with an
// extension in report.ResultFormats), each file what that format's writer prints for the run.
func TestExportWritesEveryFormat(t *testing.T) {
	dir := t.TempDir()
	ff := &fakeFactory{}
	scn := fakeScenario()
	m := New(Options{Keys: testKeys(), Factory: ff.build, Scenario: &scn, ExportDir: dir})
	m.Update(tea.WindowSizeMsg{Width: 140, Height: 40})
	advanceFrames(m, 10)
	exportOnce(t, m)
	formats := report.ExportFormats()
	require.NotEmpty(t, formats)
	for _, f := range formats {
		got, err := os.ReadFile(filepath.Join(dir, "cortex-fake-storm-cortex-seed7"+f.Ext))
		require.NoError(t, err, "the %s file", f.Name)
		assert.NotEmpty(t, got, f.Name)
	}
	assert.Len(t, names(t, dir), len(formats), "one file per format")
}
